"""Write a small private file so that readers see the old file or the new one, never half.

The pattern is Electrum's (``electrum/storage.py``): write a temporary file in the same
directory, restrict it to the owner *before* any byte is written, flush and fsync it,
then ``os.replace`` it over the target and fsync the directory so the rename survives a
power cut.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

PRIVATE_MODE = 0o600


def write_private_file(path: Path, data: bytes) -> None:
    """Atomically replace ``path`` with ``data``, readable and writable by the owner only.

    Raises:
        OSError: the directory cannot be written; ``path`` is then unchanged.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    # O_EXCL: never write through a file (or symlink) someone else put there.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    fd = os.open(tmp, flags, PRIVATE_MODE)
    try:
        try:
            # The mode given to open() is masked by the umask; 0600 is already the
            # most private, but chmod says so explicitly, before any byte lands.
            if hasattr(os, "fchmod"):
                os.fchmod(fd, PRIVATE_MODE)
            else:  # pragma: no cover - Windows before 3.13
                os.chmod(tmp, PRIVATE_MODE)
            with os.fdopen(fd, "wb", closefd=True) as handle:
                fd = -1
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        finally:
            if fd != -1:
                os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    # Durability of the rename itself; directories cannot be opened on Windows.
    if os.name != "posix":  # pragma: no cover
        return
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
