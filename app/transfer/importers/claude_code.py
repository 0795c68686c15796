"""Claude Code session JSONL (``~/.claude/projects/<project>/<session>.jsonl``).

Each line is an object with ``type``: ``user`` and ``assistant`` lines carry ``message`` (the
Anthropic Messages shape: ``content`` is a string or a list of ``text`` / ``tool_use`` /
``tool_result`` / ``thinking`` / ``image`` blocks) plus ``uuid``, ``parentUuid``, ``sessionId``,
``timestamp``, ``cwd``, ``gitBranch``, ``version``, ``isSidechain`` and ``isMeta``; ``summary``
lines carry a session title; ``system`` lines carry notices (``subtype: compact_boundary``
marks a compaction; ``local_command`` holds a slash command or its output in newer versions);
``attachment`` lines of type ``queued_command`` hold what the person typed while the agent was
working (there is no ``user`` line for it); ``custom-title`` / ``ai-title`` name the session.
Book-keeping lines (``file-history-snapshot``, ``queue-operation``, ``progress``,
``permission-mode``...) are skipped.

Sub-agents live in ``<session>/subagents/agent-<id>.jsonl`` (older versions: ``agent-<id>.jsonl``
beside the sessions); every line there has ``isSidechain`` and ``agentId``. The
``agent-acompact-*`` files are the compactor's copy of the conversation and the ``Warmup``
sub-agents are cache primers; neither is something anyone said, so both are skipped.

A ``summary`` line's ``leafUuid`` names the session it titles, which is often another file:
Claude Code writes every recent summary into the session it starts (anthropics/claude-code
issue #2597). The title goes to the session that holds the leaf, once, and a summary whose leaf
is in none of the files read is dropped rather than pinned on the wrong session.

Mapping: each content block becomes one entry. Tool results, which the format stores as user
lines, become ``tool_result`` entries with role ``tool`` and never open a turn. ``isMeta`` lines
(caveats, hook feedback), command output, IDE context, reminders, background-agent notices and
interruption markers become ``event`` entries (see ``claude_code_text``). One line opens at most
one turn. The compaction summary (``isCompactSummary``) becomes a ``compact`` entry and the
boundary an ``anchor``. Sub-agent lines (``isSidechain``) go to their own thread
``<session>/<agent>``.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path
from typing import Any

from app.transfer.importers._common import (
    BatchBuilder,
    KeyMaker,
    TurnCounter,
    as_str,
    iter_json_lines,
    json_text,
    make_entry,
    parse_time,
)
from app.transfer.importers.claude_code_text import (
    Said,
    classify_user_text,
    is_prompt_history,
    prompt_text,
    result_text,
)

_TITLE_TYPES = {"custom-title": "customTitle", "ai-title": "aiTitle"}


class _Batch:
    """What one import remembers across files: which thread holds each uuid, titles waiting."""

    def __init__(self) -> None:
        self.uuid_thread: dict[str, str] = {}
        self.thread_start: dict[str, datetime | None] = {}
        self.waiting: dict[str, list[str]] = {}  # leafUuid -> summaries not yet placed
        self.skipped_threads: set[str] = set()  # Warmup sub-agents


class _Session:
    """State carried from line to line of one file."""

    def __init__(self, path: Path) -> None:
        self.fallback_thread = path.stem
        # The first line's time: a title line has none of its own, and "now" (the import)
        # would put the title after the whole session it names.
        self.started: datetime | None = None
        self.tool_names: dict[str, str] = {}
        self.keys = KeyMaker("claude-code")
        self.batch = _Batch()
        self.sidechain_root: dict[str, str] = {}  # uuid -> root uuid of an inline sub-agent


def read_file(path: Path, sink: BatchBuilder, turns: TurnCounter) -> None:
    """Read one Claude Code session file into ``sink``."""
    if path.name.startswith("agent-acompact"):
        return  # the compactor's private copy of the conversation
    if path.name == "history.jsonl" and is_prompt_history(path):
        sink.problem(None, "Claude Code's prompt history, not a session; skipped (sessions are "
                     "under ~/.claude/projects)")  # fmt: skip
        return
    session = _Session(path)
    session.batch = sink.scratch.setdefault("claude-code", _Batch())
    # Title lines come first and carry no session id: hold them until a line names the session.
    # Only those are held, so a long file is read in one pass without keeping its records.
    pending: list[tuple[int, str, Any]] | None = []
    for number, raw, record in iter_json_lines(path, sink):
        if pending is not None:
            if not (isinstance(record, dict) and as_str(record.get("sessionId"))):
                pending.append((number, raw, record))
                continue
            session.fallback_thread = record["sessionId"]
            session.started = parse_time(record.get("timestamp"))
            for held in pending:
                _line(*held, session, sink, turns)
            pending = None
        _line(number, raw, record, session, sink, turns)
    for held in pending or []:
        _line(*held, session, sink, turns)


def _line(
    number: int,
    raw: str,
    record: Any,
    session: _Session,
    sink: BatchBuilder,
    turns: TurnCounter,
) -> None:
    """Map one parsed line; problems name the line."""
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        sink.problem(number, "not a Claude Code record (no 'type'); skipped")
        return
    kind = record["type"]
    if kind in ("user", "assistant"):
        if not isinstance(record.get("message"), dict):
            sink.problem(number, f"{kind} line without a 'message' object; skipped")
            return
        _message_line(number, record, session, sink, turns)
    elif kind == "summary" and as_str(record.get("summary")):
        leaf = as_str(record.get("leafUuid"))
        if leaf is None:
            _title(session.fallback_thread, record["summary"], session, sink)
        elif leaf in session.batch.uuid_thread:
            _title(session.batch.uuid_thread[leaf], record["summary"], session, sink)
        else:
            session.batch.waiting.setdefault(leaf, []).append(record["summary"])
    elif kind in _TITLE_TYPES and as_str(record.get(_TITLE_TYPES[kind])):
        _title(_thread(record, session), record[_TITLE_TYPES[kind]], session, sink)
    elif kind == "system":
        _system_line(record, session, sink, turns)
    elif kind == "attachment" and isinstance(record.get("attachment"), dict):
        _queued_prompt(record, session, sink, turns)
    # Other types are the tool's own book-keeping, not conversation.


def _title(thread: str, text: str, session: _Session, sink: BatchBuilder) -> None:
    """A session title: one per thread and text, at the session's start, in no turn."""
    if thread in session.batch.skipped_threads:
        return
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    sink.add(
        make_entry(
            thread=thread,
            turn=f"{thread}:0",
            kind="event",
            role="system",
            text=text,
            created_at=session.batch.thread_start.get(thread, session.started),
            source_key=f"claude-code:title:{thread}:{digest}",
            meta={"event": "title"},
        )
    )


