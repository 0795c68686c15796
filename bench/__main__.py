"""`python -m bench` (and `make bench`): run every benchmark in turn and print its figures.

Each entry is a module of this package with a `main()` that reads sys.argv, and
the arguments it gets here. Add yours to BENCHES.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

BENCHES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ()),
    ("arbiter_speed", ()),
    ("bench_importers", ()),
    ("decisions", ("--data", str(HERE / "data" / "decisions.jsonl"))),
    ("locomo", ()),  # data: shared/memory-benchmarks/locomo/locomo-dev5.json
    ("retrieval", ()),
    ("context_floor", ("--only", "en")),
    ("latency", ()),
    ("host_memory", ("--seconds", "120")),
    ("hostile_append", ()),
)


def main() -> None:
    only = set(sys.argv[1:])  # `python -m bench foundation` runs just that one
    for name, args in BENCHES:
        if only and name not in only:
            continue
        print(f"== bench {name}", flush=True)
        module = importlib.import_module(f"bench.{name}")
        saved = sys.argv
        sys.argv = [f"bench/{name}.py", *args]
        try:
            module.main()
        finally:
            sys.argv = saved
        print(flush=True)


if __name__ == "__main__":
    main()
