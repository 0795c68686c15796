"""The SQL side of the vector index: the queue, the ledger (`index_rows`) and index settings.

Everything here runs inside a session the caller opened, so the indexer can read a batch
in one read transaction and commit its bookkeeping in one write transaction. "Live" rows
are the ones the index must hold: active and archived memories with text, and message and
compact entries of the tape that were not erased.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlmodel import Session

from app.db import Tx, dbapi, is_postgres
from app.tape import EMBEDDED_KINDS

LIVE_STATUSES = ("active", "archived")
# Long tape messages are cut before embedding: sentence encoders read a few hundred tokens
# at most, and a 50k-character paste would only cost time.
MAX_EMBED_CHARS = 2000

META_EMBEDDER = "index.embedder"  # the home's embedder spec (default DEFAULT_EMBEDDER)
META_TARGET = "index.target"  # spec of the model being built by a rebuild, if any
META_CURSOR = "index.rebuild_cursor"  # JSON {"memory": last id, "tape": last id}
META_LAST_RUN = "index.last_run"  # JSON stats of the last indexer run
META_DIMS = "index.dims"  # JSON {model name: dimension}, learned when an index opens
META_HEALED = "index.healed"  # JSON {"at", "because"}: the last rebuild after damage

_KIND_IN = ", ".join(f"'{k}'" for k in EMBEDDED_KINDS)
_STATUS_IN = ", ".join(f"'{s}'" for s in LIVE_STATUSES)


@dataclass(frozen=True)
class Item:
    """One row to embed (or, when `live` is false, whose vector must go)."""

    kind: str
    id: int
    agent_id: int
    text: str
    content_hash: str
    live: bool


def _exec(s: Session, sql: str, params: dict[str, Any] | None = None) -> Any:
    return s.connection().execute(text(sql), params or {})


# -- meta -----------------------------------------------------------------------


def get_meta(s: Tx, key: str) -> str | None:
    # The driver directly: every semantic query reads the home's embedder setting.
    row = dbapi(s).execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None or row[0] is None else str(row[0])


def set_meta(s: Session, key: str, value: str | None) -> None:
    if value is None:
        _exec(s, "DELETE FROM meta WHERE key = :k", {"k": key})
        return
    _exec(
        s,
        "INSERT INTO meta (key, value) VALUES (:k, :v) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        {"k": key, "v": value},
    )


def get_json(s: Session, key: str) -> Any:
    raw = get_meta(s, key)
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def set_json(s: Session, key: str, value: Any) -> None:
    set_meta(s, key, None if value is None else json.dumps(value, sort_keys=True))


# -- reading rows -------------------------------------------------------------------


def _clip(body: str) -> str:
    return body if len(body) <= MAX_EMBED_CHARS else body[:MAX_EMBED_CHARS]


def load_items(s: Session, kind: str, ids: Sequence[int]) -> dict[int, Item]:
    """The rows `ids` of `kind` as Items; ids whose row is gone are absent."""
    if not ids:
        return {}
    marks = ", ".join(str(int(i)) for i in ids)
    if kind == "memory":
        rows = _exec(
            s,
            f"SELECT id, agent_id, text, content_hash, status FROM memories WHERE id IN ({marks})",
        ).all()
        return {
            int(r[0]): Item(
                "memory", int(r[0]), int(r[1]), _clip(r[2]), r[3],
                r[4] in LIVE_STATUSES and bool(r[2].strip()),
            )
            for r in rows
        }  # fmt: skip
    rows = _exec(
        s,
        "SELECT id, agent_id, content, content_hash, kind, erased_at FROM tape_entries "
        f"WHERE id IN ({marks})",
    ).all()
    return {
        int(r[0]): Item(
            "tape", int(r[0]), int(r[1]), _clip(r[2]), r[3],
            r[4] in EMBEDDED_KINDS and r[5] is None and bool(r[2].strip()),
        )
        for r in rows
    }  # fmt: skip


def live_after(s: Session, kind: str, after_id: int, n: int) -> list[Item]:
    """The next `n` live rows of `kind` with id > `after_id`, in id order (rebuild walk)."""
    if kind == "memory":
        sql = (
            "SELECT id, agent_id, text, content_hash FROM memories WHERE id > :after "
            f"AND status IN ({_STATUS_IN}) AND text != '' ORDER BY id LIMIT :n"
        )
    else:
        sql = (
            "SELECT id, agent_id, content, content_hash FROM tape_entries WHERE id > :after "
            f"AND kind IN ({_KIND_IN}) AND erased_at IS NULL AND content != '' "
            "ORDER BY id LIMIT :n"
        )
    rows = _exec(s, sql, {"after": after_id, "n": n}).all()
    return [Item(kind, int(r[0]), int(r[1]), _clip(r[2]), r[3], True) for r in rows]


# -- the queue ------------------------------------------------------------------------


def queue_batch(s: Session, n: int) -> list[tuple[str, int]]:
    """The `n` oldest queue rows: (kind, item_id), in the order of the queue's index
    (enqueued_at, then rowid: the order rows were queued in), so a batch is a walk of
    `n` index entries. Ordering ties by (kind, item_id) instead made SQLite sort every
    row of one timestamp on each call: a bulk import queues 100k rows with one
    timestamp, and each batch of its drain cost 60 ms."""
    sql = "SELECT kind, item_id FROM embed_queue ORDER BY enqueued_at, rowid LIMIT ?"
    if is_postgres(s):  # no rowid: its index on the age holds (kind, item_id) for the ties
        sql = "SELECT kind, item_id FROM embed_queue ORDER BY enqueued_at, kind, item_id LIMIT ?"
    return [(str(r[0]), int(r[1])) for r in dbapi(s).execute(sql, (n,))]


def queue_at_least(s: Session, n: int) -> bool:
    """Whether `n` or more rows are queued (reads at most `n` index entries)."""
    if n <= 0:
        return True
    sql = "SELECT count(*) FROM (SELECT 1 FROM embed_queue LIMIT ?) AS queued"
    return int(dbapi(s).execute(sql, (n,)).fetchone()[0]) >= n


def queue_stats(s: Session) -> dict[str, Any]:
    rows = _exec(s, "SELECT kind, count(*), min(enqueued_at) FROM embed_queue GROUP BY kind")
    out: dict[str, Any] = {"memory": 0, "tape": 0, "oldest": None}
    for kind, count, oldest in rows:
        out[str(kind)] = int(count)
        if oldest is not None and (out["oldest"] is None or oldest < out["oldest"]):
            out["oldest"] = str(oldest)
    return out


def queue_has(s: Tx, kind: str, agent_id: int) -> bool:
    sql = "SELECT 1 FROM embed_queue WHERE kind = ? AND agent_id = ? LIMIT 1"
    return dbapi(s).execute(sql, (kind, agent_id)).fetchone() is not None


def settle(
    s: Session,
    model_names: Sequence[str],
    embedded: Iterable[Item],
    gone: Iterable[tuple[str, int]],
    now: str,
    *,
    dequeue: bool,
) -> None:
    """Record what the index now holds for `model_names` and, with `dequeue`, take those
    rows off the queue. A queue row is removed only if the row still has the text that
    was embedded: an edit made meanwhile stays queued for the next run."""
    conn = dbapi(s)
    done = list(embedded)
    for model in model_names:
        if done:
            conn.executemany(
                "INSERT INTO index_rows (model, kind, item_id, agent_id, content_hash, "
                "indexed_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (model, kind, item_id) DO "
                "UPDATE SET content_hash = excluded.content_hash, indexed_at = excluded.indexed_at",
                [(model, i.kind, i.id, i.agent_id, i.content_hash, now) for i in done],
            )
    dead = list(gone)
    if dead:
        conn.executemany(
            "DELETE FROM index_rows WHERE kind = ? AND item_id = ?", [(k, i) for k, i in dead]
        )
    if not dequeue:
        return
    if dead:
        conn.executemany(
            "DELETE FROM embed_queue WHERE kind = ? AND item_id = ?", [(k, i) for k, i in dead]
        )
    for kind, table in (("memory", "memories"), ("tape", "tape_entries")):
        rows = [(i.id, i.id, i.content_hash) for i in done if i.kind == kind]
        if rows:
            conn.executemany(
                f"DELETE FROM embed_queue WHERE kind = '{kind}' AND item_id = ? AND EXISTS "
                f"(SELECT 1 FROM {table} WHERE id = ? AND content_hash = ?)",
                rows,
            )


# -- the ledger -----------------------------------------------------------------------


def indexed_counts(s: Session, model: str) -> dict[str, int]:
    rows = _exec(
        s, "SELECT kind, count(*) FROM index_rows WHERE model = :m GROUP BY kind", {"m": model}
    )
    out = {"memory": 0, "tape": 0}
    out.update({str(k): int(n) for k, n in rows})
    return out


def has_indexed(s: Tx, model: str, kind: str, agent_id: int) -> bool:
    # On every semantic query: the driver directly (text() compiles cost more).
    sql = "SELECT 1 FROM index_rows WHERE model = ? AND kind = ? AND agent_id = ? LIMIT 1"
    return dbapi(s).execute(sql, (model, kind, agent_id)).fetchone() is not None


def live_counts(s: Session) -> dict[str, int]:
    """How many rows the index should hold per kind (for rebuild progress)."""
    memories = _exec(
        s, f"SELECT count(*) FROM memories WHERE status IN ({_STATUS_IN}) AND text != ''"
    ).scalar()
    entries = _exec(
        s,
        f"SELECT count(*) FROM tape_entries WHERE kind IN ({_KIND_IN}) AND erased_at IS NULL "
        "AND content != ''",
    ).scalar()
    return {"memory": int(memories or 0), "tape": int(entries or 0)}


def has_live(s: Tx, kind: str, agent_id: int) -> bool:
    # The driver: `context` asks this (agent with rows, none embedded yet) inside its
    # driver-level read (`Runtime.read_driver`).
    if kind == "memory":
        sql = (
            f"SELECT 1 FROM memories WHERE agent_id = ? AND status IN ({_STATUS_IN}) "
            "AND text != '' LIMIT 1"
        )
    else:
        sql = (
            f"SELECT 1 FROM tape_entries WHERE agent_id = ? AND kind IN ({_KIND_IN}) "
            "AND erased_at IS NULL AND content != '' LIMIT 1"
        )
    return dbapi(s).execute(sql, (agent_id,)).fetchone() is not None


def indexed_among(s: Session, kind: str, ids: Sequence[int]) -> set[int]:
    """Which of `ids` have a vector of any model."""
    if not ids:
        return set()
    marks = ", ".join(str(int(i)) for i in ids)
    sql = f"SELECT DISTINCT item_id FROM index_rows WHERE kind = :k AND item_id IN ({marks})"
    return {int(r[0]) for r in _exec(s, sql, {"k": kind})}


def ledger_models(s: Session) -> list[str]:
    return [str(r[0]) for r in _exec(s, "SELECT DISTINCT model FROM index_rows")]


def ledger_ids(s: Session, model: str, kind: str) -> set[int]:
    rows = _exec(
        s,
        "SELECT item_id FROM index_rows WHERE model = :m AND kind = :k",
        {"m": model, "k": kind},
    )
    return {int(r[0]) for r in rows}


def ledger_after(s: Session, model: str, kind: str, after_id: int, n: int) -> list[tuple[int, int]]:
    """The next `n` ledger rows of `model` and `kind` after `after_id`: (item id, agent id)."""
    sql = (
        "SELECT item_id, agent_id FROM index_rows WHERE model = ? AND kind = ? AND item_id > ? "
        "ORDER BY item_id LIMIT ?"
    )
    return [(int(r[0]), int(r[1])) for r in dbapi(s).execute(sql, (model, kind, after_id, n))]


def forget_indexed(s: Session, model: str, rows: Iterable[tuple[str, int, int]], now: str) -> None:
    """Rows the ledger records but the index lacks, (kind, id, agent): out of the ledger
    and back in the queue (a row gone meanwhile leaves the queue at the next drain)."""
    items = list(rows)
    if items:
        dbapi(s).executemany(
            "DELETE FROM index_rows WHERE model = ? AND kind = ? AND item_id = ?",
            [(model, k, i) for k, i, _ in items],
        )
        requeue(s, items, now)


def count_missing(s: Session, model: str) -> int:
    """Live rows that `model`'s index lacks and that are not queued either."""
    total = 0
    for kind, table, alive in (
        ("memory", "memories", f"x.status IN ({_STATUS_IN}) AND x.text != ''"),
        (
            "tape",
            "tape_entries",
            f"x.kind IN ({_KIND_IN}) AND x.erased_at IS NULL AND x.content != ''",
        ),
    ):
        total += int(
            _exec(
                s,
                f"SELECT count(*) FROM {table} x WHERE {alive} AND NOT EXISTS (SELECT 1 FROM "
                "index_rows r WHERE r.model = :m AND r.kind = :kind AND r.item_id = x.id) AND "
                "NOT EXISTS (SELECT 1 FROM embed_queue q WHERE q.kind = :kind "
                "AND q.item_id = x.id)",
                {"m": model, "kind": kind},
            ).scalar()
            or 0
        )
    return total


