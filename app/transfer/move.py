"""A home's truth copied whole into another database: the same home, elsewhere.

An export carries every row a person owns (the tape, memories, decisions, conflicts,
audit, skills), and an import into an empty home writes them with their ids. A move
takes what an export leaves out on purpose too, because the home stays the same owner's:
its id (so the vault key in the keyring and the agent tokens still fit), the vault (the
values still encrypted under that key), the agents' token hashes and the embedder
setting. What is derived (the vector index, its queue and ledger, the class counts) is
rebuilt where the home goes. The copy is checked: the target's export must be the
source's, line for line, or it is refused.
"""

from __future__ import annotations

from itertools import zip_longest
from pathlib import Path

from sqlalchemy import delete, insert, select, update
from sqlmodel import SQLModel, col

from app.db import AgentRow, catch_up_sequences, write_order
from app.errors import InvalidInput
from app.runtime import Runtime
from app.transfer.jsonl import export_to_path, import_

# The vault's tables: not in an export, but the same home's.
VAULT_TABLES = ("vault_meta", "secrets", "access_requests", "grants", "vault_rotation_journal")
# The settings that belong to the home, not to its index's state.
KEPT_META = ("home_id", "keystore_kind", "key_id", "reviewer", "index.embedder")


def copy(source: Runtime, target: Runtime, work: Path) -> dict[str, int]:
    """Copy the home of `source` into `target`'s empty database, through export files
    in `work`; rows copied per table. Raises InvalidInput when the target is not empty
    or its export differs from the source's (the source is never changed)."""
    with target.store.read() as s:
        if s.execute(select(col(AgentRow.id)).limit(1)).first() is not None:
            raise InvalidInput(
                "That database already holds a Tapemind home: migrate into an empty one "
                "(create it with `createdb`). Nothing was changed."
            )
    before = work / "source.jsonl"
    export_to_path(source, before)
    counts = import_(target, before)
    tables = {t.name: t for t in SQLModel.metadata.sorted_tables}
    with source.store.read() as s:
        vault = {
            n: [dict(r) for r in s.execute(select(tables[n])).mappings()] for n in VAULT_TABLES
        }
        kept = tables["meta"].c
        meta = s.execute(select(kept.key, kept.value).where(kept.key.in_(KEPT_META))).all()
        tokens = s.execute(select(col(AgentRow.id), col(AgentRow.token_hash))).all()
    with target.write() as s:
        conn = s.connection()
        for name in write_order(conn, list(VAULT_TABLES)):
            if vault[name]:
                conn.execute(insert(tables[name]), vault[name])
        catch_up_sequences(conn, [n for n in VAULT_TABLES if "id" in tables[n].c])
        conn.execute(delete(tables["meta"]).where(tables["meta"].c.key.in_([k for k, _ in meta])))
        if meta:
            conn.execute(insert(tables["meta"]), [{"key": k, "value": v} for k, v in meta])
        for agent_id, token_hash in tokens:
            conn.execute(
                update(tables["agents"]).where(tables["agents"].c.id == agent_id),
                {"token_hash": token_hash},
            )
    after = work / "target.jsonl"
    export_to_path(target, after)
    if not _same_rows(before, after):
        raise InvalidInput(
            "The copy does not read back as the home it was made from: nothing was moved, "
            "and the home is as it was. The target database holds that copy; empty it "
            "before trying again."
        )
    return {**counts, **{n: len(rows) for n, rows in vault.items() if rows}}


def _same_rows(a: Path, b: Path) -> bool:
    """Whether two exports hold the same rows (their headers' times differ), read a line
    at a time: a home's export may be larger than memory."""
    with a.open(encoding="utf-8") as fa, b.open(encoding="utf-8") as fb:
        next(fa, None), next(fb, None)
        return all(x == y for x, y in zip_longest(fa, fb))
