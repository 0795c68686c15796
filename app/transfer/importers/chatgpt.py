"""A ChatGPT data export's ``conversations.json``: a list of conversations.

Each conversation has ``id`` (or ``conversation_id``), ``title``, ``create_time`` and a
``mapping`` of nodes ``{id, message, parent, children}``: a tree, because editing a message or
regenerating an answer adds a branch. ``current_node`` is the leaf the person last saw; the
main branch is the path from it back to the root, and only that branch is imported.

A message has ``author.role`` (user, assistant, system, tool; a tool's name in
``author.name``), ``create_time`` (Unix seconds or null), ``recipient`` (``all``, or the tool an
assistant message calls) and ``content`` with a ``content_type``: ``text`` and
``multimodal_text`` keep their text in ``parts``; ``code``, ``execution_output`` and
``tether_quote`` in ``text``; ``thoughts`` hold reasoning (``reasoning_recap`` only says
"Thought for 6 seconds" and is not imported);
``user_editable_context`` holds the person's custom instructions; ``sonic_webpage`` and
``system_error`` (2025-2026) keep their text in ``text``. Parts of ``multimodal_text`` are
strings or asset pointers (images, voice recordings) and ``audio_transcription`` parts with the
words spoken. Sources: mohamed-chs/convoviz ``docs/dev/chatgpt-spec.md`` (v3.0, Feb 2026).

What a person sees in ChatGPT is what a demanding user expects on the tape as said: messages
marked ``is_visually_hidden_from_conversation`` (other than custom instructions) were never
shown, so they are ``event`` entries, not messages, and open no turn. Web-search answers carry
citation markers in Unicode private-use characters (``\ue200cite\ue202turn0search0\ue201``);
they are removed, keeping the label of a ``url`` or ``entity`` marker. A message without a
``create_time`` takes the time of the message before it (or the conversation's), not the
time of the import. Newer exports may wrap the list as ``{"conversations": [...]}``.
"""

from __future__ import annotations

import fnmatch
import json
import re
import zipfile
from pathlib import Path
from typing import Any

from app.transfer.importers._common import (
    BatchBuilder,
    TurnCounter,
    as_str,
    make_entry,
    parse_time,
)

_REASONING = ("thoughts", "reasoning_recap")
_IN_ZIP = "conversations*.json"
_MARKER = re.compile("\ue200([^\ue200\ue201]*)\ue201")
_PRIVATE_USE = re.compile("[\ue200-\ue2ff]")
_PART_LABELS = {
    "audio_asset_pointer": "[audio]",
    "real_time_user_audio_video_asset_pointer": "[video]",
}


def read_file(path: Path, sink: BatchBuilder, turns: TurnCounter) -> None:
    """Read one ``conversations.json`` file (or the export's ZIP, as downloaded) into ``sink``."""
    if zipfile.is_zipfile(path):
        _read_zip(path, sink, turns)
        return
    _read_export(path.read_bytes(), sink, turns)


def _read_zip(path: Path, sink: BatchBuilder, turns: TurnCounter) -> None:
    """The ZIP ChatGPT mails: its ``conversations.json`` (and any ``conversations-*.json``)."""
    with zipfile.ZipFile(path) as archive:
        names = sorted(
            n for n in archive.namelist() if fnmatch.fnmatch(n.rsplit("/", 1)[-1], _IN_ZIP)
        )
        if not names:
            sink.problem(None, "a ZIP without conversations.json; skipped")
        outer = sink.path_label
        for name in names:
            sink.path_label = f"{outer}/{name}" if outer else name
            _read_export(archive.read(name), sink, turns)
        sink.path_label = outer


def _read_export(data: bytes, sink: BatchBuilder, turns: TurnCounter) -> None:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        sink.problem(line, "not valid UTF-8; the bad bytes were replaced")
        text = data.decode("utf-8-sig", errors="replace")
    try:
        conversations = json.loads(text)
    except json.JSONDecodeError as exc:
        sink.problem(exc.lineno, f"not valid JSON ({exc.msg}); file skipped")
        return
    if isinstance(conversations, dict) and isinstance(conversations.get("conversations"), list):
        conversations = conversations["conversations"]
    elif isinstance(conversations, dict):  # a single conversation saved on its own
        conversations = [conversations]
    if not isinstance(conversations, list):
        sink.problem(None, "not a list of conversations; file skipped")
        return
    for index, conversation in enumerate(conversations):
        _conversation(index, conversation, sink, turns)


def _conversation(index: int, conv: Any, sink: BatchBuilder, turns: TurnCounter) -> None:
    where = f"conversation {index}"
    if not isinstance(conv, dict):
        sink.problem(None, f"{where} is not an object; skipped")
        return
    thread = as_str(conv.get("conversation_id")) or as_str(conv.get("id"))
    mapping = conv.get("mapping")
    if thread is None or not isinstance(mapping, dict):
        sink.problem(None, f"{where} has no id or no 'mapping'; skipped")
        return
    title = as_str(conv.get("title"))
    # A message without a time of its own is placed at the one before it.
    last_time = parse_time(conv.get("create_time"))
    for node_id in _main_branch(mapping, conv.get("current_node")):
        node = mapping[node_id]
        message = node.get("message")
        if message is None:
            continue
        problem = _check(message)
        if problem:
            sink.problem(None, f"{where} ({thread}) message {node_id}: {problem}; skipped")
            continue
        last_time = parse_time(message.get("create_time")) or last_time
        mapped = _map(message)
        if mapped is None:
            continue
        kind, role, text, meta, opens_turn = mapped
        sink.add(
            make_entry(
                thread=thread,
                turn=turns.start(thread) if opens_turn else turns.current(thread),
                kind=kind,
                role=role,
                text=text,
                created_at=last_time,
                source_key=f"chatgpt:{as_str(message.get('id')) or node_id}",
                meta={"title": title, **meta},
            )
        )


