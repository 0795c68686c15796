"""Assertions shared by the CLI tests."""

from __future__ import annotations

from click.testing import Result


def fails(result: Result, code: int, *words: str) -> None:
    """The command failed with `code`, printed nothing on stdout, and said `words` on stderr."""
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    for word in words:
        assert word in result.stderr, result.stderr
