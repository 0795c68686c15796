"""Agents: identities with their own tape, memories, settings and access token."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from sqlalchemy import delete, func
from sqlmodel import col, select

from app.clock import from_iso
from app.db import (
    FTS_TABLES,
    AgentRow,
    EmbedQueueRow,
    MemoryRow,
    TapeEntryRow,
    dbapi,
    drop_agent_terms,
    purge,
)
from app.errors import InvalidInput
from app.events import record
from app.limits import MAX_BUDGET as MAX_RECALL_BUDGET
from app.limits import MAX_SECRET_ECHOES
from app.models import ARBITERS, PERMISSION_MODES, Agent, AgentSettings, AgentStats
from app.runtime import Runtime, agent_row

_NAME = re.compile(r"^[\w][\w.\-]{0,63}$", re.UNICODE)


def to_agent(row: AgentRow) -> Agent:
    assert row.id is not None
    return Agent(
        id=row.id,
        name=row.name,
        created_at=from_iso(row.created_at),
        settings=AgentSettings.parse(row.settings),
    )


def validate_settings(settings: AgentSettings) -> None:
    if settings.half_life_days <= 0:
        raise InvalidInput("half_life_days must be a positive number of days.")
    # The same bounds `context --budget` accepts, so a stored default never makes every
    # context call fail or pack an unbounded block.
    if not 0 < settings.recall_budget <= MAX_RECALL_BUDGET:
        raise InvalidInput(
            f"recall_budget must be between 1 and {MAX_RECALL_BUDGET} tokens, "
            f"got {settings.recall_budget}."
        )
    if settings.permission_mode not in PERMISSION_MODES:
        raise InvalidInput(
            f"permission_mode must be one of {', '.join(PERMISSION_MODES)}, "
            f"not {settings.permission_mode!r}."
        )
    # -- lifecycle settings --
    if settings.arbiter not in ARBITERS:
        raise InvalidInput(
            f"arbiter must be 'offline', 'learned' or 'llm', not {settings.arbiter!r}."
        )
    if settings.llm is not None and "@" not in settings.llm:
        raise InvalidInput(
            f"llm must be 'model@base_url' (e.g. qwen2.5:3b@http://127.0.0.1:11434/v1), "
            f"not {settings.llm!r}."
        )
    if settings.arbiter == "llm" and not settings.llm:
        raise InvalidInput("arbiter 'llm' needs the llm setting: 'model@base_url'.")
    if not 0.0 < settings.archive_below < 1.0:
        raise InvalidInput("archive_below must be a strength between 0 and 1 (e.g. 0.1).")
    if not isinstance(settings.redact_credentials, bool):
        raise InvalidInput("redact_credentials must be true or false.")
    if settings.archive_idle_days < 0:
        raise InvalidInput("archive_idle_days must be zero or a positive number of days.")


def add(rt: Runtime, name: str, settings: AgentSettings | None = None) -> Agent:
    if not _NAME.match(name):
        raise InvalidInput(
            f"Invalid agent name {name!r}: use 1-64 letters, digits, '.', '-' or '_', "
            "starting with a letter or digit (Chinese letters are fine)."
        )
    settings = settings or AgentSettings()
    validate_settings(settings)
    with rt.write() as s:
        if s.exec(select(AgentRow.id).where(AgentRow.name == name)).first() is not None:
            raise InvalidInput(f"An agent named {name!r} already exists.")
        row = AgentRow(name=name, created_at=rt.now_iso(), settings=json.dumps(settings.to_dict()))
        s.add(row)
        s.flush()
        record(s, rt.now_iso(), "agent.add", agent=name, actor="owner", ids=[row.id])
        return to_agent(row)


def list_all(rt: Runtime) -> list[Agent]:
    with rt.read() as s:
        return [to_agent(r) for r in s.exec(select(AgentRow).order_by(AgentRow.name))]


def get(rt: Runtime, name: str) -> Agent:
    with rt.read() as s:
        return to_agent(agent_row(s, name))


def stats(rt: Runtime, name: str) -> AgentStats:
    """Counts shown by `agent show` and the app: tape entries, threads, memories by status,
    and how many of its writes held values of the vault it was not given
    (`app.vault.echoes`)."""
    with rt.read() as s:
        row = agent_row(s, name)
        entries = s.exec(
            select(func.count()).select_from(TapeEntryRow).where(TapeEntryRow.agent_id == row.id)
        ).one()
        by_status = dict(
            s.exec(
                select(MemoryRow.status, func.count())
                .where(MemoryRow.agent_id == row.id)
                .group_by(MemoryRow.status)
            ).all()
        )
        threads = s.exec(
            select(func.count(func.distinct(TapeEntryRow.thread))).where(
                TapeEntryRow.agent_id == row.id
            )
        ).one()
        return AgentStats(
            tape_entries=int(entries),
            threads=int(threads),
            memories={str(k): int(v) for k, v in by_status.items()},
            secret_echoes=int(row.secret_echoes),
            writes_blocked=row.secret_echoes >= MAX_SECRET_ECHOES,
        )


def update_settings(rt: Runtime, name: str, **changes: Any) -> Agent:
    with rt.write() as s:
        row = agent_row(s, name)
        current = AgentSettings.parse(row.settings)
        unknown = set(changes) - set(current.to_dict())
        if unknown:
            raise InvalidInput(
                f"Unknown setting(s) {', '.join(sorted(unknown))}: valid ones are "
                f"{', '.join(current.to_dict())}."
            )
        updated = replace(current, **changes)
        validate_settings(updated)
        row.settings = json.dumps(updated.to_dict())
        s.add(row)
        record(
            s,
            rt.now_iso(),
            "agent.configure",
            agent=name,
            actor="owner",
            ids=[row.id],
            counts={"settings": len(changes)},
        )
        return to_agent(row)


def remove(rt: Runtime, name: str) -> dict[str, int]:
    """Delete an agent with its tape and memories; returns what was removed."""
    with rt.write() as s:
        row = agent_row(s, name)
        entries = s.exec(
            select(func.count()).select_from(TapeEntryRow).where(TapeEntryRow.agent_id == row.id)
        ).one()
        memories = s.exec(
            select(func.count()).select_from(MemoryRow).where(MemoryRow.agent_id == row.id)
        ).one()
        assert row.id is not None
        drop_agent_terms(dbapi(s), row.id)
        for fts in FTS_TABLES:
            purge(dbapi(s), fts)
        s.execute(delete(EmbedQueueRow).where(col(EmbedQueueRow.agent_id) == row.id))
        s.delete(row)
        counts = {"tape_entries": entries, "memories": memories}
        record(
            s, rt.now_iso(), "agent.remove", agent=name, actor="owner", ids=[row.id], counts=counts
        )
    rt.store.checkpoint()
    return counts
