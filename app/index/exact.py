"""Exact answers where the approximate index cannot be trusted to find a row.

chromadb's HNSW graph is approximate: measured over 97,053 vectors, 37 could not find
themselves in the index's top 100 (a clean build of the same vectors missed the same 37),
and 11 of those rows were not in the semantic top 3 for their own text. A stored row must
always be findable by its own meaning, so two things are exact here:

- a collection of at most `EXACT_UPTO` rows is searched by brute force (all its vectors
  in one matrix: at 4,096 rows of 512 floats a query is one 2M-multiply product, cheaper
  than chromadb's own query path), so small homes never depend on the graph;
- in a larger collection the rows the graph does not reach ("stragglers", found by
  `tapemind index check` and by the indexer's background verification) are compared
  with every query exactly and merged into the graph's answer. They are few (0.04 % in
  the measurement above) and kept in `stragglers.json` beside the index, so they go
  with it when the index is rebuilt.

Everything here runs in the vector store's process (`app.index.vector_child`), on the
vectors chromadb holds: nothing is embedded again.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

EXACT_UPTO = 4096
STRAGGLERS_FILE = "stragglers.json"
# Held vectors of small collections, at most (they are fetched again after a write).
CACHE_BYTES = 256 << 20


def unit_rows(matrix: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """`matrix` with each row scaled to length 1 (a zero row stays zero)."""
    m = np.asarray(matrix, dtype=np.float32)
    if m.ndim == 1:
        m = m.reshape(1, -1)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: npt.NDArray[np.float32] = m / norms
    return unit


def nearest(
    ids: Sequence[int], matrix: npt.NDArray[np.float32], query: npt.ArrayLike, k: int
) -> list[tuple[int, float]]:
    """The `k` rows of `matrix` (unit rows) most similar to `query`: (id, cosine)."""
    if not len(ids) or k <= 0:
        return []
    q = unit_rows(query)[0]
    sims = matrix @ q
    k = min(k, len(ids))
    top = np.argpartition(-sims, k - 1)[:k]
    top = top[np.argsort(-sims[top], kind="stable")]
    return [(int(ids[i]), float(sims[i])) for i in top]


def merge(
    a: Iterable[tuple[int, float]], b: Iterable[tuple[int, float]], k: int
) -> list[tuple[int, float]]:
    """Two answers as one: each id once (its best similarity), most similar first."""
    best: dict[int, float] = {}
    for i, sim in [*a, *b]:
        if i not in best or sim > best[i]:
            best[i] = sim
    return sorted(best.items(), key=lambda p: (-p[1], p[0]))[:k]


class ExactCover:
    """The exact side of one index directory: small collections' vectors and the
    stragglers of large ones, per collection name."""

    def __init__(self, directory: Path) -> None:
        self._file = directory / STRAGGLERS_FILE
        self._held: dict[str, tuple[list[int], npt.NDArray[np.float32]]] = {}
        self._counts: dict[str, int] = {}
        self._straggler_vectors: dict[str, tuple[list[int], npt.NDArray[np.float32]]] = {}
        self.stragglers: dict[str, set[int]] = self._load()

    def _load(self) -> dict[str, set[int]]:
        try:
            data = json.loads(self._file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none recorded yet, or a damaged file: the check finds them again
        if not isinstance(data, dict):
            return {}
        return {str(k): {int(i) for i in v} for k, v in data.items() if isinstance(v, list)}

    def _save(self) -> None:
        data = {k: sorted(v) for k, v in sorted(self.stragglers.items()) if v}
        tmp = self._file.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, self._file)

    def changed(self, name: str, deleted: Iterable[int] = ()) -> None:
        """Collection `name` was written to: its held vectors are stale, and rows
        `deleted` are no longer stragglers."""
        self._held.pop(name, None)
        self._counts.pop(name, None)
        self._straggler_vectors.pop(name, None)
        gone = set(deleted) & self.stragglers.get(name, set())
        if gone:
            self.stragglers[name] -= gone
            with contextlib.suppress(OSError):  # kept in memory; a stale id is harmless
                self._save()

    def forget(self, name: str) -> None:
        """Collection `name` was dropped."""
        self.changed(name)
        if self.stragglers.pop(name, None):
            with contextlib.suppress(OSError):
                self._save()

    def count(self, name: str, collection: Any) -> int:
        if name not in self._counts:
            self._counts[name] = int(collection.count())
        return self._counts[name]

    def small(self, name: str, collection: Any) -> bool:
        """Whether `collection` is searched exactly."""
        return self.count(name, collection) <= EXACT_UPTO

    def search(
        self, name: str, collection: Any, query: npt.ArrayLike, k: int
    ) -> list[tuple[int, float]]:
        """The exact `k` nearest rows of a small collection."""
        ids, matrix = self._hold(name, collection)
        return nearest(ids, matrix, query, k)

    def _hold(self, name: str, collection: Any) -> tuple[list[int], npt.NDArray[np.float32]]:
        if name not in self._held:
            got = collection.get(include=["embeddings"])
            ids = [int(i) for i in got["ids"]]
            matrix = unit_rows(got["embeddings"]) if ids else np.zeros((0, 1), np.float32)
            self._make_room(matrix.nbytes)
            self._held[name] = (ids, matrix)
        return self._held[name]

    def warmed(self, name: str) -> bool:
        """Whether the first search of collection `name` has nothing left to load here:
        its vectors are held, or it is counted and too large to be searched exactly."""
        return name in self._held or self._counts.get(name, 0) > EXACT_UPTO

    def warm(self, name: str, collection: Any, dim: int) -> bool:
        """Do now what the first search of `name` would (count it; hold its vectors if it
        is searched exactly): ~35 ms for a collection of 500 rows, chroma opening its
        segment. False when its vectors would not fit beside those held: warming never
        drops what a search held."""
        if self.warmed(name) or not self.small(name, collection):
            return True
        held = sum(m.nbytes for _, m in self._held.values())
        if held + 4 * dim * self._counts[name] > CACHE_BYTES:
            return False
        self._hold(name, collection)
        return True

    def _make_room(self, nbytes: int) -> None:
        while self._held and sum(m.nbytes for _, m in self._held.values()) + nbytes > CACHE_BYTES:
            self._held.pop(next(iter(self._held)))

    def with_stragglers(
        self,
        name: str,
        collection: Any,
        query: npt.ArrayLike,
        k: int,
        found: list[tuple[int, float]],
    ) -> list[tuple[int, float]]:
        """The graph's answer `found` with the collection's stragglers compared exactly."""
        ids = self.stragglers.get(name)
        if not ids:
            return found
        if name not in self._straggler_vectors:
            got = collection.get(ids=[str(i) for i in sorted(ids)], include=["embeddings"])
            held = [int(i) for i in got["ids"]]
            matrix = unit_rows(got["embeddings"]) if held else np.zeros((0, 1), np.float32)
            self._straggler_vectors[name] = (held, matrix)
        held, matrix = self._straggler_vectors[name]
        return merge(found, nearest(held, matrix, query, k), k)

    def cover(self, name: str, ids: Iterable[int]) -> int:
        """Record rows of collection `name` that the graph cannot find; returns how many
        were new."""
        new = set(ids) - self.stragglers.get(name, set())
        if new:
            self.stragglers.setdefault(name, set()).update(new)
            self._straggler_vectors.pop(name, None)
            with contextlib.suppress(OSError):  # a full disk: covered until a restart
                self._save()
        return len(new)
