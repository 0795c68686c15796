"""Time the offline arbiter: one candidate against 10 neighbours, every text new (cold cache).

python bench/arbiter_speed.py [--n 2000] [--walk]

--walk: a candidate that none of its ten close neighbours is about, so the arbiter judges every
one of them (app/confront/arbiter/walk.py) instead of stopping at the closest: the worst case.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.confront.arbiter import Candidate, Neighbour, OfflineArbiter

ZH = "用户喜欢用 Vim 写代码，尤其是 Python 项目，第 {k} 组第 {i} 条"
EN = "The backend service {k} runs on Python 3.{i} and deploys to Fly.io every Friday"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--walk", action="store_true", help="no neighbour decides: judge all")
    args = parser.parse_args()
    arbiter = OfflineArbiter()
    times, cpu = [], []
    for k in range(args.n):
        text = (
            f"The user reviews pull requests every morning, project {k}"
            if args.walk
            else f"User switched to VS Code instead of Vim, project {k}"
        )
        cand = Candidate(text, "preference")
        neighbours = [
            Neighbour(i, (ZH if i % 2 else EN).format(k=k, i=i), "preference", 0.5, 0.4)
            for i in range(10)
        ]
        start, start_cpu = time.perf_counter(), time.thread_time()
        arbiter.decide(cand, neighbours)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - start_cpu) * 1000)
    print(f"{args.n} decisions, 10 neighbours each, all texts new:")
    # wall time includes preemption on a busy machine; thread CPU time is the arbiter's own cost
    for label, values in (("wall", sorted(times)), ("cpu", sorted(cpu))):
        median, p95 = values[len(values) // 2], values[int(len(values) * 0.95)]
        print(
            f"  {label}: mean {statistics.mean(values):.3f} ms, "
            f"median {median:.3f} ms, p95 {p95:.3f} ms"
        )


if __name__ == "__main__":
    main()
