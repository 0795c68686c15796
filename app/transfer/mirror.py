"""A read-only file view of one agent's tape and memories, for agents that grep and sed.

Layout of the mirror directory:
- ``memories/m<id>.md``: one memory, JSON-valued front matter (id, category, status,
  importance, confidence, version, thread, user, sources, parents, created, updated),
  then its text. Forgotten memories have no file (their file is removed).
- ``tape/<thread>.jsonl``: one thread, one entry per line (id, seq, turn, user, kind,
  role, created_at, text; erased entries keep their line with ``"erased": true``).
  Thread names are reduced to safe ASCII plus a short hash, so any thread name (Chinese,
  slashes, spaces) gives a portable file name; ``tape/threads.tsv`` maps files to threads.

Sync is incremental: a file is rewritten only when its content changed, always atomically
(temporary file, then rename), and left read-only (0444): the mirror is a view, the
database stays the truth. It only reads the database (SQLite in WAL mode), so it runs
beside a host without taking the home.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import text

from app.db import Store
from app.errors import InvalidInput, NotFound

STATE_FILE = ".tapemind-mirror.json"
# A row is read as a dict by column name; a quoted "user" is still the key `user`.
MEMORIES_SQL = (
    'SELECT id, category, status, importance, confidence, version, thread, "user", text, '
    "superseded_by, created_at, updated_at FROM memories WHERE agent_id = :a "
    "AND status != 'forgotten' ORDER BY id"
)
THREAD_SQL = (
    'SELECT id, seq, turn, "user", kind, role, created_at, content AS text, '
    "erased_at FROM tape_entries WHERE agent_id = :a AND thread = :t ORDER BY seq"
)
# Letters and digits of any script stay (a Chinese thread keeps its name); path separators,
# spaces, punctuation and the characters Windows forbids do not.
_UNSAFE = re.compile(r"[^\w.-]+")


@dataclass(frozen=True)
class MirrorReport:
    directory: str
    written: int
    removed: int
    unchanged: int
    memories: int
    threads: int

    @property
    def changed(self) -> bool:
        return bool(self.written or self.removed)


def thread_file(thread: str) -> str:
    """A portable file name for a thread: its letters and digits (any script), plus a hash
    of the full name so two threads never share a file."""
    safe = _UNSAFE.sub("_", thread).strip("._")[:40] or "thread"
    digest = hashlib.sha1(thread.encode("utf-8")).hexdigest()[:8]
    return f"{safe}-{digest}.jsonl"


def _front(key: str, value: Any) -> str:
    return f"{key}: {json.dumps(value, ensure_ascii=False)}"


def render_memory(row: dict[str, Any], sources: list[int], parents: list[dict[str, Any]]) -> str:
    head = [
        _front("id", row["id"]),
        _front("category", row["category"]),
        _front("status", row["status"]),
        _front("importance", row["importance"]),
        _front("confidence", row["confidence"]),
        _front("version", row["version"]),
        _front("thread", row["thread"]),
        _front("user", row["user"]),
        _front("sources", sources),
        _front("parents", parents),
        _front("superseded_by", row["superseded_by"]),
        _front("created", row["created_at"]),
        _front("updated", row["updated_at"]),
    ]
    body = str(row["text"]).rstrip("\n")
    return "---\n" + "\n".join(head) + "\n---\n" + body + "\n"


def _write(path: Path, content: str) -> None:
    """Atomically replace `path` with `content`, leaving it read-only."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(content)
        os.chmod(tmp, 0o444)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _remove(path: Path) -> None:
    if not path.is_symlink():  # chmod would change the mode of what a link points to
        with contextlib.suppress(OSError):
            os.chmod(path, 0o644)  # Windows refuses to delete read-only files
    path.unlink(missing_ok=True)


