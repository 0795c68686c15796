"""Confront every close neighbour, not only the closest one.

The closest neighbour is not always the memory a candidate is about: "Deploys now happen on
Thursday afternoons" sits closer to "Release notes are written on Thursday afternoons" than to
用户的部署在每周五下午进行, the memory it replaces. Judging the closest alone then stores the
candidate beside the memory it contradicts, and both reach the context.

So when the closest neighbour says nothing about the candidate (`add`), or raises only the
unsure conflict "something changed but it is unclear it is this memory", the next neighbours
are judged in order of closeness and the first one with a firm decision is taken. Safety:

- a farther neighbour goes through the very rules the closest does (no rule is loosened);
- a destructive decision those rules accept on thin evidence (see `Judged.evidence`) becomes a
  conflict when it lands on a farther neighbour: a closer memory looked more like the candidate,
  so a person settles it and nothing is lost;
- when no farther neighbour is firm, the first unsure conflict stands, else the closest's `add`.

The reason names the memory decided on and the closer ones passed over.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from app.arbiter.base import DESTRUCTIVE, Decision

# "firm": evidence the rules accept on any neighbour; "thin": a destructive decision the rules
# accept on the closest neighbour only; "unsure": a conflict raised because the subject is unclear
Evidence = Literal["firm", "thin", "unsure"]


@dataclass(frozen=True)
class Judged:
    """The decision the rules take on one neighbour, and how much evidence backs it."""

    decision: Decision
    neighbour_id: int | str
    evidence: Evidence = "firm"


def _passed(closer: list[Judged]) -> str:
    """'; decided on 7, not the closer 3 (unrelated), 5 (unclear)' for the reason."""
    return ", ".join(
        f"{j.neighbour_id} ({'unclear' if j.decision.action != 'add' else 'unrelated'})"
        for j in closer
    )


def _on_farther(chosen: Judged, closer: list[Judged]) -> Decision:
    """`chosen`'s decision, noting the closer neighbours passed (a thin overwrite: conflict)."""
    d = chosen.decision
    note = f"; decided on {chosen.neighbour_id}, not the closer {_passed(closer)}"
    if d.action in DESTRUCTIVE and chosen.evidence == "thin":
        return replace(
            d,
            action="conflict",
            reason="a person settles it, the evidence being thinner than on the closest "
            f"memory: {d.reason}{note}",
        )
    return replace(d, reason=d.reason + note)


def first_decided(closest: Judged, farther: Iterable[Judged]) -> Decision:
    """The closest neighbour's decision, or the first firm one farther out when it has none.

    `farther` is consumed lazily, in order of closeness: judging stops at the first firm
    decision, so a candidate whose closest neighbour decides costs no more than before.
    """
    if closest.decision.action != "add" and closest.evidence != "unsure":
        return closest.decision
    closer = [closest]
    for judged in farther:
        if judged.decision.action != "add" and judged.evidence != "unsure":
            return _on_farther(judged, closer)
        closer.append(judged)
    # nothing firm: the first unsure conflict, else the closest's `add`
    for i, judged in enumerate(closer):
        if judged.decision.action != "add":
            return judged.decision if i == 0 else _on_farther(judged, closer[:i])
    return closest.decision
