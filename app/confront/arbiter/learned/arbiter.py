"""The learned offline arbiter: a fitted model reads each close neighbour, then a calibrated
rule turns its chances into a decision.

For each of the candidate's closest neighbours (the same closeness the rules use: embedder
cosine blended with n-gram overlap) the model gives the chance of each action. The neighbour
most likely to be concerned (lowest chance of `add`) is the one decided on. An overwrite
(update, supersede, duplicate) is taken only when the model is confident (`Model.overwrite`);
short of that the pair becomes a conflict a person settles: a question costs the owner a
click, a wrong overwrite loses what they knew.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.confront.arbiter.base import ACTIONS, DESTRUCTIVE, Action, Candidate, Decision, Neighbour
from app.confront.arbiter.features import analyse
from app.confront.arbiter.learned.model import Model, load
from app.confront.arbiter.learned.pair import Side, pair_vector
from app.confront.arbiter.offline import OfflineArbiter
from app.confront.arbiter.reasons import decision

# neighbours read per candidate: the memory a candidate is about is rarely farther out
READ = 6
# the rules' closeness orders the neighbours (it holds no state: one serves every call)
_RANKING = OfflineArbiter()


@dataclass(frozen=True)
class Reading:
    """One neighbour as the model read it."""

    neighbour: Neighbour
    closeness: float
    row: list[float]


@dataclass(frozen=True)
class Verdict:
    """The decision before words: an action, the reading it rests on, its chances."""

    action: Action
    reading: Reading | None
    chances: tuple[float, ...]
    held_back: Action | None = None  # an overwrite the model was not sure enough of


def readings(candidate: Candidate, neighbours: Sequence[Neighbour]) -> list[Reading]:
    """The closest neighbours with their feature rows, closest first."""
    cand = analyse(candidate.text)
    ranked = _RANKING.ranked(cand, neighbours)[:READ]
    if not ranked:
        return []
    best = ranked[0].closeness
    new = Side(candidate.text, cand, candidate.category)
    out = []
    for rank, m in enumerate(ranked):
        old = Side(m.neighbour.text, m.features, m.neighbour.category)
        row = pair_vector(old, new, m.neighbour.similarity, rank=rank, behind=best - m.closeness)
        out.append(Reading(m.neighbour, m.closeness, row))
    return out


def verdict(model: Model, read: Sequence[Reading]) -> Verdict:
    """The action on the neighbour most likely concerned, overwrites only when confident."""
    return choose(model, read, [model.probabilities(r.row) for r in read])


def choose(model: Model, read: Sequence[Reading], chances: Sequence[Sequence[float]]) -> Verdict:
    """`verdict` given each reading's chances (fitting tries many thresholds on the same)."""
    judged = [(1.0 - p[0], r, list(p)) for r, p in zip(read, chances, strict=True)]
    # the most concerned first; ties keep the closer neighbour
    judged.sort(key=lambda item: -item[0])
    if not judged or judged[0][0] < model.act:
        return Verdict("add", None, tuple(judged[0][2]) if judged else ())
    concern, reading, p = judged[0]
    runner_up = judged[1][0] if len(judged) > 1 else 0.0
    k = max(range(1, len(ACTIONS)), key=lambda i: p[i])
    action = ACTIONS[k]
    if action in DESTRUCTIVE and (p[k] < model.overwrite or concern - runner_up < model.margin):
        instead: Action = "add" if model.held_back_as(action) == "add" else "conflict"
        return Verdict(instead, reading, tuple(p), held_back=action)
    return Verdict(action, reading, tuple(p))


class LearnedArbiter:
    """The learned arbiter (name "learned"): a model fitted on labelled data, offline.

    Not the default yet: on the engine's own confrontation tests it still overwrites a memory
    that is not the one meant where the rules walk on to the right one (bench/reports/
    arbiter-model.md has its figures beside the rules')."""

    name = "learned"

    def __init__(self, model: Model | None = None) -> None:
        self.model = model or load()

    def decide(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
        """Decide with a reason naming what weighed most and how sure the model was."""
        v = verdict(self.model, readings(candidate, neighbours))
        if v.reading is None:
            if not v.chances:
                return decision("add", None, self.name, "no_neighbours")
            sure = _percent(1 - v.chances[0])
            return decision("add", None, self.name, "learned_unrelated", sure=sure)
        n = v.reading.neighbour
        k = ACTIONS.index(v.held_back or v.action)
        signs = [
            name
            for name, push in self.model.contributions(v.reading.row, ACTIONS[k])
            if push > 0.15
        ][:3]
        cos = None if n.similarity is None else round(n.similarity, 2)
        said: dict[str, object] = {
            "sure": _percent(v.chances[k]),
            "signs": signs,
            "target": n.id,
            "closeness": round(v.reading.closeness, 2),
            "cosine": cos,
        }
        target = n.id if v.action != "add" else None
        if v.held_back is not None:
            then = "conflict" if v.action == "conflict" else "add"
            return decision(
                v.action, target, self.name, "learned_held_back",
                held_back=v.held_back, then=then, **said,
            )  # fmt: skip
        return decision(v.action, target, self.name, "learned", action=v.action, **said)


def _percent(chance: float) -> int:
    """A chance as the reason says it: a whole percentage, rounded as "{:.0%}" rounds."""
    return int(f"{chance * 100:.0f}")
