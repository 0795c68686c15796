"""Codex CLI rollout JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``).

Current files wrap every line as ``{"timestamp", "type", "payload"}`` with type
``session_meta`` (first line; ``payload.id`` is the session), ``turn_context`` (cwd, model),
``response_item`` (the model history: ``message``, ``reasoning``, ``function_call``,
``function_call_output``, ``custom_tool_call``, ``local_shell_call``, ``web_search_call``...),
``compacted`` (a compaction summary) and ``event_msg`` (UI events, most of them copies of the
response items). Files written before September 2025 have a bare first line
``{"id", "timestamp", "instructions", "git"}``, bare response items without timestamps and
``{"record_type": "state"}`` markers; both are read.

Mapping: response items are the source of truth; ``event_msg`` ``user_message`` and
``agent_message`` are used only when no response item carries the same text (an event copy of
a message with an image or several parts is matched part by part). Context that Codex injects
as user messages never opens a turn (see ``codex_text``). Lines without a time of their own (the
old format) take the session's start time rather than the time of the import.

A fork (``forked_from_id``) or a spawned sub-agent (``source.subagent.thread_spawn``) starts
with a copy of its parent's history; when the parent is in the same import, that copied prefix
is not imported again under the fork's thread. Sessions Codex runs for itself (``source``
``subagent`` ``compact`` or ``memory_consolidation``) are skipped.
"""

from __future__ import annotations

import json
import re
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
from app.transfer.importers.codex_text import classify, exit_code_failed, message_parts

_UUID_AT_END = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.I)
_INTERNAL_SOURCES = {"compact", "memory_consolidation"}
_TOOL_OUTPUTS = ("function_call_output", "custom_tool_call_output", "tool_search_output")
# event_msg types kept as events: they say something the response items do not.
_KEPT_EVENTS = {
    "turn_aborted",
    "thread_rolled_back",
    "thread_name_updated",
    "error",
    "entered_review_mode",
    "exited_review_mode",
}


class _Rollout:
    """State carried from line to line of one rollout file."""

    def __init__(self, path: Path) -> None:
        found = _UUID_AT_END.search(path.stem)
        self.thread = found.group(1) if found else path.stem
        self.meta: dict[str, Any] = {}
        self.tool_names: dict[str, str] = {}
        self.keys = KeyMaker("codex")
        self.seen_meta = False
        self.item_texts: set[tuple[str, str]] = set()
        self.started: Any = None
        self.internal = False
        # Signatures of the entries of each thread read in this import, and the parent whose
        # copied history this rollout is still walking through (with the position in it).
        self.signatures: dict[str, list[int]] = {}
        self.inherit_from: str | None = None
        self.inherit_at: set[int] | None = None  # where in the parent the copy may be


def read_file(path: Path, sink: BatchBuilder, turns: TurnCounter) -> None:
    """Read one Codex rollout file into ``sink``."""
    rollout = _Rollout(path)
    rollout.signatures = sink.scratch.setdefault("codex", {})
    # First pass: the texts the response items carry, so event copies can be told apart. The
    # file is read twice rather than held parsed: millions of live JSON objects make Python's
    # cyclic garbage collector, not parsing, the cost of a long rollout. The second pass
    # reports the problems.
    for _n, _raw, record in iter_json_lines(path, BatchBuilder()):
        item = _response_item(record)
        if item is not None and item.get("type") == "message":
            role, parts = str(item.get("role")), message_parts(item)
            rollout.item_texts.add((role, "\n".join(parts).strip()))
            rollout.item_texts.update((role, p.strip()) for p in parts)
    for number, raw, record in iter_json_lines(path, sink):
        if rollout.internal:
            return
        if not isinstance(record, dict):
            sink.problem(number, "not a JSON object; skipped")
            continue
        _read_line(number, raw, record, rollout, sink, turns)


def _response_item(record: Any) -> dict[str, Any] | None:
    if not isinstance(record, dict):
        return None
    payload = record.get("payload")
    if record.get("type") == "response_item" and isinstance(payload, dict):
        return payload
    bare_type = record.get("type")
    if "payload" not in record and isinstance(bare_type, str) and bare_type in _BARE_ITEM_TYPES:
        return record
    return None


_BARE_ITEM_TYPES = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
}


