"""Real processes and real MCP clients for the MCP tests."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, Literal

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from app.db import Qmark, postgres
from app.db import home as homes

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("agents", "tape_entries", "memories", "provenance", "lineage", "memory_uses", "audit")


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT)
    e.pop("TAPEMIND_HOME", None)
    # Child processes never touch a real keychain: the vault key is under a passphrase.
    e["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    e["TAPEMIND_VAULT_PASSPHRASE"] = "correct horse battery staple 马"
    return e


def tapemind_argv(home: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-c",
        "from app.cli.main import main; main()",
        "--home",
        str(home),
        *args,
    ]


def cli(
    home: Path, *args: str, check: bool = True, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        tapemind_argv(home, *args),
        capture_output=True,
        text=True,
        env=env(),
        timeout=120,
        input=stdin,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"tapemind {' '.join(args)} failed: {proc.stderr}")
    return proc


def cli_json(home: Path, *args: str) -> Any:
    return json.loads(cli(home, "--json", *args).stdout)


def start_serve(
    home: Path, environment: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    """A real `tapemind serve` on a free port (in `environment`, else `env()`); returns
    the process and its base URL."""
    proc = subprocess.Popen(
        tapemind_argv(home, "--json", "serve", "--port", "0"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env() if environment is None else environment,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise AssertionError(f"serve did not start: {proc.stderr.read() if proc.stderr else ''}")
    # --json prints a pretty object: read until it closes
    text = line
    while not text.rstrip().endswith("}"):
        text += proc.stdout.readline()
    url = json.loads(text)["url"]
    wait_for_host(home)
    return proc, url.removesuffix("/mcp")


def wait_for_host(home: Path, timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            note = json.loads((home / ".lock").read_text())
            if note.get("url") and (home / "host-owner.token").exists():
                return dict(note)
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError("no host announced itself in the home")


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def stored(home: Path) -> Iterator[Any]:
    """A connection of the test's own to the home's database, past any host that serves
    it (qmark parameters): the SQLite file read-only, or the PostgreSQL database."""
    url = homes.database_url(home)
    if url is None:
        conn = sqlite3.connect(f"file:{home / 'tapemind.db'}?mode=ro", uri=True)
        try:
            yield conn
        finally:
            conn.close()
        return
    engine = postgres.engine_for(url)
    raw = engine.raw_connection()
    try:
        yield Qmark(raw.driver_connection)
    finally:
        raw.close()
        engine.dispose()


def counts(home: Path) -> dict[str, int]:
    """Row counts, read straight from the database (read-only)."""
    with stored(home) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def integrity(home: Path) -> str:
    """SQLite's integrity check of the file; on PostgreSQL, which keeps its own pages
    whole, that every table reads to its end."""
    with stored(home) as conn:
        if isinstance(conn, sqlite3.Connection):
            return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
        for table in TABLES:
            conn.execute(f"SELECT * FROM {table}").fetchall()
        return "ok"


@asynccontextmanager
async def http_client(
    url: str, token: str | None, mode: Literal["auto", "legacy", "2026-07-28"] = "auto"
) -> AsyncIterator[Client]:
    """The SDK's MCP client over streamable HTTP with a bearer token ("legacy": the
    handshake era, an `initialize`d session, as most agents speak today)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as hc,
        Client(streamable_http_client(f"{url}/mcp", http_client=hc), mode=mode) as client,
    ):
        yield client


def stdio_client(home: Path, agent: str) -> Client:
    """The SDK's MCP client launching `tapemind mcp --agent AGENT` as a subprocess."""
    argv = tapemind_argv(home, "mcp", "--agent", agent)
    return Client(StdioServerParameters(command=argv[0], args=argv[1:], env=env(), cwd=str(ROOT)))


def data(result: Any) -> Any:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def error_text(result: Any) -> str:
    assert result.is_error, result.structured_content
    return str(result.content[0].text)
