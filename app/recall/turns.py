"""How tape search ranks turns: candidates found by words and by meaning, then one
linear model over what each candidate shows (the weights: `app.recall.turn_weights`).

Candidates: the best `CANDIDATES` full-text hits once their neighbours' credit is added
(`app.recall.adjacent`), and the `CANDIDATES` turns nearest by meaning. What each shows:
- words: its own BM25 with the agent's statistics (`app.recall.rerank`), over the best
  such score among the candidates (so 1.0 is the best word match of this query);
- neighbours: what the hits around it in its thread lend it, on the same scale: a
  conversation spreads one topic over several turns;
- asked before: the BM25 of the question sentences of the turn just before it, same
  scale: a turn that answers a matching question ("Any songs that mean a lot to you?" /
  "'Brave' by Sara Bareilles") says what was asked without its words;
- meaning: its cosine with the query (a candidate outside the nearest list gets the
  lowest cosine of that list: it is at most that near);
- length: the log of its token count against the candidates' mean: a longer turn holds
  more of a conversation's facts;
- assistant: the turn is the assistant's; addressed: it is, and the question addresses
  the agent itself ("you", 你, 您), as when one asks what the agent said or suggested.
The score is the weighted sum; ties go to the older entry. The ranking does not depend
on the page asked for: every search ranks the same candidates.

Why the model and not a fusion of ranks: reciprocal rank fusion is blind to score gaps
(a weak match in two lists beats a strong match in one), and the neighbours' credit
that finds the answer after a question also lifted the assistant's long reply to a
short user fact above that fact.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlmodel import Session

from app.db import dbapi, id_list
from app.recall.adjacent import NEIGHBOUR_POOL, credit
from app.recall.documents import Documents
from app.recall.okapi import padded
from app.recall.rerank import RescoredPool
from app.recall.turn_weights import FEATURES, TurnWeights
from app.text import text_terms

CANDIDATES = 50
# Sentences end at these; one that ends with a question mark (Latin or full-width) is a
# question the turn asks, wherever it stands (its last 300 characters count).
_SENTENCE_END = re.compile(r"(?<=[.!?。！？\n])")
_QUESTION_CHARS = 300
_ADDRESSED = re.compile(r"\b(?:you|your|yours|yourself)\b|[你您]", re.IGNORECASE)


def addresses_agent(query: str) -> bool:
    """Whether a question speaks to the agent itself ("what did you suggest", 你说过)."""
    return _ADDRESSED.search(query) is not None


def question_part(text: str) -> str:
    """The question sentences of a turn ("" when it asks nothing)."""
    if "?" not in text and "？" not in text:
        return ""
    asked = [part for part in _SENTENCE_END.split(text) if part.endswith(("?", "？"))]
    return " ".join(part[-_QUESTION_CHARS - 1 :] for part in asked)


@dataclass(frozen=True)
class Candidate:
    """What one candidate turn shows, in raw units (BM25, cosine, tokens)."""

    id: int
    words: float
    neighbours: float
    asked_before: float
    meaning: float | None  # None: not among the nearest by meaning
    tokens: int
    assistant: bool

    def why(self) -> dict[str, float]:
        """The parts a hit shows: full-text and semantic scores as other searches name them."""
        out: dict[str, float] = {}
        if self.words or self.neighbours or self.asked_before:
            out["fulltext"] = round(self.words, 4)
        if self.neighbours:
            out["neighbours"] = round(self.neighbours, 4)
        if self.asked_before:
            out["asked_before"] = round(self.asked_before, 4)
        if self.meaning is not None:
            out["semantic"] = round(self.meaning, 4)
        return out


def feature_rows(candidates: Sequence[Candidate], addressed: bool) -> list[list[float]]:
    """Each candidate's features in `FEATURES` order, scaled within the candidates."""
    if not candidates:
        return []
    best = max(c.words for c in candidates) or 1.0
    near = [c.meaning for c in candidates if c.meaning is not None]
    floor = min(near) if near else 0.0
    logs = [math.log1p(c.tokens) for c in candidates]
    mean_log = sum(logs) / len(logs)
    rows = []
    for c, log_len in zip(candidates, logs, strict=True):
        row = {
            "words": c.words / best,
            "neighbours": c.neighbours / best,
            "asked_before": c.asked_before / best,
            "meaning": floor if c.meaning is None else c.meaning,
            "length": log_len - mean_log,
            "assistant": float(c.assistant),
            "addressed": float(c.assistant and addressed),
        }
        rows.append([row[name] for name in FEATURES])
    return rows


