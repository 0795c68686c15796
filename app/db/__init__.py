"""The database of a home: tables, numbered migrations, transactions.

- `store`: connections, pragmas (SQLite in WAL mode), write and read transactions, and the
  driver fast path (`dbapi`) hot paths use; `column_list` writes their raw SQL's lists of
  columns so one text serves SQLite and PostgreSQL (a keyword column quoted).
- `schema`: the SQLModel tables; `migrations`: the numbered schema changes.
- `fulltext`: the FTS5 tables, and what the engine writes into full-text search on
  either backend (`put_terms`, `drop_terms`); `ids`: new rows' ids; `filters`: a
  search's filters as SQL conditions.
- `home`: where a home lives and what makes a directory one.
- `postgres`: the same tables on PostgreSQL with pgvector (imported on demand, as
  `from app.db import postgres`: a home on SQLite never loads it).
- `rounds`: one host per round of a background job on a shared database.
- `integrity`: the quick check at every open, the full one of `tapemind doctor`; `disk`:
  a full disk told apart from other failures.
"""

import importlib
from typing import Any

from app.db import disk, fulltext, home, integrity, rounds
from app.db.filters import Filters, memory_conditions, tape_conditions
from app.db.fulltext import FTS_TABLES, drop_agent_terms, drop_terms, purge, put_terms, tsquery
from app.db.home import check_openable, db_path, doctor_home, is_home, keep_private, resolve
from app.db.ids import catch_up_sequences, next_ids
from app.db.integrity import DoctorReport, doctor
from app.db.order import write_order
from app.db.qmark import Qmark
from app.db.schema import (
    NOT_EXPORTED,
    NOT_EXPORTED_PREFIXES,
    SECRET_COLUMNS,
    AccessRequestRow,
    AgentRow,
    AuditRow,
    ConflictRow,
    DecisionRow,
    DistillStateRow,
    EmbedQueueRow,
    GrantRow,
    HealthSnapshotRow,
    LineageRow,
    MemoryRow,
    MemoryUseRow,
    MemoryVersionRow,
    ProvenanceRow,
    RecallRow,
    SecretRow,
    TapeEntryRow,
    VaultMetaRow,
    VaultRotationJournalRow,
)
from app.db.store import (
    KEYWORD_COLUMNS,
    Store,
    Tx,
    column_list,
    dbapi,
    id_list,
    is_postgres,
    json_field,
)

__all__ = [
    "FTS_TABLES",
    "KEYWORD_COLUMNS",
    "NOT_EXPORTED",
    "NOT_EXPORTED_PREFIXES",
    "SECRET_COLUMNS",
    "AccessRequestRow",
    "AgentRow",
    "AuditRow",
    "ConflictRow",
    "DecisionRow",
    "DistillStateRow",
    "DoctorReport",
    "EmbedQueueRow",
    "Filters",
    "GrantRow",
    "HealthSnapshotRow",
    "LineageRow",
    "MemoryRow",
    "MemoryUseRow",
    "MemoryVersionRow",
    "ProvenanceRow",
    "Qmark",
    "RecallRow",
    "SecretRow",
    "Store",
    "TapeEntryRow",
    "Tx",
    "VaultMetaRow",
    "VaultRotationJournalRow",
    "catch_up_sequences",
    "check_openable",
    "column_list",
    "db_path",
    "dbapi",
    "disk",
    "doctor",
    "doctor_home",
    "drop_agent_terms",
    "drop_terms",
    "fulltext",
    "home",
    "id_list",
    "integrity",
    "is_home",
    "is_postgres",
    "json_field",
    "keep_private",
    "memory_conditions",
    "next_ids",
    "postgres",
    "purge",
    "put_terms",
    "resolve",
    "rounds",
    "tape_conditions",
    "tsquery",
    "write_order",
]


def __getattr__(name: str) -> Any:
    """`postgres` on first use (PEP 562): a home on SQLite never loads it."""
    if name == "postgres":
        return importlib.import_module("app.db.postgres")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
