"""The vector index of a home on PostgreSQL: pgvector's `vectors` table in its database.

`DatabaseStore` has the surface of `VectorStore` (`app.index.store`) and `DatabaseIndex`
that of `RemoteIndex`, so the retrieval service, the indexer and the checks work on
either. There is no store process and no directory: every host that opens the database
reads and writes the same table (HNSW and b-tree indexes are PostgreSQL's to keep
consistent), and nothing can be "missing", "damaged" or "foreign" the way a directory
can. A failure is a `StoreFault` with the same codes as chromadb's, so a search falls
back to full-text and the indexer backs off as it does on the embedded home.

An agent's nearest rows are searched exactly (through the agent's b-tree range) unless
the agent holds most of the model's rows and more than `EXACT_UP_TO` of them: pgvector
0.6 filters HNSW candidates by agent after gathering them, so the graph only serves an
agent that dominates the table (see `app.db.postgres.vectors`).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import DBAPIError, OperationalError

from app.db import postgres
from app.index.footprint import rss_mb
from app.index.vector_process import StoreFault
from app.index.vectors import SELF_K

pgv = postgres.vectors  # the SQL of every call here

# Above this many rows an agent that holds most of a model's rows is searched through
# the HNSW graph; below it (or with a smaller share) exactly. Exact search over 20k
# vectors of 512 dimensions takes ~15 ms on one core of the test machine.
EXACT_UP_TO = 20_000
HNSW_SHARE = 0.5
# How long an agent's row counts are trusted before they are read again (they only
# choose between exact and graph search; a stale count costs speed, never a result).
SHARE_TTL_S = 30.0
LOCATION = "the home's PostgreSQL database (table vectors)"

# The store and transaction this thread's vector writes join (`DatabaseStore.within`):
# a context variable, so other threads (searches, other agents) keep their own.
_JOINED: ContextVar[tuple[DatabaseStore, Connection] | None] = ContextVar("joined", default=None)


@contextmanager
def _faults(what: str) -> Iterator[None]:
    """Database errors as the store's faults, in the driver's class names only (never a
    row's text, never the URL)."""
    try:
        yield
    except StoreFault:
        raise
    except ValueError as exc:
        raise StoreFault("invalid", f"{what}: {exc}") from None
    except OperationalError as exc:
        kind = type(exc.orig).__name__ if exc.orig is not None else type(exc).__name__
        raise StoreFault("not_answering", f"{what}: the database did not answer ({kind})") from None
    except DBAPIError as exc:
        kind = type(exc.orig).__name__ if exc.orig is not None else type(exc).__name__
        raise StoreFault("failed", f"{what}: the database refused it ({kind})") from None


class DatabaseIndex:
    """The vectors of one model in the home's database: `RemoteIndex`'s methods."""

    def __init__(self, store: DatabaseStore, embedder_name: str, dim: int) -> None:
        self._store = store
        self.embedder_name = embedder_name
        self.dim = dim
        self._checked = False

    @contextmanager
    def _conn(self, what: str) -> Iterator[Connection]:
        self._store.used = True
        joined = _JOINED.get()
        with contextlib.ExitStack() as stack:
            stack.enter_context(_faults(what))
            if joined is not None and joined[0] is self._store:
                conn = joined[1]  # the caller's transaction commits (or not) it all
            else:
                conn = stack.enter_context(self._store.engine.begin())
            if not self._checked:
                self._check_dimension(conn)
            yield conn

    def _check_dimension(self, conn: Connection) -> None:
        held = pgv.models(conn).get(self.embedder_name)
        if held is not None and held != self.dim:
            raise StoreFault(
                "mismatch",
                f"the database holds {self.embedder_name!r} vectors of dimension {held}, "
                f"not {self.dim}",
            )
        self._checked = True

    def upsert(
        self,
        kind: str,
        ids: Sequence[int],
        vectors: npt.ArrayLike,
        agent_ids: Sequence[int | str],
        extra_metadatas: Sequence[Mapping[str, str | int | float | bool]] | None = None,
    ) -> None:
        matrix = np.asarray(vectors, dtype=np.float32)
        n = len(ids)
        if matrix.ndim != 2 or matrix.shape[0] != n or len(agent_ids) != n:
            raise StoreFault(
                "invalid",
                f"upsert needs one vector and one agent id per id: got {n} ids, "
                f"vectors of shape {matrix.shape}, {len(agent_ids)} agent ids",
            )
        if n and matrix.shape[1] != self.dim:
            raise StoreFault(
                "invalid",
                f"vectors have dimension {matrix.shape[1]}, this index holds "
                f"{self.embedder_name!r} vectors of dimension {self.dim}",
            )
        by_agent: dict[int, list[tuple[int, str, list[float]]]] = {}
        for position, agent in enumerate(agent_ids):
            # The ledger (`index_rows`) keeps each row's content hash; the table's column
            # is left empty rather than given a second copy to keep in step.
            row = (int(ids[position]), "", matrix[position].tolist())
            by_agent.setdefault(int(agent), []).append(row)
        with self._conn("upsert") as conn:
            for agent, items in by_agent.items():
                pgv.put(conn, self.embedder_name, kind, agent, items)
        self._store.changed(self.embedder_name, kind)

    def delete(self, kind: str, ids: Sequence[int]) -> None:
        with self._conn("delete") as conn:
            pgv.delete(conn, self.embedder_name, kind, [int(i) for i in ids])
        self._store.changed(self.embedder_name, kind)

    def query(
        self,
        kind: str,
        agent_id: int | str,
        vector: npt.ArrayLike,
        k: int,
        where: Mapping[str, Any] | None = None,
    ) -> list[tuple[int, float]]:
        if where:
            raise StoreFault("invalid", "a metadata filter is not kept in the database")
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise StoreFault(
                "invalid", f"query vector has dimension {query.shape[0]}, index has {self.dim}"
            )
        if k <= 0:
            return []
        agent = int(agent_id)
        values = query.tolist()
        with self._conn("query") as conn:
            ef = self._graph_ef(conn, kind, agent, k)
            if ef is not None:
                found = pgv.nearest(conn, self.embedder_name, kind, agent, values, k, ef)
            else:
                found = pgv.nearest_exact(conn, self.embedder_name, kind, agent, values, k)
        # pgvector's cosine distance is 1 - cosine similarity.
        return [(i, 1.0 - d) for i, d in found]

    def _graph_ef(self, conn: Connection, kind: str, agent: int, k: int) -> int | None:
        """The graph search's width for the agent's `k` nearest, or None when its rows
        are searched exactly (see the module)."""
        mine, every = self._store.share(conn, self.embedder_name, kind, agent)
        if every is None or not (mine > EXACT_UP_TO and mine >= HNSW_SHARE * every):
            return None
        # Enough candidates that the agent's share of them fills k.
        return max(pgv.EF_SEARCH, int(k * every / max(mine, 1) * 2))

    def warm(self, kind: str, budget_s: float) -> int:
        """Nothing to load ahead of a first query: PostgreSQL's own cache serves it."""
        return 0

    def ids(self, kind: str) -> set[int]:
        with self._conn("ids") as conn:
            return pgv.ids(conn, self.embedder_name, kind)

    def count(self, kind: str) -> int:
        with self._conn("count") as conn:
            held = pgv.counts(conn, self.embedder_name)
        return sum(n for (k, _), n in held.items() if k == kind)

    def self_check(self, kind: str, rows: Sequence[tuple[str, int]]) -> dict[str, Any]:
        """As `VectorIndex.self_check`: rows of agents searched exactly always find
        themselves; those searched through the graph are asked for by their own vector."""
        wanted = [int(i) for _, i in rows]
        with self._conn("self_check") as conn:
            held = pgv.stored(conn, self.embedder_name, kind, wanted)
            absent = [(str(a), int(i)) for a, i in rows if int(i) not in held]
            unfindable: list[tuple[str, int]] = []
            for agent in sorted({a for a, _ in held.values()}):
                ef = self._graph_ef(conn, kind, agent, SELF_K)
                if ef is None:
                    continue
                for item, (owner, vector) in held.items():
                    if owner != agent:
                        continue
                    found = pgv.nearest(conn, self.embedder_name, kind, agent, vector, SELF_K, ef)
                    if item not in [i for i, _ in found]:
                        unfindable.append((str(agent), item))
        return {
            "checked": len(held),
            "absent": absent,
            "unfindable": unfindable,
            # No exact cover to hand them to: the graph is PostgreSQL's, and an agent's
            # small share is searched exactly anyway.
            "uncovered": unfindable,
        }

    def vectors(self, kind: str, rows: Sequence[tuple[str, int]]) -> dict[int, Any]:
        with self._conn("vectors") as conn:
            held = pgv.stored(conn, self.embedder_name, kind, [int(i) for _, i in rows])
        return {i: np.asarray(v, dtype=np.float32) for i, (_, v) in held.items()}

    def cover(self, kind: str, rows: Sequence[tuple[str, int]]) -> int:
        """Nothing to cover: see `self_check`."""
        return 0

    def collections(self) -> list[dict[str, Any]]:
        with self._conn("collections") as conn:
            held = pgv.counts(conn, self.embedder_name)
        return [
            {"kind": k, "agent": str(a), "rows": n, "dim": self.dim}
            for (k, a), n in sorted(held.items())
        ]


class DatabaseStore:
    """The vectors of a home on PostgreSQL, in its database (`VectorStore`'s surface)."""

    def __init__(self, engine: Engine, home_id: str | None = None) -> None:
        self.engine = engine
        self.home_id = home_id
        self.location = LOCATION
        self._indexes: dict[tuple[str, int], DatabaseIndex] = {}
        self.used = False  # a vector was read or written by this process
        self._lock = threading.Lock()
        # (model, kind, agent) -> (checked at, the agent's rows, every agent's rows)
        self._shares: dict[tuple[str, str, int], tuple[float, int, int | None]] = {}

    # -- what a directory would show -------------------------------------------------

    @property
    def present(self) -> bool:
        """Always: the table is part of the home's schema."""
        return True

    @property
    def opened(self) -> bool:
        """Whether this process has read or written a vector (nothing to start first)."""
        return self.used

    def holds_vectors(self) -> bool:
        """Whether the table holds any vector (the host loads the model ahead only then)."""
        with _faults("holds_vectors"), self.engine.connect() as conn:
            return bool(conn.execute(text("SELECT EXISTS (SELECT 1 FROM vectors)")).scalar())

    def probe(self) -> tuple[str, str] | None:
        return None

    def owner(self) -> str | None:
        """The home the vectors belong to: the database's own."""
        return self.home_id

    def reset(self) -> None:
        """Delete every vector: the indexer embeds every row again from the database."""
        with _faults("reset"), self.engine.begin() as conn:
            pgv.forget_all(conn)
        with self._lock:
            self._shares.clear()

    @contextmanager
    def within(self, conn: Connection) -> Iterator[None]:
        """Vector writes of this thread go into `conn`'s transaction until the block ends:
        they commit, or roll back, with what else it writes (the indexer's ledger)."""
        token = _JOINED.set((self, conn))
        try:
            yield
        finally:
            _JOINED.reset(token)

    # -- calls -----------------------------------------------------------------------

    def index(self, name: str, dim: int) -> DatabaseIndex:
        key = (name, int(dim))
        with self._lock:
            if key not in self._indexes:
                self._indexes[key] = DatabaseIndex(self, name, int(dim))
            return self._indexes[key]

    def share(self, conn: Connection, model: str, kind: str, agent: int) -> tuple[int, int | None]:
        """(the agent's rows, every agent's rows) of `model`'s `kind`, read at most every
        `SHARE_TTL_S` seconds; everyone's only when the agent holds more than
        `EXACT_UP_TO` (`postgres.vectors.agent_share`)."""
        key = (model, kind, agent)
        now = time.monotonic()
        with self._lock:
            seen = self._shares.get(key)
        if seen is not None and now - seen[0] < SHARE_TTL_S:
            return seen[1], seen[2]
        mine, every = pgv.agent_share(conn, model, kind, agent, EXACT_UP_TO)
        with self._lock:
            self._shares[key] = (now, mine, every)
        return mine, every

    def changed(self, model: str, kind: str) -> None:
        """Writes of this process: the next query reads the counts again."""
        with self._lock:
            for key in [k for k in self._shares if k[0] == model and k[1] == kind]:
                del self._shares[key]

    def models(self) -> dict[str, int]:
        with _faults("models"), self.engine.connect() as conn:
            return pgv.models(conn)

    def forget_model(self, name: str) -> int:
        with self._lock:
            for key in [k for k in self._indexes if k[0] == name]:
                del self._indexes[key]
            for share in [k for k in self._shares if k[0] == name]:
                del self._shares[share]
        with _faults("forget_model"), self.engine.begin() as conn:
            return pgv.forget_model(conn, name)

    def prune_segment_dirs(self) -> int:
        """No segment directories: the database keeps its own files."""
        return 0

    def prestart(self) -> None:
        """Nothing to start."""

    def ping(self) -> dict[str, Any]:
        """This process (the vectors are served by the database, not a child)."""
        return {"pid": os.getpid(), "rss_mb": rss_mb()}

    def drop(self) -> None:
        """Nothing to restart: the next call takes a fresh connection from the pool."""

    def close(self) -> None:
        """The engine belongs to the home's `Store`, which closes it."""