def ledger_agents(s: Session, model: str, kind: str) -> dict[int, int]:
    """Every ledger row of `model` and `kind`: item id -> agent id."""
    sql = "SELECT item_id, agent_id FROM index_rows WHERE model = ? AND kind = ?"
    return {int(r[0]): int(r[1]) for r in dbapi(s).execute(sql, (model, kind))}


def drop_ledger(s: Session, model: str) -> None:
    _exec(s, "DELETE FROM index_rows WHERE model = :m", {"m": model})


def stale(
    s: Session, model: str, kinds: Sequence[str] = ("memory", "tape")
) -> tuple[list[tuple[str, int]], list[tuple[str, int, int]]]:
    """Ledger rows of `model` whose vector is wrong: (dead rows to delete, changed rows
    to re-embed as (kind, id, agent_id))."""
    dead: list[tuple[str, int]] = []
    changed: list[tuple[str, int, int]] = []
    for kind, table, body, alive in (
        ("memory", "memories", "x.text", f"x.status IN ({_STATUS_IN})"),
        ("tape", "tape_entries", "x.content", f"x.kind IN ({_KIND_IN}) AND x.erased_at IS NULL"),
    ):
        if kind not in kinds:
            continue
        rows = _exec(
            s,
            f"SELECT r.item_id, r.agent_id, x.id IS NOT NULL AND {alive} AND {body} != '', "
            f"x.content_hash = r.content_hash FROM index_rows r LEFT JOIN {table} x "
            f"ON x.id = r.item_id WHERE r.model = :m AND r.kind = '{kind}' AND NOT "
            f"(x.id IS NOT NULL AND {alive} AND {body} != '' AND x.content_hash = r.content_hash)",
            {"m": model},
        ).all()
        for item_id, agent_id, live, same in rows:
            if live and not same:
                changed.append((kind, int(item_id), int(agent_id)))
            else:
                dead.append((kind, int(item_id)))
    return dead, changed


