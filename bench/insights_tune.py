"""Choose the insights grouping knobs on the DEV split only (never the held-out file).

Seeds bench/data/insights.jsonl once through the engine, embeds each agent's pool once,
then scores every combination of the grid (group and pair precision/recall, as
`tapemind bench insights` does) and prints the best by pair F1 and by group F1, and the
cosines of paraphrase pairs against other same-group pairs (for the step merge).
Run: nice -n 10 .venv/bin/python bench/insights_tune.py
"""

from __future__ import annotations

import itertools
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.benchmarks.insights import START, Score, load, score_groups, seed
from app.clock import ManualClock
from app.engine import Engine, runtime_of
from app.index import of as retrieval_of
from app.insights.evidence import load_pool
from app.insights.grouping import (
    GroupingParams,
    find_groups,
    lineage_in_order,
    uses_in_order,
)
from app.runtime import agent_ref

DEV = Path(__file__).resolve().parent / "data" / "insights.jsonl"


def prepared() -> list[tuple[str, dict, object, np.ndarray, dict[int, str]]]:
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        clock = ManualClock(START)
        engine = Engine.open(Path(tmp) / "home", create=True, clock=clock)
        rt = runtime_of(engine)
        for scenario in load(DEV):
            ids = seed(engine, clock, scenario)
            with rt.read_driver() as s:
                pool = load_pool(s, agent_ref(s, scenario["agent"]).id)
            embedder = retrieval_of(rt).active()
            vectors = np.asarray(embedder.embed_documents([m.text for m in pool.memories]))
            key_of = {v: k for k, v in ids.items()}
            out.append((scenario["agent"], scenario, pool, vectors, key_of))
        engine.close()
    return out


def evaluate(data: list, params: GroupingParams, structure: bool = True) -> Score:
    total = Score()
    for agent, scenario, pool, vectors, key_of in data:
        gold: dict[str, set[str]] = {}
        for m in scenario["memories"]:
            if m["group"]:
                gold.setdefault(m["group"], set()).add(m["key"])
        groups = find_groups(
            vectors,
            [m.text for m in pool.memories],
            uses_in_order(pool.ids, pool.uses) if structure else [set()] * len(pool.ids),
            lineage_in_order(pool.ids, pool.lineage) if structure else [],
            params,
        )
        proposed = [{key_of[pool.ids[i]] for i in g.members} for g in groups]
        total.add(score_groups(agent, gold, proposed))
    return total


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def step_cosines(data: list) -> None:
    same, other = [], []
    for _agent, scenario, pool, vectors, key_of in data:
        meta = {m["key"]: m for m in scenario["memories"]}
        v = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        for i, j in itertools.combinations(range(len(pool.ids)), 2):
            a, b = meta[key_of[pool.ids[i]]], meta[key_of[pool.ids[j]]]
            if a["group"] and a["group"] == b["group"] and a["category"] == b["category"]:
                (same if a["point"] == b["point"] else other).append(float(v[i] @ v[j]))
    print(
        f"paraphrase pairs: n={len(same)} min={min(same):.3f} "
        f"values={sorted(round(x, 3) for x in same)}"
    )
    print(
        f"other same-group same-category pairs: n={len(other)} max={max(other):.3f} "
        f"top5={sorted(round(x, 3) for x in other)[-5:]}"
    )


def main() -> None:
    data = prepared()
    step_cosines(data)
    rows = []
    for threshold, use_w, lin_w, min_size, term_w in itertools.product(
        (0.20, 0.25, 0.30, 0.35, 0.40, 0.45),
        (0.25, 0.5, 1.0),
        (0.3, 0.6, 0.9),
        (2, 3),
        (0.0, 0.25, 0.5, 0.75, 1.0),
    ):
        params = GroupingParams(threshold, use_w, lin_w, min_size, term_w)
        full = evaluate(data, params).figures()
        bare = evaluate(data, params, structure=False).figures()
        scores = [
            f1(full["pair_precision"], full["pair_recall"]),
            f1(full["group_precision"], full["group_recall"]),
            f1(bare["pair_precision"], bare["pair_recall"]),
            f1(bare["group_precision"], bare["group_recall"]),
        ]
        rows.append((sum(scores) / 4, scores, params, full, bare))
    print("\nbest by the mean of pair and group F1, with and without use and lineage:")
    for mean, scores, p, _full, _bare in sorted(rows, key=lambda r: -r[0])[:12]:
        print(
            f"  mean={mean:.3f} full pair/group F1={scores[0]:.3f}/{scores[1]:.3f} "
            f"meaning only={scores[2]:.3f}/{scores[3]:.3f} t={p.threshold} use={p.use_weight} "
            f"lin={p.lineage_weight} min={p.min_size} terms={p.term_weight}"
        )


if __name__ == "__main__":
    main()
