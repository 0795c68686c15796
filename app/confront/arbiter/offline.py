"""The default arbiter: deterministic rules over similarity and a few text features, no model.

It first finds the neighbour closest to the candidate (embedder cosine blended with its own
character n-gram overlap, so unembedded neighbours still count), then reads how the two texts
differ: a negation on one side only, numbers/versions/dates that changed, a different value for
the same subject, change markers ("switched to", "改用"), refinement markers ("also", "另外").
When the evidence is thin it says `add` or `conflict`, never an overwrite.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import takewhile

from app.confront.arbiter.base import Action, Candidate, Decision, Neighbour
from app.confront.arbiter.crossscript import RELATED, crosses_scripts, relate_across
from app.confront.arbiter.features import (
    CHANGE_EN,
    CHANGE_ZH,
    TextFeatures,
    align,
    analyse,
    containment,
    lexical_similarity,
)
from app.confront.arbiter.reasons import decision
from app.confront.arbiter.walk import Judged, first_decided

_SEPARATOR = re.compile(r"[,;，；。:：]")
# the closest neighbour's scores as a reason's parameters (reasons.py: {scores})
Scores = dict[str, object]


@dataclass(frozen=True)
class _Match:
    neighbour: Neighbour
    features: TextFeatures
    lexical: float
    closeness: float


def _score(value: float | None) -> float | None:
    """A score as a reason keeps it: two decimals, as the reason shows it."""
    return None if value is None else round(value, 2)


class OfflineArbiter:
    """Rule-based arbiter (name "offline"); thresholds are attributes so callers can tune them."""

    name = "offline"

    # closeness below this: the candidate is about something else
    related: float = 0.45
    # closeness at or above this, with no difference found: same meaning
    same: float = 0.80
    # a candidate that says something changed may be this much under `related` (with shared words)
    change_slack: float = 0.12

    def decide(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
        """Decide `add`, `update`, `supersede`, `duplicate` or `conflict` with a readable reason.

        The closest neighbour is judged first; when it says nothing about the candidate the
        next close ones are (walk.py: the memory a candidate is about is not always closest).
        """
        cand = analyse(candidate.text)
        ranked = self.ranked(cand, neighbours)
        if not ranked:
            return self._decision("add", None, "no_neighbours")
        # below this no rule fires (the lowest bar is a change marker with some shared words)
        floor = self.related - self.change_slack
        farther = takewhile(lambda m: m.closeness >= floor, ranked[1:])
        return first_decided(
            self._judge(cand, candidate, ranked[0]),
            (self._judge(cand, candidate, m) for m in farther),
        )

    def _judge(self, cand: TextFeatures, candidate: Candidate, best: _Match) -> Judged:
        """The rules' decision on one neighbour, with how much evidence backs it."""
        n = best.neighbour
        scores: Scores = {
            "target": n.id,
            "closeness": _score(best.closeness),
            "cosine": _score(n.similarity),
            "lexical": _score(best.lexical),
            "fulltext": _score(n.fulltext_score),
        }
        if n.similarity is not None and crosses_scripts(cand, best.features):
            # Chinese vs English: no shared words to read, so rules of their own (crossscript.py)
            verdict = relate_across(cand, candidate.text, best.features, n.text, n.similarity)
            target = n.id if verdict.targets else None
            across = self._decision(verdict.action, target, verdict.code, **scores)
            # across scripts a decision under the related cosine rests on one visible sign
            thin = verdict.action != "add" and n.similarity < RELATED
            return Judged(across, n.id, "thin" if thin else "firm")
        if best.closeness < self.related and not (
            cand.change
            and best.closeness >= self.related - self.change_slack
            and best.lexical > 0.2
        ):
            return self._firm(n.id, "add", None, "nothing_close", scores)
        return self._relate(cand, candidate.category, best, scores)

    @staticmethod
    def _blend(neighbour: Neighbour, lexical: float) -> float:
        """Closeness in 0..1: mostly the embedder's cosine, else n-gram and full-text overlap.

        Dice over n-grams runs lower than cosine for the same pair (paraphrases share few
        n-grams), hence the 1.6 stretch to put both on one scale.
        """
        stretched = min(1.0, lexical * 1.6)
        if neighbour.similarity is not None:
            return 0.65 * neighbour.similarity + 0.35 * stretched
        if neighbour.fulltext_score is not None:
            return (stretched + 0.9 * neighbour.fulltext_score) / 2
        return stretched

    def ranked(self, cand: TextFeatures, neighbours: Sequence[Neighbour]) -> list[_Match]:
        """The neighbours, closest first (ties keep the given order)."""
        out: list[_Match] = []
        for n in neighbours:
            feats = analyse(n.text)
            lexical = lexical_similarity(cand, feats)
            score = self._blend(n, lexical)
            if n.similarity is not None and crosses_scripts(cand, feats):
                # across scripts no overlap is expected: its absence must not pull the cosine down
                score = max(score, n.similarity)
            out.append(_Match(n, feats, lexical, score))
        out.sort(key=lambda m: -m.closeness)
        return out

    def _relate(self, cand: TextFeatures, category: str, best: _Match, scores: Scores) -> Judged:
        tgt = best.features
        tid = best.neighbour.id
        al = align(best.neighbour.text, cand.text)
        only_cand = cand.content - tgt.content
        numbers_changed = bool(cand.numbers and tgt.numbers and cand.numbers != tgt.numbers)
        # a number counts only when the rest of the sentence is about the same thing
        numbers_changed = numbers_changed and min(al.shared_a, al.shared_b) >= 0.5
        negation_flip = cand.negated != tgt.negated
        # "X, ideally no slides" refines X: judge negation on the first clause only
        head = analyse(_SEPARATOR.split(cand.text, maxsplit=1)[0])
        if (
            negation_flip
            and head.negated == tgt.negated
            and align(best.neighbour.text, head.text).shared_a >= 0.8
        ):
            negation_flip = False
        substituted = (bool(al.substitutions) and min(al.shared_a, al.shared_b) >= 0.5) or (
            al.swapped and not (only_cand or tgt.content - cand.content)
        )
        # two outcomes about different things ("fixed the leak in X" / "in Y") are both true
        outcomes = category == best.neighbour.category == "task_outcome"
        change = cand.change and not tgt.change
        marked_clause = bool(_SEPARATOR.search(cand.text.rstrip("。. ")))
        refines = (
            al.shared_a >= 0.8
            and (
                # an explicit "also"/"另外" or a second clause: a little new text is enough
                (al.novel_b >= 2.5 and (cand.refine or marked_clause))
                # otherwise the whole memory repeated plus a few words, or a lot of new text
                or (al.novel_b >= 3 and al.shared_a >= 0.95)
                or al.novel_b >= 5
            )
            and tgt.numbers <= cand.numbers
        )

        if change and (only_cand or cand.numbers != tgt.numbers or al.substitutions or substituted):
            # a negation shows what changed only in a sentence about the same thing ("no longer
            # on Fridays" says nothing of "release notes are written on Thursdays")
            negated_here = negation_flip and min(al.shared_a, al.shared_b) >= 0.5
            shown = numbers_changed or negated_here or substituted
            what = self._what_changed(numbers_changed, negation_flip, substituted)
            same_subject = (
                al.shared_a >= 0.5
                or containment(tgt.content, cand.content) >= 0.5
                or best.closeness >= self.same - 0.05
            )
            # two places that differ besides the change words ("the team retro now happens on
            # Thursdays" / "the team demo happens on Tuesdays"): the subject may be another one
            elsewhere = [
                pair
                for pair in al.substitutions
                if not any(
                    CHANGE_EN.search(side) or CHANGE_ZH.search(side.replace(" ", ""))
                    for side in pair
                )
            ]
            if len(elsewhere) >= 2 and not (numbers_changed or al.swapped):
                same_subject = shown = False
            if not (shown or same_subject):
                # it says something changed, but not visibly this memory's subject: ask a person
                unclear = self._decision("conflict", tid, "change_unclear", **scores)
                return Judged(unclear, tid, "unsure")
            changed = self._decision("supersede", tid, "changed", what=what, **scores)
            # no visible difference, or only the change marker's lower bar: thin evidence
            thin = not shown or best.closeness < self.related
            return Judged(changed, tid, "thin" if thin else "firm")
        if refines and not negation_flip and not substituted:
            return self._firm(tid, "update", tid, "refines", scores)
        if substituted and outcomes and not (numbers_changed or negation_flip):
            return self._firm(tid, "add", None, "another_outcome", scores)
        if numbers_changed or negation_flip or substituted:
            what = self._what_changed(numbers_changed, negation_flip, substituted)
            differs = self._decision("conflict", tid, "differs", what=what, **scores)
            # thin: a negation alone in sentences otherwise about other things, or another word
            # where the numbers agree ("staging is PostgreSQL 14" / "production is PostgreSQL
            # 14": the word differing is likely the subject, the value being the same)
            unaligned = negation_flip and min(al.shared_a, al.shared_b) < 0.5
            same_value = bool(cand.numbers) and cand.numbers == tgt.numbers
            thin = not numbers_changed and (
                (unaligned and not substituted) or (same_value and not negation_flip)
            )
            return Judged(differs, tid, "thin" if thin else "firm")
        if al.shared_a >= 0.95 and al.novel_b >= 2:
            # "prefers tabs" -> "prefers tabs in Go files": a narrower fact, not the same one
            return self._firm(tid, "add", None, "qualifier", scores)
        if (
            best.closeness >= self.same
            and not (cand.numbers ^ tgt.numbers)
            and max(al.novel_a, al.novel_b) <= 2
        ):
            return self._firm(tid, "duplicate", tid, "same_meaning", scores)
        return self._firm(tid, "add", None, "related_new", scores)

    @staticmethod
    def _what_changed(numbers: bool, negation: bool, value: bool) -> list[str]:
        """What differs, as the codes of reasons.DIFFERENCES."""
        return [
            w for w, seen in (("number", numbers), ("negation", negation), ("value", value)) if seen
        ]

    def _firm(
        self, about: int | str, action: Action, target: int | str | None, code: str, scores: Scores
    ) -> Judged:
        """A decision on neighbour `about` that the rules accept on any neighbour."""
        return Judged(self._decision(action, target, code, **scores), about)

    def _decision(
        self, action: Action, target_id: int | str | None, code: str, /, **params: object
    ) -> Decision:
        return decision(action, target_id, self.name, code, **params)
