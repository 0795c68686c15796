"""The foundation's figures: tape appends, `remember`, and `memory list` at 100k memories
(the code lives in app.benchmarks.foundation, shared with `tapemind bench foundation`)."""

from __future__ import annotations

import sys

from app.benchmarks.foundation import format_report, run


def main() -> None:
    report = run(progress=lambda msg: print(msg, file=sys.stderr, flush=True))
    print(format_report(report))


if __name__ == "__main__":
    main()