def _key(record: dict[str, Any], thread: str, session: _Session, block: int | None = None) -> str:
    """The entry's import key (what makes a second import add nothing): the line's uuid and
    block, or, for a line without one, its content within the thread. Keys must never change:
    homes hold them from earlier imports."""
    uuid = as_str(record.get("uuid"))
    if uuid:
        return f"claude-code:{uuid}:{block or 0}"
    body = json_text(record) if block is None else f"{block}\n{json_text(record)}"
    return session.keys.key(thread, body)


def _seen(record: dict[str, Any], thread: str, session: _Session, sink: BatchBuilder) -> None:
    """Remember where a line's uuid lives and place the titles that were waiting for it."""
    batch = session.batch
    if thread not in batch.thread_start:
        batch.thread_start[thread] = parse_time(record.get("timestamp"))
    uuid = as_str(record.get("uuid"))
    if uuid is None:
        return
    batch.uuid_thread[uuid] = thread
    if batch.waiting and uuid in batch.waiting:
        for text in batch.waiting.pop(uuid):
            _title(thread, text, session, sink)


def _queued_prompt(
    record: dict[str, Any], session: _Session, sink: BatchBuilder, turns: TurnCounter
) -> None:
    """What the person typed while the agent worked: Claude Code folds it into the running turn.

    Only ``queued_command`` attachments in prompt mode from a human are the person's words;
    task notifications and messages from peer sessions come the same way.
    """
    attachment = record["attachment"]
    if attachment.get("type") != "queued_command" or attachment.get("isMeta") is True:
        return
    if attachment.get("commandMode", "prompt") != "prompt":
        return
    origin = attachment.get("origin")
    if isinstance(origin, dict) and origin.get("kind", "human") != "human":
        return
    text = prompt_text(attachment.get("prompt"))
    thread = _thread(record, session)
    if not text.strip() or thread in session.batch.skipped_threads:
        return
    _seen(record, thread, session, sink)
    key = _key(record, thread, session)
    sink.add(
        make_entry(
            thread=thread,
            turn=turns.current(thread),  # answered inside the turn it interrupted
            kind="message",
            role="user",
            text=text,
            created_at=parse_time(record.get("timestamp")),
            source_key=key,
            meta={**_base_meta(record), "queued": True},
        )
    )


def _thread(record: dict[str, Any], session: _Session) -> str:
    thread = as_str(record.get("sessionId")) or session.fallback_thread
    if record.get("isSidechain") is not True:
        return thread
    agent = as_str(record.get("agentId"))
    if agent is None:
        # Versions of 2025 wrote sub-agents inline, without agentId, and parallel ones
        # interleave: each chain of parentUuid from its root is one sub-agent.
        uuid, parent = as_str(record.get("uuid")), as_str(record.get("parentUuid"))
        agent = session.sidechain_root.get(parent or "") or uuid or "sidechain"
        if uuid:
            session.sidechain_root[uuid] = agent
    return f"{thread}/{agent}"


def _base_meta(record: dict[str, Any]) -> dict[str, Any]:
    message = record.get("message") or {}
    return {
        "cwd": as_str(record.get("cwd")),
        "git_branch": as_str(record.get("gitBranch")),
        "version": as_str(record.get("version")),
        "model": as_str(message.get("model")) if isinstance(message, dict) else None,
        "sidechain": True if record.get("isSidechain") is True else None,
    }


