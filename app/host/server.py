"""The host: the one process that owns a home and serves it.

It holds the home lock, keeps the Engine open, runs background jobs, and
serves on 127.0.0.1 (uvicorn):
- `/mcp`: MCP over streamable HTTP for agents, each with its own bearer token
  (a wrong or missing token gets 401 and nothing else); plain tool calls are
  answered off the event loop (`tool_calls.py`), the rest by the SDK's transport;
- `/rpc`: Engine calls for the owner's other processes (the CLI, `tapemind mcp`
  over stdio), authenticated by an owner token kept in a 0600 file in the home.
"""

from __future__ import annotations

import contextlib
import gc
import hmac
import logging
import os
import secrets
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio.to_thread
import uvicorn
from mcp.server import ServerRequestContext
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.streamable_http_manager import (
    StreamableHTTPSessionManager,
)
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import __version__
from app.codec import decode_arguments, to_json
from app.db import disk
from app.engine import Engine
from app.errors import TapemindError, VaultStillLocked
from app.host import served
from app.host.auth import AgentAuth, AgentTokens
from app.host.gil import shorten_switch_interval
from app.host.jobs import Jobs
from app.host.lock import OWNER_TOKEN_FILE, HomeLock
from app.host.remote import engine_methods, export_text
from app.host.tool_calls import ToolCalls
from app.limits import MAX_MESSAGE_BYTES
from app.mcp.server import build_server
from app.vault import PASSPHRASE_ENV

log = logging.getLogger(__name__)


