"""Agents: identities with their own tape, memories, settings and MCP access token.

- `registry`: add, list, configure and remove agents (removing one removes its rows).
- `tokens`: each agent's MCP bearer token (the database keeps its SHA-256 only).
"""

from app.agents import registry, tokens
from app.agents.tokens import PREFIX, AgentToken

__all__ = [
    "PREFIX",
    "AgentToken",
    "registry",
    "tokens",
]