def _read_line(
    number: int,
    raw: str,
    record: dict[str, Any],
    rollout: _Rollout,
    sink: BatchBuilder,
    turns: TurnCounter,
) -> None:
    kind = record.get("type")
    payload = record.get("payload")
    when = parse_time(record.get("timestamp"))
    if record.get("record_type") == "state":
        return
    if kind is None and "id" in record and "timestamp" in record and not rollout.seen_meta:
        _session_meta(record, rollout)  # the bare first line of an old rollout
        return
    when = when or rollout.started
    if kind in ("session_meta", "turn_context", "compacted", "event_msg"):
        if not isinstance(payload, dict):
            sink.problem(number, f"{kind} line without a 'payload' object; skipped")
            return
        if kind == "session_meta":
            if not rollout.seen_meta:  # a fork repeats its parent's meta after its own
                _session_meta(payload, rollout)
                rollout.started = rollout.started or when
        elif kind == "turn_context":
            rollout.meta["cwd"] = as_str(payload.get("cwd")) or rollout.meta.get("cwd")
            rollout.meta["model"] = as_str(payload.get("model")) or rollout.meta.get("model")
        elif kind == "compacted":
            text = payload.get("message")
            if not (isinstance(text, str) and text.strip()):
                text = "conversation compacted"  # a remote compaction keeps no summary text
            _emit(rollout, sink, turns, raw, "compact", "system", text, when)
        else:
            _event(raw, payload, rollout, sink, turns, when)
        return
    item = _response_item(record)
    if item is None:
        if kind == "response_item":
            sink.problem(number, "response_item line without a 'payload' object; skipped")
        elif kind is None:
            sink.problem(number, "not a Codex rollout record (no 'type'); skipped")
        return
    _item(number, raw, item, rollout, sink, turns, when)


def _session_meta(payload: dict[str, Any], rollout: _Rollout) -> None:
    rollout.seen_meta = True
    rollout.thread = as_str(payload.get("id")) or rollout.thread
    rollout.started = parse_time(payload.get("timestamp"))
    rollout.meta["cwd"] = as_str(payload.get("cwd"))
    rollout.meta["cli_version"] = as_str(payload.get("cli_version"))
    rollout.meta["originator"] = as_str(payload.get("originator"))
    rollout.meta["forked_from"] = as_str(payload.get("forked_from_id"))
    source = payload.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    if isinstance(sub, str):
        rollout.internal = sub in _INTERNAL_SOURCES
        rollout.meta["subagent"] = sub
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    parent = as_str(spawn.get("parent_thread_id")) if isinstance(spawn, dict) else None
    rollout.meta["parent_thread"] = parent
    rollout.inherit_from = rollout.meta["forked_from"] or parent


def _item(
    number: int,
    raw: str,
    item: dict[str, Any],
    rollout: _Rollout,
    sink: BatchBuilder,
    turns: TurnCounter,
    when: Any,
) -> None:
    itype = item.get("type")
    if itype == "message":
        role = item.get("role")
        text = "\n".join(message_parts(item))
        if role == "user":
            said = classify(message_parts(item))
            if said.kind is not None:
                _emit(
                    rollout, sink, turns, raw, said.kind, said.role, said.text, when, said.meta,
                    opens_turn=said.opens_turn,
                )  # fmt: skip
        elif role == "assistant":
            _emit(rollout, sink, turns, raw, "message", "assistant", text, when)
        elif role in ("developer", "system"):
            meta = {"source_role": role}
            _emit(rollout, sink, turns, raw, "message", "system", text, when, meta)
        else:
            sink.problem(number, "message with an unknown role; skipped")
    elif itype == "reasoning":
        parts = [s.get("text", "") for s in item.get("summary") or [] if isinstance(s, dict)]
        if not any(parts):  # open-weight models write their reasoning text, not a summary
            parts = [c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict)]
        text = "\n".join(p for p in parts if isinstance(p, str) and p)
        _emit(rollout, sink, turns, raw, "event", "assistant", text, when, {"event": "reasoning"})
    elif itype in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
        name, args = _call(item)
        call_id = as_str(item.get("call_id"))
        if call_id:
            rollout.tool_names[call_id] = name
        meta = {"tool": name, "call_id": call_id}
        _emit(rollout, sink, turns, raw, "tool_call", "assistant", f"{name} {args}", when, meta)
    elif itype in _TOOL_OUTPUTS:
        call_id = as_str(item.get("call_id"))
        output = item.get("output", item.get("tools"))
        text, failed = _output_text(output)
        meta = {"tool": rollout.tool_names.get(call_id or ""), "call_id": call_id}
        if failed:
            meta["is_error"] = True
        _emit(rollout, sink, turns, raw, "tool_result", "tool", text, when, meta)
    # ghost_snapshot, encrypted compaction and unknown items carry nothing to read.


