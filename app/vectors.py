"""The vector index: chromadb collections holding vectors we computed, one per kind and model.

The index is derived data: SQLite is the truth and the index can always be rebuilt from it.
Rows are "memory" or "tape" vectors keyed by their SQLite integer id, each tagged with the
agent it belongs to; every query is filtered by agent so agents never see each other's rows.
Collections are named ``<kind>__<embedder>`` and carry ``{model, dim, kind}`` metadata, so a
model change creates fresh collections and :meth:`VectorIndex.drop_model` removes old ones.

chromadb is told never to embed (``embedding_function=None``: its default one downloads a
model at run time) and never to phone home (``anonymized_telemetry=False``). Only one process
may write a persistent index at a time (two writers corrupted it in our tests); the caller
holds that lock. Within a process, one lock serialises calls into the client.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

Kind = Literal["memory", "tape"]
KINDS: tuple[Kind, ...] = ("memory", "tape")
AGENT_KEY = "agent_id"
_VALID_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,500}[a-zA-Z0-9]$")
_PAGE = 10_000


class VectorIndexError(RuntimeError):
    """The index cannot be used as asked; the message says what to do."""


def collection_name(kind: str, model: str) -> str:
    """``memory__usem3``; names chroma would refuse (``openai:bge-m3``) get a safe form
    plus a short hash of the exact model name, so two models never share a collection."""
    plain = f"{kind}__{model}"
    if _VALID_NAME.match(plain) and ".." not in plain:
        return plain
    safe = re.sub(r"[^a-zA-Z0-9_-]+", "-", model).strip("-_")[:40] or "model"
    digest = hashlib.sha1(model.encode("utf-8")).hexdigest()[:8]
    return f"{kind}__{safe}-{digest}"


class VectorIndex:
    """Memory and tape vectors of one embedder, in a chromadb persistent directory."""

    def __init__(self, client: Any, embedder_name: str, dim: int) -> None:
        self._client = client
        self._lock = threading.RLock()
        self.embedder_name = embedder_name
        self.dim = dim
        self._max_batch = int(client.get_max_batch_size())
        self._collections = {kind: self._collection(kind) for kind in KINDS}

    @classmethod
    def open(cls, path: str | Path, embedder_name: str, dim: int) -> VectorIndex:
        """Open (creating if needed) the index at ``path`` for ``embedder_name`` vectors.

        Raises:
            VectorIndexError: the directory holds vectors of this model with another dimension.
        """
        import chromadb
        from chromadb.config import Settings

        Path(path).mkdir(parents=True, exist_ok=True)
        client: Any = chromadb.PersistentClient(
            path=str(path), settings=Settings(anonymized_telemetry=False, allow_reset=False)
        )
        try:
            return cls(client, embedder_name, dim)
        except BaseException:
            client.close()
            raise

    def _collection(self, kind: Kind) -> Any:
        name = collection_name(kind, self.embedder_name)
        metadata = {"model": self.embedder_name, "dim": self.dim, "kind": kind}
        # Not get_or_create: given metadata, it may overwrite an existing collection's
        # metadata and hide a dimension clash.
        existing = {c.name for c in self._client.list_collections()}
        if name in existing:
            collection = self._client.get_collection(name, embedding_function=None)
        else:
            collection = self._client.create_collection(
                name,
                embedding_function=None,
                metadata=metadata,
                configuration={"hnsw": {"space": "cosine"}},
            )
        stored = collection.metadata or {}
        if stored.get("dim") != self.dim or stored.get("model") != self.embedder_name:
            raise VectorIndexError(
                f"Collection {name} holds {stored.get('model')!r} vectors of dimension "
                f"{stored.get('dim')}, not {self.embedder_name!r} of dimension {self.dim}; "
                f"drop it (drop_model({stored.get('model')!r})) and re-embed"
            )
        return collection

    def upsert(
        self,
        kind: Kind,
        ids: Sequence[int],
        vectors: npt.ArrayLike,
        agent_ids: Sequence[int | str],
        extra_metadatas: Sequence[Mapping[str, str | int | float | bool]] | None = None,
    ) -> None:
        """Insert or replace rows. ``vectors`` is (n, dim); agent ids are stored as text.

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
        metadatas = [
            {**extra, AGENT_KEY: str(agent)} for extra, agent in zip(extras, agent_ids, strict=True)
        ]
        str_ids = [str(int(i)) for i in ids]
        collection = self._collections[kind]
        with self._lock:
            for start in range(0, n, self._max_batch):
                end = start + self._max_batch
                collection.upsert(
                    ids=str_ids[start:end],
                    embeddings=matrix[start:end],
                    metadatas=metadatas[start:end],
                )

    def delete(self, kind: Kind, ids: Iterable[int]) -> None:
        """Remove rows; ids that are not there are ignored."""
        str_ids = [str(int(i)) for i in ids]
        with self._lock:
            for start in range(0, len(str_ids), self._max_batch):
                self._collections[kind].delete(ids=str_ids[start : start + self._max_batch])

    def query(
        self,
        kind: Kind,
        agent_id: int | str,
        vector: npt.ArrayLike,
        k: int,
        where: Mapping[str, Any] | None = None,
    ) -> list[tuple[int, float]]:
        """The ``k`` rows of ``agent_id`` nearest to ``vector``: (id, cosine similarity),
        most similar first. ``where`` adds chroma metadata filters on the extra metadata."""
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise ValueError(f"Query vector has dimension {query.shape[0]}, index has {self.dim}")
        if k <= 0:
            return []
        agent_filter = {AGENT_KEY: str(agent_id)}
        full_where = {"$and": [agent_filter, dict(where)]} if where else agent_filter
        collection = self._collections[kind]
        with self._lock:
            total = collection.count()
            if total == 0:
                return []
            result = collection.query(
                query_embeddings=[query],
                n_results=min(k, total),
                where=full_where,
                include=["distances"],
            )
        ids = result["ids"][0]
        distances = result["distances"][0]
        # chroma's cosine distance is 1 - cosine similarity.
        return [(int(i), 1.0 - float(d)) for i, d in zip(ids, distances, strict=True)]

    def ids(self, kind: Kind) -> set[int]:
        """Every id in the kind's collection, to reconcile with the database after a crash."""
        collection = self._collections[kind]
        out: set[int] = set()
        with self._lock:
            offset = 0
            while True:
                page = collection.get(include=[], limit=_PAGE, offset=offset)["ids"]
                out.update(int(i) for i in page)
                if len(page) < _PAGE:
                    return out
                offset += _PAGE

    def count(self, kind: Kind) -> int:
        """How many rows the kind's collection holds (all agents)."""
        with self._lock:
            return int(self._collections[kind].count())

    def models(self) -> dict[str, int]:
        """Every model with collections in this directory, with its dimension."""
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
                    dropped += 1
        return dropped

    def close(self) -> None:
        """Release the chromadb client; the index can be opened again afterwards."""
        with self._lock:
            self._client.close()
