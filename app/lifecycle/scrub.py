"""A value stored in the vault is taken out of everything written before it was a secret.

Redaction on write covers what comes after `vault set`; a value an agent wrote while it
was still an ordinary string stayed in plain text in the tape, the memories, their full-
text rows, the export. `scrub` goes through what was written and replaces every form of
the new value (as `app.vault.redact` finds them: any case, split by whitespace, simply
encoded) in:

- what an agent reads (tape entries' text, labels and meta; memories' text, labels and
  versions; grown skills' versions and the drafts of proposals, which become a skill's
  text when accepted): with ``[secret:NAME]`` where that agent was given the secret, else
  ``[secret]`` (`app.vault.echoes`);
- what only the owner reads (recall queries, access requests, arbiter and conflict
  reasons): with ``[secret:NAME]``.

A changed row gets its hash, full-text row and embedding again; the full-text tables are
then merged and the WAL checkpointed, so the old words linger neither in index segments
nor in page images. It reads in batches and writes each batch in its own short
transaction: an agent's write waits for one batch at most. An entry erased meanwhile
stays erased (every update checks the row is still what was read).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from app.db import column_list, dbapi, purge, put_terms
from app.memory import index_memory_text
from app.runtime import Runtime
from app.tape import EMBEDDED_KINDS
from app.text import entry_hash, memory_hash
from app.text import text_terms as terms_of
from app.vault import Redactor, echoes, service

BATCH = 2_000

# The labels are rewritten too: a thread, turn or user name can hold the value.
ENTRIES_SQL = (
    'SELECT id, agent_id, kind, content, content_hash, meta, thread, turn, "user" '
    "FROM tape_entries WHERE id > ? AND erased_at IS NULL ORDER BY id LIMIT ?"
)
# Only a row still holding what was read is rewritten: an erase or an edit meanwhile wins.
REWRITE_ENTRY_SQL = (
    "UPDATE tape_entries SET content = ?, content_hash = ?, meta = ?, thread = ?, "
    'turn = ?, "user" = ? WHERE id = ? AND erased_at IS NULL AND content_hash = ?'
)
MEMORIES_SQL = (
    'SELECT id, agent_id, text, content_hash, status, thread, turn, "user" FROM memories '
    "WHERE id > ? ORDER BY id LIMIT ?"
)
REWRITE_MEMORY_SQL = (
    "UPDATE memories SET text = ?, content_hash = ?, thread = ?, turn = ?, "
    '"user" = ? WHERE id = ? AND content_hash = ?'
)


@dataclass(frozen=True)
class Scrubbed:
    """How many rows held the value and now hold a marker instead."""

    entries: int = 0
    memories: int = 0
    other: int = 0  # recall queries, access requests, reasons: what only the owner reads
    skills: int = 0  # grown skills' versions and proposals' drafts

    def __bool__(self) -> bool:
        return bool(self.entries or self.memories or self.other or self.skills)


Shown = Callable[[int, str], bool]  # (agent id, secret name) -> may the marker name it


def scrub(rt: Runtime, names: Sequence[str]) -> Scrubbed:
    """Replace the values of secrets `names` wherever they were written (module doc)."""
    vault = rt.services.get(service.VAULT)
    if vault is None or not names:
        return Scrubbed()
    values = {n: v for n, v in vault.all_values().items() if n in names}
    redactor = Redactor(values)
    if not values or len(redactor.unprotected) == len(values):
        return Scrubbed()
    shown = _given(rt)
    result = Scrubbed(
        entries=_entries(rt, redactor, shown),
        memories=_memories(rt, redactor, shown),
        other=_owner_texts(rt, redactor),
        skills=_skills(rt, redactor, shown),
    )
    if result:
        with rt.write() as s:
            purge(dbapi(s), "tape_fts")
            purge(dbapi(s), "memory_fts")
        rt.store.checkpoint()
    return result


def _given(rt: Runtime) -> Shown:
    known: dict[tuple[int, str], bool] = {}
    now = rt.now_iso()

    def shown(agent_id: int, name: str) -> bool:
        if (agent_id, name) not in known:
            with rt.read_driver() as s:
                known[(agent_id, name)] = name in echoes.given(s, agent_id, [name], now)
        return known[(agent_id, name)]

    return shown


def _batches(rt: Runtime, sql: str, width: int = 1) -> Iterator[list[tuple[Any, ...]]]:
    """The rows of `sql` (which selects its key's `width` columns first, takes `?` for
    each of the last key's and is ordered by the key), BATCH at a time, each batch read
    in its own transaction. A version's key is (its row's id, the version): no rowid,
    which PostgreSQL does not have."""
    last: tuple[Any, ...] = (0,) * width
    while True:
        with rt.read_driver() as s:
            rows = dbapi(s).execute(sql, (*last, BATCH)).fetchall()
        if not rows:
            return
        yield rows
        last = tuple(rows[-1][:width])


def _text(redactor: Redactor, value: str | None, name_shown: Callable[[str], bool]) -> str | None:
    if not value:
        return value
    return redactor.scan(value, name_shown).text


def _meta(redactor: Redactor, stored: str | None, name_shown: Callable[[str], bool]) -> str | None:
    """Stored meta JSON with the value taken out of every string (keys included)."""
    if not stored:
        return stored

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return redactor.scan(value, name_shown).text
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return json.dumps(walk(json.loads(stored)), ensure_ascii=False)


def _entries(rt: Runtime, redactor: Redactor, shown: Shown) -> int:
    changed = 0
    for rows in _batches(rt, ENTRIES_SQL):
        updates = []
        for row_id, agent_id, kind, content, digest, meta, *labels in rows:
            name_shown = _for(shown, agent_id)
            body = _text(redactor, content, name_shown) or ""
            new = (body, _meta(redactor, meta, name_shown), *(
                _text(redactor, label, name_shown) for label in labels
            ))  # fmt: skip
            if new != (content, meta, *labels):
                updates.append((row_id, agent_id, kind, digest, new))
        if updates:
            changed += _write_entries(rt, updates)
    return changed


def _for(shown: Shown, agent_id: int) -> Callable[[str], bool]:
    return lambda name: shown(agent_id, name)


def _write_entries(rt: Runtime, updates: Sequence[tuple[Any, ...]]) -> int:
    now = rt.now_iso()
    done = 0
    with rt.write_driver() as s:
        db = dbapi(s)
        for row_id, agent_id, kind, digest, (body, meta, thread, turn, user) in updates:
            cur = db.execute(
                REWRITE_ENTRY_SQL,
                (body, entry_hash(body), meta, thread, turn, user, row_id, digest),
            )
            if not cur.rowcount:
                continue  # erased meanwhile
            done += 1
            put_terms(db, "tape_fts", [(row_id, agent_id, terms_of(body))], replace=True)
            if kind in EMBEDDED_KINDS and body.strip():
                db.execute(
                    "INSERT INTO embed_queue (kind, item_id, agent_id, enqueued_at) "
                    "VALUES ('tape', ?, ?, ?) "
                    "ON CONFLICT (kind, item_id) DO UPDATE SET enqueued_at = excluded.enqueued_at",
                    (row_id, agent_id, now),
                )
    return done


def _memories(rt: Runtime, redactor: Redactor, shown: Shown) -> int:
    changed: set[int] = set()
    for rows in _batches(rt, MEMORIES_SQL):
        updates = []
        for row_id, agent_id, body, digest, status, *labels in rows:
            name_shown = _for(shown, agent_id)
            new = tuple(_text(redactor, v, name_shown) for v in (body, *labels))
            if new != (body, *labels):
                updates.append((row_id, agent_id, digest, status, new))
        if updates:
            changed.update(_write_memories(rt, updates))
    sql = (
        "SELECT v.memory_id, v.version, m.agent_id, v.text FROM memory_versions v "
        "JOIN memories m ON m.id = v.memory_id WHERE (v.memory_id, v.version) > (?, ?) "
        "ORDER BY v.memory_id, v.version LIMIT ?"
    )
    for rows in _batches(rt, sql, width=2):
        fixed = [
            (clean, memory_hash(clean), memory_id, version)
            for memory_id, version, agent_id, body in rows
            if (clean := _text(redactor, body, _for(shown, agent_id)) or "") != body
        ]
        if fixed:
            with rt.write_driver() as s:
                dbapi(s).executemany(
                    "UPDATE memory_versions SET text = ?, content_hash = ? "
                    "WHERE memory_id = ? AND version = ?",
                    fixed,
                )
            changed.update(f[2] for f in fixed)
    return len(changed)


def _write_memories(rt: Runtime, updates: Sequence[tuple[Any, ...]]) -> list[int]:
    now = rt.now_iso()
    done = []
    with rt.write() as s:
        db = dbapi(s)
        for row_id, agent_id, digest, status, (body, thread, turn, user) in updates:
            cur = db.execute(
                REWRITE_MEMORY_SQL,
                (body, memory_hash(body or ""), thread, turn, user, row_id, digest),
            )
            if cur.rowcount:
                done.append(row_id)
                if status != "forgotten":
                    index_memory_text(s, row_id, body or "", agent_id, now)
    return done


# (table, its key, the columns of text only the owner reads)
OWNER_TEXTS = (
    ("recalls", "id", ("query", "thread", "user")),
    ("access_requests", "id", ("reason", "decision_reason")),
    ("decisions", "id", ("reason", "reason_params")),
    ("conflicts", "id", ("reason", "reason_params")),
)


def owner_texts_sql(table: str, key: str, columns: Sequence[str]) -> str:
    """A batch of `table`'s rows with their owner-only texts, after a key."""
    listed = column_list(columns)
    return f"SELECT {key}, {listed} FROM {table} WHERE {key} > ? ORDER BY {key} LIMIT ?"


