"""When the vector index stops: since when, why, and what the owner reads about it.

A stall is recorded in `meta` (`index.stall`) by the indexer when a run fails and by the
check when it finds the index missing or unreadable, and cleared by the next run that
writes (or finds nothing to write). `index status`, `health` and the desktop dashboard
show it: "Index stalled since … because …", in English or Chinese. Where the database
cannot be written either (the same full disk), the stall is kept in the process that met
it. A stall carries a reason code and chromadb's or our own words, never row text.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from app.clock import from_iso, to_iso
from app.db import Tx
from app.errors import TapemindError
from app.index import rows
from app.runtime import Runtime

log = logging.getLogger(__name__)

META_STALL = "index.stall"  # JSON {"since", "because", "detail"}

# reason code -> (English, Chinese): why the index stopped.
REASONS: dict[str, tuple[str, str]] = {
    "disk_full": ("the disk holding the home is full", "主目录所在的磁盘已满"),
    "damaged": ("the index files are damaged", "索引文件已损坏"),
    "missing": ("the index directory is missing", "索引目录不见了"),
    "mismatch": (
        "the index holds this model's vectors with another dimension",
        "索引里这个模型的向量维度不一致",
    ),
    "not_answering": ("the vector store stopped answering", "向量库没有响应"),
    "crashed": ("the vector store process crashed", "向量库进程崩溃了"),
    "recovering": ("the vector store is restarting", "向量库正在重启"),
    "foreign": ("the index belongs to another home's database", "索引属于另一个主目录的数据库"),
    "embedder": ("the embedder failed", "嵌入模型出错"),
    "invalid": ("the indexer sent the store vectors it refused", "索引器写入的向量被拒绝"),
    "failed": ("a write to the index failed", "写入索引失败"),
}
# reason code -> (English, Chinese): what the owner can do (a person, at the CLI).
ADVICE: dict[str, tuple[str, str]] = {
    "disk_full": (
        "free some disk space; the indexer retries by itself",
        "请释放一些磁盘空间，索引器会自动重试",
    ),
    "damaged": (
        "Tapemind rebuilds it from the database (`tapemind index rebuild` does it now)",
        "Tapemind 会根据数据库重建索引（`tapemind index rebuild` 可立即重建）",
    ),
    "missing": (
        "Tapemind rebuilds it from the database (`tapemind index rebuild` does it now)",
        "Tapemind 会根据数据库重建索引（`tapemind index rebuild` 可立即重建）",
    ),
    "mismatch": (
        "run `tapemind index rebuild` to embed everything again with this model",
        "请运行 `tapemind index rebuild`，用这个模型重新嵌入全部内容",
    ),
    "foreign": (
        "run `tapemind index rebuild` to replace it with this home's own index",
        "请运行 `tapemind index rebuild`，换成这个主目录自己的索引",
    ),
}
_RETRIES = ("the indexer retries by itself", "索引器会自动重试")


@dataclass(frozen=True)
class IndexStall:
    """The vector index has not kept up since `since`, for reason `because` (a code of
    `REASONS`); `detail` is the failure in the store's words (no row text)."""

    since: datetime
    because: str
    detail: str = ""

    def message(self, lang: str = "en") -> str:
        """'Index stalled since … because …' in English (`lang` "en") or Chinese ("zh")."""
        return stall_message(self.because, self.since, lang)

    def to_dict(self) -> dict[str, Any]:
        return {"since": to_iso(self.since), "because": self.because, "detail": self.detail}


def stall_message(because: str, since: datetime, lang: str = "en") -> str:
    """The sentence a person reads about a stall, in English ("en") or Chinese ("zh")."""
    zh = lang.lower().startswith("zh")
    reason = REASONS.get(because, REASONS["failed"])[1 if zh else 0]
    advice = ADVICE.get(because, _RETRIES)[1 if zh else 0]
    when = since.strftime("%Y-%m-%d %H:%M")
    if zh:
        return f"索引自 {when} 起停滞，原因：{reason}。在此期间语义搜索改用全文搜索；{advice}。"
    return (
        f"Index stalled since {when} because {reason}. Semantic search answers from "
        f"full-text meanwhile; {advice}."
    )


def read(s: Tx) -> IndexStall | None:
    """The stall recorded in the database, if any."""
    raw = rows.get_meta(s, META_STALL)
    try:
        data = json.loads(raw) if raw else None
        if not isinstance(data, dict):
            return None
        return IndexStall(
            from_iso(data["since"]), str(data["because"]), str(data.get("detail", ""))
        )
    except (ValueError, KeyError, TypeError):
        return None


E = TypeVar("E", bound=Exception)


def not_ready(cls: type[E], because: str, where: str) -> E:
    """The error a semantic search raises when the store cannot answer (`cls` is
    `IndexNotReady`: what failed, what a person can do, what an agent can do)."""
    reason = REASONS.get(because, REASONS["failed"])[0]
    if because in ADVICE:
        person = ADVICE[because][0] + ", or search with --mode fulltext meanwhile."
    else:
        person = (
            "Tapemind retries by itself; search with --mode fulltext meanwhile, and run "
            "`tapemind index check` if this persists."
        )
    what = f"The vector index ({where}) cannot answer: {reason}"
    return cls(  # type: ignore[call-arg]
        what,
        person=person,
        agent='search with mode "fulltext" meanwhile, and tell the owner if this persists.',
    )


class Stalls:
    """The stall of one home as this process knows it: the database's record, or the
    one this process met where the database could not record it (a full disk)."""

    def __init__(self) -> None:
        self.held: IndexStall | None = None

    def current(self, s: Tx) -> IndexStall | None:
        return read(s) or self.held

    def note(self, rt: Runtime, because: str, detail: str) -> IndexStall:
        """Record that the index stalled for reason `because` (the first stall's time is
        kept while the index stays stalled); logged once per reason."""
        with rt.read() as s:
            before = self.current(s)
        since = before.since if before is not None else rt.clock.now()
        stall = IndexStall(since, because, detail[:500])
        if before is None or before.because != because:
            log.warning("the vector index stalled: %s (%s)", because, detail)
        self.held = stall
        try:
            with rt.write() as s:
                rows.set_json(s, META_STALL, stall.to_dict())
        except TapemindError:
            pass  # the disk is full: this process remembers it
        return stall

    def clear(self, rt: Runtime) -> None:
        """The index works again."""
        with rt.read() as s:
            recorded = read(s)
        if recorded is None and self.held is None:
            return
        self.held = None
        log.info("the vector index works again")
        if recorded is not None:
            try:
                with rt.write() as s:
                    rows.set_meta(s, META_STALL, None)
            except TapemindError:
                self.held = None  # cleared on the next run that can write


class IndexStalled(TapemindError):
    """The indexer could not write the vector index; nothing was lost (the rows stay
    queued). The message says since when, why, and what to do."""

    code = "index_stalled"
