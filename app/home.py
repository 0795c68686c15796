"""Where a home lives, and what makes a directory a Tapemind home.

A home is one directory: `tapemind.db` (the truth), `index/` (the vector index,
derived data), and whatever later features keep beside them. It is chosen by
`--home`, else `TAPEMIND_HOME`, else the platform's user data directory.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import platformdirs

from .errors import HomeError

DB_NAME = "tapemind.db"


def resolve(home: str | os.PathLike[str] | None = None) -> Path:
    if home:
        return Path(home).expanduser().resolve()
    env = os.environ.get("TAPEMIND_HOME")
    if env:
        return Path(env).expanduser().resolve()
    return Path(platformdirs.user_data_dir("tapemind", appauthor=False))


def db_path(home: Path) -> Path:
    return home / DB_NAME


def check_openable(home: Path, *, create: bool) -> None:
    """Refuse, with what to do, a home that does not exist or is not ours."""
    if home.exists() and not home.is_dir():
        raise HomeError(f"{home} is a file, not a Tapemind home directory.")
    if db_path(home).exists():
        return
    if not create:
        if home.exists() and any(home.iterdir()):
            raise HomeError(
                f"{home} is not a Tapemind home (no {DB_NAME} in it). Point --home or "
                "TAPEMIND_HOME at your home, or run `tapemind init --home DIR` on an empty "
                "directory."
            )
        raise HomeError(
            f"No Tapemind home at {home}. Create one with `tapemind init` "
            "(or choose another with --home DIR / TAPEMIND_HOME)."
        )
    if home.exists() and any(p.name != ".lock" for p in home.iterdir()):
        raise HomeError(
            f"{home} already holds other files; Tapemind only creates a home in an empty "
            "or new directory, so nothing of yours is mixed with it."
        )
    home.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        home.chmod(0o700)  # memories and the tape are private to the owner