def owner_texts_update(table: str, key: str, columns: Sequence[str]) -> str:
    """The rewrite of one row's owner-only texts, the key last."""
    sets = ", ".join(f"{column_list([c])} = ?" for c in columns)
    return f"UPDATE {table} SET {sets} WHERE {key} = ?"


def _owner_texts(rt: Runtime, redactor: Redactor) -> int:
    changed = 0
    for table, key, columns in OWNER_TEXTS:
        sql = owner_texts_sql(table, key, columns)
        for rows in _batches(rt, sql):
            fixed = []
            for row_id, *texts in rows:
                new = [redactor.redact(t) if t else t for t in texts]
                if new != texts:
                    fixed.append((*new, row_id))
            if fixed:
                with rt.write_driver() as s:
                    dbapi(s).executemany(owner_texts_update(table, key, columns), fixed)
                changed += len(fixed)
    return changed


def _skills(rt: Runtime, redactor: Redactor, shown: Shown) -> int:
    """Grown skills' versions (text, description) and proposals' drafts (JSON) and notes.
    A skill's name is left as it is: it is a slug of ASCII words, and a marker is no name."""
    versions = _rewrite_pairs(
        rt,
        "SELECT v.skill_id, v.version, s.agent_id, v.text, v.description FROM skill_versions v "
        "JOIN skills s ON s.id = v.skill_id WHERE (v.skill_id, v.version) > (?, ?) "
        "ORDER BY v.skill_id, v.version LIMIT ?",
        "UPDATE skill_versions SET text = ?, description = ? WHERE skill_id = ? AND version = ?",
        lambda text, description, name_shown: (
            _text(redactor, text, name_shown),
            _text(redactor, description, name_shown),
        ),
        shown,
        width=2,
    )
    proposals = _rewrite_pairs(
        rt,
        "SELECT id, agent_id, draft, note FROM insight_proposals WHERE id > ? ORDER BY id LIMIT ?",
        "UPDATE insight_proposals SET draft = ?, note = ? WHERE id = ?",
        lambda draft, note, name_shown: (
            _meta(redactor, draft, name_shown),
            _text(redactor, note, name_shown),
        ),
        shown,
    )
    return versions + proposals


def _rewrite_pairs(
    rt: Runtime,
    select: str,
    update: str,
    redact: Callable[[Any, Any, Callable[[str], bool]], tuple[Any, Any]],
    shown: Shown,
    width: int = 1,
) -> int:
    """Rows of (key..., agent_id, a, b) from `select` (a key of `width` columns), batch
    by batch, written back with `update` (a, b, key...) where `redact` changed either
    field; how many changed."""
    changed = 0
    for rows in _batches(rt, select, width):
        fixed = []
        for row in rows:
            key, (agent_id, a, b) = row[:width], row[width:]
            new = redact(a, b, _for(shown, agent_id))
            if new != (a, b):
                fixed.append((*new, *key))
        if fixed:
            with rt.write_driver() as s:
                dbapi(s).executemany(update, fixed)
            changed += len(fixed)
    return changed
