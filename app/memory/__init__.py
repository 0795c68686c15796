"""Memories: small durable conclusions, each traceable to the tape entries it came from.

- `records`: the stored rows, their full-text tokens, storing a new memory with its
  provenance and lineage.
- `intake`: the gate (chit-chat, tool output, credentials, length).
- `views`: reading one memory with its sources, lineage and versions, and pages of them.
- `owner`: the owner's edit and forget; `used`: memories an agent reports it used;
  `strength`: exponential decay since a memory was last reinforced.
"""

from app.memory import intake, owner, used, views
from app.memory.intake import check_category
from app.memory.intake import check_shape as check_memory_text
from app.memory.owner import check_shape as check_edited_text
from app.memory.records import (
    MEMORY_COLUMNS,
    NewMemory,
    check_parents,
    index_memory_text,
    memory_of,
    store_new,
    to_memory,
)
from app.memory.strength import anchor_time, fade_days, fade_time, strength
from app.memory.views import with_strength

__all__ = [
    "MEMORY_COLUMNS",
    "NewMemory",
    "anchor_time",
    "check_category",
    "check_edited_text",
    "check_memory_text",
    "check_parents",
    "fade_days",
    "fade_time",
    "index_memory_text",
    "intake",
    "memory_of",
    "owner",
    "store_new",
    "strength",
    "to_memory",
    "used",
    "views",
    "with_strength",
]
