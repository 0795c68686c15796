"""The limits of what one call may ask or carry, in one place.

Every layer checks its inputs against these, and what agents are told (the MCP tools'
schemas, error messages) is written from the same numbers.
"""

from __future__ import annotations

MAX_BUDGET = 32_000  # tokens a `context` call (or an agent's recall_budget) may ask for
