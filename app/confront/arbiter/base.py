"""The arbiter interface: a candidate memory, its neighbours, and the decision taken.

`add` stores the candidate and replaces nothing; `update` refines the target (same fact, more
detail; the target keeps its history); `supersede` replaces the target (a changed preference, a
corrected fact); `duplicate` stores nothing; `conflict` keeps both and raises a question a person
settles. `update`, `supersede` and `duplicate` are destructive: an arbiter that is unsure must
prefer `add` or `conflict`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, get_args

Action = Literal["add", "update", "supersede", "duplicate", "conflict"]
ACTIONS: tuple[Action, ...] = get_args(Action)
DESTRUCTIVE: frozenset[str] = frozenset({"update", "supersede", "duplicate"})


@dataclass(frozen=True)
class Candidate:
    """A memory about to be written: its text and its category."""

    text: str
    category: str


@dataclass(frozen=True)
class Neighbour:
    """An active memory near the candidate.

    `similarity` is the embedder's cosine (None when the memory is not embedded yet);
    `fulltext_score` is a normalised 0..1 full-text match (None when full-text did not match).
    """

    id: int | str
    text: str
    category: str
    similarity: float | None = None
    fulltext_score: float | None = None


@dataclass(frozen=True)
class Decision:
    """What to do with a candidate; `target_id` is None for `add`, `reason` is for a person.

    `reason_code` and `reason_params` are the same reason as a stable code with its
    parameters (reasons.py), from which a client says it in the owner's language; None for
    a reason that is free text only."""

    action: Action
    target_id: int | str | None
    reason: str
    arbiter: str
    reason_code: str | None = None
    # not hashed (a dict is not), still compared: a decision stays usable in a set
    reason_params: Mapping[str, object] = field(default_factory=dict, hash=False)


class Arbiter(Protocol):
    """Anything that decides; `name` is stored with every decision."""

    name: str

    def decide(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
        """Decide what `candidate` does given its nearest active `neighbours`."""
        ...
