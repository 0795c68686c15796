"""Okapi BM25 over stored token strings: the one scoring of words the product ranks with.

A document is a token string as the full-text tables store it (`app.text.index_tokens`),
`padded` so that a word is counted with str.count(" word ") at C speed (a Counter of every
token cost ~50 µs a row in Python, more than the whole scoring). A query term is a group
of variants (a stem and its spellings) counted together. k1 1.2 and b 0.75, as FTS5 uses.

Its callers differ only in how a term's weight is read from its document count:
- `fts5_idf`, FTS5's own ln((N − n + 0.5) / (n + 0.5)) floored at 1e-6, where a pool that
  FTS5 chose is ranked again in Python and must keep FTS5's order (`rare_terms`);
- `smooth_idf`, ln(1 + (N − n + 0.5) / (n + 0.5)), where one agent's own tape gives the
  counts (`rerank`): in a small tape a word most entries hold still weighs a little instead
  of nothing.

The benchmarks' plain baseline (`app.benchmarks.bm25`) is separate on purpose: it is what
the product must beat, so it shares none of the product's tokens or code.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

K1 = 1.2
B = 0.75

Group = tuple[str, ...]


def padded(tokens: str) -> str:
    """A token string ready for counting words with str.count(" word "): each separator
    doubled, so that adjacent repeats all count."""
    return " " + tokens.replace(" ", "  ") + " "


def fts5_idf(rows: int, holding: int) -> float:
    """FTS5's weight of a term `holding` of `rows` documents hold."""
    return max(math.log((rows - holding + 0.5) / (holding + 0.5)), 1e-6)


def smooth_idf(rows: int, holding: int) -> float:
    """A term's weight that never reaches zero (`holding` is clipped to `rows`)."""
    n = min(holding, rows)
    return math.log(1 + (rows - n + 0.5) / (n + 0.5))


@dataclass(frozen=True)
class Scorer:
    """BM25 of documents for one query: each term group's weight, and the average token
    count of the documents ranked (the pool's, not the table's)."""

    idf: Mapping[Group, float]
    average_length: float
    # (weight, needles) per group in idf's order, so every document sums in the same order.
    _terms: tuple[tuple[float, tuple[str, ...]], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        terms = tuple((w, tuple(f" {t} " for t in g)) for g, w in self.idf.items())
        object.__setattr__(self, "_terms", terms)

    def score(self, doc: str, length: int) -> float:
        """Okapi BM25 of a `padded` token string of `length` tokens."""
        norm = K1 * (1 - B + B * length / (self.average_length or 1.0))
        total = 0.0
        for weight, needles in self._terms:
            tf = sum(map(doc.count, needles))
            if tf:
                total += weight * tf * (K1 + 1) / (tf + norm)
        return total
