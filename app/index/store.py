"""The vector index as the engine sees it: one directory, served by a store process.

`VectorStore` is what the retrieval service and the indexer hold: `index(model, dim)`
gives a `RemoteIndex` with the methods of `VectorIndex` (`app.index.vectors`), run in the
store's process (`vector_process`). Each call has a patience (how long its caller waits)
and a limit (how long the store may take before it is stopped):

- queries wait `QUERY_PATIENCE_S`: a search that waits longer answers from full-text;
- writes and reads of whole collections wait up to `WRITE_LIMIT_S`, then the store is
  stopped and the indexer retries later with a fresh one.

The directory also holds `home.json`, the id of the home whose database the vectors
belong to: an index found beside another home's database (a copied or restored
directory) is never written to, nor emptied by a reconcile that would see none of its
rows in the database; `reset` (what `tapemind index rebuild` and healing do) removes
the directory whatever state it is in, and the indexer embeds everything again.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from app.index.vector_process import StoreFault, VectorProcess

QUERY_PATIENCE_S = 10.0
QUERY_LIMIT_S = 60.0
WRITE_LIMIT_S = 120.0
HOME_FILE = "home.json"
DATABASE_FILE = "chroma.sqlite3"


class RemoteIndex:
    """The `VectorIndex` of one model, in the store process: the same methods."""

    def __init__(self, store: VectorStore, embedder_name: str, dim: int) -> None:
        self._store = store
        self.embedder_name = embedder_name
        self.dim = dim

    def _call(self, method: str, *args: Any, read: bool = False) -> Any:
        return self._store.call("index", self.embedder_name, self.dim, method, args, read=read)

    def upsert(
        self,
        kind: str,
        ids: Sequence[int],
        vectors: npt.ArrayLike,
        agent_ids: Sequence[int | str],
        extra_metadatas: Sequence[Mapping[str, str | int | float | bool]] | None = None,
    ) -> None:
        matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        extras = [dict(m) for m in extra_metadatas] if extra_metadatas is not None else None
        self._call(
            "upsert", kind, [int(i) for i in ids], matrix, [str(a) for a in agent_ids], extras
        )

    def delete(self, kind: str, ids: Sequence[int]) -> None:
        self._call("delete", kind, [int(i) for i in ids])

    def query(
        self,
        kind: str,
        agent_id: int | str,
        vector: npt.ArrayLike,
        k: int,
        where: Mapping[str, Any] | None = None,
    ) -> list[tuple[int, float]]:
        query = np.ascontiguousarray(vector, dtype=np.float32)
        found = self._call(
            "query", kind, agent_id, query, k, dict(where) if where else None, read=True
        )
        return [(int(i), float(sim)) for i, sim in found]

    def warm(self, kind: str, budget_s: float) -> int:
        return int(self._call("warm", kind, float(budget_s), read=True))

    def ids(self, kind: str) -> set[int]:
        return set(self._call("ids", kind))

    def count(self, kind: str) -> int:
        return int(self._call("count", kind))

    def self_check(self, kind: str, rows: Sequence[tuple[str, int]]) -> dict[str, Any]:
        return dict(self._call("self_check", kind, [(str(a), int(i)) for a, i in rows]))

    def vectors(self, kind: str, rows: Sequence[tuple[str, int]]) -> dict[int, Any]:
        return dict(self._call("vectors", kind, [(str(a), int(i)) for a, i in rows]))

    def cover(self, kind: str, rows: Sequence[tuple[str, int]]) -> int:
        return int(self._call("cover", kind, [(str(a), int(i)) for a, i in rows]))

    def collections(self) -> list[dict[str, Any]]:
        return list(self._call("collections"))

    def grow(self, budget_s: float) -> int:
        """Nothing to build: chromadb keeps a graph in every agent's collection."""
        return 0


