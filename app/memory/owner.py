"""The owner's changes to a memory: edit (a new version, earlier ones kept) and forget
(the text removed everywhere, its hash kept so it is not learned again)."""

from __future__ import annotations

from sqlalchemy import insert, update
from sqlmodel import Session, col

from app.db import MemoryVersionRow, dbapi, drop_terms, json_field, purge
from app.errors import InvalidInput, Refused
from app.events import record
from app.limits import MAX_MEMORY_CHARS
from app.memory import intake
from app.memory.records import index_memory_text, owned_memory, to_memory, unindex_memory
from app.models import Memory
from app.runtime import Runtime
from app.text import memory_hash
from app.vault import echoes


def check_shape(body: str) -> str:
    """An edit's new text stripped, or InvalidInput when it is empty, too long or not
    Unicode (nothing from the home is needed: a command checks it before the vault)."""
    body = body.strip()
    if not body:
        raise InvalidInput("The new text is empty; to remove a memory use `tapemind forget`.")
    try:
        body.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("The new text is not valid Unicode (a lone surrogate).") from None
    if len(body) > MAX_MEMORY_CHARS:
        raise InvalidInput(f"The new text is over {MAX_MEMORY_CHARS} characters.")
    return body


def edit(
    rt: Runtime,
    memory_id: int,
    body: str,
    *,
    actor: str = "owner",
    reason: str = "edited by the owner",
) -> Memory:
    """Owner edit: a new version of the text; earlier versions are kept."""
    body = check_shape(body)
    with rt.read() as s:
        found, holder = owned_memory(s, memory_id, None)
        agent_id = found.agent_id
    # Named only where the memory's agent was given the secret (app.vault.echoes).
    body = echoes.screen(rt, agent_id, holder, [body], actor="owner")[0]
    # The owner is held to the same rule as agents: a credential never enters a memory
    # (it would be recalled into every agent's context); the vault is its place.
    kind = intake.credential_kind(body)
    if kind is not None:
        raise Refused(
            f"The new text looks like it contains a credential ({kind}). Keep credentials "
            "in the vault (tapemind vault set NAME) and leave the memory without it.",
            code="credential",
        )
    now = rt.now_iso()
    with rt.write() as s:
        row, owner = owned_memory(s, memory_id, None)
        if row.status == "forgotten":
            raise InvalidInput(f"Memory {memory_id} was forgotten; its text cannot be edited.")
        if body == row.text:
            return to_memory(row, owner)
        row.version += 1
        row.text = body
        row.content_hash = memory_hash(body)
        row.updated_at = now
        s.add(row)
        s.execute(
            insert(MemoryVersionRow),
            {
                "memory_id": row.id,
                "version": row.version,
                "text": body,
                "content_hash": row.content_hash,
                "changed_at": now,
                "changed_by": actor,
                "reason": reason,
            },
        )
        index_memory_text(s, row.id, body, row.agent_id, now)
        record(
            s,
            now,
            "memory.edit",
            agent=owner,
            actor=actor,
            ids=[row.id],
            counts={"version": row.version},
        )
        return to_memory(row, owner)


def forget(rt: Runtime, memory_id: int, *, actor: str = "owner") -> Memory:
    """Remove a memory's text everywhere, keeping its hash so it is not learned again."""
    now = rt.now_iso()
    with rt.write() as s:
        row, owner = owned_memory(s, memory_id, None)
        row.text = ""
        row.status = "forgotten"
        row.updated_at = now
        s.add(row)
        s.execute(
            update(MemoryVersionRow)
            .where(col(MemoryVersionRow.memory_id) == memory_id)
            .values(text="")
        )
        unindex_memory(s, memory_id)
        purge(dbapi(s), "memory_fts")
        erased = _erase_remember_calls(s, memory_id, now)
        if erased:
            purge(dbapi(s), "tape_fts")
            record(s, now, "tape.erase", agent=owner, actor=actor, ids=erased)
        record(
            s,
            now,
            "memory.forget",
            agent=owner,
            actor=actor,
            ids=[memory_id],
            counts={"tape_erased": len(erased)},
        )
        result = to_memory(row, owner)
    rt.store.checkpoint()
    return result


def _erase_remember_calls(s: Session, memory_id: int, now: str) -> list[int]:
    """Erase the tape entries that a source-less `remember` wrote for this memory:
    their content is the memory's text, so forgetting must take them too."""
    db = dbapi(s)
    ids = [
        int(i)
        for (i,) in db.execute(
            "SELECT e.id FROM provenance p JOIN tape_entries e ON e.id = p.entry_id "
            "WHERE p.memory_id = ? AND e.kind = 'event' AND e.erased_at IS NULL "
            f"AND {json_field(db, 'e.meta', 'call')} = 'remember'",
            (memory_id,),
        )
    ]
    for entry_id in ids:
        db.execute(
            "UPDATE tape_entries SET content = '', meta = NULL, erased_at = ? WHERE id = ?",
            (now, entry_id),
        )
        drop_terms(db, "tape_fts", [entry_id])
        db.execute("DELETE FROM embed_queue WHERE kind = 'tape' AND item_id = ?", (entry_id,))
    return ids
