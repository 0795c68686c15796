# ruff: noqa: E501  (memories one per line)
"""Memories that should grow into skills, in English and Chinese, and how to learn them.

Shared by the engine, CLI, MCP and app tests of insights. Each text is remembered with a
tape entry of its own as its source, in its own turn, so the proposals' evidence leads back
to the tape as a real agent's would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# One memory per line reads best:
# fmt: off
DEPLOY_EN = [
    ("task_outcome", "deploy-2", "The Tuesday staging deploy broke the login page because the migration for the sessions table had not been applied yet."),
    ("lesson", "deploy-1", "Run the database migrations before deploying a new build to staging, not after it starts."),
    ("lesson", "deploy-1", "After a staging deploy, watch /healthz and the error rate for ten minutes before calling it done."),
    ("preference", "deploy-3", "Sam wants a short note in #deploys after every staging or production deploy: what shipped and the commit."),
]
DEPLOY_EN_MORE = (
    "task_outcome",
    "deploy-4",
    "Deployed build 2.14 to staging with the migrations applied first; health checks stayed green.",
)
SLOWSQL_ZH = [
    ("lesson", "db-1", "排查 MySQL 慢查询时先看慢查询日志，再用 EXPLAIN 看有没有走索引。"),
    ("task_outcome", "db-1", "订单列表接口慢是因为 created_at 上没有索引，加了联合索引后从 3 秒降到 80 毫秒。"),
    ("lesson", "db-2", "不要在生产库上直接跑没有 LIMIT 的大查询，先在从库上试。"),
    ("task_outcome", "db-3", "上周在从库上试跑统计 SQL，发现是全表扫描，改写成按天分批后正常。"),
]
# The same lesson in English and in Chinese, with a related one: one step, two citations.
CSV_MIXED = [
    ("lesson", "a", "Read CSV files over 1 GB with pandas in chunks (chunksize=100_000) instead of loading them whole."),
    ("lesson", "b", "超过 1GB 的 CSV 用 pandas 分块读取（chunksize），不要一次性读进内存。"),
    ("task_outcome", "a", "The sales export crashed the notebook with MemoryError until it was read in chunks with the dtypes set."),
    ("lesson", "c", "读数据时指定 dtype，把字符串列设为 category，内存能省一半以上。"),
]
# Unrelated to each other and to the groups above.
DISTRACTORS = [
    ("preference", "misc-1", "Sam likes the Solarized Dark theme in every terminal."),
    ("task_outcome", "misc-2", "Renamed the repository from billing-svc to invoices."),
    ("preference", "misc-3", "李姐喜欢听周杰伦的歌。"),
    ("project_fact", "misc-4", "The backend services are written in Go 1.22."),
]


# fmt: on


def learn(engine: Any, agent: str, items: Sequence[tuple[str, str, str]]) -> list[int]:
    """Agent `agent` remembers each (category, thread, text); returns the memory ids. Each
    is stored as a memory of its own: added, or kept beside a near one it may contradict
    (the arbiter raises a conflict for a translation it cannot tell from a contradiction)."""
    ids = []
    for category, thread, text in items:
        turn = f"t{len(engine.tape(agent, limit=1000)) + 1}"
        entry = engine.append(
            agent,
            [{"thread": thread, "turn": turn, "kind": "message", "role": "user", "text": text}],
        ).ids[0]
        made = engine.remember(agent, text, category, sources=[entry], thread=thread, turn=turn)
        stored = made.memory is not None and made.decision in ("add", "conflict")
        assert stored, (text, made.decision)
        assert made.memory is not None
        ids.append(made.memory.id)
    return ids


def proposal_for(report_or_list: Any, ids: Sequence[int]) -> Any:
    """The proposal whose evidence holds most of `ids` (None when none holds half)."""
    proposals = getattr(report_or_list, "proposals", report_or_list)
    best = max(proposals, key=lambda p: len(set(p.evidence) & set(ids)), default=None)
    if best is None or len(set(best.evidence) & set(ids)) * 2 < len(ids):
        return None
    return best
