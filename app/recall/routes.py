"""The routes `context` draws candidates from (see `app.recall.context`): recent in a thread or
about a user, the agent's strongest memories (core), and relevant to the query."""

from __future__ import annotations

from app.db import Filters, Tx, dbapi
from app.index import RETRIEVAL
from app.recall import lexical_signal, rare_terms
from app.recall.fulltext import fulltext_ids
from app.recall.fusion import ROUTE_K, rrf
from app.runtime import AgentLike, Runtime

ROUTE_DEPTH = 30
CORE_DEPTH = 12

# Every context call runs these, so they go through the driver (no ORM) and each is one
# walk of a partial index of active memories (migration 8): no sort of the agent's rows.
# `status = 'active'` must stay a literal for SQLite to pick those indexes.
_RECENT_SQL = {
    "thread": "SELECT id FROM memories WHERE agent_id = ? AND thread = ? "
    "AND status = 'active' ORDER BY updated_at DESC LIMIT ?",
    "user": 'SELECT id FROM memories WHERE agent_id = ? AND "user" = ? '
    "AND status = 'active' ORDER BY updated_at DESC LIMIT ?",
}
_CORE_SQL = (
    "SELECT id FROM memories WHERE agent_id = ? AND status = 'active' "
    "ORDER BY importance DESC, updated_at DESC LIMIT ?"
)
_ANY_ARCHIVED_SQL = "SELECT 1 FROM memories WHERE agent_id = ? AND status = 'archived' LIMIT 1"


def recent(s: Tx, arow: AgentLike, route: str, value: str) -> list[int]:
    """The agent's active memories most recently changed in this thread (route "thread")
    or about this person (route "user"), newest first."""
    rows = dbapi(s).execute(_RECENT_SQL[route], (arow.id, value, ROUTE_DEPTH))
    return [int(r[0]) for r in rows]


def core(s: Tx, arow: AgentLike) -> list[int]:
    """The agent's strongest memories: the most important, then the newest."""
    return [int(r[0]) for r in dbapi(s).execute(_CORE_SQL, (arow.id, CORE_DEPTH))]


def query_route(
    rt: Runtime, s: Tx, arow: AgentLike, query: str
) -> tuple[list[int], set[int], list[int]]:
    """(ranked relevant ids, ids judged below relevance, archived ids that match)."""
    active = Filters(statuses=("active",))
    retrieval = rt.services.get(RETRIEVAL)
    # Embedding and vector query on a worker thread while full-text runs here.
    pending = retrieval.begin(s, arow, "memory", query, ROUTE_DEPTH) if retrieval else None
    counts = rare_terms.count_cache(rt)
    lexical = fulltext_ids(s, arow, "memory", query, active, ROUTE_DEPTH, counts=counts)
    lexical_ids = [i for i, _ in lexical]
    # Hits sharing one character with a query whose bigrams other hits share.
    thin = lexical_signal.character_only(s, query, lexical_ids)
    weak: set[int] = set()
    semantic_list: list[int] = []
    if retrieval is not None:
        semantic = retrieval.semantic_ids(
            s, arow, "memory", query, active, ROUTE_DEPTH, pending=pending
        )
        floor = retrieval.similarity_floor(s)
        found = set(lexical_ids) - thin
        weak = {i for i, sim in semantic if sim < floor and i not in found}
        semantic_list = [i for i, _ in semantic if i not in weak]
    # A thin hit stays when semantic search finds it close enough.
    weak |= thin - set(semantic_list)
    lists: dict[str, list[int]] = {"fulltext": [i for i in lexical_ids if i not in weak]}
    if retrieval is not None:
        lists["semantic"] = semantic_list
    archived: list[int] = []
    # Most agents have no archived memory: one index probe instead of a full-text query.
    if dbapi(s).execute(_ANY_ARCHIVED_SQL, (arow.id,)).fetchone() is not None:
        archived_only = Filters(statuses=("archived",))
        archived = [
            i for i, _ in fulltext_ids(s, arow, "memory", query, archived_only, 10, counts=counts)
        ]
    order = [memory_id for memory_id, _ in rrf(lists, k=ROUTE_K)]
    return order, weak - set(order), archived