def _event(
    raw: str,
    payload: dict[str, Any],
    rollout: _Rollout,
    sink: BatchBuilder,
    turns: TurnCounter,
    when: Any,
) -> None:
    etype = payload.get("type")
    if etype in ("user_message", "agent_message"):
        role = "user" if etype == "user_message" else "assistant"
        text = as_str(payload.get("message"))
        if text is None or (role, text.strip()) in rollout.item_texts:
            return  # a copy of a response item
        if role == "assistant":
            _emit(rollout, sink, turns, raw, "message", role, text, when)
            return
        # Older versions also sent the injected context as user_message events.
        said = classify([text])
        if said.kind is not None:
            _emit(
                rollout, sink, turns, raw, said.kind, said.role, said.text, when, said.meta,
                opens_turn=said.opens_turn,
            )  # fmt: skip
    elif isinstance(etype, str) and etype in _KEPT_EVENTS:
        text = next(
            (payload[k] for k in ("message", "reason", "thread_name") if as_str(payload.get(k))),
            str(etype).replace("_", " "),
        )
        _emit(rollout, sink, turns, raw, "event", "system", text, when, {"event": etype})


def _emit(
    rollout: _Rollout,
    sink: BatchBuilder,
    turns: TurnCounter,
    raw: str,
    kind: str,
    role: str,
    text: Any,
    when: Any,
    meta: dict[str, Any] | None = None,
    *,
    opens_turn: bool = False,
) -> None:
    key = rollout.keys.key(rollout.thread, raw)  # taken first so keys never depend on skips
    if not isinstance(text, str) or not text.strip():
        return
    thread = rollout.thread
    signature = hash((kind, role, text))  # compared within this import only, never stored
    if rollout.inherit_from is not None:
        # The copy is a run of the parent's entries; it need not start at the parent's first
        # (after a compaction Codex copies the history as it was then), so every place the
        # run could be in is followed until none matches.
        parent = rollout.signatures.get(rollout.inherit_from, [])
        starts = range(len(parent)) if rollout.inherit_at is None else rollout.inherit_at
        rollout.inherit_at = {i + 1 for i in starts if i < len(parent) and parent[i] == signature}
        if rollout.inherit_at:
            return  # copied from the parent, which this import already holds
        rollout.inherit_from = None
    rollout.signatures.setdefault(thread, []).append(signature)
    turn = turns.start(thread) if opens_turn else turns.current(thread)
    sink.add(
        make_entry(
            thread=thread,
            turn=turn,
            kind=kind,
            role=role,
            text=text,
            created_at=when,
            source_key=key,
            meta={**rollout.meta, **(meta or {})},
        )
    )


def _call(item: dict[str, Any]) -> tuple[str, str]:
    """The tool name and its arguments as readable text."""
    itype = item.get("type")
    if itype == "local_shell_call":
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        command = action.get("command") if isinstance(action, dict) else None
        return "local_shell", json_text(command) if command is not None else ""
    if itype == "web_search_call":
        return "web_search", json_text(item.get("action") or {})
    name = as_str(item.get("name")) or "tool"
    raw_args = item.get("arguments", item.get("input", ""))
    if isinstance(raw_args, str):
        try:
            # Arguments are JSON in a string; re-dumping shows Chinese instead of \u escapes.
            return name, json_text(json.loads(raw_args))
        except json.JSONDecodeError:
            return name, raw_args
    return name, json_text(raw_args)


def _output_text(output: Any) -> tuple[str, bool]:
    """The text of a tool output and whether the tool reported failure."""
    if isinstance(output, str):
        return _unwrap_exec_output(output)
    if isinstance(output, dict):  # older files: {"content": ..., "success": bool}
        text, _ = _output_text(output.get("content"))
        return text, output.get("success") is False
    if isinstance(output, list):
        parts = [
            p["text"] if isinstance(p, dict) and isinstance(p.get("text"), str) else "[image]"
            for p in output
        ]
        return "\n".join(parts), False
    return ("" if output is None else json_text(output)), False


def _unwrap_exec_output(output: str) -> tuple[str, bool]:
    """Shell outputs are stored as ``{"output": ..., "metadata": {"exit_code": ...}}`` text."""
    if not output.startswith('{"output"'):
        return output, exit_code_failed(output)
    try:
        value = json.loads(output)
    except json.JSONDecodeError:
        return output, False
    if not isinstance(value, dict) or not isinstance(value.get("output"), str):
        return output, False
    metadata = value.get("metadata") if isinstance(value.get("metadata"), dict) else {}
    exit_code = metadata.get("exit_code") if metadata else None
    return value["output"], isinstance(exit_code, int) and exit_code != 0
