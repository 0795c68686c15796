"""What a piece of text in a Claude Code user line is: typed by the person, or written by the tool.

Claude Code stores much more than the person's words as ``user`` text: slash commands and their
output (``<command-name>``, ``<local-command-stdout>``), ``!`` shell commands and their output
(``<bash-input>``, ``<bash-stdout>``), IDE context from the editor extensions
(``<ide_opened_file>``, ``<ide_selection>``), reminders and hook output
(``<system-reminder>``, ``<user-prompt-submit-hook>``), the completion notice of a background
agent (``<task-notification>``), messages from other agents of a team (``<teammate-message``),
interruption markers and the compaction summary. Sources: daaain/claude-code-log
``claude_code_log/factories/user_factory.py``; jeremedia/claude-code-log-format
``CLAUDE_CODE_LOG_FORMAT.md``.

A demanding user expects ``tapemind tape`` to show as *their* messages only what they typed, and
a turn to start only where they asked for something; everything else is kept (it is evidence) but
as an ``event`` of role ``system`` that opens no turn.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.transfer.importers._common import json_text

_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
_MEMORY_INPUT = re.compile(r"<user-memory-input>(.*?)</user-memory-input>", re.S)
_WRAPPED_OUTPUT = re.compile(
    r"<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>(.*?)</\1>", re.S
)
# Context the harness adds around (or instead of) what the person typed in the same text block.
_CONTEXT_TAGS = re.compile(
    r"<(system-reminder|ide_opened_file|ide_selection|ide_diagnostics|post-tool-use-hook"
    r"|user-prompt-submit-hook)>.*?</\1>",
    re.S,
)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Text the harness writes into user lines that the person did not type, by what it is.
_HARNESS_PREFIXES = (
    ("<local-command-stdout>", "command_output"),
    ("<local-command-stderr>", "command_output"),
    ("<local-command-caveat>", "caveat"),
    ("<bash-stdout>", "bash_output"),
    ("<bash-stderr>", "bash_output"),
    ("[Request interrupted by user", "interrupted"),
    ("<task-notification>", "task_notification"),
    ("<teammate-message", "teammate_message"),
    ("<system-reminder>", "reminder"),
    ("<ide_opened_file>", "ide_context"),
    ("<ide_selection>", "ide_context"),
    ("<user-prompt-submit-hook>", "hook"),
    ("<post-tool-use-hook>", "hook"),
)
# Older versions mark the compaction summary only by its opening words, not isCompactSummary.
_COMPACT_PREFIX = "This session is being continued from a previous conversation"


@dataclass(frozen=True)
class Said:
    """How one text block maps: kind, role, text shown, meta, and whether it opens a turn."""

    kind: str
    role: str
    text: str
    meta: dict[str, Any] = field(default_factory=dict)
    opens_turn: bool = False


def classify_user_text(text: str, record: dict[str, Any], has_tool_result: bool) -> Said:
    """Map the text of a ``user`` line (or of a ``system`` ``local_command`` line)."""
    stripped = text.lstrip()
    if record.get("isCompactSummary") is True or stripped.startswith(_COMPACT_PREFIX):
        return Said("compact", "system", text)
    if record.get("isMeta") is True:
        # Caveats and the expanded prompt of a custom slash command: the person typed the
        # command (its own line), not this.
        return Said("event", "system", text, {"event": "meta"})
    command = _COMMAND.search(text)
    if command:
        name = command.group(1).strip()
        name = name if name.startswith("/") else f"/{name}"
        args = _COMMAND_ARGS.search(text)
        shown = f"{name} {args.group(1).strip() if args else ''}".strip()
        return Said("message", "user", shown, {"command": name}, opens_turn=True)
    bash = _BASH_INPUT.search(text)
    if bash and stripped.startswith("<bash-input>"):
        # "! git status" typed in the prompt: the person's input, shown as they typed it.
        return Said("message", "user", f"! {bash.group(1).strip()}", {"command": "!"}, True)
    memory = _MEMORY_INPUT.search(text)
    if memory and stripped.startswith("<user-memory-input>"):
        return Said("message", "user", f"# {memory.group(1).strip()}", {"command": "#"}, True)
    for prefix, event in _HARNESS_PREFIXES:
        if stripped.startswith(prefix):
            remainder = _CONTEXT_TAGS.sub("", text).strip() if event in _CONTEXT else ""
            if remainder:
                # Editor context in front of the person's words: keep the words as theirs.
                return Said("message", "user", remainder, {}, not has_tool_result)
            return Said("event", "system", _unwrap(text), {"event": event})
    if record.get("isSidechain") is True and record.get("parentUuid") is None:
        # The prompt a sub-agent was started with: it opens the sub-agent thread's only turn.
        return Said("message", "user", text, {}, opens_turn=True)
    words = _CONTEXT_TAGS.sub("", text).strip() if "<" in text else text
    # Text beside tool results is the person answering inside the tool loop, not a new input.
    return Said("message", "user", words or text, {}, opens_turn=not has_tool_result)


_CONTEXT = {"reminder", "ide_context", "hook"}


def _unwrap(text: str) -> str:
    """Command output without its wrapper tags and terminal colour codes."""
    parts = [m.group(2).strip() for m in _WRAPPED_OUTPUT.finditer(text)]
    shown = "\n".join(p for p in parts if p) if parts else text
    return _ANSI.sub("", shown) or text


def prompt_text(prompt: Any) -> str:
    """The text of a queued prompt: a string, or a list of content blocks."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        texts = [b.get("text") for b in prompt if isinstance(b, dict)]
        return "\n\n".join(t for t in texts if isinstance(t, str) and t)
    return ""


def result_text(content: Any) -> str:
    """A tool result's text: a string, or text blocks (an image or document as a marker)."""
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


def is_prompt_history(path: Path) -> bool:
    """``~/.claude/history.jsonl``: one line per prompt typed, with no ``type`` (found when a
    person points the import at ``~/.claude`` itself)."""
    with path.open("rb") as fh:
        first = fh.readline()
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and "display" in record and "type" not in record
