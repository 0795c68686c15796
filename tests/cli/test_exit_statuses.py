"""Exit statuses are a contract with scripts: each has one meaning, and the README lists them."""

from __future__ import annotations

import re
from pathlib import Path

# Every command and every tool, so that every error class is defined.
import app.cli.main
import app.mcp.server  # noqa: F401
from app.cli.vault_cmds import EXIT_DENIED, EXIT_PENDING
from app.errors import TapemindError

README = Path(__file__).resolve().parents[2] / "README.md"


def error_classes(cls: type[TapemindError] = TapemindError) -> list[type[TapemindError]]:
    found = [cls]
    for sub in cls.__subclasses__():
        found += error_classes(sub)
    return found


def test_a_script_can_tell_a_denied_secret_from_a_failed_write() -> None:
    errors = {c.__name__: c.exit_code for c in error_classes()}
    assert {EXIT_DENIED, EXIT_PENDING}.isdisjoint(errors.values()), errors
    # Different failures get different statuses; a subclass may share its family's
    # (HomeBusy is a HomeError), and 1 is the catch-all.
    families = {c.exit_code: c for c in error_classes() if c.exit_code != 1}
    for cls in error_classes():
        if cls.exit_code != 1:
            assert issubclass(cls, families[cls.exit_code]) or issubclass(
                families[cls.exit_code], cls
            ), cls


def test_the_readme_lists_every_status() -> None:
    table = re.findall(r"^\| (\d+) \| (.+) \|$", README.read_text("utf-8"), flags=re.M)
    documented = {int(status) for status, _ in table}
    used = {c.exit_code for c in error_classes()} | {0, EXIT_DENIED, EXIT_PENDING}
    assert used <= documented, used - documented
