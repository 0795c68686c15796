"""The vector index of a home on PostgreSQL: pgvector's `vectors` table in its database.

`DatabaseStore` has the surface of `VectorStore` (`app.index.store`) and `DatabaseIndex`
that of `RemoteIndex`, so the retrieval service, the indexer and the checks work on
either. There is no store process and no directory: every host that opens the database
reads and writes the same table (HNSW and b-tree indexes are PostgreSQL's to keep
consistent), and nothing can be "missing", "damaged" or "foreign" the way a directory
can. A failure is a `StoreFault` with the same codes as chromadb's, so a search falls
back to full-text and the indexer backs off as it does on the embedded home.

An agent's nearest rows are searched through its own HNSW graph once it holds more than
`GRAPH_FROM` rows of a kind (`DatabaseIndex.grow` builds it, in the indexer's runs),
else exactly, through the agent's b-tree range (see `app.db.postgres.vectors`). Until
its graph is built an agent's search is exact: slower, never different.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
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

# From this many rows of a kind an agent gets its own graph. Measured on a pgserver
# PostgreSQL 16 with pgvector 0.6.2, 512 dimensions, 100,000 rows over 20 agents: exact
# search over an agent's 5,000 rows 7.3 ms warm, its own graph 2.7-3.8 ms (the same
# nearest), its build 3.9 s. The embedded home searches a collection exactly up to the
# same size (`app.index.exact.EXACT_UPTO`).
GRAPH_FROM = 4096
# Only one host builds agents' graphs at a time (a build takes seconds per 10,000 rows).
GRAPHS_JOB = "tapemind agent graphs"
# How long a build may wait for transactions that began before it (PostgreSQL's
# `CONCURRENTLY` waits for them to end); one that times out is dropped and built again.
GRAPH_WAIT_S = 60
# How long the list of agents' graphs is trusted before it is read again (a graph
# another host built is used from then on).
GRAPHS_TTL_S = 30.0
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
        self._store.changed(self.embedder_name, kind, by_agent)

    def delete(self, kind: str, ids: Sequence[int]) -> None:
        with self._conn("delete") as conn:
            agents = pgv.delete(conn, self.embedder_name, kind, [int(i) for i in ids])
        self._store.changed(self.embedder_name, kind, agents)

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
            found = self._nearest(conn, kind, agent, values, k)
        # pgvector's cosine distance is 1 - cosine similarity.
        return [(i, 1.0 - d) for i, d in found]

    def _nearest(
        self, conn: Connection, kind: str, agent: int, values: list[float], k: int
    ) -> list[tuple[int, float]]:
        """The agent's `k` nearest: through its own graph, or exactly."""
        if self._store.has_graph(conn, self.embedder_name, kind, agent):
            return pgv.nearest_in_graph(conn, self.embedder_name, kind, agent, values, k)
        return pgv.nearest_exact(conn, self.embedder_name, kind, agent, values, k)

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
        themselves; those of agents with a graph are asked for by their own vector."""
        wanted = [int(i) for _, i in rows]
        with self._conn("self_check") as conn:
            held = pgv.stored(conn, self.embedder_name, kind, wanted)
            absent = [(str(a), int(i)) for a, i in rows if int(i) not in held]
            unfindable: list[tuple[str, int]] = []
            for agent in sorted({a for a, _ in held.values()}):
                if not self._store.has_graph(conn, self.embedder_name, kind, agent):
                    continue  # searched exactly: every row finds itself
                for item, (owner, vector) in held.items():
                    if owner != agent:
                        continue
                    found = self._nearest(conn, kind, agent, vector, SELF_K)
                    if item not in [i for i, _ in found]:
                        unfindable.append((str(agent), item))
        return {
            "checked": len(held),
            "absent": absent,
            "unfindable": unfindable,
            # No exact cover to hand them to: the graph is PostgreSQL's (an agent with
            # fewer rows than `GRAPH_FROM` is searched exactly).
            "uncovered": unfindable,
        }

    def vectors(self, kind: str, rows: Sequence[tuple[str, int]]) -> dict[int, Any]:
        with self._conn("vectors") as conn:
            held = pgv.stored(conn, self.embedder_name, kind, [int(i) for _, i in rows])
        return {i: np.asarray(v, dtype=np.float32) for i, (_, v) in held.items()}

    def cover(self, kind: str, rows: Sequence[tuple[str, int]]) -> int:
        """Nothing to cover: see `self_check`."""
        return 0

    def grow(self, budget_s: float) -> int:
        """Build the own graphs of agents that passed `GRAPH_FROM` rows of a kind, the
        largest first, and drop those of agents that fell below half of that; no
        new build starts after `budget_s` seconds. The agents checked are those this
        process wrote or deleted vectors of since its last call, and every agent on its
        first call. Returns the graphs built. Another host building graphs: nothing, now."""
        due = self._store.grow_due(self.embedder_name)
        if due is not None and not due:
            return 0
        started = time.monotonic()
        built = 0
        with _faults("grow"):
            lock = postgres.hold_job(self._store.engine, GRAPHS_JOB, wait=False)
            if lock is None:
                return 0  # due again next time
            try:
                lock.execute(text(f"SET lock_timeout = '{int(GRAPH_WAIT_S * 1000)}ms'"))
                have = pgv.graphs(lock, self.embedder_name)
                held = self._held(lock, due)
                for kind, agent in list(have):
                    # An agent counted with too few rows, or (every agent counted) none;
                    # half of GRAPH_FROM, so a few forgotten rows do not make the next
                    # write build it again.
                    n = held.get((kind, agent), None if due is not None else 0)
                    if n is not None and n < GRAPH_FROM // 2:
                        pgv.drop_graph(lock, self.embedder_name, kind, agent)
                        del have[(kind, agent)]
                todo = sorted(
                    (
                        key
                        for key, n in held.items()
                        if n > GRAPH_FROM and have.get(key) is not True
                    ),
                    key=lambda key: -held[key],
                )
                for kind, agent in todo:
                    if built and time.monotonic() - started > budget_s:
                        break  # the next call continues with the rest
                    pgv.build_graph(lock, self.embedder_name, self.dim, kind, agent)
                    built += 1
            finally:
                with contextlib.suppress(DBAPIError):
                    lock.execute(text("SET lock_timeout = 0"))  # the pool's connection
                postgres.release_job(lock, GRAPHS_JOB)
        self._store.grew(self.embedder_name, set(held), set(todo[built:]))
        return built

    def _held(
        self, conn: Connection, due: set[tuple[str, int]] | None
    ) -> dict[tuple[str, int], int]:
        """{(kind, agent): rows} of the agents in `due` (every agent when None), each
        counted up to `GRAPH_FROM` + 1 only (every agent's count is one pass over them)."""
        if due is None:
            return pgv.counts(conn, self.embedder_name)
        return {
            (kind, agent): pgv.agent_held(conn, self.embedder_name, kind, agent, GRAPH_FROM)
            for kind, agent in sorted(due)
        }

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
        # model -> (checked at, {(kind, agent)}) of the agents' own graphs that are ready
        self._graphs: dict[str, tuple[float, set[tuple[str, int]]]] = {}
        # model -> (kind, agent) this process wrote or deleted vectors of since `grow`
        # last looked; a model missing: `grow` has not looked yet (it counts every agent)
        self._written: dict[str, set[tuple[str, int]]] = {}

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

    def has_graph(self, conn: Connection, model: str, kind: str, agent: int) -> bool:
        """Whether the agent has its own graph of `model`'s `kind`, ready to search (the
        list is read at most every `GRAPHS_TTL_S` seconds: a graph another host built
        is used from then on; the query for one dropped meanwhile is answered exactly
        by PostgreSQL's planner, so a stale list costs speed only)."""
        now = time.monotonic()
        with self._lock:
            seen = self._graphs.get(model)
        if seen is None or now - seen[0] >= GRAPHS_TTL_S:
            ready = {key for key, ok in pgv.graphs(conn, model).items() if ok}
            seen = (now, ready)
            with self._lock:
                self._graphs[model] = seen
        return (kind, int(agent)) in seen[1]

    def grow_due(self, model: str) -> set[tuple[str, int]] | None:
        """The (kind, agent) whose graphs `grow` should look at: those written since it
        last looked, or None (every agent) the first time."""
        with self._lock:
            written = self._written.get(model)
            return None if written is None else set(written)

    def grew(self, model: str, looked: set[tuple[str, int]], left: set[tuple[str, int]]) -> None:
        """`grow` looked at `looked`: they are not due until written again, except those
        `left` for its next call (its time was up)."""
        with self._lock:
            written = self._written.setdefault(model, set())
            written.difference_update(looked)
            written.update(left)
            self._graphs.pop(model, None)  # read again: built or dropped ones

    def changed(self, model: str, kind: str, agents: Iterable[int]) -> None:
        """Writes and deletes of this process: `grow` looks at those agents."""
        with self._lock:
            if agents and model in self._written:
                self._written[model].update((kind, int(a)) for a in agents)

    def models(self) -> dict[str, int]:
        with _faults("models"), self.engine.connect() as conn:
            return pgv.models(conn)

    def forget_model(self, name: str) -> int:
        with self._lock:
            for key in [k for k in self._indexes if k[0] == name]:
                del self._indexes[key]
            self._graphs.pop(name, None)
            self._written.pop(name, None)
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
