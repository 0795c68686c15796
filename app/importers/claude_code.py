"""Claude Code session JSONL (``~/.claude/projects/<project>/<session>.jsonl``).

Each line is an object with ``type``: ``user`` and ``assistant`` lines carry ``message`` (the
Anthropic Messages shape: ``content`` is a string or a list of ``text`` / ``tool_use`` /
``tool_result`` / ``thinking`` / ``image`` blocks) plus ``uuid``, ``parentUuid``, ``sessionId``,
``timestamp``, ``cwd``, ``gitBranch``, ``version``, ``isSidechain`` and ``isMeta``; ``summary``
lines carry a session title; ``system`` lines carry notices (``subtype: compact_boundary``
marks a compaction). Book-keeping lines (``file-history-snapshot``, ``queue-operation``,
``progress``, titles...) are skipped.

Mapping: each content block becomes one entry. Tool results, which the format stores as user
lines, become ``tool_result`` entries with role ``tool`` and never open a turn. ``isMeta`` lines
(caveats, hook feedback), command output and interruption markers become ``event`` entries.
The compaction summary (``isCompactSummary``) becomes a ``compact`` entry and the boundary an
``anchor``. Sub-agent lines (``isSidechain``) go to their own thread ``<session>/<agent>``.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from app.importers._common import (
    BatchBuilder,
    KeyMaker,
    TurnCounter,
    as_str,
    iter_json_lines,
    json_text,
    make_entry,
    parse_time,
)

_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
# Text the harness writes into user lines that the person did not type.
_HARNESS_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<bash-stderr>",
    "[Request interrupted by user",
)


class _Session:
    """State carried from line to line of one file."""

    def __init__(self, path: Path) -> None:
        self.fallback_thread = path.stem
        # The first line's time: a title line has none of its own, and "now" (the import)
        # would put the title after the whole session it names.
        self.started: datetime | None = None
        self.tool_names: dict[str, str] = {}
        self.keys = KeyMaker("claude-code")


def read_file(path: Path, sink: BatchBuilder, turns: TurnCounter) -> None:
    """Read one Claude Code session file into ``sink``."""
    session = _Session(path)
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
        thread = session.fallback_thread
        sink.add(
            make_entry(
                thread=thread,
                turn=turns.current(thread),
                kind="event",
                role="system",
                text=record["summary"],
                created_at=session.started,
                source_key=session.keys.key(thread, raw),
                meta={"event": "title", "leaf_uuid": as_str(record.get("leafUuid"))},
            )
        )
    elif kind == "system":
        _system_line(record, session, sink, turns)
    # Other types are the tool's own book-keeping, not conversation.


def _thread(record: dict[str, Any], session: _Session) -> str:
    thread = as_str(record.get("sessionId")) or session.fallback_thread
    if record.get("isSidechain") is True:
        return f"{thread}/{as_str(record.get('agentId')) or 'sidechain'}"
    return thread


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
    uuid = as_str(record.get("uuid"))
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
    has_tool_result = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            sink.problem(number, f"content block {index} is not an object; skipped")
            continue
        mapped = _map_block(block, record, is_user, has_tool_result, session)
        if mapped is None:
            continue
        kind, role, text, extra, opens_turn = mapped
        turn = turns.start(thread) if opens_turn else turns.current(thread)
        key = (
            f"claude-code:{uuid}:{index}"
            if uuid
            else session.keys.key(thread, f"{index}\n{json_text(record)}")
        )
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
            return "message", "assistant", text, {}, False
        return _user_text(text, record, has_tool_result)
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
        return "tool_result", "tool", _result_text(block.get("content")), meta, False
    if btype == "thinking":
        text = block.get("thinking")
        if not isinstance(text, str) or not text.strip():
            return None
        return "event", "assistant", text, {"event": "thinking"}, False
    if btype in ("image", "document"):
        role = "user" if is_user else "assistant"
        return "message", role, f"[{btype}]", {"attachment": btype}, False
    return None


def _user_text(
    text: str, record: dict[str, Any], has_tool_result: bool
) -> tuple[str, str, str, dict[str, Any], bool]:
    if record.get("isCompactSummary") is True:
        return "compact", "system", text, {}, False
    if record.get("isMeta") is True:
        return "event", "system", text, {"event": "meta"}, False
    stripped = text.lstrip()
    if stripped.startswith(_HARNESS_PREFIXES):
        return "event", "system", text, {"event": "harness"}, False
    command = _COMMAND.search(text)
    if command:
        args = _COMMAND_ARGS.search(text)
        shown = f"{command.group(1).strip()} {args.group(1).strip() if args else ''}".strip()
        return "message", "user", shown, {"command": command.group(1).strip()}, True
    if record.get("isSidechain") is True and record.get("parentUuid") is None:
        # The prompt a sub-agent was started with: it opens the sub-agent thread's only turn.
        return "message", "user", text, {}, True
    # Text beside tool results is the person answering inside the tool loop, not a new input.
    return "message", "user", text, {}, not has_tool_result


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for item in content:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                parts.append(item["text"])
            elif isinstance(item, dict) and item.get("type") in ("image", "document"):
                parts.append(f"[{item['type']}]")
            elif isinstance(item, str):
                parts.append(item)
        return "\n".join(parts)
    if content is None:
        return ""
    return json_text(content)


def _system_line(
    record: dict[str, Any],
    session: _Session,
    sink: BatchBuilder,
    turns: TurnCounter,
) -> None:
    thread = _thread(record, session)
    subtype = as_str(record.get("subtype")) or "system"
    text = as_str(record.get("content")) or ""
    kind = "anchor" if subtype == "compact_boundary" else "event"
    if kind == "event" and not text.strip():
        return
    if kind == "anchor" and not text:
        text = "conversation compacted"
    uuid = as_str(record.get("uuid"))
    key = f"claude-code:{uuid}:0" if uuid else session.keys.key(thread, json_text(record))
    sink.add(
        make_entry(
            thread=thread,
            turn=turns.current(thread),
            kind=kind,
            role="system",
            text=text,
            created_at=parse_time(record.get("timestamp")),
            source_key=key,
            meta={**_base_meta(record), "event": subtype},
        )
    )
