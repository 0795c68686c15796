"""A full disk, told apart from other failures, and said in the README's words.

SQLite reports a disk that filled up mid-write as SQLITE_FULL, but one that is already
full when a process starts as a "disk I/O error": a reader needs a few bytes too (the
`-shm` and `-wal` files of WAL mode are created on open). The home lock's note, the host's
token file and chromadb fail with ENOSPC. Every such failure, wherever it happens, is
`DiskFull` (exit status 9), with what was and was not written.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from app.errors import DiskFull

# A disk with less free space than this is full for SQLite: its `-shm` file alone needs
# 32 KiB, and a page of a write 4 KiB more.
FULL_BELOW_BYTES = 64 * 1024
_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)
CANNOT_READ = "Tapemind cannot even read it (SQLite needs a little space to open a database)"


def free_bytes(path: Path) -> int | None:
    """Free bytes for this user on the disk holding `path` (or its nearest existing
    parent); None where the system cannot say."""
    for candidate in (path, *path.parents):
        try:
            st = os.statvfs(candidate)
        except FileNotFoundError:
            continue
        except (OSError, AttributeError):  # Windows has no statvfs
            return None
        return st.f_bavail * st.f_frsize
    return None


def is_full(path: Path) -> bool:
    """Whether the disk holding `path` is (all but) full."""
    free = free_bytes(path)
    return free is not None and free < FULL_BELOW_BYTES


def is_no_space(exc: BaseException) -> bool:
    """Whether `exc` is the system saying there is no space left."""
    return isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS


def full(where: Path | str, *, doing: str = "this change was not written") -> DiskFull:
    """The error for a full disk under `where`: `doing` says what could not be done."""
    return DiskFull(
        f"The disk holding the home ({where}) is full: {doing}, and everything written "
        "before is intact. Free some disk space and try again.",
        for_agents="The disk of the owner's Tapemind home is full: nothing of this call was "
        "written, and nothing before it was lost. Tell the user, and call again once they "
        "have freed some space.",
    )
