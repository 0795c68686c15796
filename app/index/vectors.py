"""The vector index: chromadb collections holding vectors we computed, per kind, model and agent.

The index is derived data: SQLite is the truth and the index can always be rebuilt from it.
Rows are "memory" or "tape" vectors keyed by their SQLite integer id. Each agent's rows of
one kind live in their own collection, ``<kind>__<model>__<agent>``, with metadata
``{model, dim, kind, agent_id}``: isolation between agents is structural, and a query never
pays for a metadata filter. (Measured with chromadb 1.5.9 at 100k rows of dim 512: a
``where={"agent_id": …}`` filter made top-10 queries take ~350 ms instead of a few ms,
because chroma pre-filters through SQLite before the HNSW search.) A model change creates
fresh collections and :meth:`VectorIndex.drop_model` removes the old ones.

chromadb is told never to embed (``embedding_function=None``: its default one downloads a
model at run time) and never to phone home (``anonymized_telemetry=False``). Only one process
may write a persistent index at a time (two writers corrupted it in our tests); the caller
holds that lock. Within a process, one lock serialises calls into the client.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from app.index.exact import ExactCover, unit_rows

Kind = Literal["memory", "tape"]
KINDS: tuple[Kind, ...] = ("memory", "tape")
AGENT_KEY = "agent_id"
_SAFE_PART = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_-]{0,59}$")
_PAGE = 10_000
# How often a collection writes its HNSW index to disk (rows added). Until it does, its
# rows stay in chroma's write-ahead log, and the first query of a collection in a process
# reads that log, a table without an index on the collection: with chroma's default
# (1,000) an agent's collection of a few hundred turns never got there, and the first
# search of each agent read every agent's log (250 ms in a home of 40k turns, growing
# with the home). At 100 the log is purged as the index is written.
SYNC_ROWS = 100
# The graph of new collections: chromadb's defaults (16 neighbours, ef 100), cosine space.
HNSW: dict[str, Any] = {"space": "cosine", "batch_size": SYNC_ROWS, "sync_threshold": SYNC_ROWS}
# A row "finds itself" when it is among its own vector's SELF_K nearest (or all of them
# are exact ties of it: identical texts have identical vectors).
SELF_K = 10
_TIE = 1e-4


def open_client(path: str | Path) -> Any:
    """A chromadb PersistentClient at `path`: telemetry off, never its own embedder."""
    import chromadb
    from chromadb.config import Settings

    Path(path).mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(
        path=str(path), settings=Settings(anonymized_telemetry=False, allow_reset=False)
    )


class VectorIndexError(RuntimeError):
    """The index cannot be used as asked; the message says what to do."""


def _part(value: str) -> str:
    """``value`` if chroma accepts it inside a name, else a safe form plus a short hash,
    so two different values (``openai:bge-m3`` and ``openai/bge-m3``) never collide."""
    if _SAFE_PART.match(value) and "__" not in value:
        return value
    safe = re.sub(r"[^a-zA-Z0-9]+", "-", value).strip("-")[:40] or "x"
    return f"{safe}-{hashlib.sha1(value.encode('utf-8')).hexdigest()[:8]}"


def _tune(collection: Any) -> None:
    """Give a collection made with chroma's default sync threshold ours (see SYNC_ROWS):
    its log is purged from the next index write on."""
    try:
        hnsw = (collection.configuration_json or {}).get("hnsw") or {}
        if int(hnsw.get("sync_threshold", SYNC_ROWS)) > SYNC_ROWS:
            collection.modify(
                configuration={"hnsw": {"batch_size": SYNC_ROWS, "sync_threshold": SYNC_ROWS}}
            )
    except Exception:  # an older chroma, or a collection it cannot change: keep it as it is
        return


def collection_name(kind: str, model: str, agent_id: int | str) -> str:
    """The collection of one agent's rows of one kind and model: ``memory__usem3__7``."""
    return f"{kind}__{_part(model)}__{_part(str(agent_id))}"


