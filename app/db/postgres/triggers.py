"""The embedded home's triggers, in PL/pgSQL: what every writer gets without asking.

- Memory class counts (migration 6): health counts memories by (agent, status, ever
  recalled, ever used) in O(1), so `memory_class_counts` follows every insert, delete and
  change of class in the same transaction as the change.
- Stale fade times (migration 3): `fade_at` (when a memory becomes an archive candidate)
  is computed in Python; it is cleared (NULL: to recompute) whenever an input of the
  formula changes, on the memory or in its agent's settings. Here the memory's own is
  cleared BEFORE the update (SQLite clears it with a second UPDATE after): the same
  result, one row version fewer.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import Connection, text

_CLASS_COUNTS = """
CREATE OR REPLACE FUNCTION tapemind_memory_class_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE memory_class_counts SET n = n - 1
        WHERE agent_id = OLD.agent_id AND status = OLD.status
          AND recalled = (OLD.recall_count > 0)::int AND used = (OLD.use_count > 0)::int;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO memory_class_counts (agent_id, status, recalled, used, n)
        VALUES (NEW.agent_id, NEW.status, (NEW.recall_count > 0)::int,
                (NEW.use_count > 0)::int, 1)
        ON CONFLICT (agent_id, status, recalled, used) DO UPDATE
            SET n = memory_class_counts.n + 1;
    END IF;
    RETURN NULL;
END $$
"""
_MEMORY_FADE = """
CREATE OR REPLACE FUNCTION tapemind_memory_fade_stale() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.fade_at := NULL;
    RETURN NEW;
END $$
"""
_AGENT_FADE = """
CREATE OR REPLACE FUNCTION tapemind_agent_fade_stale() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (OLD.settings::jsonb -> 'half_life_days') IS DISTINCT FROM
            (NEW.settings::jsonb -> 'half_life_days')
       OR (OLD.settings::jsonb -> 'archive_below') IS DISTINCT FROM
            (NEW.settings::jsonb -> 'archive_below')
       OR (OLD.settings::jsonb -> 'archive_idle_days') IS DISTINCT FROM
            (NEW.settings::jsonb -> 'archive_idle_days') THEN
        UPDATE memories SET fade_at = NULL WHERE agent_id = NEW.id AND fade_at IS NOT NULL;
    END IF;
    RETURN NULL;
END $$
"""
# (name, table, when it fires, the function it runs)
_TRIGGERS = (
    ("memories_class_insert", "memories", "AFTER INSERT", "tapemind_memory_class_counts"),
    ("memories_class_delete", "memories", "AFTER DELETE", "tapemind_memory_class_counts"),
    ("memories_class_update", "memories",
     "AFTER UPDATE OF status, recall_count, use_count",
     "tapemind_memory_class_counts"),
    ("memories_fade_stale", "memories",
     "BEFORE UPDATE OF created_at, last_recalled_at, last_used_at, last_reinforced_at, "
     "importance, use_count",
     "tapemind_memory_fade_stale"),
    ("agents_fade_stale", "agents", "AFTER UPDATE OF settings", "tapemind_agent_fade_stale"),
)  # fmt: skip
_CONDITIONS = {
    "memories_class_update": "OLD.status IS DISTINCT FROM NEW.status "
    "OR (OLD.recall_count > 0) IS DISTINCT FROM (NEW.recall_count > 0) "
    "OR (OLD.use_count > 0) IS DISTINCT FROM (NEW.use_count > 0)",
    "memories_fade_stale": "NEW.fade_at IS NOT NULL",
}
TRIGGER_NAMES = tuple(name for name, *_ in _TRIGGERS)


def create(conn: Connection) -> None:
    """Create (or replace) the triggers, inside the caller's transaction. A trigger
    already there as written here is left alone: replacing one locks its table against
    every other host's reads and writes until the transaction ends, and every open of a
    home runs this (each trigger's comment holds a digest of its definition)."""
    for body in (_CLASS_COUNTS, _MEMORY_FADE, _AGENT_FADE):
        conn.execute(text(body))
    rows = conn.execute(
        text(
            "SELECT t.tgname, obj_description(t.oid, 'pg_trigger') FROM pg_trigger t "
            "WHERE t.tgrelid = ANY(CAST(:tables AS regclass[])) AND NOT t.tgisinternal"
        ),
        {"tables": sorted({table for _, table, *_ in _TRIGGERS})},
    ).all()
    held: dict[str, str | None] = {str(name): digest for name, digest in rows}
    for name, table, when, function in _TRIGGERS:
        condition = f" WHEN ({_CONDITIONS[name]})" if name in _CONDITIONS else ""
        ddl = (
            f"CREATE TRIGGER {name} {when} ON {table} FOR EACH ROW{condition} "
            f"EXECUTE FUNCTION {function}()"
        )
        digest = hashlib.sha256(ddl.encode()).hexdigest()[:16]
        if held.get(name) == digest:
            continue
        conn.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
        conn.execute(text(ddl))
        conn.execute(text(f"COMMENT ON TRIGGER {name} ON {table} IS '{digest}'"))