def _main_branch(mapping: dict[str, Any], current: Any) -> list[str]:
    """Node ids from the root to ``current_node`` (or to the last child's leaf without one)."""
    nodes = {k: v for k, v in mapping.items() if isinstance(v, dict)}
    if isinstance(current, str) and current in nodes:
        path: list[str] = []
        seen: set[str] = set()
        node_id: Any = current
        while isinstance(node_id, str) and node_id in nodes and node_id not in seen:
            seen.add(node_id)
            path.append(node_id)
            node_id = nodes[node_id].get("parent")
        return path[::-1]
    roots = [k for k, v in nodes.items() if not _is_node(v.get("parent"), nodes)]
    path = []
    node_id = roots[0] if roots else None
    while node_id is not None and node_id not in path:
        path.append(node_id)
        children = nodes[node_id].get("children")
        known = [c for c in children if _is_node(c, nodes)] if isinstance(children, list) else []
        node_id = known[-1] if known else None
    return path


def _is_node(value: Any, nodes: dict[str, Any]) -> bool:
    return isinstance(value, str) and value in nodes


def _check(message: Any) -> str | None:
    if not isinstance(message, dict):
        return "not an object"
    author = message.get("author")
    if not isinstance(author, dict) or not isinstance(author.get("role"), str):
        return "no author role"
    if not isinstance(message.get("content"), dict):
        return "no content"
    return None


def _map(message: dict[str, Any]) -> tuple[str, str, str, dict[str, Any], bool] | None:
    """(kind, role, text, meta, opens a turn) for one message, or None when it has no text."""
    author = message["author"]
    role = author["role"]
    content = message["content"]
    ctype = content.get("content_type")
    text = _content_text(content)
    if "\ue200" in text or "\ue201" in text:
        text = _PRIVATE_USE.sub("", _MARKER.sub(_marker_label, text))
    if not text.strip():
        return None
    metadata = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
    meta: dict[str, Any] = {
        "model": as_str(metadata.get("model_slug")) if metadata else None,
        "content_type": as_str(ctype),
    }
    for key in ("url", "domain"):
        meta[key] = as_str(content.get(key))
    hidden = bool(metadata and metadata.get("is_visually_hidden_from_conversation"))
    recipient = as_str(message.get("recipient")) or "all"
    if ctype in ("user_editable_context", "model_editable_context") or (
        metadata and metadata.get("is_user_system_message")
    ):
        return "message", "system", text, meta, False
    if ctype in _REASONING:
        return "event", "assistant", text, {**meta, "event": "reasoning"}, False
    if role == "tool":
        meta = {**meta, "tool": as_str(author.get("name"))}
        if ctype == "system_error":
            meta["is_error"] = True
        return "tool_result", "tool", text, meta, False
    if role == "assistant" and recipient != "all":
        # Named like the other formats' calls ("Read {...}"): the tool, then what it was given.
        return "tool_call", "assistant", f"{recipient} {text}", {**meta, "tool": recipient}, False
    if hidden and role in ("user", "assistant", "system"):
        # Never shown in the conversation: context ChatGPT added, not something said.
        return "event", "system", text, {**meta, "event": "hidden", "source_role": role}, False
    if role == "system":
        return "message", "system", text, meta, False
    if role == "assistant":
        return "message", "assistant", text, meta, False
    if role == "user":
        return "message", "user", text, meta, True
    return None


def _marker_label(found: re.Match[str]) -> str:
    """What a citation marker shows: a link's or an entity's label, else nothing."""
    fields = found.group(1).split("\ue202")
    if fields[0] == "url" and len(fields) > 1:
        return fields[1]
    if fields[0] == "entity" and len(fields) > 1:
        try:
            value = json.loads(fields[1])
        except json.JSONDecodeError:
            return ""
        if isinstance(value, list) and len(value) > 1 and isinstance(value[1], str):
            return value[1]
    return ""


def _content_text(content: dict[str, Any]) -> str:
    ctype = content.get("content_type")
    if ctype == "thoughts":
        thoughts = content.get("thoughts") or []
        return "\n".join(
            "\n".join(str(t[k]) for k in ("summary", "content") if as_str(t.get(k)))
            for t in thoughts
            if isinstance(t, dict)
        )
    if ctype == "reasoning_recap":
        return ""  # "Thought for 6 seconds": how long, not what
    if ctype == "user_editable_context":
        parts = [content.get("user_profile"), content.get("user_instructions")]
        return "\n".join(p for p in parts if isinstance(p, str) and p)
    if ctype == "model_editable_context":
        return as_str(content.get("model_set_context")) or ""
    if ctype == "tether_browsing_display":
        return as_str(content.get("result")) or as_str(content.get("summary")) or ""
    if isinstance(content.get("text"), str):
        return str(content["text"])
    pieces: list[str] = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            pieces.append(part["text"])
        elif isinstance(part, dict) and "image" in str(part.get("content_type", "")):
            pieces.append("[image]")
        elif isinstance(part, dict):
            # A voice recording, a video frame...: say what it was, never dump its pointer.
            label = as_str(part.get("content_type")) or "attachment"
            pieces.append(_PART_LABELS.get(label, f"[{label}]"))
    return "\n".join(p for p in pieces if p)