class _Sync:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.written = self.removed = self.unchanged = 0
        state_path = directory / STATE_FILE
        try:
            self.state: dict[str, Any] = json.loads(state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.state = {}
        self.hashes: dict[str, str] = dict(self.state.get("hashes", {}))

    def put(self, rel: str, content: str) -> None:
        digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
        path = self.dir / rel
        if self.hashes.get(rel) == digest and path.exists() and not path.is_symlink():
            self.unchanged += 1
            return
        if path.is_symlink():
            _remove(path)  # the link itself; what it points to is never read or written
        elif path.exists() and rel not in self.hashes:
            with contextlib.suppress(OSError):
                if path.read_text(encoding="utf-8") == content:
                    self.hashes[rel] = digest
                    self.unchanged += 1
                    return
        _write(path, content)
        self.hashes[rel] = digest
        self.written += 1

    def prune(self, folder: str, keep: set[str]) -> None:
        for path in (self.dir / folder).iterdir():
            rel = f"{folder}/{path.name}"
            # A link is removed as a link (unlink never follows it); a folder is left alone.
            linked = path.is_symlink()
            if (linked or path.is_file()) and not path.name.startswith(".") and rel not in keep:
                _remove(path)
                self.hashes.pop(rel, None)
                self.removed += 1

    def save(self) -> None:
        self.state["hashes"] = self.hashes
        _write(self.dir / STATE_FILE, json.dumps(self.state, ensure_ascii=False))


def _own_folder(folder: Path) -> None:
    """`folder`, made if missing, refused when it is a symbolic link (or not a folder): the
    mirror writes and prunes only inside its own folder, never where a link points."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise InvalidInput(
            f"{folder} is a symbolic link or a file: the mirror writes only inside its own "
            "folder. Remove it, or mirror into a new directory."
        )
    folder.mkdir(parents=True, exist_ok=True)


def _rows(conn: Any, sql: str, **params: Any) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in conn.execute(text(sql), params)]


def sync_store(store: Store, agent: str, directory: Path) -> MirrorReport:
    """Bring `directory` in line with `agent`'s memories and tape in `store` (read only)."""
    if directory.exists() and not directory.is_dir():
        raise InvalidInput(f"{directory} is a file; give a directory for the mirror.")
    with store.read() as s:
        conn = s.connection()
        found = conn.execute(text("SELECT id FROM agents WHERE name = :n"), {"n": agent}).first()
        if found is None:
            raise NotFound(
                f"No agent named {agent!r} in this home; list them with `tapemind agent list`."
            )
        a = int(found[0])
        memories = _rows(conn, MEMORIES_SQL, a=a)
        sources: dict[int, list[int]] = defaultdict(list)
        for r in conn.execute(
            text(
                "SELECT p.memory_id, p.entry_id FROM provenance p JOIN memories m "
                "ON m.id = p.memory_id WHERE m.agent_id = :a ORDER BY p.memory_id, p.entry_id"
            ),
            {"a": a},
        ):
            sources[int(r[0])].append(int(r[1]))
        parents: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for r in conn.execute(
            text(
                "SELECT l.child_id, l.parent_id, l.relation FROM lineage l JOIN memories m "
                "ON m.id = l.child_id WHERE m.agent_id = :a ORDER BY l.child_id, l.parent_id"
            ),
            {"a": a},
        ):
            parents[int(r[0])].append({"id": int(r[1]), "relation": r[2]})
        signatures = {
            str(r["thread"]): [r["n"], r["top"], r["erased"]]
            for r in _rows(
                conn,
                "SELECT thread, count(*) AS n, max(seq) AS top, count(erased_at) AS erased "
                "FROM tape_entries WHERE agent_id = :a GROUP BY thread",
                a=a,
            )
        }
        for sub in ("memories", "tape"):
            _own_folder(directory / sub)
        sync = _Sync(directory)
        keep_m: set[str] = set()
        for row in memories:
            rel = f"memories/m{row['id']}.md"
            keep_m.add(rel)
            sync.put(
                rel, render_memory(row, sources.get(row["id"], []), parents.get(row["id"], []))
            )
        known = sync.state.get("threads", {})
        keep_t: set[str] = set()
        for thread, signature in signatures.items():
            rel = f"tape/{thread_file(thread)}"
            keep_t.add(rel)
            path = directory / rel
            if known.get(thread) == signature and path.exists() and not path.is_symlink():
                sync.unchanged += 1
                continue
            entries = _rows(conn, THREAD_SQL, a=a, t=thread)
            lines = []
            for e in entries:
                erased = e.pop("erased_at") is not None
                record = {"thread": thread, **e, **({"erased": True} if erased else {})}
                lines.append(json.dumps(record, ensure_ascii=False))
            sync.put(rel, "\n".join(lines) + "\n")
        index_lines = [f"{thread_file(t)}\t{t}" for t in sorted(signatures)]
        keep_t.add("tape/threads.tsv")
        sync.put("tape/threads.tsv", "file\tthread\n" + "".join(f"{x}\n" for x in index_lines))
    sync.prune("memories", keep_m)
    sync.prune("tape", keep_t)
    sync.state["threads"] = signatures
    sync.save()
    return MirrorReport(
        directory=str(directory),
        written=sync.written,
        removed=sync.removed,
        unchanged=sync.unchanged,
        memories=len(memories),
        threads=len(signatures),
    )


def sync(engine: Any, agent: str, directory: Path) -> MirrorReport:
    """Mirror `agent` of the engine's home into `directory` (see the module doc).

    Works with a local Engine or one that talks to a host: it reads the home's database
    file directly, read-only. Raises NotFound for an unknown agent."""
    from app.db import home as homes

    rt = getattr(engine, "_rt", None)  # a local Engine (a RemoteEngine has none)
    if rt is not None:
        return sync_store(rt.store, agent, directory)
    store = Store.open_sqlite(homes.db_path(Path(engine.home)))
    try:
        return sync_store(store, agent, directory)
    finally:
        store.close()
