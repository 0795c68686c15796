"""Fit the weights of tape search's turn model on one benchmark, check them on the other.

For every question of LoCoMo (evidence dia_ids) and LongMemEval_S (`has_answer` turns),
the product computes its candidate turns and their features exactly as a search does
(`app.recall.search.tape_candidates`, `app.recall.turns.feature_rows`); a candidate is
positive when it is evidence. The weights are a logistic regression over the candidates
(classes balanced, a little L2), without the intercept, which does not change a ranking.

`fit` fits every weight but the assistant's two on one benchmark, then those two on
LongMemEval with the others fixed: only LongMemEval has assistant turns. `evaluate`
ranks each question's candidates with given weights and scores them with the
benchmark's own measures.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.benchmarks import locomo, longmemeval
from app.db import Filters
from app.engine import Engine, runtime_of
from app.index import RETRIEVAL
from app.recall import rare_terms, tape_candidates, turn_weights, turns
from app.runtime import agent_ref

FEATURES = turn_weights.FEATURES
TurnWeights = turn_weights.TurnWeights

ASSISTANT = ("assistant", "addressed")
ASSISTANT_GRID = np.arange(-15.0, 0.01, 0.25)
ADDRESSED_GRID = np.arange(0.0, 12.01, 0.25)


@dataclass(frozen=True)
class Asked:
    """One question's candidates: their ids, features and evidence labels."""

    bench: str
    slice: str  # question type (LongMemEval) or category name (LoCoMo)
    ids: tuple[str, ...]  # the benchmark's turn keys, in candidate order
    rows: np.ndarray  # (candidates, FEATURES)
    labels: np.ndarray  # 1.0 for evidence
    score: Callable[[Sequence[str]], dict[str, float]]  # the benchmark's measures


def ask_all(
    engine: Engine,
    agent: str,
    query: str,
    *,
    semantic: bool,
    key: str,
) -> tuple[list[str], np.ndarray]:
    """(turn keys, feature rows) of one question's candidates, as a search computes them."""
    rt = runtime_of(engine)
    retrieval = rt.services.get(RETRIEVAL) if semantic else None
    with rt.read() as s:
        arow = agent_ref(s, agent)
        found, _ = tape_candidates(
            s, arow, query, Filters(), 11, rare_terms.count_cache(rt), retrieval
        )
        keys = _keys(s, [c.id for c in found], key)
    rows = turns.feature_rows(found, turns.addresses_agent(query))
    return [keys.get(c.id, "") for c in found], np.asarray(rows, dtype=float).reshape(
        -1, len(FEATURES)
    )


def _keys(s: Any, ids: Sequence[int], key: str) -> dict[int, str]:
    import json

    from app.db import dbapi, id_list

    if not ids:
        return {}
    marks, bound = id_list(ids)
    sql = f"SELECT id, meta FROM tape_entries WHERE id IN ({marks})"
    rows = dbapi(s).execute(sql, bound)
    return {int(i): str(json.loads(m or "{}").get(key, "")) for i, m in rows}


def locomo_questions(
    engine: Engine, convs: Iterable[locomo.Conversation], *, semantic: bool
) -> list[Asked]:
    out = []
    for conv in convs:
        agent = locomo.ingest(engine, conv)
        for q in conv.questions:
            ids, rows = ask_all(engine, agent, q.text, semantic=semantic, key="dia_id")
            evidence = set(q.evidence)

            def score(ranked: Sequence[str], ev: tuple[str, ...] = q.evidence) -> dict[str, float]:
                return {f"recall@{k}": locomo.recall_at(ranked, ev, k) for k in locomo.KS}

            labels = np.array([i in evidence for i in ids], dtype=float)
            name = locomo.CATEGORIES[q.category]
            out.append(Asked("locomo", name, tuple(ids), rows, labels, score))
    return out


