"""The one script both bundled executables run: it dispatches on its own file name.

PyInstaller builds `tapemind` (the CLI, `app.cli.main:main`) and `tapemind-desktop` (the
app, `ui.main:main`) from this script, so one analysis serves both and they share one
`_internal/` directory of libraries and data.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _program() -> str:
    # sys.executable is the bundled executable itself; argv[0] may be a symlink's name.
    for candidate in (sys.argv[0], sys.executable):
        name = Path(candidate).name.lower()
        if name.startswith("tapemind-desktop"):
            return "desktop"
    return "cli"


def run() -> None:
    """Run the program this executable is named after and exit with its status."""
    import multiprocessing

    multiprocessing.freeze_support()
    # The bundle never reports telemetry (chromadb reads this before its settings).
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    if _program() == "desktop":
        from ui.main import main as desktop_main

        sys.exit(desktop_main())
    from app.cli.main import main as cli_main

    cli_main()


if __name__ == "__main__":
    run()
