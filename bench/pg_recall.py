"""LoCoMo and LongMemEval recall on both backends: the embedded home and one on PostgreSQL.

    python bench/pg_recall.py [--locomo FILE] [--longmemeval FILE] [--mode M] [--limit N]

Runs `tapemind bench locomo` and `tapemind bench longmemeval` (the same code,
`app.benchmarks`) twice on the same data: in an embedded home (SQLite, FTS5, chromadb)
and in a home whose database is a PostgreSQL 16 with pgvector started from the
`pgserver` package in a scratch directory (full-text from the `terms` column, vectors in
the database). Prints each row of the recall board (overall, per category and question
type) for both, and the difference. The issue's target: within 1 point. Defaults: the
dev files in `shared/memory-benchmarks/` beside the checkout.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["ANONYMIZED_TELEMETRY"] = "False"

from app import Engine
from app.benchmarks import locomo, longmemeval, scoreboard

FIGURES = {
    "locomo": ("recall@5", "recall@10"),
    "longmemeval": ("turn_recall_all@5", "turn_recall_all@10", "session_recall_all@5"),
}


def _postgres_homes(server: Any) -> Callable[..., contextlib.AbstractContextManager[Engine]]:
    names = itertools.count(1)

    @contextlib.contextmanager
    def factory(home: Any = None, **kwargs: Any) -> Iterator[Engine]:
        name = f"recall_{next(names)}"
        server.psql(f"CREATE DATABASE {name}")
        with tempfile.TemporaryDirectory(prefix="tapemind-pg-recall-") as place:
            engine = Engine.open(
                Path(place) / "home", create=True, database_url=server.get_uri(name), **kwargs
            )
            try:
                yield engine
            finally:
                engine.close()

    return factory


def _board(
    args: argparse.Namespace, factory: Callable[..., Any] | None, say: Callable[[str], None]
) -> tuple[list[scoreboard.Row], dict[str, float]]:
    rows: list[scoreboard.Row] = []
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    rep = locomo.run(args.locomo, mode=args.mode, limit_conversations=args.limit,
                     engine_factory=factory, progress=say)  # fmt: skip
    seconds["locomo"] = time.perf_counter() - started
    rows += scoreboard.locomo_rows(rep)
    started = time.perf_counter()
    rep = longmemeval.run(args.longmemeval, mode=args.mode, limit=args.limit,
                          engine_factory=factory, progress=say)  # fmt: skip
    seconds["longmemeval"] = time.perf_counter() - started
    rows += scoreboard.longmemeval_rows(rep)
    return rows, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--locomo", type=Path, default=scoreboard.shared_default(scoreboard.LOCOMO_FILE)
    )
    parser.add_argument(
        "--longmemeval", type=Path, default=scoreboard.shared_default(scoreboard.LONGMEMEVAL_FILE)
    )
    parser.add_argument("--mode", choices=["hybrid", "fulltext", "semantic"], default="hybrid")
    parser.add_argument("--limit", type=int, help="the first N conversations and questions only")
    parser.add_argument("--json", type=Path, help="also write both boards to this file")
    args = parser.parse_args()
    if args.locomo is None or args.longmemeval is None:
        parser.error("give --locomo FILE and --longmemeval FILE (no dev files found)")

    def say(message: str) -> None:
        print(f"  {message}", file=sys.stderr, flush=True)

    import pgserver

    print("embedded home", file=sys.stderr)
    embedded, embedded_s = _board(args, None, say)
    with tempfile.TemporaryDirectory(prefix="tapemind-bench-pg-") as scratch:
        os.chmod(scratch, 0o755)  # as root, pgserver's own user must reach its data directory
        server = pgserver.get_server(Path(scratch) / "pg", cleanup_mode="stop")
        try:
            print("home on PostgreSQL", file=sys.stderr)
            on_pg, pg_s = _board(args, _postgres_homes(server), say)
        finally:
            server.cleanup()

    print(f"mode {args.mode}; limit {args.limit or 'none'}; load average {os.getloadavg()[0]:.1f}")
    for bench, secs in embedded_s.items():
        print(f"{bench}: {secs:.0f} s embedded, {pg_s[bench]:.0f} s on PostgreSQL")
    print(
        f"{'benchmark / slice':<42} {'figure':<22} {'embedded':>9} {'PostgreSQL':>11} {'diff':>7}"
    )
    worst = 0.0
    for e, p in zip(embedded, on_pg, strict=True):
        for figure in FIGURES[e.bench]:
            a, b = 100 * e.tapemind[figure], 100 * p.tapemind[figure]
            if e.slice == "all":
                worst = max(worst, abs(a - b))
            print(
                f"{e.bench + ' / ' + e.slice:<42} {figure:<22} {a:>9.2f} {b:>11.2f} {b - a:>+7.2f}"
            )
    print(f"largest overall difference: {worst:.2f} points (target: within 1)")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "embedded": [r.to_dict() for r in embedded],
                    "postgresql": [r.to_dict() for r in on_pg],
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
