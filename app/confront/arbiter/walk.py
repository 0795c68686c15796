"""Confront every close neighbour, not only the closest one.

The closest neighbour is not always the memory a candidate is about: "Deploys now happen on
Thursday afternoons" sits closer to "Release notes are written on Thursday afternoons" than to
用户的部署在每周五下午进行, the memory it replaces. Judging the closest alone then stores the
candidate beside the memory it contradicts, and both reach the context.

So the neighbours are judged in order of closeness, and the closest one's decision stands
unless it is one of these:

- `add` (the closest says nothing about the candidate): the first farther memory the candidate
  refines or repeats is taken, one it says changed gets a conflict (a supersede would retire a
  memory that is not the closest); a mere difference with a farther memory is passed over (a
  question where the closest raised none, see `_taken`);
- the unsure conflict "something changed but it is unclear it is this memory", or a conflict on
  thin evidence: the first firm decision farther out is taken, a conflict included;
- a firm conflict: a farther memory the candidate repeats, refines or says changed gets the
  conflict instead (the candidate contradicts a closer memory too, so which one it is about is
  for a person to say); with none, the closest's conflict stands.

Safety: a farther neighbour goes through the very rules the closest does (no rule is loosened),
and a destructive decision those rules accept on thin evidence (see `Judged.evidence`) becomes a
conflict when it lands on a farther neighbour: a closer memory looked more like the candidate, so
a person settles it and nothing is lost. The reason names the memory decided on and the closer
ones passed over.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from app.confront.arbiter.base import DESTRUCTIVE, Decision
from app.confront.arbiter.reasons import amended

# "firm": evidence the rules accept on any neighbour; "thin": accepted on the closest neighbour
# only; "unsure": a conflict raised because the subject is unclear
Evidence = Literal["firm", "thin", "unsure"]


@dataclass(frozen=True)
class Judged:
    """The decision the rules take on one neighbour, and how much evidence backs it."""

    decision: Decision
    neighbour_id: int | str
    evidence: Evidence = "firm"


def _passed(closer: list[Judged]) -> list[list[object]]:
    """[[3, "unrelated"], [5, "unclear"]]: the closer neighbours passed over, for the reason."""

    def why(j: Judged) -> str:
        if j.decision.action == "add":
            return "unrelated"
        return "conflicting" if j.evidence == "firm" else "unclear"

    return [[j.neighbour_id, why(j)] for j in closer]


def _on_farther(chosen: Judged, closer: list[Judged], why: str = "") -> Decision:
    """`chosen`'s decision, noting the closer neighbours passed; with `why` (a code of
    reasons.SETTLES), or on thin evidence, an overwrite becomes a conflict for a person."""
    d = chosen.decision
    note: dict[str, object] = {"decided_on": chosen.neighbour_id, "passed": _passed(closer)}
    if d.action in DESTRUCTIVE and (why or chosen.evidence == "thin"):
        return amended(d, "conflict", settles=why or "thinner", **note)
    return amended(d, **note)


def _taken(judged: Judged, past_add: bool) -> bool:
    """Whether a farther neighbour's decision is taken over a closer `add` or weak conflict.

    Past an `add` only an overwrite counts (thin or firm; a thin one becomes a conflict): a plain
    difference with a farther memory ("note 12" / "note 40") would raise a question where the
    closest raised none, and ten neighbours give ten chances of a spurious one. Past a weak
    conflict the question is asked anyway: a firm one farther out is the better one to ask.
    """
    action, evidence = judged.decision.action, judged.evidence
    if action in DESTRUCTIVE:
        return True
    return action == "conflict" and evidence == "firm" and not past_add


def first_decided(closest: Judged, farther: Iterable[Judged]) -> Decision:
    """The closest neighbour's decision, or a firmer one farther out (see the module doc).

    `farther` is consumed lazily, in order of closeness: a candidate that updates, supersedes or
    duplicates its closest neighbour costs no more than before.
    """
    action = closest.decision.action
    if action in DESTRUCTIVE:
        return closest.decision
    if action == "conflict" and closest.evidence == "firm":
        for judged in farther:
            if judged.evidence != "firm":
                continue
            if judged.decision.action in DESTRUCTIVE:
                # it repeats, refines or replaces a farther memory, yet contradicts a closer
                # one: which memory it is about is for a person to say (an update taken here
                # gave Bob's review habit Alice's text in the mixed holdout set)
                return _on_farther(judged, [closest], "closer_conflicting")
        return closest.decision
    # an `add`, an unsure conflict or a thin one: the first decision farther out worth taking
    closer = [closest]
    for judged in farther:
        if _taken(judged, past_add=action == "add"):
            if action == "add" and judged.decision.action == "supersede":
                # a closer memory is related and stays as it is: which memory the change is
                # about is less certain than on the closest, and a supersede retires a memory
                return _on_farther(judged, closer, "not_closest")
            return _on_farther(judged, closer)
        closer.append(judged)
    return closest.decision
