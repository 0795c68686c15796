"""Assertions shared by the CLI tests."""

from __future__ import annotations

from click.testing import Result


def fails(result: Result, code: int, *words: str) -> None:
    """The command failed with `code`, printed nothing on stdout, and said `words` on stderr."""
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    for word in words:
        assert word in result.stderr, result.stderr


def appended_id(stdout: str) -> int:
    """The entry id `tape append` reports for one entry ("Appended entry 7 to the tape …")."""
    import re

    found = re.fullmatch(r"Appended entry (\d+) to the tape of \S+ \(thread [^)]*\)\.\n", stdout)
    assert found, stdout
    return int(found[1])
