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
    # Every table here is private (app.transfer.jsonl never exports "secret*", "vault*",
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


@migration(3, "lifecycle: decisions, conflicts, health snapshots, distiller watermark, fade time")
def m003_lifecycle(conn: Connection) -> None:
    # fade_at: when an active memory becomes an archive candidate (app.memory.strength.fade_time).
    # Python computes it; these triggers only clear it (NULL = to recompute) whenever an input
    # of the formula changes, so every writer (recall, use, reinforcement, settings) is covered
    # without duplicating the formula in SQL (SQLite's math functions are not built everywhere).
    _run(
        conn,
        """
        ALTER TABLE memories ADD COLUMN fade_at TEXT;
        CREATE INDEX memories_by_fade ON memories (agent_id, status, fade_at);
        CREATE INDEX memories_by_recall ON memories (agent_id, status, recall_count, use_count);
        CREATE INDEX memories_by_archived ON memories (agent_id, archived_at)
            WHERE archived_at IS NOT NULL;
        CREATE INDEX embed_queue_by_agent ON embed_queue (agent_id, enqueued_at);
        CREATE TRIGGER memories_fade_stale AFTER UPDATE OF
            created_at, last_recalled_at, last_used_at, last_reinforced_at, importance, use_count
            ON memories WHEN NEW.fade_at IS NOT NULL
            BEGIN UPDATE memories SET fade_at = NULL WHERE id = NEW.id; END;
        CREATE TRIGGER agents_fade_stale AFTER UPDATE OF settings ON agents
            WHEN json_extract(OLD.settings, '$.half_life_days')
                    IS NOT json_extract(NEW.settings, '$.half_life_days')
              OR json_extract(OLD.settings, '$.archive_below')
                    IS NOT json_extract(NEW.settings, '$.archive_below')
              OR json_extract(OLD.settings, '$.archive_idle_days')
                    IS NOT json_extract(NEW.settings, '$.archive_idle_days')
            BEGIN UPDATE memories SET fade_at = NULL
                WHERE agent_id = NEW.id AND fade_at IS NOT NULL; END;
        CREATE TABLE decisions (
            id INTEGER PRIMARY KEY,
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            at TEXT NOT NULL,
            candidate_hash TEXT NOT NULL,
            category TEXT NOT NULL,
            action TEXT NOT NULL,
            target_id INTEGER REFERENCES memories(id) ON DELETE SET NULL,
            memory_id INTEGER REFERENCES memories(id) ON DELETE SET NULL,
            conflict_id INTEGER,
            arbiter TEXT NOT NULL,
            reason TEXT NOT NULL,
            neighbours INTEGER NOT NULL,
            actor TEXT NOT NULL,
            latency_ms REAL NOT NULL
        );
        CREATE INDEX decisions_by_agent ON decisions (agent_id, at);
        CREATE TABLE conflicts (
            id INTEGER PRIMARY KEY,
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            existing_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            challenger_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            reason TEXT NOT NULL,
            arbiter TEXT NOT NULL,
            status TEXT NOT NULL,
            created_at TEXT NOT NULL,
            resolved_at TEXT,
            resolution TEXT,
            merged_id INTEGER REFERENCES memories(id) ON DELETE SET NULL,
            resolved_by TEXT
        );
        CREATE INDEX conflicts_by_agent ON conflicts (agent_id, status, created_at);
        CREATE INDEX conflicts_by_memory ON conflicts (existing_id);
        CREATE INDEX conflicts_by_challenger ON conflicts (challenger_id);
        CREATE TABLE health_snapshots (
            id INTEGER PRIMARY KEY,
            agent_id INTEGER REFERENCES agents(id) ON DELETE CASCADE,
            at TEXT NOT NULL,
            data TEXT NOT NULL
        );
        CREATE INDEX health_by_agent ON health_snapshots (agent_id, at);
        CREATE VIRTUAL TABLE memory_fts_vocab USING fts5vocab (memory_fts, 'row');
        CREATE TABLE memory_class_counts (
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            status TEXT NOT NULL,
            recalled INTEGER NOT NULL,
            used INTEGER NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (agent_id, status, recalled, used)
        );
        INSERT INTO memory_class_counts (agent_id, status, recalled, used, n)
            SELECT agent_id, status, recall_count > 0, use_count > 0, count(*) FROM memories
            GROUP BY agent_id, status, recall_count > 0, use_count > 0;
        CREATE TABLE distill_state (
            agent_id INTEGER PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
            last_seq INTEGER NOT NULL,
            updated_at TEXT NOT NULL,
            runs INTEGER NOT NULL DEFAULT 0,
            candidates INTEGER NOT NULL DEFAULT 0
        )
        """,
    )
    # Health counts memories by (status, ever recalled, ever used) in O(1): these triggers
    # keep memory_class_counts in step with every insert, delete and change of class, in
    # the same transaction as the change.
    add = (
        "INSERT INTO memory_class_counts (agent_id, status, recalled, used, n) "
        "VALUES (NEW.agent_id, NEW.status, NEW.recall_count > 0, NEW.use_count > 0, 1) "
        "ON CONFLICT (agent_id, status, recalled, used) DO UPDATE SET n = n + 1;"
    )
    sub = (
        "UPDATE memory_class_counts SET n = n - 1 WHERE agent_id = OLD.agent_id "
        "AND status = OLD.status AND recalled = (OLD.recall_count > 0) "
        "AND used = (OLD.use_count > 0);"
    )
    for ddl in (
        f"CREATE TRIGGER memories_class_insert AFTER INSERT ON memories BEGIN {add} END",
        f"CREATE TRIGGER memories_class_delete AFTER DELETE ON memories BEGIN {sub} END",
        "CREATE TRIGGER memories_class_update AFTER UPDATE OF status, recall_count, use_count "
        "ON memories WHEN OLD.status IS NOT NEW.status "
        "OR (OLD.recall_count > 0) IS NOT (NEW.recall_count > 0) "
        "OR (OLD.use_count > 0) IS NOT (NEW.use_count > 0) "
        f"BEGIN {sub} {add} END",
    ):
        conn.exec_driver_sql(ddl)


