"""Fit tape search's turn weights on one benchmark and check them on the other.

    python bench/turn_weights_fit.py [--locomo FILE] [--longmemeval FILE] [--keep-homes DIR]

Builds (or, with --keep-homes, reuses) a home per benchmark as `tapemind bench locomo`
and `tapemind bench longmemeval` do, computes every question's candidate turns and
their features through the product's own code, and fits the weights both ways:
- "fit on LoCoMo": every weight but the assistant's on LoCoMo dev, checked on
  LongMemEval dev (the assistant's two weights fitted on LongMemEval, the only one with
  assistant turns);
- "fit on LongMemEval": everything on LongMemEval dev, checked on LoCoMo dev.
For hybrid search (words and meaning) and for full-text search (words only). Prints
each benchmark's figures per slice for both fits, and the weights as Python, for
`app/recall/turn_weights.py`. Nothing is tuned to a single question.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.benchmarks import locomo, longmemeval, scoreboard, turn_fit
from app.benchmarks.common import drain_index, scratch_engine
from app.recall import turn_weights


def _collect(args: argparse.Namespace, semantic: bool) -> dict[str, Any]:
    keep = Path(args.keep_homes) if args.keep_homes else None
    out: dict[str, Any] = {}
    convs = locomo.load(args.locomo)
    with scratch_engine(keep / "locomo" if keep else None) as engine:
        for conv in convs:
            locomo.ingest(engine, conv)
        if semantic:
            drain_index(engine)
        out["locomo"] = turn_fit.locomo_questions(engine, convs, semantic=semantic)
    questions = longmemeval.load(args.longmemeval)
    with scratch_engine(keep / "longmemeval" if keep else None) as engine:
        for q in questions:
            longmemeval.ingest(engine, q)
        if semantic:
            drain_index(engine)
        out["longmemeval"] = turn_fit.longmemeval_questions(engine, questions, semantic=semantic)
    return out


def _line(name: str, figures: dict[str, float]) -> str:
    cells = "".join(
        f"  {k.replace('turn_recall_', 'turn ')} {100 * v:5.1f}" for k, v in figures.items()
    )
    return f"  {name:40}{cells}"


def _show(title: str, weights: turn_weights.TurnWeights, asked: dict[str, Any]) -> None:
    print(f"{title}: {weights}")
    for bench in ("locomo", "longmemeval"):
        result = turn_fit.evaluate(asked[bench], weights)
        for name, figures in result.items():
            if bench == "longmemeval":
                figures = {k: v for k, v in figures.items() if "any" not in k}
            print(_line(f"{bench} {name}", figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locomo", default=str(scoreboard.shared_default(scoreboard.LOCOMO_FILE)))
    parser.add_argument(
        "--longmemeval", default=str(scoreboard.shared_default(scoreboard.LONGMEMEVAL_FILE))
    )
    parser.add_argument("--keep-homes", help="Build the homes here and keep them.")
    args = parser.parse_args()
    for semantic, label in ((True, "hybrid"), (False, "fulltext")):
        asked = _collect(args, semantic)
        on_locomo = turn_fit.fit(asked["locomo"], asked["longmemeval"])
        on_lme = turn_fit.fit(asked["longmemeval"], asked["longmemeval"])
        print(f"== {label}")
        _show("fit on LoCoMo (assistant weights on LongMemEval)", on_locomo, asked)
        _show("fit on LongMemEval", on_lme, asked)
        shipped = turn_weights.HYBRID if semantic else turn_weights.FULLTEXT
        _show("shipped", shipped, asked)


if __name__ == "__main__":
    main()
