"""Benchmark scripts; `python -m bench NAME [options]` runs `tapemind bench NAME`."""
