"""A deterministic hashing embedder. TEST-ONLY: never the default, never for real recall.

It hashes character n-grams into ``dim`` signed buckets, so texts sharing words or Chinese
characters land close together. That is enough for tests that need stable vectors and
"similar text ranks first" without loading a model; it knows nothing about meaning.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from app.index.embedders.base import Vectors, normalise
from app.text import CJK_LETTERS

_CJK = CJK_LETTERS
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+")
_IS_CJK = re.compile(rf"[{_CJK}]")


def features(text: str) -> list[str]:
    """The n-grams hashed for ``text``: Latin words plus their character trigrams,
    and single characters plus bigrams for CJK runs (no spaces to split words there)."""
    out: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        if _IS_CJK.match(token):
            out.extend(token)
            out.extend(token[i : i + 2] for i in range(len(token) - 1))
        else:
            out.append(token)
            padded = f"<{token}>"
            out.extend(padded[i : i + 3] for i in range(len(padded) - 2))
    return out


class HashingEmbedder:
    """Deterministic bag of hashed character n-grams (test-only; see the module docstring)."""

    queries_are_documents = True

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.name = f"hashing-{dim}"

    def _vector(self, text: str) -> Vectors:
        vec = np.zeros(self.dim, dtype=np.float32)
        for feature in features(text):
            # blake2b, not hash(): Python salts str hashes per process.
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            sign = 1.0 if value & 1 else -1.0
            vec[(value >> 1) % self.dim] += sign
        return normalise(vec)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts: (n, dim) float32, unit length (all zeros for text with no n-grams)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> Vectors:
        """Embed a query exactly like a document: (dim,) float32."""
        return self._vector(text)
