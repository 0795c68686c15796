"""The benchmark report's arithmetic on a tiny hand-made set with a scripted arbiter."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from app.confront.arbiter import Candidate, Decision, Neighbour
from app.confront.arbiter.evaluate import evaluate, load_cases


def _line(cand: str, expected: str, target: str | None, lang: str) -> str:
    existing = [
        {"id": "m1", "text": "old " + cand, "category": "preference"},
        {"id": "m2", "text": "other", "category": "lesson"},
    ]
    return json.dumps(
        {
            "existing": existing,
            "candidate": {"text": cand, "category": "preference"},
            "expected": expected,
            "target": target,
            "lang": lang,
        },
        ensure_ascii=False,
    )


class Scripted:
    """Answers from a table keyed by candidate text."""

    name = "scripted"

    def __init__(self, answers: dict[str, tuple[str, str | None]]) -> None:
        self.answers = answers
        self.seen: list[list[Neighbour]] = []

    def decide(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
        self.seen.append(list(neighbours))
        action, target = self.answers[candidate.text]
        return Decision(action, target, "scripted", self.name)  # type: ignore[arg-type]


def test_report_arithmetic(tmp_path: Path) -> None:
    rows = [
        ("a", "add", None, "en", ("add", None)),  # right
        ("b", "update", "m1", "en", ("update", "m1")),  # right
        ("c", "conflict", "m1", "en", ("duplicate", "m1")),  # wrong, destructive
        ("d", "supersede", "m1", "en", ("supersede", "m2")),  # wrong target, destructive
        ("甲", "duplicate", "m1", "zh", ("duplicate", "m1")),  # right
        ("乙", "supersede", "m1", "zh", ("conflict", "m1")),  # wrong, not destructive
        ("丙", "add", None, "zh", ("update", "m1")),  # wrong, destructive
        ("丁", "update", "m1", "zh", ("supersede", "m1")),  # wrong, right target: not destructive
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(_line(c, e, t, lang) for c, e, t, lang, _ in rows) + "\n\n", "utf-8")
    arbiter = Scripted({c: ans for c, _, _, _, ans in rows})

    report = evaluate(load_cases(path), arbiter, lambda cand, texts: [0.5, None][: len(texts)])

    assert (report.total, report.correct, report.destructive) == (8, 3, 3)
    assert report.accuracy == 3 / 8 and report.destructive_rate == 3 / 8
    langs = report.by_language()
    assert (langs["en"]["correct"], langs["en"]["destructive"]) == (2, 2)
    assert (langs["zh"]["correct"], langs["zh"]["destructive"]) == (1, 1)
    matrix = report.confusion()
    assert matrix["conflict"]["duplicate"] == 1
    assert matrix["supersede"]["supersede"] == 1 and matrix["supersede"]["conflict"] == 1
    assert matrix["add"] == {"add": 1, "update": 1, "supersede": 0, "duplicate": 0, "conflict": 0}
    assert sum(sum(row.values()) for row in matrix.values()) == 8
    # neighbours carry the similarity function's answer, None when not embedded
    assert [nb.similarity for nb in arbiter.seen[0]] == [0.5, None]

    summary = report.to_json()
    assert len(summary["misses"]) == 5
    text = report.format()
    assert "3/8 correct (37.5%)" in text and "destructive errors 3 (37.5%)" in text
    assert "zh: 1/4 (25.0%)" in text
