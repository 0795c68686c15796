"""A child process for the fault tests: appends to a home and reports each commit.

python -m tests.engine.fault_worker HOME AGENT MODE COUNT [BATCH]
  MODE batches: COUNT entries in batches of BATCH, printing "committed N" after each
  (each text padded to FAULT_WORKER_PAD characters more, 200 unless set).
  MODE single:  COUNT one-entry appends, each its own transaction.
"""

from __future__ import annotations

import os
import sys

from app import Engine


def main() -> None:
    home, agent, mode, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    batch = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    pid = os.getpid()
    with Engine.open(home) as engine:
        print("ready", flush=True)
        if mode == "single":
            for i in range(count):
                engine.append(agent, [{"thread": f"p{pid}", "role": "user", "text": f"{pid}:{i}"}])
            print("done", flush=True)
            return
        pad = int(os.environ.get("FAULT_WORKER_PAD", "200"))  # characters after each text
        for start in range(0, count, batch):
            entries = [
                {
                    "thread": f"b{start}",
                    "turn": f"u{i}",
                    "role": "assistant",
                    "text": f"批次 {start} entry {i} " + "x" * pad,
                }
                for i in range(batch)
            ]
            engine.append(agent, entries)
            print(f"committed {start + batch}", flush=True)


if __name__ == "__main__":
    main()
