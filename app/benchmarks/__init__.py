"""Benchmarks that print figures next to their targets (never asserted in tests).

Each module has `run(...) -> Report`; `tapemind bench NAME` and `python -m bench`
call them on a temporary home.
"""
