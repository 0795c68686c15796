"""The MCP server: Tapemind's tools for agents, over stdio and streamable HTTP.

The calling agent's identity always comes from its connection (the stdio
process's `--agent`, or the HTTP bearer token), never from a tool argument.
"""