@migration(7, "index: which rows the vector index holds, per model")
def m007_index_rows(conn: Connection) -> None:
    # The vector index (chromadb) cannot join with SQLite, so this ledger says what it
    # holds: reconciling after a crash, counting, and finding stale vectors are then
    # cheap SQL instead of a scan of every collection. No foreign keys on purpose: a
    # row outlives its memory or entry until the indexer has deleted the vector.
    _run(
        conn,
        """
        CREATE TABLE index_rows (
            model TEXT NOT NULL,
            kind TEXT NOT NULL,
            item_id INTEGER NOT NULL,
            agent_id INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            indexed_at TEXT NOT NULL,
            PRIMARY KEY (model, kind, item_id)
        );
        CREATE INDEX index_rows_by_agent ON index_rows (model, kind, agent_id)
        """,
    )


@migration(8, "retrieval speed: indexes for the recent and core routes of context")
def m008_recall_routes(conn: Connection) -> None:
    # `context` asks on every turn for an agent's most recent active memories of a
    # thread and of a user, and for its strongest ones. Without these the 100k-memory
    # agent sorted ~2k (thread), ~14k (user) and 100k (core) rows per call. Partial
    # indexes: only active memories are recalled, so archived ones cost nothing here.
    _run(
        conn,
        """
        CREATE INDEX memories_recent_by_thread ON memories (agent_id, thread, updated_at)
            WHERE status = 'active';
        CREATE INDEX memories_recent_by_user ON memories (agent_id, user, updated_at)
            WHERE status = 'active';
        CREATE INDEX memories_core ON memories (agent_id, importance, updated_at)
            WHERE status = 'active'
        """,
    )


@migration(9, "full-text: a Latin word ends where a CJK run starts; tape term counts")
def m009_mixed_script_words(conn: Connection) -> None:
    # Rows written before held "postgres数据库" as one token, so "数据库" did not find
    # them: every full-text row is tokenized again under the current rules.
    from app.db.fulltext import rebuild

    rebuild(conn)
    # Search counts a common word's rows in the tape as it does in memories.
    _run(conn, "CREATE VIRTUAL TABLE tape_fts_vocab USING fts5vocab (tape_fts, 'row')")


@migration(10, "lineage: an index of memories by turn")
def m010_memories_by_turn(conn: Connection) -> None:
    # `used` at the end of a turn links the memories it names to those the turn already
    # remembered: one look-up by (agent, turn), which without this scanned the agent's rows.
    _run(
        conn,
        "CREATE INDEX memories_by_turn ON memories (agent_id, turn) WHERE turn IS NOT NULL",
    )


