"""What MCP over loopback HTTP adds to a call: the overhead benchmark and its tools."""
