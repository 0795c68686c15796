"""The learned arbiter's model: a multinomial logistic regression over the pair features.

Small on purpose: 5 actions x a few dozen features, each weight readable ("a changed number
pushes towards supersede by 2.1"), so a decision's reason names the features that weighed
most. Fitted by `fit` (numpy, seconds on 2 cores) and stored as JSON next to this module.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.confront.arbiter.base import ACTIONS
from app.confront.arbiter.learned.pair import NAMES

MODEL_FILE = Path(__file__).with_name("model.json")


@dataclass(frozen=True)
class Model:
    """Weights per action (rows follow `ACTIONS`, columns `NAMES`) and the decision settings."""

    weights: tuple[tuple[float, ...], ...]
    # an action other than `add` is taken when its pair's chance of not being `add` is this high
    act: float
    # an overwrite (update, supersede, duplicate) needs this much; below it a person settles it
    overwrite: float
    # ...and the next most concerned neighbour must be this much less concerned: when two
    # memories could be the one meant, which one is for a person to say
    margin: float
    trained: dict[str, Any]
    # what an overwrite short of those bars becomes: "conflict" (a person settles it) or
    # "add" (both kept, nobody asked); a supersede always becomes a conflict, since storing
    # the change beside the old memory unflagged would leave both in every context
    fallback: dict[str, str] = field(
        default_factory=lambda: {"update": "conflict", "duplicate": "conflict"}
    )

    def held_back_as(self, action: str) -> str:
        """What an overwrite the model is not sure enough of becomes."""
        return self.fallback.get(action, "conflict")

    def probabilities(self, row: Sequence[float]) -> list[float]:
        """The chance of each action in `ACTIONS` order for one feature row."""
        scores = [sum(w * x for w, x in zip(ws, row, strict=True)) for ws in self.weights]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return [e / total for e in exps]

    def contributions(self, row: Sequence[float], action: str) -> list[tuple[str, float]]:
        """(feature, how much it pushed towards `action` against the other actions), largest
        first: the evidence a reason names."""
        k = ACTIONS.index(action)
        mean = [sum(col) / len(self.weights) for col in zip(*self.weights, strict=True)]
        out = [
            (name, (self.weights[k][i] - mean[i]) * x)
            for i, (name, x) in enumerate(zip(NAMES, row, strict=True))
            if name != "bias" and x
        ]
        out.sort(key=lambda item: -item[1])
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "actions": list(ACTIONS),
            "features": list(NAMES),
            "weights": [list(ws) for ws in self.weights],
            "act": self.act,
            "overwrite": self.overwrite,
            "margin": self.margin,
            "fallback": self.fallback,
            "trained": self.trained,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Model:
        """Read a stored model; refuses one fitted on other actions or features."""
        if list(data["actions"]) != list(ACTIONS) or list(data["features"]) != list(NAMES):
            raise ValueError(
                "the arbiter model was fitted on other features: rebuild it (make arbiter-model)"
            )
        return cls(
            weights=tuple(tuple(float(w) for w in ws) for ws in data["weights"]),
            act=float(data["act"]),
            overwrite=float(data["overwrite"]),
            margin=float(data["margin"]),
            fallback={str(k): str(v) for k, v in data.get("fallback", {}).items()},
            trained=dict(data.get("trained", {})),
        )


def load(path: Path = MODEL_FILE) -> Model:
    """The shipped model."""
    return Model.from_json(json.loads(path.read_text(encoding="utf-8")))