@migration(11, "insights: proposed skills, grown skills and their versions")
def m011_insights(conn: Connection) -> None:
    # A proposal keeps its draft as JSON (name, title, description, when to use it, steps
    # with the memory ids each cites) and the memories it was drawn from; a grown skill
    # keeps every accepted version's text and the memories (at which version) it rests on,
    # so a later edit, forget or supersede of one of them can be noticed.
    _run(
        conn,
        """
        CREATE TABLE skills (
            id INTEGER PRIMARY KEY,
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (agent_id, name)
        );
        CREATE TABLE skill_versions (
            skill_id INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
            version INTEGER NOT NULL,
            text TEXT NOT NULL,
            description TEXT NOT NULL,
            proposal_id INTEGER,
            edited INTEGER NOT NULL,
            accepted_at TEXT NOT NULL,
            PRIMARY KEY (skill_id, version)
        );
        CREATE TABLE skill_evidence (
            skill_id INTEGER NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
            version INTEGER NOT NULL,
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            memory_version INTEGER NOT NULL,
            PRIMARY KEY (skill_id, version, memory_id)
        );
        CREATE INDEX skill_evidence_by_memory ON skill_evidence (memory_id);
        CREATE TABLE insight_proposals (
            id INTEGER PRIMARY KEY,
            agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
            skill_id INTEGER REFERENCES skills(id) ON DELETE CASCADE,
            base_version INTEGER,
            reason TEXT NOT NULL,
            name TEXT NOT NULL,
            draft TEXT NOT NULL,
            writer TEXT NOT NULL,
            note TEXT,
            group_key TEXT NOT NULL,
            status TEXT NOT NULL,
            created_at TEXT NOT NULL,
            decided_at TEXT
        );
        CREATE INDEX insight_proposals_by_agent ON insight_proposals (agent_id, status, id);
        CREATE TABLE insight_evidence (
            proposal_id INTEGER NOT NULL REFERENCES insight_proposals(id) ON DELETE CASCADE,
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            PRIMARY KEY (proposal_id, memory_id)
        );
        CREATE INDEX insight_evidence_by_memory ON insight_evidence (memory_id)
        """,
    )


@migration(13, "access requests: the decision's reason as a code with parameters")
def m013_request_reason_codes(conn: Connection) -> None:
    # The reason beside `decision_reason`'s English: a client shows it in the owner's
    # language from the code, and the English stays what the audit and agents read.
    _run(
        conn,
        """
        ALTER TABLE access_requests ADD COLUMN reason_code TEXT;
        ALTER TABLE access_requests ADD COLUMN reason_params TEXT
        """,
    )


@migration(14, "retries: a remember carries the caller's key, so a retry is not a second one")
def m014_remember_keys(conn: Connection) -> None:
    # A host that commits a remember and dies before answering gets the same call again
    # from the client: with the key, the second call returns what the first did. Only
    # keyed calls are indexed (the importers' entries already have `source_key`).
    _run(
        conn,
        """
        ALTER TABLE decisions ADD COLUMN request_key TEXT;
        CREATE UNIQUE INDEX decisions_by_request_key ON decisions (agent_id, request_key)
            WHERE request_key IS NOT NULL
        """,
    )


@migration(15, "agents: writes refused for holding a vault value the agent was not given")
def m015_secret_echoes(conn: Connection) -> None:
    # An agent that writes values of the vault it was never given is either leaking them
    # or guessing; after a few such writes its writes are refused until the owner lets
    # it write again (app.vault.echoes). The count outlives restarts, so an agent cannot
    # reset it by starting its stdio server again.
    _run(conn, "ALTER TABLE agents ADD COLUMN secret_echoes INTEGER NOT NULL DEFAULT 0")


@migration(16, "decisions and conflicts: the arbiter's reason as a code with parameters")
def m016_decision_reason_codes(conn: Connection) -> None:
    # Beside `reason`'s English (what the audit, the CLI and agents read): a client says the
    # reason in the owner's language from the code. Rows from before keep their English only.
    _run(
        conn,
        """
        ALTER TABLE decisions ADD COLUMN reason_code TEXT;
        ALTER TABLE decisions ADD COLUMN reason_params TEXT;
        ALTER TABLE conflicts ADD COLUMN reason_code TEXT;
        ALTER TABLE conflicts ADD COLUMN reason_params TEXT
        """,
    )