def requeue_missing(
    s: Session, model: str, now: str, kinds: Sequence[str] = ("memory", "tape")
) -> int:
    """Queue every live row that `model`'s index lacks and that is not queued; returns
    how many were queued."""
    total = 0
    for kind, sql in (
        (
            "memory",
            "SELECT x.id, x.agent_id FROM memories x WHERE "
            f"x.status IN ({_STATUS_IN}) AND x.text != ''",
        ),
        (
            "tape",
            "SELECT x.id, x.agent_id FROM tape_entries x WHERE "
            f"x.kind IN ({_KIND_IN}) AND x.erased_at IS NULL AND x.content != ''",
        ),
    ):
        if kind not in kinds:
            continue
        result = _exec(
            s,
            "INSERT INTO embed_queue (kind, item_id, agent_id, enqueued_at) "
            f"SELECT '{kind}', x.id, x.agent_id, :now FROM ({sql}) x WHERE NOT EXISTS "
            "(SELECT 1 FROM index_rows r WHERE r.model = :m AND r.kind = :kind "
            "AND r.item_id = x.id) AND NOT EXISTS (SELECT 1 FROM embed_queue q "
            "WHERE q.kind = :kind AND q.item_id = x.id)",
            {"m": model, "kind": kind, "now": now},
        )
        total += int(result.rowcount or 0)
    return total


def requeue(s: Session, rows: Iterable[tuple[str, int, int]], now: str) -> None:
    items = list(rows)
    if items:
        dbapi(s).executemany(
            "INSERT INTO embed_queue (kind, item_id, agent_id, enqueued_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (kind, item_id) DO NOTHING",
            [(k, i, a, now) for k, i, a in items],
        )
