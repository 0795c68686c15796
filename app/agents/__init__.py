"""Agents: identities with their own tape, memories, settings and MCP access token."""
