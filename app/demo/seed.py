"""Seed a demo home from `resources/demo/demo.json`: two agents, a bilingual history.

Times in the file are shifted so the newest lies just before now: trends,
decay and archive candidates then look as they would in a home in daily use.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import update
from sqlmodel import col

from app.clock import ManualClock, SystemClock, from_iso, to_iso
from app.db import MemoryRow
from app.engine import Engine, runtime_of
from app.errors import HomeError, VaultProblem
from app.models import AgentSettings
from app.vault import PASSPHRASE_ENV


def load_data() -> dict[str, Any]:
    text = resources.files("resources.demo").joinpath("demo.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def seed(home: Path, *, now: datetime | None = None, embed: bool = False) -> dict[str, Any]:
    """Create the demo home at `home` (new or empty); returns what was written (counts,
    and `secrets_skipped_why` when the vault could not be seeded without asking).

    `embed`: embed its rows too (`tapemind demo`), as in a home in daily use, whose year
    of snapshots shows no backlog; tests leave them queued (the model's load costs time)."""
    data = load_data()
    real_now = now or SystemClock().now()
    shift = real_now - from_iso(data["now"])
    clock = ManualClock(real_now)
    engine = Engine.open(home, create=True, clock=clock)
    counts: dict[str, Any] = {"agents": 0, "entries": 0, "memories": 0}
    try:
        if engine.agents():
            raise HomeError(f"{home} already has agents; the demo seeds a new home only.")
        from app.confront import ARBITER, KeepAll

        # The demo's curated memories stay as written: no arbiter second-guesses them.
        services = runtime_of(engine).services
        services.put(ARBITER, KeepAll())
        for spec in data["agents"]:
            _seed_agent(engine, clock, spec, shift, counts)
        services.pop(ARBITER)
        counts.update(_extend(engine, clock, data, shift, embed))
        # Counted from the home, not the first pass: the conflicts and the archive seeded
        # after it add memories of their own.
        counts["memories"] = sum(engine.count_memories(a.name) for a in engine.agents())
        _audit_in_time_order(engine)
        clock.set(real_now)
    finally:
        engine.close()
    return counts


def _seed_agent(
    engine: Engine,
    clock: ManualClock,
    spec: dict[str, Any],
    shift: timedelta,
    counts: dict[str, int],
) -> None:
    name = spec["name"]
    # Added a little before its first turn: the agent's history starts with it.
    first = min(from_iso(turn["at"]) for thread in spec["threads"] for turn in thread["turns"])
    clock.set(first + shift - timedelta(hours=1))
    engine.add_agent(name, AgentSettings.from_dict(spec.get("settings", {})))
    counts["agents"] += 1
    entry_ids: dict[tuple[str, str, int], int] = {}
    for thread in spec["threads"]:
        for turn in thread["turns"]:
            at = from_iso(turn["at"]) + shift
            clock.set(at)
            entries = [
                {
                    **e,
                    "thread": thread["thread"],
                    "turn": turn["turn"],
                    "user": thread.get("user"),
                    "created_at": to_iso(at + timedelta(seconds=20 * i)),
                }
                for i, e in enumerate(turn["entries"])
            ]
            ids = engine.append(name, entries).ids
            for i, entry_id in enumerate(ids):
                entry_ids[(thread["thread"], turn["turn"], i)] = entry_id
            counts["entries"] += len(ids)
    memory_ids: dict[str, int] = {}
    pending = list(spec.get("memories", []))
    # Parents must exist first: store in dependency order.
    while pending:
        ready = [m for m in pending if all(p in memory_ids for p in m.get("parents", []))]
        if not ready:
            raise ValueError(f"demo data: cyclic or unknown parents in agent {name}")
        for m in ready:
            pending.remove(m)
            clock.set(from_iso(m["created_at"]) + shift)
            sources = [entry_ids[(s["thread"], s["turn"], s["index"])] for s in m["sources"]]
            result = engine.remember(
                name,
                m["text"],
                m["category"],
                sources=sources,
                importance=m.get("importance", 0.5),
                parents=[memory_ids[p] for p in m.get("parents", [])],
            )
            assert result.memory is not None
            memory_ids[m["key"]] = result.memory.id
            counts["memories"] += 1
            if m.get("recalls"):
                _set_recalls(
                    engine, result.memory.id, m["recalls"], from_iso(m["last_recalled_at"]) + shift
                )
    spec["_memory_ids"] = memory_ids
    spec["_entry_ids"] = entry_ids


def _audit_in_time_order(engine: Engine) -> None:
    """Number the audit rows in time order. The demo writes its agents one after the other,
    each from its first day, then the conflicts, the archive and the vault: an audit read
    newest first by row would jump back and forth in time. (A home in use writes its audit
    as things happen, in time order.)"""
    with runtime_of(engine).write() as s:
        conn = s.connection()
        conn.exec_driver_sql(
            "CREATE TEMP TABLE audit_sorted AS SELECT at, agent, actor, action, object_ids, "
            "counts FROM audit ORDER BY at, id"
        )
        conn.exec_driver_sql("DELETE FROM audit")
        conn.exec_driver_sql(
            "INSERT INTO audit (id, at, agent, actor, action, object_ids, counts) "
            "SELECT rowid, at, agent, actor, action, object_ids, counts FROM audit_sorted"
        )
        conn.exec_driver_sql("DROP TABLE audit_sorted")


def _set_recalls(engine: Engine, memory_id: int, recalls: int, last: datetime) -> None:
    # Seeding history that happened "before" the demo: no recall record to replay.
    with runtime_of(engine).write() as s:
        s.execute(
            update(MemoryRow)
            .where(col(MemoryRow.id) == memory_id)
            .values(recall_count=recalls, last_recalled_at=to_iso(last))
        )


def _extend(
    engine: Engine, clock: ManualClock, data: dict[str, Any], shift: timedelta, embed: bool
) -> dict[str, Any]:
    """Hooks for later features (conflicts, secrets) to seed their part of the demo."""
    counts: dict[str, Any] = {}
    # open conflicts, an archive, a year of health snapshots
    from app.demo.lifecycle import seed as seed_lifecycle

    counts.update(seed_lifecycle(engine, clock, data, from_iso(data["now"]) + shift, embed))
    counts.update(_seed_secrets(engine, clock, data, shift))
    return counts


DEMO_REQUEST_TTL_S = 7 * 24 * 3600.0  # the prompt should still be there when the app opens


def _seed_secrets(
    engine: Engine, clock: ManualClock, data: dict[str, Any], shift: timedelta
) -> dict[str, Any]:
    """The demo's (fake, "demo-") secrets, a reviewed read, and one pending request.

    Only when a key store works without asking: the OS keyring, or a passphrase
    given in TAPEMIND_VAULT_PASSPHRASE. Otherwise the secrets are skipped (counted
    as secrets_skipped, with the vault's reason) rather than prompting in the middle
    of seeding.
    """
    specs = data.get("secrets", [])
    if not specs:
        return {}
    now = from_iso(data["now"]) + shift
    try:
        store = engine.vault_status()
        if store.keystore == "passphrase" and not os.environ.get(PASSPHRASE_ENV):
            why = f"no OS keyring here and {PASSPHRASE_ENV} is not set"
            return {"secrets": 0, "secrets_skipped": len(specs), "secrets_skipped_why": why}
        clock.set(now - timedelta(hours=2))
        for spec in specs:
            engine.set_secret(spec["name"], spec["value"], spec.get("tags", ()))
    except VaultProblem as exc:
        why = exc.message.rstrip(".")
        return {"secrets": 0, "secrets_skipped": len(specs), "secrets_skipped_why": why}
    names = {spec["name"] for spec in specs}
    agents = {a.name: a for a in engine.agents()}
    requests = 0
    # deepchat reviews its own reads ("approve for me"): one read the rules allowed.
    if "deepchat" in agents and "DEEPSEEK_API_KEY" in names:
        clock.set(now - timedelta(minutes=50))
        engine.request_secret(
            "deepchat", "DEEPSEEK_API_KEY", "调用 DeepSeek 模型生成本周周报草稿", session="demo-1"
        )
        requests += 1
    # claude-code asks a person: this is the prompt the app shows.
    if "claude-code" in agents and "INKSTONE_STAGING_DB_PASSWORD" in names:
        clock.set(now - timedelta(minutes=10))
        engine.request_secret(
            "claude-code",
            "INKSTONE_STAGING_DB_PASSWORD",
            "Run the inkstone staging migration check (alembic upgrade --sql) before the release",
            session="demo-2",
            ttl_seconds=DEMO_REQUEST_TTL_S,
        )
        requests += 1
    return {"secrets": len(specs), "access_requests": requests}
