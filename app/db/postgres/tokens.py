"""The engine's full-text tokens as PostgreSQL `tsvector` and `tsquery` values.

PostgreSQL's text search configurations cannot split Chinese (that takes zhparser, an
extension few managed databases offer), and its English stemmer is not the one the
embedded home uses. So the words are not given to PostgreSQL's parser at all: the
tokens are the very ones the embedded FTS5 table holds (`app.text`: the agent's token,
English Snowball stems, CJK characters and bigrams), written out as a `tsvector`
literal, lexeme by lexeme with its positions. `to_tsvector('simple', …)` would still run
the parser, which splits and drops characters by its own rules; a literal stores
exactly what Python computed, and the query side is built the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.text import agent_token

# PostgreSQL keeps positions 1..16383 (a later one is stored as 16383); keeping to that
# range ourselves makes the literal what PostgreSQL will hold.
_MAX_POSITION = 16_383
# A tsvector's lexemes and their positions take at most 1 MiB (PostgreSQL refuses the
# value, and so the whole append, past it): each lexeme its bytes (padded to even) and a
# count, each position 2 bytes, at most 256 positions a lexeme. MAX_ENTRY_TERMS long,
# distinct words can reach 1.4 MB, so a text is indexed by the lexemes that fit, in
# order, as it is by its first terms.
MAX_TSVECTOR_BYTES = 1_000_000
_MAX_POSITIONS = 256


def _quoted(lexeme: str) -> str:
    # The tsvector / tsquery literal syntax: a lexeme in single quotes, with quotes
    # doubled and backslashes escaped.
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_literal(terms: Sequence[str], agent_id: int) -> str:
    """The `tsvector` (as its text form, cast with `::tsvector`) of one agent's row with
    full-text `terms` (`app.text.text_terms`): the same token string the embedded home
    indexes, the agent's token first."""
    positions: dict[str, list[int]] = {}
    room = MAX_TSVECTOR_BYTES
    for at, term in enumerate((agent_token(agent_id), *terms), start=1):
        held = positions.get(term)
        if held is None:
            size = len(term.encode())
            cost = size + size % 2 + 4  # the lexeme, padding, its count, this position
            if not term or cost > room:
                continue
            positions[term] = [min(at, _MAX_POSITION)]
            room -= cost
        elif len(held) < _MAX_POSITIONS and room >= 2:
            held.append(min(at, _MAX_POSITION))
            room -= 2
    return " ".join(
        f"{_quoted(lexeme)}:{','.join(str(p) for p in dict.fromkeys(at))}"
        for lexeme, at in positions.items()
    )


def tsquery_literal(
    groups: Sequence[tuple[str, ...]], agent_id: int | None, *, any_term: bool = True
) -> str | None:
    """The `tsquery` (text form, cast with `::tsquery`) for query terms
    (`app.text.query_groups`), as `app.text.groups_expression` builds the FTS5 MATCH:
    each group's tokens OR'ed, the groups OR'ed (`any_term`) or AND'ed, and ANDed with
    the agent's token unless `agent_id` is None. None when there is no term."""
    if not groups:
        return None
    parts = [" | ".join(_quoted(t) for t in group) for group in groups]
    joined = (" | " if any_term else " & ").join(f"({p})" for p in parts)
    if agent_id is None:
        return f"({joined})"
    return f"{_quoted(agent_token(agent_id))} & ({joined})"
