"""Rules for a candidate and a neighbour written in different scripts (Chinese vs English).

"用户每天早上喝咖啡" and "The user drinks coffee every morning" share no n-gram and no aligned
word, so the same-script rules read them as unrelated. Across scripts that evidence does not
exist, and its absence says nothing: here the arbiter leans on what still compares across
languages:

- the embedder's cosine (multilingual: the only measure of "same meaning" left);
- each side's own markers, read on that side alone: a change word ("now", "switched", 改用, 现在)
  on the candidate, a negation on one side only;
- numbers written in digits, the same in both languages ("PostgreSQL 14", "8080 端口");
- names written in Latin letters inside the Chinese text ("后端是用 Rust 写的"): products, people,
  tools. A name one side has and the other lacks is a different value or extra detail.

Cosines across languages run lower than within one (a faithful translation scores 0.6-0.9, a
related sentence 0.4-0.5), hence thresholds of their own. When the evidence is thin the answer is
`add`, never an overwrite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.confront.arbiter.base import Action
from app.confront.arbiter.features import TextFeatures, align_tokens

# the same meaning: a translation of the neighbour. Dev translations sit at 0.59-0.83, but
# another fact of the same shape can score as high ("用户早上开会讨论第1号需求" / "The user
# reviewed pull request 1 in the morning": 0.63), and a duplicate is not stored as a memory:
# only a near-certain match is one (a missed one leaves two memories, nothing lost)
SAME = 0.80
# the same meaning when every name the Chinese side writes in Latin letters is on the English side
# too ("后端是用 Go 写的" / "Our backend is written in Go"): the shared name is evidence of its own
SAME_NAMED = 0.70
# about the same subject: enough for a flagged difference (number, negation, other name) to be a
# conflict rather than two facts about different things
RELATED = 0.55
# a candidate that repeats and refines, or names another value, needs less: its shape is evidence
DETAIL = 0.44
# a candidate that says it changed needs least, given one visible difference besides the marker
CHANGE = 0.40

_LATIN = re.compile(r"[a-z][a-z0-9_.+#/-]*[a-z0-9+#]|[a-z]")
# a capitalised word after the first one in the raw English text: a name ("written in Go")
_NAME_EN = re.compile(r"(?<=\s)[A-Z][A-Za-z0-9_.+#-]*")
_CLAUSE = re.compile(r"[,;，；:：]")


def crosses_scripts(a: TextFeatures, b: TextFeatures) -> bool:
    """True when exactly one of the two texts is written in Chinese."""
    return a.cjk != b.cjk


@dataclass(frozen=True)
class Verdict:
    """The cross-script decision: an action, whether it aims at the neighbour, and why (a
    code of reasons.py)."""

    action: Action
    targets: bool
    code: str


def _latin_words(text: TextFeatures) -> set[str]:
    """Latin-script words, folded like the aligner folds them (plural, synonyms, stop words)."""
    return {t for t in align_tokens(text.text) if _LATIN.fullmatch(t)}


def _names(raw_en: str) -> set[str]:
    """Capitalised words of an English text, folded: the names it mentions."""
    return {t for w in _NAME_EN.findall(raw_en) for t in align_tokens(w)}


def _size(text: TextFeatures) -> float:
    """Content size comparable across scripts: a Chinese character weighs half an English word."""
    return sum(0.5 if not _LATIN.fullmatch(t) else 1.0 for t in align_tokens(text.text))


def relate_across(
    cand: TextFeatures, cand_raw: str, tgt: TextFeatures, tgt_raw: str, cosine: float
) -> Verdict:
    """Decide between a candidate and its closest neighbour written in the other script."""
    zh = cand if cand.cjk else tgt
    en_raw = tgt_raw if cand.cjk else cand_raw
    en = tgt if cand.cjk else cand
    # names the Chinese side writes in Latin letters that the English side never mentions, and
    # capitalised English names missing from the Chinese side
    zh_only = _latin_words(zh) - _latin_words(en)
    en_only = _names(en_raw) - _latin_words(zh)
    cand_only = zh_only if cand.cjk else en_only
    tgt_only = en_only if cand.cjk else zh_only
    # digits are written alike in both languages ("PostgreSQL 14" / "端口 8080"): comparable as
    # they are (a month spelt out, "March", is not a number here)
    numbers_changed = bool(cand.numbers and tgt.numbers and cand.numbers != tgt.numbers)
    negation_flip = cand.negated != tgt.negated
    change = cand.change and not tgt.change
    # a candidate that keeps everything the memory names and numbers and clearly says more (sizes
    # compare across scripts): with an "also"/"另外" or a second clause, or at twice the length
    keeps = not tgt_only and tgt.numbers <= cand.numbers
    ratio = _size(cand) / max(1.0, _size(tgt))
    marked = cand.refine or bool(_CLAUSE.search(cand.text.rstrip("。. ")))
    refines = keeps and (ratio >= 2.0 or (ratio >= 1.6 and marked))
    # names the Chinese side writes in Latin letters, all found on the English side
    named = bool(_latin_words(zh)) and not zh_only

    if change and (
        cosine >= RELATED or (cosine >= CHANGE and (numbers_changed or negation_flip or cand_only))
    ):
        # the candidate says it changed and is about this memory: it replaces it
        return Verdict("supersede", True, "across_changed")
    if numbers_changed and cosine >= RELATED:
        return Verdict("conflict", True, "across_number")
    if negation_flip and cosine >= RELATED and not zh_only:
        # a negation counts only when the subject the Chinese side names is there on both sides
        return Verdict("conflict", True, "across_negation")
    if cand_only and tgt_only and not negation_flip and cosine >= DETAIL:
        # one name each side lacks, in otherwise plain statements: another value for the subject
        # ("后端是用 Rust 写的" / "written in Go"); with a negation it is no simple swap
        return Verdict("conflict", True, "across_name")
    if refines and not (change or negation_flip) and cosine >= DETAIL:
        return Verdict("update", True, "across_refines")
    # English names the Chinese side transliterates (Lao Zhao / 老赵) cannot be matched: only the
    # Chinese side's Latin names must be on both sides
    if (
        cosine >= (SAME_NAMED if named else SAME)
        and not (zh_only or negation_flip or change)
        and not (cand.numbers ^ tgt.numbers)
    ):
        return Verdict("duplicate", True, "across_same")
    if cosine >= DETAIL:
        return Verdict("add", False, "across_related")
    return Verdict("add", False, "across_nothing")
