"""Run one `tapemind bench NAME` command from a script, options from sys.argv."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path("shared") / "memory-benchmarks"
LOCOMO_REL = SHARED / "locomo" / "locomo-dev5.json"
LONGMEMEVAL_REL = SHARED / "longmemeval" / "longmemeval-s-dev89.json.gz"
DATA = {"locomo": LOCOMO_REL, "longmemeval": LONGMEMEVAL_REL}


def shared_file(relative: Path) -> Path:
    """shared/… beside the checkout, or beside one of its parents (worktrees)."""
    for folder in ROOT.parents:
        if (folder / relative).is_file():
            return folder / relative
    return ROOT.parent / relative


def locomo_default() -> Path:
    return shared_file(LOCOMO_REL)


def run(name: str, args: list[str]) -> None:
    """`tapemind bench NAME ARGS…` without exiting the process at the end."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    if name in DATA and "--data" not in args:
        args = ["--data", str(shared_file(DATA[name])), *args]
    from app.cli.base import State
    from app.cli.bench_cmds import bench

    bench.main(
        [name, *args],
        prog_name=f"python bench/{name}.py",
        obj=State(None, "--json" in args),
        standalone_mode=False,
    )
