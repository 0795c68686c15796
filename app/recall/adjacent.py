"""Neighbouring turns: a tape entry is scored with the entries around it.

Used for full-text and semantic hits alike. A conversation spreads one topic
over several short turns: a question's words
sit in one turn and the answer in the next ("Did you go anywhere nice?" /
"Yes, Yosemite with the kids"). So full-text hits on the tape are smoothed over
their thread: an entry's score is its own bm25 plus, for each of the W nearest
entries before and after it in the same thread, NEIGHBOUR_WEIGHT / distance
times that entry's score. An entry with no full-text match of its own can rank
through its neighbours. The result keeps both parts ("fulltext", "neighbours").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session

from app.clock import to_iso
from app.db import dbapi, is_postgres

NEIGHBOUR_WINDOW = 2
NEIGHBOUR_WEIGHT = 0.4
NEIGHBOUR_POOL = 50  # full-text hits taken before smoothing


def _neighbour_rows(
    s: Session, ids: Sequence[int], since: Any, until: Any
) -> list[tuple[int, int, int, int]]:
    """(hit id, hit seq, neighbour id, neighbour seq) for the W nearest entries on
    each side of each hit, in the hit's thread, not erased, within the time filter."""
    if not ids:
        return []
    cond = "x.agent_id = h.agent_id AND x.thread = h.thread AND x.erased_at IS NULL"
    bounds: list[Any] = []
    if since is not None:
        cond += " AND x.created_at >= ?"
        bounds.append(to_iso(since))
    if until is not None:
        cond += " AND x.created_at <= ?"
        bounds.append(to_iso(until))
    marks = ", ".join("?" * len(ids))
    sides, params = [], []
    # PostgreSQL runs the IN-subquery form once per row of the whole tape (a second per
    # search at a few thousand entries); a LATERAL join, which SQLite lacks, runs it
    # once per hit, as SQLite runs the other.
    lateral = is_postgres(s)
    for op, order in (("<", "DESC"), (">", "ASC")):
        nearest = (
            f"FROM tape_entries x WHERE {cond} AND x.seq {op} h.seq "
            f"ORDER BY x.seq {order} LIMIT {NEIGHBOUR_WINDOW}"
        )
        if lateral:
            sides.append(
                "SELECT h.id, h.seq, n.id, n.seq FROM tape_entries h "
                f"CROSS JOIN LATERAL (SELECT x.id, x.seq {nearest}) n WHERE h.id IN ({marks})"
            )
        else:
            sides.append(
                "SELECT h.id, h.seq, n.id, n.seq FROM tape_entries h JOIN tape_entries n "
                f"ON n.id IN (SELECT x.id {nearest}) WHERE h.id IN ({marks})"
            )
        params.extend([*bounds, *ids])
    # Plain DB-API call: this runs on every search, and SQLAlchemy's text() compile
    # with dozens of bound names costs more than the query itself.
    rows = dbapi(s).execute(" UNION ALL ".join(sides), tuple(params)).fetchall()
    return [(int(a), int(b), int(c), int(d)) for a, b, c, d in rows]


def credit(
    s: Session, hits: Sequence[tuple[int, float]], *, since: Any = None, until: Any = None
) -> dict[int, float]:
    """What each entry gets from the hits (id, score >= 0) around it in its thread:
    NEIGHBOUR_WEIGHT / distance times each hit's score, for the W nearest on each side."""
    own = dict(hits)
    extra: dict[int, float] = {}
    by_hit: dict[int, list[tuple[int, int]]] = {}
    hit_seq: dict[int, int] = {}
    for hit, seq, nb, nb_seq in _neighbour_rows(s, list(own), since, until):
        hit_seq[hit] = seq
        by_hit.setdefault(hit, []).append((nb, nb_seq))
    for hit, neighbours in by_hit.items():
        seq = hit_seq[hit]
        before = sorted((p for p in neighbours if p[1] < seq), key=lambda p: -p[1])
        after = sorted((p for p in neighbours if p[1] > seq), key=lambda p: p[1])
        for side in (before, after):
            for distance, (nb, _) in enumerate(side, start=1):
                extra[nb] = extra.get(nb, 0.0) + NEIGHBOUR_WEIGHT / distance * own[hit]
    return extra


def smooth(
    s: Session,
    hits: Sequence[tuple[int, float]],
    n: int,
    *,
    since: Any = None,
    until: Any = None,
    label: str = "fulltext",
) -> list[tuple[int, float, dict[str, float]]]:
    """Re-rank tape hits (id, score >= 0) with their neighbours' scores.

    Returns the best `n` as (id, smoothed score, score parts): the hit's own score
    under `label` and, when its neighbours added to it, "neighbours"."""
    own = dict(hits)
    extra = credit(s, hits, since=since, until=until)
    candidates = set(own) | set(extra)
    scored = [(i, own.get(i, 0.0) + extra.get(i, 0.0)) for i in candidates]
    scored.sort(key=lambda p: (-p[1], -own.get(p[0], 0.0), p[0]))
    out = []
    for i, total in scored[:n]:
        parts = {label: round(own.get(i, 0.0), 4)}
        if i in extra:
            parts["neighbours"] = round(extra[i], 4)
        out.append((i, total, parts))
    return out
