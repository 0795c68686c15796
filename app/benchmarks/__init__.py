"""Benchmarks run through the product's own API (`tapemind bench …`, `python -m bench …`).

They print figures next to their targets; tests only check the reports' structure
and arithmetic on tiny data, never time.
"""
