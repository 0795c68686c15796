"""What the learned arbiter reads of one (existing memory, candidate) pair: numbers in 0..1.

Every feature is something a person could check by reading both texts (or the embedder's
cosine), so a decision can be explained by the features that weighed most. The list is the
model's contract: `NAMES` names each column, in order, and the model file records it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from app.confront.arbiter.crossscript import crosses_scripts
from app.confront.arbiter.features import (
    TextFeatures,
    align,
    align_tokens,
    containment,
    lexical_similarity,
)
from app.confront.arbiter.reasons import SIGNS

_SEPARATOR = re.compile(r"[,;，；。:：]")
# suffixes folded before comparing bags of words, longest first ("indenting" / "indentation")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ions", "ion", "ers", "er", "ed", "es", "ly", "s")
# numbers people spell out: "turned eight" changes "is seven"
_SPELT = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_NUMBER_WORDS = {word: str(i) for i, word in enumerate((*_SPELT, "eleven", "twelve"))}

# each column's name, in order; a person reads each as reasons.SIGNS words it
NAMES: tuple[str, ...] = (
    "bias",
    "cosine",
    "no_cosine",
    "cosine_sq",
    "lexical",
    "contains_old",
    "contains_new",
    "shared_old",
    "shared_new",
    "novel_old",
    "novel_new",
    "substituted",
    "swapped",
    "numbers_differ",
    "numbers_new",
    "numbers_lost",
    "numbers_same",
    "negation_flip",
    "change_new",
    "change_old",
    "refine_new",
    "second_clause",
    "other_script",
    "same_category",
    "outcomes",
    "longer",
    "bag_old_in_new",
    "bag_new_in_old",
    "closest",
    "behind_best",
    "change_x_substituted",
    "change_x_numbers",
    "change_x_negation",
    "change_x_cosine",
    "negation_x_cosine",
    "substituted_x_cosine",
    "novel_x_contains",
    "other_x_cosine",
    "bags_x_cosine",
)
WORDS: dict[str, str] = {name: SIGNS[name][0] for name in NAMES}


@dataclass(frozen=True)
class Side:
    """One text as the pair features read it: the raw text, its analysis and its kind."""

    raw: str
    features: TextFeatures
    category: str | None


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _bag(text: str) -> frozenset[str]:
    """Words (folded, stemmed) and Chinese characters, order ignored."""
    return frozenset(_stem(t) for t in align_tokens(text))


def _numbers(f: TextFeatures) -> frozenset[str]:
    """Numbers in digits, Chinese numerals and English number words."""
    spelt = {_NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", f.text) if w in _NUMBER_WORDS}
    return f.numbers | spelt


def _squash(x: float, scale: float) -> float:
    """0..1 for a count that has no upper bound (`scale` reaches 0.63)."""
    return 1.0 - math.exp(-x / scale)


def pair_vector(
    old: Side, new: Side, cosine: float | None, *, rank: int = 0, behind: float = 0.0
) -> list[float]:
    """The feature row for `new` (the candidate) against `old` (an existing memory).

    `rank` is the memory's place among the candidate's neighbours (0: closest), `behind` how
    much less close it is than the closest one (0..1).
    """
    a, b = old.features, new.features
    al = align(old.raw, new.raw)
    aligned = min(al.shared_a, al.shared_b)
    cos = 0.0 if cosine is None else max(0.0, min(1.0, cosine))
    na, nb = _numbers(a), _numbers(b)
    numbers_differ = bool(na and nb and na != nb)
    negation_flip = a.negated != b.negated
    substituted = bool(al.substitutions) and aligned >= 0.5
    change = b.change and not a.change
    other = crosses_scripts(a, b)
    same_category = old.category is None or new.category is None or old.category == new.category
    contains_old = containment(a.content, b.content)
    novel_new = _squash(al.novel_b, 3.0)
    bag_a, bag_b = _bag(old.raw), _bag(new.raw)
    row = [
        1.0,
        cos,
        1.0 if cosine is None else 0.0,
        cos * cos,
        lexical_similarity(a, b),
        contains_old,
        containment(b.content, a.content),
        al.shared_a,
        al.shared_b,
        _squash(al.novel_a, 3.0),
        novel_new,
        1.0 if substituted else 0.0,
        1.0 if al.swapped else 0.0,
        1.0 if numbers_differ else 0.0,
        1.0 if nb - na and not numbers_differ else 0.0,
        1.0 if na - nb and not numbers_differ else 0.0,
        1.0 if na and na == nb else 0.0,
        1.0 if negation_flip else 0.0,
        1.0 if change else 0.0,
        1.0 if a.change else 0.0,
        1.0 if b.refine else 0.0,
        1.0 if _SEPARATOR.search(b.text.rstrip("。. ")) else 0.0,
        1.0 if other else 0.0,
        1.0 if same_category else 0.0,
        1.0 if old.category == new.category == "task_outcome" else 0.0,
        max(-1.0, min(1.0, math.log(max(1, len(b.text)) / max(1, len(a.text))))),
        containment(bag_a, bag_b),
        containment(bag_b, bag_a),
        1.0 if rank == 0 else 0.0,
        max(0.0, min(1.0, behind)),
    ]
    row += [
        row[18] * row[11],
        row[18] * row[13],
        row[18] * row[17],
        row[18] * cos,
        row[17] * cos,
        row[11] * cos,
        novel_new * contains_old,
        row[22] * cos,
        min(row[26], row[27]) * cos,
    ]
    return row
