"""Fusing ranked lists: reciprocal rank fusion, weighted, keeping each list's raw score.

Two constants, because the lists differ: `search` fuses a few long lists (full-text,
semantic) whose lower ranks still carry evidence (k = 60, the usual choice); `context`
fuses its routes (thread, user, query, core), where only the top of each route matters
(k = 20: a smaller k lets the top ranks weigh more).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SEARCH_K = 60
ROUTE_K = 20


def fuse(
    ranked: Mapping[str, Sequence[tuple[Any, float]]],
    weights: Mapping[str, float] | None = None,
    *,
    k: int = SEARCH_K,
) -> list[tuple[Any, float, dict[str, float]]]:
    """Reciprocal rank fusion of several ranked lists (each optionally weighted);
    keeps each list's raw score. A smaller `k` lets the top ranks weigh more."""
    keys = {name: [key for key, _ in items] for name, items in ranked.items()}
    parts: dict[Any, dict[str, float]] = {}
    for name, items in ranked.items():
        for key, raw in items:
            # Four significant digits: bm25 in a tiny home is ~1e-6, not "0".
            parts.setdefault(key, {})[name] = float(f"{raw:.4g}")
    return [
        (key, score, {**parts[key], "rrf": round(score, 5)})
        for key, score in rrf(keys, weights, k=k)
    ]


def rrf(
    ranked: Mapping[str, Sequence[Any]],
    weights: Mapping[str, float] | None = None,
    *,
    k: int = SEARCH_K,
) -> list[tuple[Any, float]]:
    """Reciprocal rank fusion of lists of keys: (key, score), best first, ties in the
    order the keys first appear. `fuse` adds each list's raw score to this;
    `context`, which fuses twice a call, needs none."""
    scores: dict[Any, float] = {}
    get = scores.get
    for name, keys in ranked.items():
        weight = (weights or {}).get(name, 1.0)
        for rank, key in enumerate(keys, k + 1):
            scores[key] = get(key, 0.0) + weight / rank
    return sorted(scores.items(), key=lambda kv: -kv[1])
