"""What the engine knows of English and Chinese text, with no model and no segmenter.

- `normalize`: what counts as "the same" text, and its hash.
- `terms`: full-text terms (English stems, Chinese characters and bigrams).
- `tokens`: counting tokens fairly for both languages, for budgets.
"""

from app.text.normalize import CJK_LETTERS, entry_hash, memory_hash, normalise, one_line
from app.text.terms import (
    _IS_CJK,
    CJK_PARTICLES,
    STOP_WORDS,
    _words,
    agent_token,
    groups_expression,
    index_tokens,
    query_groups,
    stem,
    text_terms,
    token_string,
)
from app.text.tokens import count_tokens

__all__ = [
    "CJK_LETTERS",
    "CJK_PARTICLES",
    "STOP_WORDS",
    "_IS_CJK",
    "_words",
    "agent_token",
    "count_tokens",
    "entry_hash",
    "groups_expression",
    "index_tokens",
    "memory_hash",
    "normalise",
    "one_line",
    "query_groups",
    "stem",
    "text_terms",
    "token_string",
]
