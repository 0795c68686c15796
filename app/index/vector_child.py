"""The vector store's process: the one place chromadb runs (see `vector_process`).

It opens the index directory on its first request and answers requests one at a time,
in order, on its end of a pipe: `(request id, op, args)` in, `(request id, "ok", result)`
or `(request id, "error", fault, message)` out. A failed request never ends the loop;
the host decides whether to start a fresh process. It ends when told to, or when the host
goes away (its end of the pipe closes). SIGINT is ignored: a Ctrl-C in a terminal is the
host's to handle, and the host ends this process.

Messages carry ids, vectors and counts, never text: the store never sees a memory.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
from pathlib import Path
from typing import Any

from app.index import exact, vectors
from app.index.exact import ExactCover
from app.index.footprint import rss_mb
from app.index.vectors import VectorIndex, VectorIndexError, open_client

# The VectorIndex methods the host may call.
METHODS = frozenset(
    {"upsert", "delete", "query", "ids", "count", "self_check", "cover", "collections", "vectors"}
    | {"warm"}
)
_FULL = ("database or disk is full", "no space left", "disk full", "disk is full")
_DAMAGED = (
    "malformed",
    "not a database",
    "error loading hnsw",
    "error finding id",
    "error constructing hnsw",
    "corrupt",
    "unexpected end of file",
    "failed to fill whole buffer",
)


def fault_of(exc: BaseException) -> str:
    """What kind of failure `exc` is: "disk_full", "damaged", "mismatch", "invalid" or
    "failed" (anything else)."""
    if isinstance(exc, VectorIndexError):
        return "mismatch"
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "disk_full"
    said = str(exc).lower()
    if any(words in said for words in _FULL):
        return "disk_full"
    if any(words in said for words in _DAMAGED):
        return "damaged"
    if isinstance(exc, ValueError | TypeError):
        return "invalid"
    return "failed"


def summary(exc: BaseException) -> str:
    """A short account of `exc` for the host's log and `index status` (chromadb's
    messages name files and codes, never row text)."""
    return f"{type(exc).__name__}: {str(exc)[:300]}"


class _Store:
    """The chromadb client of one index directory and the VectorIndex of each model."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._client: Any = None
        self._indexes: dict[tuple[str, int], VectorIndex] = {}
        self._cover: ExactCover | None = None

    def client(self) -> Any:
        if self._client is None:
            self._client = open_client(self.path)
            self._cover = ExactCover(self.path)
        return self._client

    def index(self, model: str, dim: int) -> VectorIndex:
        key = (model, dim)
        if key not in self._indexes:
            self._indexes[key] = VectorIndex(self.client(), model, dim, self._cover)
        return self._indexes[key]

    def run(self, op: str, args: tuple[Any, ...]) -> Any:
        if op == "ping":
            self.client()  # a warm-up opens the index
            return {"pid": os.getpid(), "rss_mb": rss_mb()}
        if op == "index":
            model, dim, method, params = args
            if method not in METHODS:
                raise ValueError(f"no such index method {method!r}")
            return getattr(self.index(str(model), int(dim)), method)(*params)
        if op == "models":
            return self.models()
        if op == "forget_model":
            return self.forget_model(str(args[0]))
        if op == "prune":
            return self.prune()
        raise ValueError(f"no such request {op!r}")

    def models(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for collection in self.client().list_collections():
            meta = collection.metadata or {}
            if "model" in meta:
                found[str(meta["model"])] = int(meta.get("dim", 0))
        return found

    def forget_model(self, name: str) -> int:
        client = self.client()
        for key in [k for k in self._indexes if k[0] == name]:
            del self._indexes[key]
        dropped = 0
        for collection in client.list_collections():
            if (collection.metadata or {}).get("model") == name:
                client.delete_collection(collection.name)
                if self._cover is not None:
                    self._cover.forget(collection.name)
                dropped += 1
        return dropped

    def prune(self) -> int:
        """Remove vector-segment directories chromadb no longer knows (it leaves a deleted
        collection's HNSW files on disk when another process had created them), so an old
        model's vectors do not linger. Returns how many directories were removed."""
        import re
        import shutil
        import sqlite3

        self.client()
        db = self.path / "chroma.sqlite3"
        if not db.exists():
            return 0
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            known = {str(r[0]) for r in conn.execute("SELECT id FROM segments")}
        finally:
            conn.close()
        uuid = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        removed = 0
        for child in self.path.iterdir():
            if child.is_dir() and uuid.match(child.name) and child.name not in known:
                shutil.rmtree(child, ignore_errors=True)
                removed += 1
        return removed

    def close(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close()
            self._client = None


def settings() -> dict[str, Any]:
    """What the host tells a new store process: where exact search ends, the graph of new
    collections (module settings of the host's, so the store follows them)."""
    return {"exact_upto": exact.EXACT_UPTO, "hnsw": dict(vectors.HNSW)}


def serve(conn: Any, path: str, given: dict[str, Any] | None = None) -> None:
    """The process's main loop (the target of the spawned process)."""
    with contextlib.suppress(ValueError, OSError):  # not the main thread: keep SIGINT
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if given:
        exact.EXACT_UPTO = int(given.get("exact_upto", exact.EXACT_UPTO))
        vectors.HNSW = dict(given.get("hnsw", vectors.HNSW))
    store = _Store(Path(path))
    try:
        while True:
            try:
                rid, op, args = conn.recv()
            except (EOFError, OSError):
                return  # the host is gone
            if op == "stop":
                return
            try:
                reply: tuple[Any, ...] = (rid, "ok", store.run(op, tuple(args)))
            except Exception as exc:
                reply = (rid, "error", fault_of(exc), summary(exc))
            try:
                conn.send(reply)
            except (OSError, ValueError):
                return
    finally:
        store.close()