def longmemeval_questions(
    engine: Engine, questions: Iterable[longmemeval.Question], *, semantic: bool
) -> list[Asked]:
    out = []
    for q in questions:
        longmemeval.ingest(engine, q)
        ids, rows = ask_all(engine, q.agent, q.text, semantic=semantic, key="turn")
        evidence = set(q.answer_turns)

        def score(ranked: Sequence[str], q: longmemeval.Question = q) -> dict[str, float]:
            return longmemeval.measures(q, ranked)

        labels = np.array([i in evidence for i in ids], dtype=float)
        out.append(Asked("longmemeval", q.question_type, tuple(ids), rows, labels, score))
    return out


def _stack(asked: Sequence[Asked]) -> tuple[np.ndarray, np.ndarray]:
    rows = [a.rows for a in asked if len(a.rows)]
    labels = [a.labels for a in asked if len(a.rows)]
    return np.concatenate(rows), np.concatenate(labels)


def _balance(y: np.ndarray) -> np.ndarray:
    pos = max(float(y.sum()), 1.0)
    return np.where(y > 0, (len(y) - pos) / pos, 1.0)


def logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 60) -> np.ndarray:
    """Weights (no intercept) of a class-balanced, L2-regularised logistic regression."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    cw = _balance(y)
    ridge = l2 * np.diag(np.r_[np.ones(x.shape[1]), 0.0])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(xb @ w, -30, 30)))
        grad = xb.T @ (cw * (p - y)) + ridge @ w
        hess = (xb * (cw * p * (1 - p))[:, None]).T @ xb + ridge
        w -= np.linalg.solve(hess, grad)
    return np.asarray(w[:-1])


def _loss(z: np.ndarray, y: np.ndarray, cw: np.ndarray) -> float:
    b = 0.0
    for _ in range(30):  # the best intercept for this offset
        p = 1 / (1 + np.exp(-np.clip(z + b, -30, 30)))
        b -= float(np.sum(cw * (p - y))) / (float(np.sum(cw * p * (1 - p))) + 1e-9)
    zb = np.clip(z + b, -30, 30)
    return float(np.sum(cw * (np.logaddexp(0, zb) - y * zb)))


def fit(on: Sequence[Asked], roles_on: Sequence[Asked]) -> TurnWeights:
    """Every weight but the assistant's on `on`; those two on `roles_on`, the rest fixed."""
    shared = [n for n in FEATURES if n not in ASSISTANT]
    cols = [FEATURES.index(n) for n in shared]
    x, y = _stack(on)
    w = dict(zip(shared, logistic(x[:, cols], y), strict=True))
    xr, yr = _stack(roles_on)
    base = xr[:, cols] @ np.array([w[n] for n in shared])
    a, d = xr[:, FEATURES.index("assistant")], xr[:, FEATURES.index("addressed")]
    cw = _balance(yr)
    if a.any():
        grid = [(wa, wd) for wa in ASSISTANT_GRID for wd in ADDRESSED_GRID]
        best = min(((_loss(base + wa * a + wd * d, yr, cw), wa, wd) for wa, wd in grid))
        w["assistant"], w["addressed"] = best[1], best[2]
    else:
        w["assistant"] = w["addressed"] = 0.0
    return TurnWeights(**{n: round(float(w[n]), 2) for n in FEATURES})


def evaluate(asked: Sequence[Asked], weights: TurnWeights) -> dict[str, dict[str, float]]:
    """Each slice's mean measures (and "all") when the candidates are ranked by `weights`."""
    by: dict[str, list[dict[str, float]]] = defaultdict(list)
    vector = np.array([getattr(weights, n) for n in FEATURES])
    for a in asked:
        order = list(np.argsort(-(a.rows @ vector), kind="stable")) if len(a.rows) else []
        measured = a.score([a.ids[i] for i in order])
        by[a.slice].append(measured)
        by["all"].append(measured)
    return {
        name: {k: round(sum(r[k] for r in rows) / len(rows), 4) for k in rows[0]}
        for name, rows in by.items()
    }
