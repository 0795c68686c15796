"""Agents' `tools/call` POSTs answered with the SDK's own bytes, but with the work done
on the engine's worker thread instead of the event loop.

Why: the host's event loop is one thread, and everything it does for a request waits
behind the engine's threads for the GIL. With the SDK's transport, a `context` call
cost the loop ~1.7 ms of CPU (the SDK's envelope checks, its middleware chain, and
serialising the result twice: `CallToolResult` to a dict, then the JSON-RPC reply to
JSON). When eight agents call at once, the eighth waits for the loop to finish the
other seven, and that wait is protocol overhead. Here the loop only checks headers and
parses the small request body; the SDK's validation of the envelope and the parameters,
the tool call and the SDK's serialisation of the reply all run on the worker thread,
with the SDK's own functions, so the answer is the one the SDK would give (a test holds
the two equal).

Only the plain case comes this way: a POST with JSON in and JSON out, one `tools/call`
request, the security checks passed, in the 2026-07-28 era or in a handshake-era session
whose `initialize` the SDK answered (and which it still holds). Anything else
(initialize, tools/list, notifications, GET and DELETE, SSE, `Mcp-Param-*` headers, an
unknown session, a malformed envelope or parameters) goes to the SDK's transport
untouched, with the body replayed, and the SDK answers it, errors included.

What this path leaves out of the SDK's: its OpenTelemetry span (no tracer is set up in
Tapemind), and, in a handshake session, the session's message loop: a tool call there
has no progress or cancellation to carry (our tools send neither).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.connection import Connection
from mcp.server.runner import ServerRunner
from mcp.server.streamable_http import check_accept_headers
from mcp.server.streamable_http_manager import (
    StreamableHTTPASGIApp,
    StreamableHTTPSessionManager,
)
from mcp.server.transport_security import (
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    InboundModernRoute,
    classify_inbound_request,
)
from mcp.shared.inbound import find_duplicated_routing_header as duplicated_routing_header
from mcp_types import methods
from mcp_types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_MODERN_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)
from pydantic import ValidationError
from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from app.errors import TapemindError
from app.limits import MAX_MESSAGE_BYTES
from app.mcp.server import error_result, run_tool, unopened

EngineSource = Callable[[], Any]
Answer = tuple[int, bytes]  # HTTP status, body

_METHOD = "tools/call"
WORKERS = 40
_JSON = [(b"content-type", b"application/json")]


def replay(body: bytes, receive: Receive, *, complete: bool = True) -> Receive:
    """`receive` that hands the body read so far back once, then defers to the client
    (for the rest of an incomplete body, or its disconnect)."""
    delivered = False

    async def again() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": not complete}
        return await receive()

    return again


async def read_body(receive: Receive) -> tuple[bytes, bool] | None:
    """The request's body and whether it is complete (False: it outgrew the SDK's
    limit, and reading stopped); None when the client went away first."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        parts.append(message.get("body", b""))
        size += len(parts[-1])
        more = bool(message.get("more_body", False))
        if not more or size > MAX_MESSAGE_BYTES:
            return b"".join(parts), not more


@dataclass(frozen=True)
class Exchange:
    """A request this path takes: its headers, its protocol version, and the handshake
    session it belongs to (None in the 2026-07-28 era, which has none)."""

    headers: dict[str, str]
    version: str
    session: str | None = None


