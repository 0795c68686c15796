"""Numbered schema migrations, recorded in the `migrations` table.

Each migration is a function taking a DBAPI-level SQLAlchemy connection inside
the upgrade transaction. Never edit a released migration: add the next number.
A home whose database records a migration this version does not know was made
by a newer Tapemind, and is refused rather than guessed at.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, text

Migration = Callable[[Connection], None]

MIGRATIONS: dict[int, tuple[str, Migration]] = {}


def migration(number: int, name: str) -> Callable[[Migration], Migration]:
    def register(fn: Migration) -> Migration:
        if number in MIGRATIONS:
            raise RuntimeError(f"migration {number} registered twice")
        MIGRATIONS[number] = (name, fn)
        return fn

    return register


def _run(conn: Connection, ddl: str) -> None:
    for statement in ddl.split(";\n"):
        if statement.strip():
            conn.execute(text(statement))


@migration(1, "core: agents, tape, memories, provenance, lineage, audit, full-text")
def m001_core(conn: Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE agents (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            settings TEXT NOT NULL,
            next_seq INTEGER NOT NULL DEFAULT 1,
            token_hash TEXT
        );
        CREATE TABLE tape_entries (
            id INTEGER PRIMARY KEY,
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            thread TEXT NOT NULL,
            turn TEXT,
            user TEXT,
            kind TEXT NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            meta TEXT,
            source_key TEXT,
            created_at TEXT NOT NULL,
            erased_at TEXT,
            UNIQUE (agent_id, seq)
        );
        CREATE INDEX tape_by_thread ON tape_entries (agent_id, thread, seq);
        CREATE INDEX tape_by_turn ON tape_entries (agent_id, turn, seq);
        CREATE INDEX tape_by_time ON tape_entries (agent_id, created_at);
        CREATE UNIQUE INDEX tape_by_source_key ON tape_entries (agent_id, source_key)
            WHERE source_key IS NOT NULL;
        CREATE TABLE memories (
            id INTEGER PRIMARY KEY,
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            category TEXT NOT NULL,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            importance REAL NOT NULL,
            confidence REAL NOT NULL,
            status TEXT NOT NULL,
            version INTEGER NOT NULL,
            thread TEXT,
            turn TEXT,
            user TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            recall_count INTEGER NOT NULL DEFAULT 0,
            use_count INTEGER NOT NULL DEFAULT 0,
            last_recalled_at TEXT,
            last_used_at TEXT,
            last_reinforced_at TEXT,
            archived_at TEXT,
            superseded_by INTEGER REFERENCES memories(id)
        );
        CREATE INDEX memories_by_status ON memories (agent_id, status, id);
        CREATE INDEX memories_by_category ON memories (agent_id, category, status, id);
        CREATE INDEX memories_by_hash ON memories (agent_id, content_hash);
        CREATE INDEX memories_by_thread ON memories (agent_id, thread, status);
        CREATE INDEX memories_by_user ON memories (agent_id, user, status);
        CREATE TABLE memory_versions (
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            version INTEGER NOT NULL,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            changed_at TEXT NOT NULL,
            changed_by TEXT NOT NULL,
            reason TEXT NOT NULL,
            PRIMARY KEY (memory_id, version)
        );
        CREATE TABLE provenance (
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            entry_id INTEGER NOT NULL REFERENCES tape_entries(id) ON DELETE CASCADE,
            PRIMARY KEY (memory_id, entry_id)
        );
        CREATE INDEX provenance_by_entry ON provenance (entry_id);
        CREATE TABLE lineage (
            child_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            parent_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            relation TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (child_id, parent_id, relation)
        );
        CREATE INDEX lineage_by_parent ON lineage (parent_id);
        CREATE TABLE audit (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            agent TEXT,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            object_ids TEXT NOT NULL,
            counts TEXT NOT NULL
        );
        CREATE INDEX audit_by_agent ON audit (agent, id);
        CREATE TABLE embed_queue (
            kind TEXT NOT NULL,
            item_id INTEGER NOT NULL,
            agent_id INTEGER NOT NULL,
            enqueued_at TEXT NOT NULL,
            PRIMARY KEY (kind, item_id)
        );
        CREATE INDEX embed_queue_by_age ON embed_queue (enqueued_at);
        CREATE TABLE memory_uses (
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            turn TEXT NOT NULL,
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            reported_at TEXT NOT NULL,
            PRIMARY KEY (agent_id, turn, memory_id)
        );
        CREATE VIRTUAL TABLE memory_fts USING fts5 (
            tokens, tokenize = 'unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE tape_fts USING fts5 (
            tokens, tokenize = 'unicode61 remove_diacritics 2')
        """,
    )


