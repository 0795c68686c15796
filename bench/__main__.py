"""`python -m bench locomo|retrieval|latency [options]`: the `tapemind bench` commands.

Prints the machine (cpu, cores, python, sqlite) and the figures next to their targets.
The LoCoMo data defaults to ../shared/memory-benchmarks/locomo/locomo-dev5.json.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCOMO_REL = Path("shared") / "memory-benchmarks" / "locomo" / "locomo-dev5.json"


def _locomo_default() -> Path:
    """shared/… beside the checkout, or beside one of its parents (worktrees)."""
    for folder in ROOT.parents:
        if (folder / LOCOMO_REL).is_file():
            return folder / LOCOMO_REL
    return ROOT.parent / LOCOMO_REL


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    if args[0] == "locomo" and "--data" not in args:
        args[1:1] = ["--data", str(_locomo_default())]
    from app.cli.base import State
    from app.cli.bench_cmds import bench

    bench.main(args, prog_name="python -m bench", obj=State(None, False))


if __name__ == "__main__":
    main()
