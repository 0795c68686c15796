"""Benchmarks printed by `tapemind bench …` (figures, never pass/fail)."""
