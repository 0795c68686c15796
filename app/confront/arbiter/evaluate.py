"""Score an arbiter on labelled decision cases: accuracy, confusion matrix, destructive errors.

A case is right when the action matches and, for every action but `add`, the target too. A
destructive error is an `update`, `supersede` or `duplicate` where `add` or `conflict` was
expected, or one aimed at the wrong memory: the kind of mistake that loses what a person knew.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.confront.arbiter.base import ACTIONS, DESTRUCTIVE, Arbiter, Candidate, Decision, Neighbour
from app.confront.arbiter.features import analyse, dice

# (candidate text, existing texts) -> one cosine per existing text, None when not embedded
SimilarityFn = Callable[[str, Sequence[str]], Sequence[float | None]]


@dataclass(frozen=True)
class Memory:
    """An existing memory in a case."""

    id: str
    text: str
    category: str


@dataclass(frozen=True)
class DecisionCase:
    """One labelled line of a decisions JSONL file."""

    existing: tuple[Memory, ...]
    candidate: Candidate
    expected: str
    target: str | None
    lang: str

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> DecisionCase:
        """Build a case from one parsed line; raises ValueError on an unknown action."""
        if row["expected"] not in ACTIONS:
            raise ValueError(f"unknown expected action {row['expected']!r}")
        return cls(
            existing=tuple(Memory(str(m["id"]), m["text"], m["category"]) for m in row["existing"]),
            candidate=Candidate(row["candidate"]["text"], row["candidate"]["category"]),
            expected=row["expected"],
            target=row.get("target"),
            lang=row["lang"],
        )


@dataclass(frozen=True)
class Outcome:
    """The arbiter's decision on one case and how it was scored."""

    case: DecisionCase
    decision: Decision
    correct: bool
    destructive: bool


@dataclass(frozen=True)
class Report:
    """Figures over a set of cases."""

    arbiter: str
    outcomes: tuple[Outcome, ...] = field(repr=False)

    @property
    def total(self) -> int:
        return len(self.outcomes)

    @property
    def correct(self) -> int:
        return sum(o.correct for o in self.outcomes)

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def destructive(self) -> int:
        return sum(o.destructive for o in self.outcomes)

    @property
    def destructive_rate(self) -> float:
        return self.destructive / self.total if self.total else 0.0

    def by_language(self) -> dict[str, dict[str, float]]:
        """{lang: {"total", "correct", "accuracy", "destructive", "destructive_rate"}}."""
        out: dict[str, dict[str, float]] = {}
        for lang in sorted({o.case.lang for o in self.outcomes}):
            sub = Report(self.arbiter, tuple(o for o in self.outcomes if o.case.lang == lang))
            out[lang] = {
                "total": sub.total,
                "correct": sub.correct,
                "accuracy": sub.accuracy,
                "destructive": sub.destructive,
                "destructive_rate": sub.destructive_rate,
            }
        return out

    @property
    def duplicates_as_conflicts(self) -> int:
        """Duplicates decided as conflicts: questions a person settles for nothing."""
        return sum(
            o.case.expected == "duplicate" and o.decision.action == "conflict"
            for o in self.outcomes
        )

    def confusion(self) -> dict[str, dict[str, int]]:
        """Counts indexed [expected][decided] over all five actions."""
        matrix: dict[str, dict[str, int]] = {e: dict.fromkeys(ACTIONS, 0) for e in ACTIONS}
        for o in self.outcomes:
            matrix[o.case.expected][o.decision.action] += 1
        return matrix

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary, with every miss listed for inspection."""
        return {
            "arbiter": self.arbiter,
            "total": self.total,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "destructive": self.destructive,
            "destructive_rate": self.destructive_rate,
            "duplicates_as_conflicts": self.duplicates_as_conflicts,
            "by_language": self.by_language(),
            "confusion": self.confusion(),
            "misses": [
                {
                    "candidate": o.case.candidate.text,
                    "expected": o.case.expected,
                    "target": o.case.target,
                    "decided": o.decision.action,
                    "decided_target": o.decision.target_id,
                    "destructive": o.destructive,
                    "reason": o.decision.reason,
                }
                for o in self.outcomes
                if not o.correct
            ],
        }

    def format(self) -> str:
        """A plain-text report for a terminal."""
        lines = [
            f"arbiter {self.arbiter}: {self.correct}/{self.total} correct "
            f"({self.accuracy:.1%}), destructive errors {self.destructive} "
            f"({self.destructive_rate:.1%})",
        ]
        for lang, s in self.by_language().items():
            lines.append(
                f"  {lang}: {int(s['correct'])}/{int(s['total'])} ({s['accuracy']:.1%}), "
                f"destructive {int(s['destructive'])} ({s['destructive_rate']:.1%})"
            )
        duplicates = sum(o.case.expected == "duplicate" for o in self.outcomes)
        lines.append(
            f"  duplicates a person would settle as conflicts: {self.duplicates_as_conflicts}"
            f" of {duplicates}"
        )
        lines.append("confusion (rows expected, columns decided):")
        lines.append(" " * 11 + "".join(f"{a:>10}" for a in ACTIONS))
        for expected, row in self.confusion().items():
            lines.append(f"{expected:>11}" + "".join(f"{row[a]:>10}" for a in ACTIONS))
        return "\n".join(lines)


def load_cases(path: str | Path) -> list[DecisionCase]:
    """Read a decisions JSONL file (blank lines skipped)."""
    with open(path, encoding="utf-8") as fh:
        return [DecisionCase.from_json(json.loads(line)) for line in fh if line.strip()]


def fulltext_overlap(candidate: str, text: str) -> float | None:
    """A simple normalised full-text score: Dice overlap of content words/bigrams, None if 0."""
    score = dice(analyse(candidate).content, analyse(text).content)
    return score if score > 0 else None


def score(case: DecisionCase, decision: Decision) -> Outcome:
    """Score one decision against its case."""
    action_ok = decision.action == case.expected
    target_ok = case.expected == "add" or str(decision.target_id) == str(case.target)
    wrong_target = decision.action != "add" and str(decision.target_id) != str(case.target)
    destructive = decision.action in DESTRUCTIVE and (
        case.expected in ("add", "conflict") or wrong_target
    )
    return Outcome(case, decision, action_ok and target_ok, destructive)


def case_neighbours(case: DecisionCase, similarity_fn: SimilarityFn | None) -> list[Neighbour]:
    """A case's existing memories as the arbiter meets them: with the embedder's cosine
    (none without `similarity_fn`, as if nothing were embedded yet) and a full-text score."""
    texts = [m.text for m in case.existing]
    sims: Sequence[float | None] = (
        similarity_fn(case.candidate.text, texts) if similarity_fn else [None] * len(texts)
    )
    return [
        Neighbour(
            id=m.id,
            text=m.text,
            category=m.category,
            similarity=None if s is None else float(s),
            fulltext_score=fulltext_overlap(case.candidate.text, m.text),
        )
        for m, s in zip(case.existing, sims, strict=True)
    ]


def evaluate(
    cases: Iterable[DecisionCase], arbiter: Arbiter, similarity_fn: SimilarityFn | None = None
) -> Report:
    """Run `arbiter` on every case (`case_neighbours`) and score it."""
    outcomes = [
        score(case, arbiter.decide(case.candidate, case_neighbours(case, similarity_fn)))
        for case in cases
    ]
    return Report(getattr(arbiter, "name", type(arbiter).__name__), tuple(outcomes))
