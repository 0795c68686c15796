"""What the benchmarks share: a scratch home, draining the vector index, percentiles."""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from app.engine import Engine, runtime_of
from app.index import RETRIEVAL


@contextlib.contextmanager
def scratch_engine(home: str | os.PathLike[str] | None = None, **kwargs: Any) -> Iterator[Engine]:
    """A new home (a temporary directory unless `home` is given), closed afterwards.

    A benchmark never writes into the user's own home.
    """
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    with contextlib.ExitStack() as stack:
        path = Path(home) if home else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        engine = Engine.open(path / "home", create=True, **kwargs)
        stack.callback(engine.close)
        yield engine


def semantic_available(engine: Engine) -> bool:
    """Whether this home has the vector index (semantic and hybrid search use it)."""
    return runtime_of(engine).services.get(RETRIEVAL) is not None


def drain_index(engine: Engine) -> int:
    """Embed the whole backlog now (if the home has an indexer); rows embedded."""
    for name in ("run_indexer", "index_run", "drain_index"):
        method = getattr(engine, name, None)
        if callable(method):
            result = method()
            if isinstance(result, int):
                return result
            if isinstance(result, dict):
                return int(result.get("embedded", 0))
            return int(getattr(result, "embedded", 0) or 0)
    return 0


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation; 0.0 for no values."""
    if not values:
        return 0.0
    if len(values) == 1:
        return float(values[0])
    cuts = statistics.quantiles(sorted(values), n=100, method="inclusive")
    if q <= 0:
        return float(min(values))
    if q >= 100:
        return float(max(values))
    return float(cuts[int(q) - 1])


def pct(value: float) -> str:
    return f"{100 * value:5.1f} %"