class ToolCalls:
    """ASGI app for `/mcp` after the token check: answers plain `tools/call` POSTs itself
    and hands everything else to `sdk` (the SDK's transport, run by `manager`)."""

    def __init__(
        self,
        manager: StreamableHTTPSessionManager,
        server: Server[Any],
        engine: EngineSource,
        security: TransportSecuritySettings,
    ) -> None:
        self.manager = manager
        self.sdk = StreamableHTTPASGIApp(manager)
        self.server = server
        # The SDK's own shaping of a handler's result for the wire (its cache hints,
        # the per-version sieve, `resultType`, the `serverInfo` stamp); it reads only
        # the server, so one runner serves every call.
        self.runner = ServerRunner(
            server, Connection.from_envelope(LATEST_MODERN_VERSION, None, None), None
        )
        self.engine = engine
        self.security = TransportSecurityMiddleware(security)
        # Handshake sessions whose `initialize` the SDK answered: id -> negotiated version.
        self.sessions: dict[str, str] = {}
        # The calls' own threads, handed work by the event loop directly: a hand-off
        # costs the loop ~20 µs of CPU this way and ~40 µs through anyio's `to_thread`
        # (its run-variable and limiter look-ups; uvloop, 3,000 hand-offs). As many
        # threads as anyio allows: a `request_secret` holds one while the owner decides.
        self.workers = ThreadPoolExecutor(WORKERS, thread_name_prefix="tapemind-tool")
        # False: every request goes to the SDK (the test that holds the answers equal).
        # This path uses two private parts of the SDK (mcp 2.3.0, pinned): its table of
        # open sessions and its runner's serialiser. An SDK without them answers every
        # call itself, correctly if more slowly, rather than fail after a tool ran.
        self.direct = hasattr(manager, "_server_instances") and hasattr(self.runner, "_serialize")
        self.answered = 0  # tool calls this path answered, a count only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        exchange = await self._plain(scope) if self.direct else None
        if exchange is None:
            await self.sdk(scope, receive, self._watch_handshake(scope, send))
            return
        read = await read_body(receive)
        if read is None:
            return
        body, complete = read
        try:
            decoded = json.loads(body) if complete else None
        except (ValueError, RecursionError):
            decoded = None
        if not (isinstance(decoded, dict) and decoded.get("method") == _METHOD):
            await self.sdk(scope, replay(body, receive, complete=complete), send)
            return
        agent = scope["user"].access_token.client_id
        loop = asyncio.get_running_loop()
        answer = await loop.run_in_executor(self.workers, self.answer, decoded, agent, exchange)
        if answer is None:
            await self.sdk(scope, replay(body, receive), send)
            return
        status, reply = answer
        self.answered += 1
        response = [(b"content-length", str(len(reply)).encode()), *_JSON]
        if exchange.session is not None:
            response.append((b"mcp-session-id", exchange.session.encode()))
        await send({"type": "http.response.start", "status": status, "headers": response})
        await send({"type": "http.response.body", "body": reply})

    async def _plain(self, scope: Scope) -> Exchange | None:
        """The exchange, when the request's headers are the plain case this path
        answers (the body is checked after); None: the SDK answers it."""
        if scope["method"] != "POST" or not self.manager.json_response:
            return None
        request = Request(scope)
        headers = dict(request.headers)  # as the SDK hands them to its classifier
        version = headers.get("mcp-protocol-version")
        session = headers.get("mcp-session-id")
        if session is None and version in MODERN_PROTOCOL_VERSIONS:
            exchange = Exchange(headers, version)
        elif session is not None and version is not None and self._live(session) == version:
            exchange = Exchange(headers, version, session)
        else:
            return None
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > MAX_MESSAGE_BYTES:
            return None
        if not check_accept_headers(request)[0]:
            return None  # no JSON accepted
        if any(name.startswith("mcp-param-") for name in headers):
            return None  # header validation against a schema: the SDK's job
        if duplicated_routing_header(request.headers.items()) is not None:
            return None
        # Content-Type, Host and Origin (DNS rebinding): the SDK's own check.
        if await self.security.validate_request(request, is_post=True) is not None:
            return None
        return exchange

    def close(self) -> None:
        """Let the calls' threads go once their calls are done."""
        self.workers.shutdown(wait=False)

    def _live(self, session: str) -> str | None:
        """The negotiated version of a handshake session the SDK still holds."""
        # The SDK's table of open sessions (mcp 2.3.0, pinned): a session it ended or
        # forgot (DELETE, idle timeout, shutdown) goes back to the SDK, which says so.
        if session not in self.manager._server_instances:
            self.sessions.pop(session, None)
            return None
        return self.sessions.get(session)

    def _watch_handshake(self, scope: Scope, send: Send) -> Send:
        """`send`, noting the session and negotiated version of a successful `initialize`
        (the only POST without a session id that the SDK answers with one)."""
        if scope["method"] != "POST" or any(k == b"mcp-session-id" for k, _ in scope["headers"]):
            return send
        session: str | None = None
        parts: list[bytes] = []

        async def watching(message: Message) -> None:
            nonlocal session
            if message["type"] == "http.response.start" and message["status"] == 200:
                for key, value in message.get("headers", []):
                    if key.lower() == b"mcp-session-id":
                        session = value.decode("latin-1")
            elif message["type"] == "http.response.body" and session is not None:
                parts.append(message.get("body", b""))
                if not message.get("more_body", False):
                    self._note_handshake(session, b"".join(parts))
            await send(message)

        return watching

    def _note_handshake(self, session: str, answer: bytes) -> None:
        try:
            version = json.loads(answer)["result"]["protocolVersion"]
        except (ValueError, KeyError, TypeError):
            return  # not an initialize answered in JSON: the SDK keeps the session
        if version in HANDSHAKE_PROTOCOL_VERSIONS:
            # Forget the sessions the SDK has ended since (a client that never called
            # again after its session closed would otherwise stay listed).
            alive = self.manager._server_instances
            self.sessions = {k: v for k, v in self.sessions.items() if k in alive}
            self.sessions[session] = version

    def answer(self, decoded: dict[str, Any], agent: str, exchange: Exchange) -> Answer | None:
        """The HTTP status and JSON-RPC reply to one `tools/call`, as the SDK would write
        them; None when the SDK should answer the request (it is not well formed)."""
        version = exchange.version
        try:
            request = types.JSONRPCRequest.model_validate(decoded, by_name=False)
        except ValidationError:
            return None
        if exchange.session is None:
            route = classify_inbound_request(decoded, headers=exchange.headers)
            if not isinstance(route, InboundModernRoute):
                return None
            version = route.protocol_version
        try:
            methods.validate_client_request(_METHOD, version, request.params)
            params = types.CallToolRequestParams.model_validate(request.params or {}, by_name=False)
        except (ValidationError, KeyError):
            return None
        # The tool runs now: from here on there is an answer, never a second run.
        try:
            engine = self.engine()
        except TapemindError as exc:
            result = error_result(unopened(exc))
        else:
            session = f"mcp:{exchange.session}" if exchange.session else None
            result = run_tool(engine, agent, params.name, params.arguments, session)
        try:
            dumped = self.runner._serialize(_METHOD, version, result)
        except MCPError as exc:  # the result failed the SDK's checks: a bug of ours
            failed = types.JSONRPCError(jsonrpc="2.0", id=request.id, error=exc.error)
            if exchange.session is not None:
                return 200, _handshake_dumps(failed)
            return ERROR_CODE_HTTP_STATUS.get(exc.error.code, 200), _dumps(failed)
        reply = types.JSONRPCResponse(jsonrpc="2.0", id=request.id, result=dumped)
        # Each era's transport writes its reply in its own way.
        return 200, _handshake_dumps(reply) if exchange.session is not None else _dumps(reply)


def _handshake_dumps(message: types.JSONRPCResponse | types.JSONRPCError) -> bytes:
    """A reply's bytes, as the SDK's handshake-era transport writes them."""
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode()


def _dumps(message: types.JSONRPCResponse | types.JSONRPCError) -> bytes:
    """A reply's bytes, as the SDK's transport writes them."""
    body = message.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(body, separators=(",", ":")).encode()