def latest() -> int:
    return max(MIGRATIONS)


@migration(2, "retrieval: recall records")
def m002_recalls(conn: Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE recalls (
            id INTEGER PRIMARY KEY,
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            at TEXT NOT NULL,
            mode TEXT NOT NULL,
            thread TEXT,
            user TEXT,
            query TEXT,
            budget INTEGER NOT NULL,
            tokens_used INTEGER NOT NULL,
            included INTEGER NOT NULL,
            dropped INTEGER NOT NULL,
            over_budget INTEGER NOT NULL,
            latency_ms REAL NOT NULL
        );
        CREATE INDEX recalls_by_agent ON recalls (agent_id, at);
        CREATE TABLE recall_items (
            recall_id INTEGER NOT NULL REFERENCES recalls(id) ON DELETE CASCADE,
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            rank INTEGER NOT NULL,
            included INTEGER NOT NULL,
            reason TEXT NOT NULL,
            score REAL NOT NULL,
            PRIMARY KEY (recall_id, memory_id)
        );
        CREATE INDEX recall_items_by_memory ON recall_items (memory_id)
        """,
    )


@migration(4, "vault: secrets, access requests, grants, rotation journal, vault meta")
def m004_vault(conn: Connection) -> None:
    # Every table here is private (app.transfer never exports "secret*", "vault*",
    # "grant*", "access_request*"). Values exist only as sealed blobs.
    _run(
        conn,
        """
        CREATE TABLE vault_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE secrets (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            tags TEXT NOT NULL,
            mode TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            blob BLOB NOT NULL,
            key_id TEXT NOT NULL
        );
        CREATE TABLE access_requests (
            id INTEGER PRIMARY KEY,
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            agent TEXT NOT NULL,
            secret_id TEXT REFERENCES secrets(id) ON DELETE SET NULL,
            secret TEXT NOT NULL,
            reason TEXT NOT NULL,
            session TEXT,
            mode TEXT NOT NULL,
            status TEXT NOT NULL,
            decided_by TEXT,
            decision_reason TEXT,
            scope TEXT,
            grant_id INTEGER,
            created_at TEXT NOT NULL,
            decided_at TEXT,
            expires_at TEXT NOT NULL,
            delivered_at TEXT
        );
        CREATE INDEX access_requests_by_status ON access_requests (status, id);
        CREATE INDEX access_requests_by_agent ON access_requests (agent_id, secret_id, status);
        CREATE TABLE grants (
            id INTEGER PRIMARY KEY,
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            agent TEXT NOT NULL,
            secret_id TEXT NOT NULL REFERENCES secrets(id) ON DELETE CASCADE,
            secret TEXT NOT NULL,
            scope TEXT NOT NULL,
            session TEXT,
            request_id INTEGER,
            created_at TEXT NOT NULL,
            revoked_at TEXT,
            used_count INTEGER NOT NULL DEFAULT 0,
            last_used_at TEXT
        );
        CREATE INDEX grants_by_agent ON grants (agent_id, secret_id, revoked_at);
        CREATE TABLE vault_rotation_journal (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            journal BLOB NOT NULL,
            created_at TEXT NOT NULL
        )
        """,
    )
