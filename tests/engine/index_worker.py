"""A subprocess that drains a home's queue and is killed (SIGKILL) mid-drain.

    python -m tests.engine.index_worker HOME KILL_AT

KILL_AT > 0: kill itself on the KILL_AT-th bookkeeping commit, after chromadb already
holds that chunk's vectors (the worst moment). KILL_AT = 0: drain slowly until the
parent kills it.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from app import Engine
from app.index import indexer, rows
from app.index.embedders import HashingEmbedder


def main() -> None:
    home, kill_at = sys.argv[1], int(sys.argv[2])
    indexer.CHUNK = 8
    calls = {"n": 0}
    settle = rows.settle

    def settle_or_die(*args, **kwargs):  # type: ignore[no-untyped-def]
        if kwargs.get("dequeue") and args[2]:
            calls["n"] += 1
            if calls["n"] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            if kill_at == 0:
                # Slow enough that the parent, opening the home to poll (seconds on a
                # loaded machine), always catches it mid-drain: 0.05 s per chunk let the
                # whole drain finish between two polls in CI.
                time.sleep(0.5)
        return settle(*args, **kwargs)

    rows.settle = settle_or_die  # type: ignore[assignment]
    with Engine.open(home, embedder=HashingEmbedder(dim=64)) as engine:
        print("started", flush=True)
        engine.run_indexer()


if __name__ == "__main__":
    main()
