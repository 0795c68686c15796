"""Benchmarks that print measured figures (run from bench/; never pass/fail on time)."""
