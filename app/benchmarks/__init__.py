"""Benchmarks that print figures next to their targets (never asserted in tests).

Each module has `run(...)`; `tapemind bench NAME` and `python -m bench`
call them on a temporary home, through the product's own API.
"""
