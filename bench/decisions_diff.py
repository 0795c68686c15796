"""Dump the offline arbiter's per-case decisions on a decisions file, or compare two dumps.

    python bench/decisions_diff.py dump bench/data/decisions.jsonl > before.jsonl
    python bench/decisions_diff.py diff before.jsonl after.jsonl

Used to check that a rule change leaves other cases byte-identical (action, target, reason).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.confront.arbiter import OfflineArbiter
from app.confront.arbiter.evaluate import evaluate, load_cases
from app.confront.arbiter.similarity import USESimilarity


def dump(path: str) -> None:
    """Print one JSON line per case: candidate, expected, decided action, target and reason."""
    cases = load_cases(path)
    sim = USESimilarity()
    sim.warm([t for c in cases for t in [c.candidate.text, *(m.text for m in c.existing)]])
    for o in evaluate(cases, OfflineArbiter(), sim).outcomes:
        row = {
            "candidate": o.case.candidate.text,
            "expected": o.case.expected,
            "action": o.decision.action,
            "target": o.decision.target_id,
            "correct": o.correct,
            "reason": o.decision.reason,
        }
        print(json.dumps(row, ensure_ascii=False))


def diff(before: str, after: str) -> None:
    """Print every case whose decision differs; exit 1 if any does."""
    a = Path(before).read_text(encoding="utf-8").splitlines()
    b = Path(after).read_text(encoding="utf-8").splitlines()
    changed = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    for x, y in changed:
        print("-", x)
        print("+", y)
    print(f"{len(changed)} of {len(a)} decisions differ")
    sys.exit(1 if changed else 0)


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        diff(sys.argv[2], sys.argv[3])
