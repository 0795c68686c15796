"""MCP over stdio that answers every line, as HTTP answers every body.

The SDK's stdio reader drops a line it cannot take: a client that sent a lone surrogate,
300 levels of nesting, `garbage`, `42`, a batch, `"id": null`, no `"jsonrpc"`, array
`params` or a 50 MB line waited for an answer that never came. Here each line is judged
first: one the SDK takes as a message goes on to it as it came; any other is answered
with the JSON-RPC error HTTP gives the same body (-32700 parse error, -32600 invalid
request, with the request's id where it has a usable one), and serving goes on. A line
is read at most `MAX_MESSAGE_BYTES` at a time, so a huge one costs no more memory than
a large one.

While serving, fd 0 reads the null device and fd 1 writes to stderr (as the SDK's own
transport arranges it), so a child process or a stray print can neither eat the client's
messages nor corrupt the replies.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import IO, Any

import anyio
import mcp_types as types
from anyio.abc import ObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from app.limits import MAX_ID, MAX_MESSAGE_BYTES

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INTERNAL_ERROR = -32603
INVALID_REQUEST = -32600
_CHUNK = 1 << 20


def _error(code: int, message: str, request_id: str | int | None = None) -> SessionMessage:
    error = types.ErrorData(code=code, message=message)
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _usable_id(value: Any) -> str | int | None:
    """A request id that can be sent back: a string or a whole number (not a boolean)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and -MAX_ID - 1 <= value <= MAX_ID:
        return value
    if isinstance(value, str) and len(value) <= 256:
        return value
    return None


def judge(line: bytes) -> str | SessionMessage | None:
    """What to do with one line: the text to hand to the SDK, the error to answer it
    with, or None for a blank line."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return _error(PARSE_ERROR, "Parse error: the line is not valid UTF-8.")
    if not text.strip():
        return None
    try:
        decoded = json.loads(text)
    except RecursionError:
        return _error(PARSE_ERROR, "Parse error: the message is nested too deeply.")
    except ValueError:
        return _error(PARSE_ERROR, "Parse error: the line is not one JSON value.")
    if isinstance(decoded, list):
        return _error(INVALID_REQUEST, "Invalid request: batches are not supported.")
    if not isinstance(decoded, dict):
        return _error(INVALID_REQUEST, "Invalid request: a message is a JSON-RPC object.")
    request_id = _usable_id(decoded.get("id"))
    if "id" in decoded and request_id is None:
        # The SDK would read it as a notification and answer nothing.
        return _error(INVALID_REQUEST, "Invalid request: id must be a string or a number.")
    try:
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as exc:
        if any(e["type"] == "json_invalid" for e in exc.errors(include_url=False)):
            # Valid JSON to Python, not to the SDK's parser: a lone surrogate escape, or
            # nesting past its limit. Said as HTTP says it.
            return _error(PARSE_ERROR, "Parse error: the message is not valid JSON.", request_id)
        return _error(
            INVALID_REQUEST,
            'Invalid request: not a JSON-RPC 2.0 message ("jsonrpc": "2.0", a method, '
            "an object of params).",
            request_id,
        )
    return text


class Lines:
    """The stdin the SDK's reader iterates: the lines it can take, the others answered
    through `answers`."""

    def __init__(self, source: IO[bytes], answers: ObjectSendStream[SessionMessage]) -> None:
        self._source = source
        self._answers = answers

    async def _readline(self, size: int) -> bytes:
        # A thread of its own per read, as the SDK's reader does: stdin may block forever.
        return await anyio.to_thread.run_sync(self._source.readline, size, abandon_on_cancel=True)

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            line = await self._readline(MAX_MESSAGE_BYTES + 1)
            if not line:
                return
            if len(line) > MAX_MESSAGE_BYTES and not line.endswith(b"\n"):
                await self._skip_rest()
                too_big = f"Invalid request: a message is at most {MAX_MESSAGE_BYTES} bytes."
                await self._answers.send(_error(INVALID_REQUEST, too_big))
                continue
            try:
                verdict = judge(line)
            except Exception:  # whatever a line holds, the next one is still read
                log.exception("judging a line from stdin failed")
                verdict = _error(INTERNAL_ERROR, "Internal error: the message was not read.")
            if isinstance(verdict, str):
                yield verdict
            elif verdict is not None:
                await self._answers.send(verdict)

    async def _skip_rest(self) -> None:
        while True:
            part = await self._readline(_CHUNK)
            if not part or part.endswith(b"\n"):
                return


@contextmanager
def _claimed_stdin() -> Iterator[IO[bytes]]:
    """The client's end of stdin, with fd 0 pointed at the null device meanwhile."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    source = os.fdopen(private, "rb", closefd=False)
    try:
        yield source
    finally:
        os.dup2(private, 0)
        os.close(private)


async def serve(server: Any) -> None:
    """Run the low-level MCP `server` over this process's stdin and stdout."""
    answers, answered = anyio.create_memory_object_stream[SessionMessage](16)
    with _claimed_stdin() as source:
        lines = Lines(source, answers)
        async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]

            async def forward() -> None:
                async with answered:
                    async for message in answered:
                        await write.send(message)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(forward)
                await server.run(read, write, server.create_initialization_options())
                tasks.cancel_scope.cancel()
    sys.stdout.flush()