class VectorStore:
    """The index directory of one home and the process that serves it."""

    def __init__(self, path: Path, home_id: str | None = None) -> None:
        self.path = path
        self.home_id = home_id
        self.process = VectorProcess(path)
        self._indexes: dict[str, RemoteIndex] = {}
        self._claimed = False

    # -- the directory --------------------------------------------------------------

    @property
    def location(self) -> str:
        """Where the vectors are, as the owner reads it."""
        return str(self.path)

    @property
    def opened(self) -> bool:
        """Whether the store process runs."""
        return self.process.pid is not None

    @property
    def present(self) -> bool:
        """Whether the directory holds an index (chromadb's database file)."""
        return (self.path / DATABASE_FILE).exists()

    def holds_vectors(self) -> bool:
        """Whether there is an index to load ahead of a first query."""
        return self.path.exists()

    def probe(self) -> tuple[str, str] | None:
        """What the directory shows without opening the index: ("damaged", why) for a
        chromadb database file that is empty, not SQLite, or shorter than its header
        says (truncated); ("foreign", why) for another home's index; else None. A few
        bytes read: cheap enough for every query."""
        db = self.path / DATABASE_FILE
        try:
            with db.open("rb") as fh:
                head = fh.read(100)
                size = fh.seek(0, 2)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return ("damaged", f"{db} cannot be read: {exc.strerror}")
        if not head:
            return ("damaged", f"{db} is empty")
        if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
            return ("damaged", f"{db} is not an SQLite database")
        page = int.from_bytes(head[16:18], "big") or 65536
        pages = int.from_bytes(head[28:32], "big")
        # The header's page count holds when written by the same change as the header.
        if head[24:28] == head[92:96] and size < pages * page:
            return ("damaged", f"{db} is truncated ({size} of {pages * page} bytes)")
        owner = self.owner()
        if owner is not None and self.home_id is not None and owner != self.home_id:
            return ("foreign", f"the index in {self.path} belongs to home {owner}")
        return None

    def owner(self) -> str | None:
        """The home id recorded beside the vectors (None: not recorded, or unreadable)."""
        try:
            data = json.loads((self.path / HOME_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return str(data.get("home_id")) if isinstance(data, dict) and data.get("home_id") else None

    def _claim(self) -> None:
        """Refuse an index of another home; record ours beside a new or older one."""
        if self.home_id is None or self._claimed:
            return
        owner = self.owner()
        if owner is not None and owner != self.home_id:
            raise StoreFault(
                "foreign",
                f"the index in {self.path} belongs to another home's database (home id "
                f"{owner}, this one is {self.home_id})",
            )
        if owner is None:
            try:
                self.path.mkdir(parents=True, exist_ok=True)
                (self.path / HOME_FILE).write_text(
                    json.dumps({"home_id": self.home_id}), encoding="utf-8"
                )
            except OSError:
                return  # a full disk: recorded on a later call
        self._claimed = True

    def reset(self) -> None:
        """Stop the store and remove the directory, whatever is in it (derived data: the
        indexer embeds every row again from the database)."""
        self.process.stop()
        self._indexes.clear()
        self._claimed = False
        if self.path.exists():
            shutil.rmtree(self.path, ignore_errors=True)
        if self.path.exists():  # a file where the directory should be
            with contextlib.suppress(OSError):
                self.path.unlink()

    # -- calls -----------------------------------------------------------------------

    def call(self, op: str, *args: Any, read: bool = False) -> Any:
        """Run `op` in the store process (see `VectorProcess.call`)."""
        self._claim()
        if read:
            return self.process.call(op, *args, patience=QUERY_PATIENCE_S, limit=QUERY_LIMIT_S)
        return self.process.call(op, *args, patience=WRITE_LIMIT_S, limit=WRITE_LIMIT_S)

    def index(self, name: str, dim: int) -> RemoteIndex:
        """The index of model `name` (vectors of dimension `dim`)."""
        key = f"{name}\x00{dim}"
        if key not in self._indexes:
            self._indexes[key] = RemoteIndex(self, name, dim)
        return self._indexes[key]

    def models(self) -> dict[str, int]:
        """Models with collections in the directory, with their dimension."""
        return dict(self.call("models"))

    def forget_model(self, name: str) -> int:
        """Drop every collection of model `name`; returns how many."""
        for key in [k for k in self._indexes if k.split("\x00")[0] == name]:
            del self._indexes[key]
        return int(self.call("forget_model", name))

    def prune_segment_dirs(self) -> int:
        """Remove vector-segment directories chromadb no longer knows (see
        `vector_child`); returns how many."""
        return int(self.call("prune"))

    def prestart(self) -> None:
        """Start the store process ahead of the first call, when there is an index to
        serve (`VectorProcess.prestart`)."""
        if self.present:
            self.process.prestart()

    def ping(self) -> dict[str, Any]:
        """The store process's pid and resident memory (starts it if none runs)."""
        return dict(self.call("ping", read=True))

    def drop(self) -> None:
        """Stop the store process; the next call starts a fresh one."""
        self.process.drop()

    def close(self) -> None:
        self.process.close()
