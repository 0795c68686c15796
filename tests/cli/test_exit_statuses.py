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
    # Different failures get different statuses: classes sharing one are a family, all
    # of them the first one's subclasses (HomeBusy is a HomeError); 1 is the catch-all.
    by_status: dict[int, list[type[TapemindError]]] = {}
    for cls in error_classes():  # parents before their subclasses
        by_status.setdefault(cls.exit_code, []).append(cls)
    for status, classes in by_status.items():
        if status != 1:
            assert all(issubclass(c, classes[0]) for c in classes), classes


def test_the_readme_lists_every_status() -> None:
    table = re.findall(r"^\| (\d+) \| (.+) \|$", README.read_text("utf-8"), flags=re.M)
    documented = {int(status) for status, _ in table}
    used = {c.exit_code for c in error_classes()} | {0, EXIT_DENIED, EXIT_PENDING}
    assert used <= documented, used - documented
