"""Print what the vault costs: tape appends with redaction, a request's round trip, unlocks.

Run: python bench/bench_vault.py [entries] [secrets]

Uses an in-memory key store (no keyring) for the append and request figures, and a
real scrypt passphrase file (N=2**17, the production cost) for the unlock figure.
"""

from __future__ import annotations

import secrets as random
import sys
import tempfile
import time
from pathlib import Path

from app import Engine
from app.models import AgentSettings
from app.vault import MemoryKeyStore, PassphraseKeyStore


def append_rate(home: Path, entries: int, n_secrets: int) -> float:
    with Engine.open(home, create=True, keystore=MemoryKeyStore()) as eng:
        eng.add_agent("a")
        values = []
        for i in range(n_secrets):
            value = f"tm-{random.token_urlsafe(24)}"
            values.append(value)
            eng.set_secret(f"S{i}", value)
        batch = [
            {
                "thread": "t",
                "kind": "message",
                "role": "assistant",
                "text": f"第 {i} 步: ran the deploy script, output ok " * 4
                + (values[i % n_secrets] if n_secrets and i % 50 == 0 else ""),
            }
            for i in range(entries)
        ]
        start = time.perf_counter()
        for chunk in range(0, entries, 500):
            eng.append("a", batch[chunk : chunk + 500])
        return entries / (time.perf_counter() - start)


def request_round_trip(home: Path, rounds: int) -> float:
    with Engine.open(home, create=True, keystore=MemoryKeyStore()) as eng:
        eng.add_agent("robot", AgentSettings(permission_mode="auto"))
        eng.set_secret("API", "sk-bench-" + random.token_urlsafe(24))
        start = time.perf_counter()
        for _ in range(rounds):
            assert eng.request_secret("robot", "API", "bench run").allowed
        return (time.perf_counter() - start) / rounds * 1000


def passphrase_unlock(home: Path) -> tuple[float, float]:
    path = home / "vault-key.json"
    home.mkdir(parents=True)
    start = time.perf_counter()
    PassphraseKeyStore(path, lambda _: "bench passphrase").store_key(b"k" * 32)
    create = time.perf_counter() - start
    start = time.perf_counter()
    PassphraseKeyStore(path, lambda _: "bench passphrase").load_key()
    return create, time.perf_counter() - start


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    n_secrets = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        plain = append_rate(base / "plain", entries, 0)
        redacted = append_rate(base / "redacted", entries, n_secrets)
        print(f"append, no secrets:            {plain:8.0f} entries/s ({entries} entries)")
        print(f"append, {n_secrets} secrets redacted: {redacted:8.0f} entries/s")
        print(f"request_secret (auto) + read:  {request_round_trip(base / 'req', 200):8.2f} ms")
        create, unlock = passphrase_unlock(base / "pp")
        print(f"passphrase key file create:    {create * 1000:8.0f} ms (scrypt N=2**17)")
        print(f"passphrase unlock:             {unlock * 1000:8.0f} ms")


if __name__ == "__main__":
    main()
