"""Who is calling `/mcp`: the agent whose bearer token the request carries.

The host keeps the SHA-256 of every agent's token in memory (the database keeps
only those digests too), so checking a request is one hash and one dictionary
lookup on the event loop: no database read, no worker thread. A wrong or missing
token gets 401 and nothing else, before any MCP code runs.

The table is read again whenever an agent changes through this host (added,
removed, token issued or rotated: a rotated token is refused from the next
request on), at most every RELOAD_S seconds in the background for changes made by a
process that bypassed the host, and at most once a second when an unknown token
arrives (a brand-new agent's first call), so wrong tokens cannot hammer the database.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
from typing import Any

import anyio.to_thread
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthCredentials
from starlette.types import ASGIApp, Receive, Scope, Send

from app.agents import PREFIX
from app.events import Event

log = logging.getLogger(__name__)

MAX_TOKEN_CHARS = 200


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


class AgentTokens:
    """Token digest -> agent, for every agent of the home, kept current."""

    RELOAD_S = 10.0
    MISS_RELOAD_S = 1.0

    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self._by_digest: dict[bytes, tuple[bytes, str]] = {}
        self._loaded_at = 0.0
        self._lock = threading.Lock()
        self._reloading = False
        self.reload()
        engine.events.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        # Runs on the thread that committed the change, right after the commit.
        if event.name.startswith("agent_did_"):
            self.reload()

    def reload(self) -> None:
        """Read every agent's token digest again."""
        started = time.monotonic()
        table = {}
        for hex_digest, agent in self._engine.agent_token_digests().items():
            raw = bytes.fromhex(hex_digest)
            table[raw] = (raw, agent)
        with self._lock:
            self._by_digest = table
            self._loaded_at = started

    def lookup(self, token: str) -> str | None:
        """The agent of `token` from the table in memory (None: unknown)."""
        if not token or len(token) > MAX_TOKEN_CHARS:
            return None
        given = digest(token)
        found = self._by_digest.get(given)
        # The lookup is by digest, so its timing says nothing usable about a token;
        # the stored digest is still compared in constant time before it counts.
        if found is None or not hmac.compare_digest(found[0], given):
            return None
        return found[1]

    async def agent_for(self, token: str) -> str | None:
        """The agent of `token`, reading the table again when it may be out of date."""
        agent = self.lookup(token)
        age = time.monotonic() - self._loaded_at
        if agent is None and age > self.MISS_RELOAD_S and token.startswith(PREFIX):
            await self._reload_in_thread()
            return self.lookup(token)
        if age > self.RELOAD_S and not self._reloading:
            # Answer now from the table; refresh it off the event loop for the next ones.
            self._reloading = True
            threading.Thread(
                target=self._reload_quietly, name="tapemind-token-reload", daemon=True
            ).start()
        return agent

    async def _reload_in_thread(self) -> None:
        with self._lock:
            if time.monotonic() - self._loaded_at <= self.MISS_RELOAD_S:
                return
            self._loaded_at = time.monotonic()  # one reload at a time for a burst of misses
        await anyio.to_thread.run_sync(self._reload_quietly)

    def _reload_quietly(self) -> None:
        try:
            self.reload()
        except Exception:
            log.exception("reading the agents' token digests failed")
        finally:
            self._reloading = False


def bearer_token(scope: Scope) -> str:
    """The token of an `Authorization: Bearer ...` header, or ""."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            text = value.decode("latin-1")
            return text[7:].strip() if text[:7].lower() == "bearer " else ""
    return ""


# What a person reads in the agent's log: which token, and where to get the right one.
_DENIED_WHY = (
    "Missing, unknown or revoked agent token: print the agent's token and client "
    "configuration with `tapemind agent token NAME`"
)
_DENIED_BODY = json.dumps({"error": "invalid_token", "error_description": _DENIED_WHY}).encode()
_DENIED_HEADERS = [
    (b"content-type", b"application/json"),
    (b"content-length", str(len(_DENIED_BODY)).encode()),
    (
        b"www-authenticate",
        f'Bearer error="invalid_token", error_description="{_DENIED_WHY}"'.encode(),
    ),
]


class AgentAuth:
    """ASGI middleware: 401 unless the request carries an agent's token; otherwise the
    agent becomes the request's user (`scope["user"]`, as the MCP SDK expects)."""

    def __init__(self, app: ASGIApp, tokens: AgentTokens) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = bearer_token(scope)
        agent = await self.tokens.agent_for(token) if token else None
        if agent is None:
            await send({"type": "http.response.start", "status": 401, "headers": _DENIED_HEADERS})
            await send({"type": "http.response.body", "body": _DENIED_BODY})
            return
        scope["user"] = AuthenticatedUser(AccessToken(token=token, client_id=agent, scopes=[]))
        scope["auth"] = AuthCredentials([])
        await self.app(scope, receive, send)
