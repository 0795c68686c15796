"""`RemoteEngine`: the Engine API of a home that a host process owns.

Every public `Engine` method is available with the same arguments and the same
return types: a call is sent to the host's owner endpoint as the method's name
and JSON arguments, run there, and its result rebuilt into the frozen
dataclasses from the method's annotations. So the CLI and the stdio MCP server
use one code path whether they own the home or go through a host, and Engine
methods added later work through the host without new endpoints.
"""

from __future__ import annotations

import inspect
import io
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import IO, Any

import httpx

from app import errors
from app.codec import from_json, method_hints, to_json
from app.engine import Engine
from app.errors import HomeError, TapemindError

# Methods a host never runs for another process (they concern the host's own Engine object).
_LOCAL_ONLY = frozenset({"open", "close", "use_passphrase_prompt"})
# Generous: `request_secret` may wait minutes for the owner's answer.
READ_TIMEOUT_S = 900.0
# A keyed write whose answer was lost (the host died after it committed, the connection
# dropped) is sent again to the home's host, a new one if it restarted, for this long.
RETRY_FOR_S = 30.0


class HostGone(HomeError):
    """The host stopped answering in the middle of a call."""


def _keyed(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a call is safe to send twice: an append whose entries all carry keys,
    a remember with a key (the engine finds the first call's result by them)."""
    if method == "remember":
        return bool(kwargs.get("key"))
    if method == "append":
        entries = args[1] if len(args) > 1 else kwargs.get("entries", ())
        return bool(entries) and all(
            (e.get("source_key") if isinstance(e, dict) else getattr(e, "source_key", None))
            for e in entries
        )
    return False


@cache
def engine_methods() -> frozenset[str]:
    """Names of the public Engine methods callable through a host."""
    return frozenset(
        name
        for name, member in inspect.getmembers(Engine, inspect.isfunction)
        if not name.startswith("_") and name not in _LOCAL_ONLY
    )


def error_from_json(data: dict[str, Any]) -> TapemindError:
    """The engine's own exception class again, with its code and message."""
    cls = getattr(errors, str(data.get("type", "")), None)
    if not (isinstance(cls, type) and issubclass(cls, TapemindError)):
        cls = TapemindError
    message = str(data.get("message", "The host refused the call."))
    return cls(message, code=data.get("code"), for_agents=data.get("for_agents"))


class RemoteEngine:
    """Engine calls run by the host at `url`, authenticated with the owner token."""

    def __init__(self, url: str, owner_token: str, *, timeout: float = READ_TIMEOUT_S) -> None:
        self.url = url
        self.broken = False  # set once the host stops answering: open the home again
        self._client = httpx.Client(
            base_url=url,
            headers={"Authorization": f"Bearer {owner_token}"},
            timeout=httpx.Timeout(10.0, read=timeout),
        )
        try:
            info = self._post("/rpc/info", {})
        except BaseException:
            self._client.close()
            raise
        self.home = Path(info["home"])
        self.home_id: str = info["home_id"]
        self.schema_version: int = info["schema_version"]
        self.host_pid: int = info["pid"]

    def _post(self, path: str, body: dict[str, Any]) -> Any:
        try:
            response = self._client.post(path, json=body)
        except httpx.HTTPError as exc:
            self.broken = True
            raise HostGone(
                f"The Tapemind host at {self.url} stopped answering ({type(exc).__name__}). "
                "Run the command again: it will use a new host or open the home itself."
            ) from None
        if response.status_code == 401:
            self.broken = True
            raise HomeError(
                "The Tapemind host refused the owner token (it was restarted?). "
                "Run the command again."
            )
        data = response.json()
        if "error" in data:
            raise error_from_json(data["error"])
        return data["result"]

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Run `Engine.<method>(*args, **kwargs)` in the host; returns its typed result.

        A keyed append or remember whose answer is lost is sent again (to a restarted
        host too) for up to RETRY_FOR_S: the keys make the second send return the first's
        result instead of writing twice."""
        body = {"method": method, "args": to_json(list(args)), "kwargs": to_json(kwargs)}
        try:
            result = self._post("/rpc", body)
        except HostGone:
            if not _keyed(method, args, kwargs):
                raise
            result = self._again(body)
        fn = getattr(Engine, method)
        return from_json(method_hints(fn).get("return", Any), result)

    def _again(self, body: dict[str, Any]) -> Any:
        from app.host.lock import OWNER_TOKEN_FILE, read_holder

        deadline = time.monotonic() + RETRY_FOR_S
        while True:
            holder = read_holder(self.home) or {}
            try:
                token = (self.home / OWNER_TOKEN_FILE).read_text(encoding="utf-8").strip()
            except OSError:
                token = ""
            if holder.get("url") and token:
                self._client.close()
                self.url = str(holder["url"])
                self._client = httpx.Client(
                    base_url=self.url,
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=httpx.Timeout(10.0, read=READ_TIMEOUT_S),
                )
                try:
                    answer = self._post("/rpc", body)
                    self.broken = False
                    return answer
                except HomeError:
                    pass  # starting, or gone again: look once more
            if time.monotonic() >= deadline:
                raise HostGone(
                    f"The Tapemind host of {self.home} stopped answering and did not come "
                    "back. The call carried keys, so running it again is safe: it is not "
                    "stored twice."
                )
            time.sleep(0.25)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name in engine_methods():

            def method(*args: Any, **kwargs: Any) -> Any:
                return self.call(name, *args, **kwargs)

            method.__name__ = name
            method.__doc__ = getattr(Engine, name).__doc__
            return method
        raise AttributeError(name)

    # -- what cannot travel as JSON ------------------------------------------------

    def export(self, out: IO[str] | Path) -> dict[str, int]:
        """Export through the host: to a path it writes, or streamed back as text."""
        if isinstance(out, Path):
            return dict(self.call("export", out.resolve()))
        text = self._post("/rpc/export", {})
        out.write(text["jsonl"])
        return dict(text["counts"])

    def import_(self, path: Path) -> dict[str, int]:
        return dict(self.call("import_", Path(path).resolve()))

    def use_passphrase_prompt(self, provider: Any) -> None:
        """No-op: the host unlocks its own vault (its keyring, its passphrase
        source); a prompt in this process cannot travel to it."""

    @property
    def events(self) -> Any:
        raise HomeError(
            "Engine events are only available in the process that owns the home "
            "(the host); subscribe there."
        )

    def host_jobs(self) -> list[dict[str, Any]]:
        """The host's background jobs and how their runs went."""
        return list(self._post("/rpc/jobs", {}))

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> RemoteEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def export_text(engine: Engine) -> dict[str, Any]:
    buffer = io.StringIO()
    counts = engine.export(buffer)
    return {"jsonl": buffer.getvalue(), "counts": counts}
