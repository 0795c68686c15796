"""Writes that hold a value of the vault: redacted, and refused from an agent never given it.

Redacting in place would make the vault an oracle. An agent that may not read
DB_PASSWORD could append a thousand guesses and read its tape back: the one guess that
came back as a marker is the value, whatever the marker says. So what an agent can
observe of a write never depends on a value it was not given:

- a write (append, remember) by an agent that holds a value of a secret it was never
  given (no grant used since the value was last set, none that holds now) is refused
  whole, with one message that names no secret, entry or position: the agent learns at
  most "some text of this call is a value of the vault", one bit;
- each such write counts; after `MAX_SECRET_ECHOES` of them the agent's writes are
  refused whatever they hold, until the owner lets it write again (`release`), so
  guessing ends after a few bits, and the count survives restarts;
- the owner is told at once: an audit row and a `secret_did_echo` event with ids and
  counts only, and a warning in the host's log naming the agent and the count;
- an agent that was given the secret stores ``[secret:NAME]`` in its place (it knows
  the value; naming it tells it nothing), and so does the owner writing to an agent's
  tape about secrets that agent was given; other markers in text an agent can read are
  ``[secret]``, naming nothing.

Nothing here puts a value, or which secret matched, in a message.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from app.clock import from_iso
from app.db import GrantRow, Tx, dbapi
from app.errors import Refused
from app.events import record
from app.limits import MAX_SECRET_ECHOES
from app.runtime import Runtime, agent_row
from app.vault.grants import holds
from app.vault.redact import Redaction
from app.vault.service import VAULT

log = logging.getLogger(__name__)


class SecretEcho(Refused):
    """An agent's write held a value of the vault it was never given: nothing stored."""

    code = "secret_value"


class WritesBlocked(Refused):
    """An agent wrote vault values it was not given too often: its writes are refused."""

    code = "writes_blocked"


def _echo_refusal() -> SecretEcho:
    return SecretEcho(
        "This write holds a value that the owner keeps in the vault, which this agent was "
        "not given; nothing was stored. Write it again without that value (passwords, keys "
        "and tokens never go on the tape or into a memory). An agent that needs the secret "
        "asks for it: `tapemind secret get NAME --agent AGENT --reason WHY`, and the owner "
        "answers. The owner has been told.",
        for_agents="This call holds a value that the owner keeps in the vault, which you "
        "were not given; nothing was stored. Send it again without that value (passwords, "
        "keys and tokens never go on the tape or into a memory); if you need the secret, "
        "ask for it with request_secret. The owner has been told.",
    )


def blocked_refusal(agent: str) -> WritesBlocked:
    return WritesBlocked(
        f"Writes of agent {agent!r} are refused: it wrote values of the vault it was not "
        f"given {MAX_SECRET_ECHOES} times. Nothing was stored. Check what the agent reads "
        f"and writes, then let it write again with `tapemind agent unblock {agent}`.",
        for_agents="Your writes are refused: you wrote values of the owner's vault that you "
        "were not given too often. Nothing was stored; the owner has been told and can let "
        "you write again. Reading (context, search, tape, memory) still works.",
    )


def check_writes(agent: str, echoes: int) -> None:
    """Refuse a write of an agent whose writes are blocked (whatever it holds)."""
    if echoes >= MAX_SECRET_ECHOES:
        raise blocked_refusal(agent)


def given(s: Tx, agent_id: int, names: Sequence[str], now: str) -> set[str]:
    """The secrets among `names` the agent knows by right: a grant of it was used since
    its value was last set, or a grant of it holds now."""
    if not names:
        return set()
    marks = ", ".join("?" * len(names))
    rows = dbapi(s).execute(
        "SELECT s.name, s.updated_at, g.scope, g.created_at, g.revoked_at, g.used_count, "
        "g.last_used_at FROM grants g JOIN secrets s ON s.id = g.secret_id "
        f"WHERE g.agent_id = ? AND s.name IN ({marks})",
        (agent_id, *names),
    )
    out: set[str] = set()
    moment = from_iso(now)
    for name, updated, scope, created, revoked, used, last_used in rows:
        grant = GrantRow(
            agent_id=agent_id, agent="", secret_id="", secret=name, scope=scope,
            created_at=created, revoked_at=revoked, used_count=used, last_used_at=last_used,
        )  # fmt: skip
        if (used and last_used and last_used >= updated) or holds(grant, moment):
            out.add(name)
    return out


def screen(
    rt: Runtime, agent_id: int, agent: str, texts: Sequence[str], *, actor: str
) -> list[str]:
    """`texts` with the vault's values replaced, for storing as `agent`'s (see the module
    doc). Raises SecretEcho (counted) when `actor` is the agent and one of them holds a
    value it was never given, WritesBlocked when its writes are blocked."""
    vault = rt.services.get(VAULT)
    if vault is None:
        return list(texts)
    scans = [vault.redactor.scan(t) for t in texts]
    found = sorted(set().union(*(r.names for r in scans)))
    if not found:
        return [r.text for r in scans]
    now = rt.now_iso()
    with rt.read_driver() as s:
        known = given(s, agent_id, found, now)
        row = (
            dbapi(s)
            .execute("SELECT secret_echoes FROM agents WHERE id = ?", (agent_id,))
            .fetchone()
        )
    if actor == "agent":
        # Blocked first: a blocked agent learns nothing from what its writes hold.
        check_writes(agent, int(row[0]) if row else 0)
    if actor != "agent":
        return [vault.redactor.scan(t, known.__contains__).text for t in texts]
    if not set(found) <= known:
        _count_echo(rt, agent_id, agent, [r for r in scans if r.names - known], now)
        raise _echo_refusal()
    return [r.text for r in scans]


def _count_echo(
    rt: Runtime, agent_id: int, agent: str, scans: Sequence[Redaction], now: str
) -> None:
    with rt.write_driver() as s:
        db = dbapi(s)
        row = db.execute("SELECT secret_echoes FROM agents WHERE id = ?", (agent_id,)).fetchone()
        if row is None:
            return
        echoes = int(row[0]) + 1
        db.execute("UPDATE agents SET secret_echoes = ? WHERE id = ?", (echoes, agent_id))
        names = sorted(set().union(*(r.names for r in scans)))
        marks = ", ".join("?" * len(names))
        ids = [r[0] for r in db.execute(f"SELECT id FROM secrets WHERE name IN ({marks})", names)]
        record(
            s,
            now,
            "secret.echo",
            agent=agent,
            actor="agent",
            ids=ids,
            counts={
                "texts": len(scans),
                "values": sum(r.count for r in scans),
                "echoes": echoes,
                "blocked": int(echoes >= MAX_SECRET_ECHOES),
            },
        )
    log.warning(
        "agent %r wrote a value of the vault it was not given (%d of %d such writes before "
        "its writes are refused); nothing was stored",
        agent,
        echoes,
        MAX_SECRET_ECHOES,
    )


def release(rt: Runtime, agent: str) -> int:
    """Let a blocked agent write again; returns the count of echoes it had."""
    with rt.write() as s:
        row = agent_row(s, agent)
        before = row.secret_echoes
        row.secret_echoes = 0
        s.add(row)
        record(
            s, rt.now_iso(), "agent.unblock", agent=agent, actor="owner", ids=[row.id],
            counts={"echoes": before},
        )  # fmt: skip
    return before