def _message_line(
    number: int,
    record: dict[str, Any],
    session: _Session,
    sink: BatchBuilder,
    turns: TurnCounter,
) -> None:
    thread = _thread(record, session)
    created_at = parse_time(record.get("timestamp"))
    content = record["message"].get("content")
    blocks: list[Any]
    if isinstance(content, str):
        blocks = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = content
    else:
        sink.problem(number, "message without content; skipped")
        return
    is_user = record["type"] == "user"
    if _is_warmup(record, blocks, is_user):
        session.batch.skipped_threads.add(thread)
    if thread in session.batch.skipped_threads:
        return
    _seen(record, thread, session, sink)
    has_tool_result = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)
    mapped_blocks: list[tuple[int, tuple[str, str, str, dict[str, Any], bool]]] = []
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            sink.problem(number, f"content block {index} is not an object; skipped")
            continue
        mapped = _map_block(block, record, is_user, has_tool_result, session)
        if mapped is not None:
            mapped_blocks.append((index, mapped))
    # The blocks of one line are one input (an IDE selection, then the words): they open at
    # most one turn, and the context in front of the words belongs to it.
    opens = any(m[4] for _, m in mapped_blocks)
    turn = turns.start(thread) if opens else turns.current(thread)
    for index, (kind, role, text, extra, _opens) in mapped_blocks:
        key = _key(record, thread, session, block=index)
        sink.add(
            make_entry(
                thread=thread,
                turn=turn,
                kind=kind,
                role=role,
                text=text,
                created_at=created_at,
                source_key=key,
                meta={**_base_meta(record), **extra},
            )
        )


def _map_block(
    block: dict[str, Any],
    record: dict[str, Any],
    is_user: bool,
    has_tool_result: bool,
    session: _Session,
) -> tuple[str, str, str, dict[str, Any], bool] | None:
    """(kind, role, text, meta, opens a turn) for one content block, or None to skip it."""
    btype = block.get("type")
    if btype == "text":
        text = block.get("text")
        if not isinstance(text, str) or not text.strip():
            return None
        if not is_user:
            if record.get("isApiErrorMessage") is True:
                return "event", "system", text, {"event": "api_error"}, False
            if record["message"].get("model") == "<synthetic>":
                # Written by Claude Code itself ("No response requested."), not by the model.
                return "event", "system", text, {"event": "synthetic"}, False
            return "message", "assistant", text, {}, False
        said = classify_user_text(text, record, has_tool_result)
        return said.kind, said.role, said.text, said.meta, said.opens_turn
    if btype in ("tool_use", "server_tool_use"):
        name = as_str(block.get("name")) or "tool"
        call_id = as_str(block.get("id"))
        if call_id:
            session.tool_names[call_id] = name
        text = f"{name} {json_text(block.get('input', {}))}"
        return "tool_call", "assistant", text, {"tool": name, "call_id": call_id}, False
    if btype == "tool_result" or str(btype).endswith("_tool_result"):
        call_id = as_str(block.get("tool_use_id"))
        meta = {
            "tool": session.tool_names.get(call_id or ""),
            "call_id": call_id,
            "is_error": True if block.get("is_error") is True else None,
        }
        return "tool_result", "tool", result_text(block.get("content")), meta, False
    if btype == "thinking":
        text = block.get("thinking")
        if not isinstance(text, str) or not text.strip():
            return None
        return "event", "assistant", text, {"event": "thinking"}, False
    if btype in ("image", "document"):
        role = "user" if is_user else "assistant"
        return "message", role, f"[{btype}]", {"attachment": btype}, False
    return None


def _is_warmup(record: dict[str, Any], blocks: list[Any], is_user: bool) -> bool:
    """A sub-agent Claude Code starts with the prompt "Warmup" to fill its prompt cache."""
    if not (is_user and record.get("isSidechain") is True and record.get("parentUuid") is None):
        return False
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    return texts == ["Warmup"]


def _system_line(
    record: dict[str, Any],
    session: _Session,
    sink: BatchBuilder,
    turns: TurnCounter,
) -> None:
    thread = _thread(record, session)
    if thread in session.batch.skipped_threads:
        return
    subtype = as_str(record.get("subtype")) or "system"
    text = as_str(record.get("content")) or ""
    said = Said("anchor" if subtype == "compact_boundary" else "event", "system", text)
    if said.kind == "event" and not text.strip():
        return
    if said.kind == "anchor" and not text:
        said = Said("anchor", "system", "conversation compacted")
    if subtype == "local_command":
        # Newer versions log a slash command (and its output) here instead of in a user line.
        said = classify_user_text(text, {}, has_tool_result=False)
    _seen(record, thread, session, sink)
    key = _key(record, thread, session)
    sink.add(
        make_entry(
            thread=thread,
            turn=turns.start(thread) if said.opens_turn else turns.current(thread),
            kind=said.kind,
            role=said.role,
            text=said.text,
            created_at=parse_time(record.get("timestamp")),
            source_key=key,
            meta={**_base_meta(record), "event": subtype, **said.meta},
        )
    )
