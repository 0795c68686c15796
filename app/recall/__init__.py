"""Recall: `context` (injection under a token budget) and `search` (exploration), and the ranking under both."""