class VectorIndex:
    """Memory and tape vectors of one embedder, in a chromadb persistent directory."""

    def __init__(
        self, client: Any, embedder_name: str, dim: int, cover: ExactCover | None = None
    ) -> None:
        self._client = client
        self._cover = cover
        self._lock = threading.RLock()
        self.embedder_name = embedder_name
        self.dim = dim
        self._max_batch = int(client.get_max_batch_size())
        # (kind, agent_id as text) -> collection, for this model only.
        self._collections: dict[tuple[str, str], Any] = {}
        for collection in client.list_collections():
            meta = collection.metadata or {}
            if meta.get("model") != embedder_name:
                continue
            if meta.get("dim") != dim:
                raise VectorIndexError(
                    f"The index holds {embedder_name!r} vectors of dimension {meta.get('dim')}, "
                    f"not {dim}; drop them (drop_model({embedder_name!r})) and re-embed"
                )
            self._collections[(str(meta["kind"]), str(meta[AGENT_KEY]))] = collection
        self._tuned: set[tuple[str, str]] = set()  # collections written to by this process

    @classmethod
    def open(cls, path: str | Path, embedder_name: str, dim: int) -> VectorIndex:
        """Open (creating if needed) the index at ``path`` for ``embedder_name`` vectors.

        Raises:
            VectorIndexError: the directory holds vectors of this model with another dimension.
        """
        client = open_client(path)
        try:
            return cls(client, embedder_name, dim)
        except BaseException:
            client.close()
            raise

    def _collection(self, kind: Kind, agent: str, create: bool) -> Any:
        if kind not in KINDS:
            raise ValueError(f"Unknown kind {kind!r}; use one of {KINDS}")
        key = (kind, agent)
        if create and key in self._collections and key not in self._tuned:
            _tune(self._collections[key])  # only the writer changes a collection
            self._tuned.add(key)
        if key not in self._collections and create:
            self._collections[key] = self._client.create_collection(
                collection_name(kind, self.embedder_name, agent),
                embedding_function=None,
                metadata={
                    "model": self.embedder_name,
                    "dim": self.dim,
                    "kind": kind,
                    AGENT_KEY: agent,
                },
                configuration={"hnsw": dict(HNSW)},
            )
        return self._collections.get(key)

    def _of_kind(self, kind: Kind) -> list[Any]:
        return [c for (k, _), c in self._collections.items() if k == kind]

    def upsert(
        self,
        kind: Kind,
        ids: Sequence[int],
        vectors: npt.ArrayLike,
        agent_ids: Sequence[int | str],
        extra_metadatas: Sequence[Mapping[str, str | int | float | bool]] | None = None,
    ) -> None:
        """Insert or replace rows. ``vectors`` is (n, dim); one agent id per row.

        A row keeps its agent for life (memories never move between agents): upserting an
        id under another agent adds a second row rather than moving it.

        Raises:
            ValueError: lengths differ or the vectors have the wrong dimension.
        """
        matrix = np.asarray(vectors, dtype=np.float32)
        n = len(ids)
        if matrix.ndim != 2 or matrix.shape[0] != n or len(agent_ids) != n:
            raise ValueError(
                f"upsert needs one vector and one agent id per id: got {n} ids, "
                f"vectors of shape {matrix.shape}, {len(agent_ids)} agent ids"
            )
        if n and matrix.shape[1] != self.dim:
            raise ValueError(
                f"Vectors have dimension {matrix.shape[1]} but this index holds "
                f"{self.embedder_name!r} vectors of dimension {self.dim}"
            )
        extras = list(extra_metadatas) if extra_metadatas is not None else [{}] * n
        if len(extras) != n:
            raise ValueError(f"extra_metadatas has {len(extras)} entries for {n} ids")
        rows: dict[str, list[int]] = defaultdict(list)
        for position, agent in enumerate(agent_ids):
            rows[str(agent)].append(position)
        with self._lock:
            for agent, positions in rows.items():
                collection = self._collection(kind, agent, create=True)
                for start in range(0, len(positions), self._max_batch):
                    chunk = positions[start : start + self._max_batch]
                    collection.upsert(
                        ids=[str(int(ids[p])) for p in chunk],
                        embeddings=matrix[chunk],
                        metadatas=[{**extras[p], AGENT_KEY: agent} for p in chunk],
                    )
                if self._cover is not None:
                    self._cover.changed(collection.name)

    def delete(self, kind: Kind, ids: Iterable[int]) -> None:
        """Remove rows, whichever agent they belong to; ids that are not there are ignored."""
        str_ids = [str(int(i)) for i in ids]
        with self._lock:
            for collection in self._of_kind(kind):
                for start in range(0, len(str_ids), self._max_batch):
                    collection.delete(ids=str_ids[start : start + self._max_batch])
                if self._cover is not None:
                    self._cover.changed(collection.name, deleted=[int(i) for i in str_ids])

    def query(
        self,
        kind: Kind,
        agent_id: int | str,
        vector: npt.ArrayLike,
        k: int,
        where: Mapping[str, Any] | None = None,
    ) -> list[tuple[int, float]]:
        """The ``k`` rows of ``agent_id`` nearest to ``vector``: (id, cosine similarity),
        most similar first. ``where`` is a chroma metadata filter on the extra metadata;
        it costs a SQLite pre-filter, so keep it off hot paths where a collection is large."""
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise ValueError(f"Query vector has dimension {query.shape[0]}, index has {self.dim}")
        if k <= 0:
            return []
        with self._lock:
            collection = self._collection(kind, str(agent_id), create=False)
            if collection is None:
                return []
            cover = self._cover if not where else None
            if cover is not None and cover.small(collection.name, collection):
                return cover.search(collection.name, collection, query, k)
            # No count() per query: chroma answers a k above the row count with what it
            # has, and that extra round trip was a tenth of a query at 100k rows (the
            # cover counts a collection once per write).
            result = collection.query(
                query_embeddings=[query],
                n_results=k,
                where=dict(where) if where else None,
                include=["distances"],
            )
            # chroma's cosine distance is 1 - cosine similarity.
            found = [
                (int(i), 1.0 - float(d))
                for i, d in zip(result["ids"][0], result["distances"][0], strict=True)
            ]
            if cover is None:
                return found
            return cover.with_stragglers(collection.name, collection, query, k, found)

    def warm(self, kind: Kind, budget_s: float) -> int:
        """Load, for about `budget_s` seconds, what the first query of each collection of
        `kind` would (the exact cover's vectors of small collections), so an agent's
        first search after a start is as fast as its next; returns how many collections
        are left (0: done, or no room left to hold more). In slices: queries sent
        meanwhile wait at most one slice in the store's queue."""
        deadline = time.monotonic() + budget_s
        with self._lock:
            if self._cover is None:
                return 0
            left = [c for (k, _), c in self._collections.items() if k == kind]
            left = [c for c in left if not self._cover.warmed(c.name)]
            while left and time.monotonic() < deadline:
                collection = left[0]
                if not self._cover.warm(collection.name, collection, self.dim):
                    return 0
                left.pop(0)
            return len(left)

    def self_check(self, kind: Kind, rows: Sequence[tuple[str, int]]) -> dict[str, Any]:
        """Which of `rows`, (agent, id), the index cannot find by their own vector.

        Returns {"checked": rows the index holds, "absent": [(agent, id)] it does not
        hold, "unfindable": [(agent, id)] rows of large collections the graph does not
        return among their own vector's nearest, "uncovered": those of them not yet
        compared exactly with every query}. Small collections are searched
        exactly: their rows always find themselves."""
        absent: list[tuple[str, int]] = []
        unfindable: list[tuple[str, int]] = []
        uncovered: list[tuple[str, int]] = []
        checked = 0
        with self._lock:
            for agent in sorted({str(a) for a, _ in rows}):
                wanted = [str(int(i)) for a, i in rows if str(a) == agent]
                collection = self._collection(kind, agent, create=False)
                got = collection.get(ids=wanted, include=["embeddings"]) if collection else None
                held = set(got["ids"]) if got is not None else set()
                absent.extend((agent, int(i)) for i in wanted if i not in held)
                checked += len(held)
                if not held or collection is None:
                    continue
                if self._cover is not None and self._cover.small(collection.name, collection):
                    continue
                assert got is not None
                missed = [int(i) for i in _not_found(collection, got["ids"], got["embeddings"])]
                unfindable.extend((agent, i) for i in missed)
                known = self._cover.stragglers.get(collection.name, set()) if self._cover else set()
                uncovered.extend((agent, i) for i in missed if i not in known)
        return {
            "checked": checked,
            "absent": absent,
            "unfindable": unfindable,
            "uncovered": uncovered,
        }

    def vectors(self, kind: Kind, rows: Sequence[tuple[str, int]]) -> dict[int, Any]:
        """The stored vectors of `rows`, (agent, id), that the index holds."""
        out: dict[int, Any] = {}
        with self._lock:
            for agent in sorted({str(a) for a, _ in rows}):
                collection = self._collection(kind, agent, create=False)
                if collection is None:
                    continue
                wanted = [str(int(i)) for a, i in rows if str(a) == agent]
                got = collection.get(ids=wanted, include=["embeddings"])
                for i, vector in zip(got["ids"], got["embeddings"], strict=True):
                    out[int(i)] = np.asarray(vector, dtype=np.float32)
        return out

    def cover(self, kind: Kind, rows: Sequence[tuple[str, int]]) -> int:
        """Compare rows the graph cannot find, (agent, id), with every query exactly
        from now on; returns how many were not covered yet."""
        added = 0
        with self._lock:
            for agent in {a for a, _ in rows}:
                collection = self._collection(kind, agent, create=False)
                if collection is not None and self._cover is not None:
                    added += self._cover.cover(collection.name, [i for a, i in rows if a == agent])
        return added

    def collections(self) -> list[dict[str, Any]]:
        """Every collection of this model: kind, agent, rows and dimension."""
        with self._lock:
            return [
                {"kind": k, "agent": agent, "rows": int(c.count()), "dim": self.dim}
                for (k, agent), c in self._collections.items()
            ]

    def ids(self, kind: Kind) -> set[int]:
        """Every id of the kind (all agents), to reconcile with the database after a crash."""
        out: set[int] = set()
        with self._lock:
            for collection in self._of_kind(kind):
                offset = 0
                while True:
                    page = collection.get(include=[], limit=_PAGE, offset=offset)["ids"]
                    out.update(int(i) for i in page)
                    if len(page) < _PAGE:
                        break
                    offset += _PAGE
        return out

    def count(self, kind: Kind) -> int:
        """How many rows the kind holds (all agents)."""
        with self._lock:
            return sum(int(c.count()) for c in self._of_kind(kind))

    def models(self) -> dict[str, int]:
        """Every model with vectors in this directory, with its dimension."""
        with self._lock:
            collections = self._client.list_collections()
        found: dict[str, int] = {}
        for collection in collections:
            meta = collection.metadata or {}
            if "model" in meta:
                found[str(meta["model"])] = int(meta.get("dim", 0))
        return found

    def drop_model(self, name: str) -> int:
        """Delete every collection of model ``name`` (an old embedder); returns how many.

        Raises:
            VectorIndexError: ``name`` is the model this index is open for.
        """
        if name == self.embedder_name:
            raise VectorIndexError(
                f"{name!r} is the model this index is open for; open the index with the new "
                "model first, then drop the old one"
            )
        dropped = 0
        with self._lock:
            for collection in self._client.list_collections():
                if (collection.metadata or {}).get("model") == name:
                    self._client.delete_collection(collection.name)
                    if self._cover is not None:
                        self._cover.forget(collection.name)
                    dropped += 1
        return dropped

    def close(self) -> None:
        """Release the chromadb client; the index can be opened again afterwards."""
        with self._lock:
            self._client.close()


def _not_found(collection: Any, ids: Sequence[str], embeddings: Any) -> list[str]:
    """Those of `ids` (with their `embeddings`) that the graph does not return among
    their own vector's SELF_K nearest."""
    matrix = unit_rows(embeddings)
    missed: list[str] = []
    for start in range(0, len(ids), 256):
        part = ids[start : start + 256]
        result = collection.query(
            query_embeddings=matrix[start : start + 256],
            n_results=SELF_K,
            include=["distances"],
        )
        for own, found, distances in zip(part, result["ids"], result["distances"], strict=True):
            ties = len(found) >= SELF_K and all(d <= _TIE for d in distances)
            if own not in found and not ties:
                missed.append(own)
    return missed
