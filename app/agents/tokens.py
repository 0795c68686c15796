"""Per-agent MCP access tokens.

A token is 32 random bytes (URL-safe text, prefixed `tm_`). The database keeps
only its SHA-256 (`agents.token_hash`): that is what the host checks, and what
would travel to a shared PostgreSQL database in a team set-up. The token itself
is kept beside the database in `agent-tokens.json`, mode 0600 inside the 0700
home, so the owner can see it again (in the app or with `tapemind agent token`)
to copy a client configuration. Anyone who can read that file can read
`tapemind.db` too, so keeping it there gives nothing away that the home does not
already hold; it is never exported, and `--rotate` replaces a lost or leaked one.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import select

from app.db import AgentRow, keep_private
from app.events import record
from app.runtime import Runtime, agent_row

log = logging.getLogger(__name__)

TOKENS_FILE = "agent-tokens.json"
PREFIX = "tm_"


@dataclass(frozen=True)
class AgentToken:
    """An agent's bearer token. `issued` is True when this call made a new one."""

    agent: str
    token: str
    issued: bool


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _tokens_path(rt: Runtime) -> Path:
    return rt.home / TOKENS_FILE


def _read_file(path: Path) -> dict[str, str]:
    if keep_private(path):
        log.warning(
            "%s could be read by other users of this machine; it is private (0600) now. "
            "Rotate the agents' tokens (tapemind agent token NAME --rotate) if others "
            "could have read it.",
            path,
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write_file(path: Path, tokens: dict[str, str]) -> None:
    """Atomically replace the tokens file, 0600 before a byte is written."""
    fd, tmp = tempfile.mkstemp(prefix=".tokens-", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(tokens, fh, ensure_ascii=False, indent=1, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def get_or_issue(rt: Runtime, name: str, *, rotate: bool = False) -> AgentToken:
    """The agent's token; a new one when it has none, the stored one is lost, or `rotate`.

    Rotating invalidates the old token at once (the host checks the hash on
    every request). Raises NotFound for an unknown agent.
    """
    path = _tokens_path(rt)
    with rt.write() as s:
        row = agent_row(s, name)
        stored = _read_file(path).get(name)
        if (
            not rotate
            and stored is not None
            and row.token_hash is not None
            and hmac.compare_digest(token_hash(stored), row.token_hash)
        ):
            return AgentToken(agent=name, token=stored, issued=False)
        token = PREFIX + secrets.token_urlsafe(32)
        row.token_hash = token_hash(token)
        s.add(row)
        record(s, rt.now_iso(), "agent.token", agent=name, actor="owner", ids=[row.id])
        # The file is written inside the transaction: if writing fails, the
        # database keeps the old hash and the old token still works.
        tokens = _read_file(path)
        tokens[name] = token
        _write_file(path, tokens)
        return AgentToken(agent=name, token=token, issued=True)


def agent_for_token(rt: Runtime, token: str) -> str | None:
    """The agent whose token this is, or None (wrong, rotated or empty token)."""
    if not token or not token.startswith(PREFIX) or len(token) > 200:
        return None
    digest = token_hash(token)
    with rt.read() as s:
        row = s.exec(select(AgentRow).where(AgentRow.token_hash == digest)).first()
        return row.name if row is not None else None


def token_digests(rt: Runtime) -> dict[str, str]:
    """SHA-256 (hex) of every agent's current token -> the agent's name."""
    with rt.read() as s:
        rows = s.exec(select(AgentRow.name, AgentRow.token_hash)).all()
    return {digest: name for name, digest in rows if digest}