def write_private(path: Path, text: str) -> None:
    """Write a file only the owner can read (0600 before any byte), atomically."""
    fd, tmp = tempfile.mkstemp(prefix=".host-", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _said(exc: TapemindError) -> str:
    """An error's message for the process that asked the host: a locked vault is the
    host's to unlock, with its own environment, not the asker's (which may well have the
    passphrase set)."""
    if not isinstance(exc, VaultStillLocked):
        return exc.message
    return (
        f"{exc.message} This home's host (pid {os.getpid()}) unlocks the vault, not the "
        f"command that asked it: restart `tapemind serve` with {PASSPHRASE_ENV} set, or "
        "unlock the vault in the desktop app."
    )


def loopback_only(port: int) -> TransportSecuritySettings:
    """DNS-rebinding protection for this host: the Host and Origin headers must name this
    very address and port. Exactly: the SDK's "127.0.0.1:*" patterns match by prefix, so
    "Origin: http://127.0.0.1:7821.evil.com" passed them."""
    hosts = [f"127.0.0.1:{port}", f"localhost:{port}"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{host}" for host in hosts],
    )


def agent_of_request(ctx: ServerRequestContext[Any, Any]) -> str:
    user = getattr(ctx.request, "user", None)
    if isinstance(user, AuthenticatedUser):
        return user.access_token.client_id
    raise TapemindError("This connection has no agent token; connect with your bearer token.")


def tune_for_serving() -> None:
    """Make this process a responsive server: a shorter GIL switch interval (app.host.gil: the
    event loop waits for the GIL at each step of every request), and what
    start-up built (modules, the engine, ~150k objects) moved out of the garbage
    collector's reach, so a full collection scans only what was made since instead of
    pausing a call for 50-180 ms every few hundred calls."""
    shorten_switch_interval()
    gc.collect()
    gc.freeze()


def with_server_timing(send: Send) -> Send:
    """`send`, adding a standard `Server-Timing: host;dur=MS` header to the answer: how
    long the request was in the host, from its arrival to its answer. With the engine's
    own time (in the result's `_meta`) a client can tell the host's part of a round trip
    from its own and the network's. A duration only, never content."""
    arrived = time.perf_counter()

    async def send_timed(message: Message) -> None:
        if message["type"] == "http.response.start":
            took = (time.perf_counter() - arrived) * 1000
            headers = [
                *message.get("headers", []),
                (b"server-timing", f"host;dur={took:.3f}".encode()),
            ]
            message = {**message, "headers": headers}
        await send(message)

    return send_timed


class _Uvicorn(uvicorn.Server):
    """uvicorn re-raises SIGINT/SIGTERM after shutting down, which would kill the
    process before the host releases the home; here a signal only asks it to stop."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        signals = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.getsignal(sig) for sig in signals}

        def stop(_sig: int, _frame: object) -> None:
            if self.should_exit:
                self.force_exit = True
            self.should_exit = True

        for sig in signals:
            signal.signal(sig, stop)
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


class Host:
    """Owns a home: `Host(engine, lock).serve()` in the foreground, or `start()` in a thread."""

    def __init__(
        self, engine: Engine, lock: HomeLock, *, port: int = 0, json_response: bool = True
    ) -> None:
        self.engine = engine
        self.json_response = json_response
        self.lock = lock
        self.jobs = Jobs(engine)
        self.owner_token = secrets.token_urlsafe(32)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(256)
        self.port: int = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        # The whole web app as one ASGI callable (the benchmarks drive it in-process).
        self.app: ASGIApp = self._app()
        self._server = _Uvicorn(
            uvicorn.Config(
                self.app,
                log_level="warning",
                access_log=False,
                # Loopback only: no proxy in front whose X-Forwarded-* headers to trust.
                proxy_headers=False,
                server_header=False,
                lifespan="on",
                timeout_graceful_shutdown=3,
            )
        )
        self._thread: threading.Thread | None = None

    def add_job(self, name: str, interval_s: float | None, fn: Callable[[Any], object]) -> None:
        """Run `fn(engine)` every `interval_s` seconds (None: once, at start) on the
        host's job thread."""
        self.jobs.add(name, interval_s, fn)

    # -- the web app -------------------------------------------------------------

    def _app(self) -> ASGIApp:
        mcp_server = build_server(lambda: self.engine, agent_of_request, version=__version__)
        security = loopback_only(self.port)
        manager = StreamableHTTPSessionManager(
            app=mcp_server,
            # Plain JSON answers: tools never stream, and SSE framing costs time per call.
            json_response=self.json_response,
            security_settings=security,
            max_request_body_size=MAX_MESSAGE_BYTES,
        )
        self.tool_calls = tool_calls = ToolCalls(manager, mcp_server, lambda: self.engine, security)
        mcp_endpoint = AgentAuth(tool_calls, AgentTokens(self.engine))
        routes = [
            # Reached only by paths the fast route below does not take (e.g. "/mcp/").
            Route("/mcp", endpoint=mcp_endpoint),
            Route("/rpc", endpoint=self._rpc, methods=["POST"]),
            Route("/rpc/info", endpoint=self._rpc_info, methods=["POST"]),
            Route("/rpc/export", endpoint=self._rpc_export, methods=["POST"]),
            Route("/rpc/jobs", endpoint=self._rpc_jobs, methods=["POST"]),
        ]
        app = Starlette(routes=routes, lifespan=lambda app: manager.run())

        async def host_app(scope: Scope, receive: Receive, send: Send) -> None:
            # Agents' calls skip Starlette's router and middleware: the token check, then
            # the tool calls' path or the SDK's transport, are all an MCP request needs.
            if scope["type"] == "http" and scope["path"] == "/mcp":
                await mcp_endpoint(scope, receive, with_server_timing(send))
            else:
                await app(scope, receive, send)

        return host_app

    def _owner(self, request: Request) -> bool:
        header = request.headers.get("authorization", "")
        given = header[7:] if header.lower().startswith("bearer ") else ""
        return hmac.compare_digest(given.encode(), self.owner_token.encode())

    @staticmethod
    def _denied() -> JSONResponse:
        return JSONResponse({"error": "invalid_token"}, status_code=401)

    async def _rpc(self, request: Request) -> JSONResponse:
        if not self._owner(request):
            return self._denied()
        try:
            body = await request.json()
            method = str(body["method"])
            args = list(body.get("args") or [])
            kwargs = dict(body.get("kwargs") or {})
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": {"type": "InvalidInput", "message": "Bad RPC body."}})
        if method not in engine_methods():
            message = "The host has no engine method by that name (different Tapemind versions?)."
            return JSONResponse({"error": {"type": "TapemindError", "message": message}})

        def call() -> Any:
            fn = getattr(self.engine, method)
            typed_args, typed_kwargs = decode_arguments(getattr(Engine, method), args, kwargs)
            return to_json(fn(*typed_args, **typed_kwargs))

        return await self._run(call)

    async def _run(self, call: Callable[[], Any]) -> JSONResponse:
        # The answer is rendered to JSON on the worker thread too, not on the event loop
        # that every agent's request waits for.
        try:
            return await anyio.to_thread.run_sync(lambda: JSONResponse({"result": call()}))
        except TapemindError as exc:
            error = {"type": type(exc).__name__, "code": exc.code, "message": _said(exc)}
            if exc.for_agents:
                error["for_agents"] = exc.for_agents
            return JSONResponse({"error": error})
        except TypeError as exc:
            # Wrong arguments for the method: a caller bug; the text names parameters only.
            return JSONResponse({"error": {"type": "InvalidInput", "message": str(exc)}})
        except Exception:
            log.exception("host RPC failed")
            message = "The host failed to run the call (a bug); see its log."
            agents = (
                "The call failed inside Tapemind (a bug, not your arguments). Try again "
                "later, and tell the owner if it keeps failing."
            )
            error = {"type": "TapemindError", "message": message, "for_agents": agents}
            return JSONResponse({"error": error})

    async def _rpc_info(self, request: Request) -> JSONResponse:
        if not self._owner(request):
            return self._denied()
        info = {
            "home": str(self.engine.home),
            "home_id": self.engine.home_id,
            "schema_version": self.engine.schema_version,
            "pid": os.getpid(),
        }
        return JSONResponse({"result": info})

    async def _rpc_export(self, request: Request) -> JSONResponse:
        if not self._owner(request):
            return self._denied()
        return await self._run(lambda: export_text(self.engine))

    async def _rpc_jobs(self, request: Request) -> JSONResponse:
        if not self._owner(request):
            return self._denied()
        return JSONResponse({"result": to_json(self.jobs.status())})

    # -- running ------------------------------------------------------------------

    def _announce(self) -> None:
        """Tell other processes where to find us: owner token file, then the lock note."""
        try:
            write_private(self.engine.home / OWNER_TOKEN_FILE, self.owner_token)
        except OSError as exc:
            if not disk.is_no_space(exc):
                raise
            raise disk.full(
                self.engine.home, doing="the host cannot write its token file"
            ) from None
        self.lock.update(url=self.url)
        if self.lock.role in ("host", "desktop"):
            # Agents are configured with this URL: the next run tries this port again.
            served.remember(self.engine.home, self.url)
        tune_for_serving()

    def serve(self) -> None:
        """Serve in the foreground until SIGINT/SIGTERM; then release the home."""
        self._announce()
        self.jobs.start()
        try:
            self._server.run(sockets=[self._sock])
        finally:
            self._shutdown()

    def start(self, timeout: float = 20.0) -> str:
        """Serve on a background thread (the desktop app, a stdio MCP server); returns the URL."""
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise TapemindError("The Tapemind host could not start its HTTP server.")
            time.sleep(0.01)
        self._announce()
        self.jobs.start()
        return self.url

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        self._shutdown()

    def _shutdown(self) -> None:
        self.jobs.stop()
        self.tool_calls.close()
        with contextlib.suppress(OSError):
            (self.engine.home / OWNER_TOKEN_FILE).unlink()
        with contextlib.suppress(OSError):
            self._sock.close()
        self.lock.release()
