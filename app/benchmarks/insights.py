"""`tapemind bench insights`: how well insights find the labelled groups, and whether
every draft step cites memories that support it.

Each scenario of a data file (bench/data/insights.jsonl, dev; insights_holdout.jsonl,
held out) is one agent: its memories are remembered through the engine in order, each
with a tape entry as its source, the listed parents, and the listed `used` reports, in a
fresh home (the seeding arbiter keeps them as written, so the labels name stored
memories). Then `Engine.insights` runs per agent and its proposals are scored:
- groups: a proposal matches a labelled group when their Jaccard is >= 0.5; precision is
  the share of proposals that match one, recall the share of labelled groups matched;
- pairs: precision and recall of "these two memories are in one group";
- citations: a step's citation is unsupported when the memory is not in the proposal's
  evidence, or says something else than the memory the step quotes (its first citation):
  a different labelled point. The target is 0.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from typing import Any

from app.clock import ManualClock
from app.engine import Engine, runtime_of
from app.insights import Proposal

MATCH = 0.5
START = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)


def load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _turn(key: str) -> str:
    return f"turn-{key}"


def seed(
    engine: Engine, clock: ManualClock, scenario: dict[str, Any], *, structure: bool = True
) -> dict[str, int]:
    """Remember a scenario's memories as its agent; returns key -> memory id. Without
    `structure`, the `used` reports and parents are left out (meaning alone)."""
    if not structure:
        scenario = {**scenario, "used": [], "parents": {}}
    from app.confront import ARBITER, KeepAll

    agent = scenario["agent"]
    engine.add_agent(agent)
    services = runtime_of(engine).services
    services.put(ARBITER, KeepAll())
    ids: dict[str, int] = {}
    used_at = {u["turn"][1:]: u["memories"] for u in scenario["used"] if u["turn"][0] == "@"}
    try:
        for m in scenario["memories"]:
            clock.advance(hours=5)
            thread, turn = m["thread"], _turn(m["key"])
            entry = engine.append(
                agent, [{"thread": thread, "turn": turn, "kind": "message", "role": "user",
                         "text": m["text"]}],
            ).ids[0]  # fmt: skip
            if m["key"] in used_at:
                engine.report_used(agent, turn, [ids[k] for k in used_at[m["key"]]])
            parents = [ids[k] for k in scenario["parents"].get(m["key"], [])]
            made = engine.remember(
                agent, m["text"], m["category"], sources=[entry], parents=parents,
                thread=thread, turn=turn,
            )  # fmt: skip
            assert made.memory is not None, (agent, m["key"], made.decision)
            ids[m["key"]] = made.memory.id
        for u in scenario["used"]:
            if u["turn"][0] != "@":
                clock.advance(hours=1)
                engine.report_used(agent, u["turn"], [ids[k] for k in u["memories"]])
    finally:
        services.pop(ARBITER)
    return ids


@dataclass
class Score:
    scenarios: int = 0
    memories: int = 0
    labelled_groups: int = 0
    proposals: int = 0
    matched_proposals: int = 0
    matched_groups: int = 0
    pairs_proposed: int = 0
    pairs_labelled: int = 0
    pairs_right: int = 0
    steps: int = 0
    citations: int = 0
    unsupported_citations: int = 0
    unsupported_steps: int = 0
    misses: list[str] = field(default_factory=list)  # labelled groups no proposal matched
    extras: list[str] = field(default_factory=list)  # proposals that matched no group

    def add(self, other: Score) -> None:
        for name, value in asdict(other).items():
            if isinstance(value, int):
                setattr(self, name, getattr(self, name) + value)
        self.misses += other.misses
        self.extras += other.extras

    def figures(self) -> dict[str, float]:
        def ratio(a: int, b: int) -> float:
            return round(a / b, 3) if b else 0.0

        return {
            "group_precision": ratio(self.matched_proposals, self.proposals),
            "group_recall": ratio(self.matched_groups, self.labelled_groups),
            "pair_precision": ratio(self.pairs_right, self.pairs_proposed),
            "pair_recall": ratio(self.pairs_right, self.pairs_labelled),
            "unsupported_citations": self.unsupported_citations,
            "unsupported_steps": self.unsupported_steps,
        }


def _pairs(groups: Iterable[set[str]]) -> set[frozenset[str]]:
    return {frozenset(p) for g in groups for p in combinations(sorted(g), 2)}


def score_groups(agent: str, gold: dict[str, set[str]], proposed: Sequence[set[str]]) -> Score:
    out = Score(scenarios=1, labelled_groups=len(gold), proposals=len(proposed))
    matched: set[str] = set()
    for keys in proposed:
        best, name = 0.0, ""
        for label, members in gold.items():
            j = len(keys & members) / len(keys | members)
            if j > best:
                best, name = j, label
        if best >= MATCH:
            out.matched_proposals += 1
            matched.add(name)
        else:
            out.extras.append(f"{agent}: {sorted(keys)}")
    out.matched_groups = len(matched)
    out.misses += [f"{agent}: {label}" for label in gold if label not in matched]
    right, labelled = _pairs(proposed), _pairs(gold.values())
    out.pairs_proposed, out.pairs_labelled = len(right), len(labelled)
    out.pairs_right = len(right & labelled)
    return out


def score_citations(p: Proposal, point: dict[int, str], out: Score) -> None:
    evidence = set(p.evidence)
    for step in p.steps:
        out.steps += 1
        anchor = point.get(step.memory_ids[0]) if step.memory_ids else None
        bad = 0
        for memory_id in step.memory_ids:
            out.citations += 1
            if memory_id not in evidence or point.get(memory_id) != anchor:
                bad += 1
        out.unsupported_citations += bad
        out.unsupported_steps += bad > 0


def run_file(
    path: Path, progress: Callable[[str], None] = lambda _m: None, *, structure: bool = True
) -> Score:
    """Seed every scenario of `path` into a fresh home, run insights, score."""
    total = Score()
    with tempfile.TemporaryDirectory(prefix="tapemind-bench-insights-") as tmp:
        clock = ManualClock(START)
        engine = Engine.open(Path(tmp) / "home", create=True, clock=clock)
        try:
            for scenario in load(path):
                agent = scenario["agent"]
                ids = seed(engine, clock, scenario, structure=structure)
                key_of = {v: k for k, v in ids.items()}
                gold: dict[str, set[str]] = {}
                for m in scenario["memories"]:
                    if m["group"]:
                        gold.setdefault(m["group"], set()).add(m["key"])
                report = engine.insights(agent)
                proposed = [{key_of[i] for i in p.evidence} for p in report.proposals]
                score = score_groups(agent, gold, proposed)
                score.memories = len(scenario["memories"])
                point = {ids[m["key"]]: m["point"] for m in scenario["memories"]}
                for p in report.proposals:
                    score_citations(p, point, score)
                progress(f"{agent}: {len(proposed)} proposals, {score.matched_groups}/"
                         f"{len(gold)} groups found")  # fmt: skip
                total.add(score)
        finally:
            engine.close()
    return total


def format_report(results: dict[str, Score]) -> str:
    names = list(results)
    rows = [
        ("scenarios", "scenarios"), ("memories", "memories"),
        ("labelled groups", "labelled_groups"), ("proposals", "proposals"),
        ("draft steps", "steps"), ("citations", "citations"),
    ]  # fmt: skip
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for label, attr in rows:
        lines.append(
            f"| {label} | " + " | ".join(str(getattr(results[n], attr)) for n in names) + " |"
        )
    figures = {n: results[n].figures() for n in names}
    for key in next(iter(figures.values())):
        target = " (target 0)" if key.startswith("unsupported") else ""
        lines.append(
            f"| {key.replace('_', ' ')}{target} | "
            + " | ".join(str(figures[n][key]) for n in names)
            + " |"
        )
    for n in names:
        for miss in results[n].misses:
            lines.append(f"{n}: missed group {miss}")
        for extra in results[n].extras:
            lines.append(f"{n}: proposal matching no group {extra}")
    return "\n".join(lines)
