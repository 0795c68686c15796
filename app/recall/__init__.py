"""Recall: `context` (injection under a token budget) and `search` (exploration).

- `context`: the block an agent reads at the start of a turn, from the `routes`
  (thread, user, query, core), fused (`fusion`) and packed under the budget.
- `search`: hybrid, full-text, semantic or regex search over memories and the tape.
- The ranking under both: `fulltext` (FTS5 ids, regex ids), `okapi` (the one BM25),
  `rare_terms` (common-word queries), `rerank` (BM25 with the agent's own statistics),
  `adjacent` (neighbouring turns), `lexical_signal` (single-character Chinese hits),
  `lanes` (recalls at once).
"""

from app.recall import context, rare_terms, search, turn_weights, turns
from app.recall.context import ContextBlock, ContextItem, DroppedItem, dropped_summary
from app.recall.fusion import fuse
from app.recall.lanes import Lanes
from app.recall.search import MODES, SCOPES, SearchHit, SearchResult, tape_candidates

__all__ = [
    "MODES",
    "SCOPES",
    "ContextBlock",
    "ContextItem",
    "DroppedItem",
    "Lanes",
    "SearchHit",
    "SearchResult",
    "context",
    "dropped_summary",
    "fuse",
    "rare_terms",
    "search",
    "tape_candidates",
    "turn_weights",
    "turns",
]
