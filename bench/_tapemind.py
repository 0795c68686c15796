"""Run one `tapemind bench NAME` command from a script, options from sys.argv."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCOMO_REL = Path("shared") / "memory-benchmarks" / "locomo" / "locomo-dev5.json"


def locomo_default() -> Path:
    """shared/… beside the checkout, or beside one of its parents (worktrees)."""
    for folder in ROOT.parents:
        if (folder / LOCOMO_REL).is_file():
            return folder / LOCOMO_REL
    return ROOT.parent / LOCOMO_REL


def run(name: str, args: list[str]) -> None:
    """`tapemind bench NAME ARGS…` without exiting the process at the end."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    if name == "locomo" and "--data" not in args:
        args = ["--data", str(locomo_default()), *args]
    from app.cli.base import State
    from app.cli.bench_cmds import bench

    bench.main(
        [name, *args],
        prog_name=f"python bench/{name}.py",
        obj=State(None, "--json" in args),
        standalone_mode=False,
    )