def candidates(
    s: Session,
    lexical: RescoredPool,
    near: Sequence[tuple[int, float]] | None,
    *,
    since: object = None,
    until: object = None,
    want: int = CANDIDATES,
    documents: Documents | None = None,
) -> list[Candidate]:
    """The candidate turns of one query with what each shows (see the module doc).
    `documents`: the tape's token strings already read for this query."""
    words = dict(lexical.hits)
    lent = credit(s, lexical.hits[:NEIGHBOUR_POOL], since=since, until=until)
    size = max(want, CANDIDATES)
    lexical_order = sorted(
        set(words) | set(lent), key=lambda i: (-(words.get(i, 0.0) + lent.get(i, 0.0)), i)
    )
    meaning = {i: c for i, c in (near or [])[:size]}
    ids = list(dict.fromkeys([*lexical_order[:size], *meaning]))
    if not ids:
        return []
    roles, before = _roles_and_previous(s, ids)
    lengths = dict(lexical.lengths)
    missing = [i for i in ids if i not in lengths]
    if missing:
        docs = documents or Documents(dbapi(s), "tape_fts")
        lengths.update({i: n for i, (_, n) in docs.words(missing).items()})
    asked = _asked_before(lexical, before)
    return [
        Candidate(
            id=i,
            words=words.get(i, 0.0),
            neighbours=lent.get(i, 0.0),
            asked_before=asked.get(i, 0.0),
            meaning=meaning.get(i),
            tokens=lengths.get(i, 0),
            assistant=roles.get(i) == "assistant",
        )
        for i in ids
    ]


def _roles_and_previous(s: Session, ids: Sequence[int]) -> tuple[dict[int, str], dict[int, str]]:
    """Each entry's role, and the text of the entry before it in its thread."""
    marks, bound = id_list(ids)
    sql = (
        "SELECT e.id, e.role, (SELECT p.content FROM tape_entries p WHERE p.agent_id = "
        "e.agent_id AND p.thread = e.thread AND p.seq < e.seq AND p.erased_at IS NULL "
        f"ORDER BY p.seq DESC LIMIT 1) FROM tape_entries e WHERE e.id IN ({marks})"
    )
    roles: dict[int, str] = {}
    before: dict[int, str] = {}
    for i, role, previous in dbapi(s).execute(sql, bound):
        roles[int(i)] = str(role)
        if previous:
            before[int(i)] = str(previous)
    return roles, before


def _asked_before(lexical: RescoredPool, before: Mapping[int, str]) -> dict[int, float]:
    """BM25 of the question sentences of each candidate's previous turn."""
    stats = lexical.statistics
    if stats is None:
        return {}
    out = {}
    for i, text in before.items():
        asked = question_part(text)
        if not asked:
            continue
        terms = text_terms(asked)
        if not terms:
            continue
        score = stats.score(padded(" ".join(terms)), len(terms))
        if score:
            out[i] = score
    return out


def rank(
    found: Sequence[Candidate], query: str, weights: TurnWeights
) -> list[tuple[int, float, dict[str, float]]]:
    """(id, score, why) of the candidates, best first."""
    rows = feature_rows(found, addresses_agent(query))
    scored = [(c.id, weights.score(row), c.why()) for c, row in zip(found, rows, strict=True)]
    scored.sort(key=lambda t: (-t[1], t[0]))
    return scored
