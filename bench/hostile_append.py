"""One agent's megabyte must not stall another agent's append.

    python bench/hostile_append.py [--appends 200] [--payloads stemmer,words,chinese]

One engine, as the host holds it (its shorter GIL switch interval included), two agents.
Agent B appends one small entry at a time, first alone (the baseline, in the same run),
then while agent A keeps appending 1 MiB of adversarial text on another thread:

- stemmer: one word, "ay" * 524,288 (Snowball's stemmer is quadratic on it);
- words: 1 MiB of distinct words in one entry (full-text insertion grows faster than its
  terms);
- chinese: 349,525 Han characters (1 MiB of UTF-8: as many unigrams and bigrams);
- batch: 1 MiB spread over 1,000 entries of distinct words (over what one call may index:
  refused, after the work of preparing it).

Prints B's append latency (p50, p95, max) alone and under each attack, A's appends, and
whether B's p95 meets the target (100 ms). The vault holds three secrets, so every write
is redacted as in a real home. Figures only: nothing passes or fails.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import Engine, TapemindError
from app.host.gil import shorten_switch_interval
from app.vault import MemoryKeyStore

MIB = 1024 * 1024
TARGET_P95_MS = 100.0
ATTACKS = 3  # B keeps appending until A has made this many calls
# The vault holds secrets, as a real home's does: every write is redacted of them.
SECRETS = {
    "DB_PASSWORD": "dbpass-Xk9#mP2q",
    "GITHUB_TOKEN": "ghp_" + "R4nd0m" * 6,
    "口令": "数据库口令-9x",
}


def _words(n_chars: int, prefix: str) -> str:
    words, size, i = [], 0, 0
    while size < n_chars:
        word = f"{prefix}{i:x}q"
        words.append(word)
        size += len(word) + 1
        i += 1
    return " ".join(words)[:n_chars]


PAYLOADS: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "stemmer": lambda: [{"thread": "a", "role": "tool", "text": "ay" * (MIB // 2)}],
    "words": lambda: [{"thread": "a", "role": "tool", "text": _words(MIB, "w")}],
    "chinese": lambda: [{"thread": "a", "role": "tool", "text": "汉字" * (MIB // 6)}],
    "batch": lambda: [
        {"thread": "a", "role": "tool", "text": _words(MIB // 1000, f"b{i}x")} for i in range(1000)
    ],
}


def _victim(engine: Engine, n: int, busy: Callable[[], bool] = lambda: False) -> list[float]:
    """B's single appends: `n` of them, and more while `busy()` says the attack goes on."""
    took: list[float] = []
    i = 0
    while i < n or busy():
        i += 1
        entry = {"thread": "b", "turn": str(i), "role": "user", "text": f"small note {i} 小记"}
        started = time.perf_counter()
        engine.append("B", [entry])
        took.append((time.perf_counter() - started) * 1000)
    return took


def _figures(took: list[float]) -> str:
    ordered = sorted(took)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return f"p50 {statistics.median(ordered):7.1f} ms  p95 {p95:7.1f} ms  max {ordered[-1]:7.1f} ms"


def _p95(took: list[float]) -> float:
    ordered = sorted(took)
    return ordered[max(0, int(len(ordered) * 0.95) - 1)]


def _attack(
    engine: Engine, payload: list[dict[str, Any]], stop: threading.Event, outcomes: list[str]
) -> None:
    """A's appends of `payload` until `stop`, each outcome noted as it comes."""
    while not stop.is_set():
        started = time.perf_counter()
        try:
            engine.append("A", payload)
            outcome = "stored"
        except TapemindError as exc:
            outcome = exc.code
        outcomes.append(f"{outcome} in {time.perf_counter() - started:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=200, help="B's appends per run")
    parser.add_argument("--payloads", default=",".join(PAYLOADS))
    args = parser.parse_args()
    shorten_switch_interval()
    with (
        tempfile.TemporaryDirectory() as tmp,
        Engine.open(Path(tmp) / "home", create=True, keystore=MemoryKeyStore()) as engine,
    ):
        engine.add_agent("A")
        engine.add_agent("B")
        for name, value in SECRETS.items():
            engine.set_secret(name, value)
        _victim(engine, 20)  # warm up
        alone = _victim(engine, args.appends)
        print(f"B alone ({len(alone)} single appends):          {_figures(alone)}")
        for name in args.payloads.split(","):
            payload = PAYLOADS[name]()
            size = sum(len(e["text"].encode()) for e in payload)
            stop = threading.Event()
            outcomes: list[str] = []
            attacker = threading.Thread(target=_attack, args=(engine, payload, stop, outcomes))
            attacker.start()
            time.sleep(0.2)  # the attack under way before B starts
            took = _victim(engine, args.appends, lambda o=outcomes: len(o) < ATTACKS)
            stop.set()
            attacker.join()
            met = "met" if _p95(took) <= TARGET_P95_MS else "NOT met"
            print(
                f"B while A appends {name:8} ({size / MIB:.2f} MiB/call, {len(took)} appends): "
                f"{_figures(took)}  "
                f"target p95 <= {TARGET_P95_MS:.0f} ms: {met}"
            )
            shown = ", ".join(outcomes[:3]) + (
                f" … ({len(outcomes)} calls)" if len(outcomes) > 3 else ""
            )
            print(f"    A: {shown}")


if __name__ == "__main__":
    main()
