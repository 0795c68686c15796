"""`python -m bench locomo|retrieval|latency [options]`: the `tapemind bench` commands.

Prints the machine (cpu, cores, python, sqlite) and the figures next to their targets.
The LoCoMo data defaults to ../shared/memory-benchmarks/locomo/locomo-dev5.json.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT.parent / "shared" / "memory-benchmarks" / "locomo" / "locomo-dev5.json"


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    if args[0] == "locomo" and "--data" not in args:
        args[1:1] = ["--data", str(LOCOMO)]
    from app.cli.main import cli

    cli.main(["bench", *args], prog_name="python -m bench")


if __name__ == "__main__":
    main()
