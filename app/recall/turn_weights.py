"""The weights of tape search's turn model (`app.recall.turns`), and where they come from.

Fitted by `python bench/turn_weights_fit.py` (logistic regression, each benchmark's
evidence turns against the other candidates of the same question, classes balanced):
- every weight but the two on the assistant's turns on LoCoMo dev (five conversations,
  760 questions), then checked on LongMemEval_S dev (81 questions);
- the two on the assistant's turns on LongMemEval_S dev with the others fixed: LoCoMo
  records two people talking, every turn under role "user", so it cannot say anything
  about them (and they change nothing there).
The script prints both benchmarks' figures for these weights and for the weights fitted
the other way round; `bench/README.md` ("Turn weights") keeps the shipped weights' figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FEATURES = ("words", "neighbours", "asked_before", "meaning", "length", "assistant", "addressed")


@dataclass(frozen=True)
class TurnWeights:
    """One weight per feature of `FEATURES`."""

    words: float
    neighbours: float
    asked_before: float
    meaning: float
    length: float
    assistant: float
    addressed: float

    def score(self, row: Sequence[float]) -> float:
        return float(sum(getattr(self, name) * x for name, x in zip(FEATURES, row, strict=True)))


# Hybrid search: words and meaning.
HYBRID = TurnWeights(
    words=3.78,
    neighbours=3.76,
    asked_before=2.47,
    meaning=4.85,
    length=1.69,
    assistant=-8.25,
    addressed=3.0,
)
# Full-text search, or hybrid before anything is embedded: words only.
FULLTEXT = TurnWeights(
    words=4.41,
    neighbours=3.53,
    asked_before=2.5,
    meaning=0.0,
    length=1.54,
    assistant=-8.5,
    addressed=3.5,
)
