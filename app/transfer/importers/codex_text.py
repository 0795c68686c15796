"""What a Codex ``user`` message is: typed by the person, or context Codex injected.

Codex stores in user-role messages a lot the person never typed. Its own code tells them apart
(openai/codex ``codex-rs/core/src/contextual_user_message.rs`` and ``event_mapping.rs``: a
"session prefix" "is not user intent and must not create user-turn boundaries"): the
``<environment_context>`` block, ``<user_instructions>`` and ``# AGENTS.md instructions for``
blocks, ``<skill>`` instructions, ``<user_shell_command>`` (a ``!`` command the person ran and
its output), ``<turn_aborted>``, ``<subagent_notification>`` and context updates. A message is
contextual when any of its text parts is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# (lower-case opening, kind, role, meta); None as kind drops the part (cwd and shell are in meta).
_CONTEXT: tuple[tuple[str, str | None, str, dict[str, str]], ...] = (
    ("<environment_context>", None, "system", {}),
    ("<user_instructions>", "message", "system", {"injected": "instructions"}),
    ("# agents.md instructions", "message", "system", {"injected": "instructions"}),
    ("<instructions>", "message", "system", {"injected": "instructions"}),
    ("<skill>", "message", "system", {"injected": "skill"}),
    ("<user_shell_command>", "event", "user", {"event": "user_shell_command"}),
    ("<turn_aborted>", "event", "system", {"event": "turn_aborted"}),
    ("<subagent_notification>", "event", "system", {"event": "subagent_notification"}),
    ("<context_update>", "event", "system", {"event": "context_update"}),
    ("<tool_context>", "event", "system", {"event": "context_update"}),
    ("<reasoning_context>", "event", "system", {"event": "context_update"}),
    ("<pinned_notes>", "event", "system", {"event": "context_update"}),
    ("<plugins>", "event", "system", {"event": "context_update"}),
    ("<subagents>", "event", "system", {"event": "context_update"}),
)
# Newer versions put "<image name=[Image #1]>" text parts around an attached image.
_IMAGE_TAG = re.compile(r"</?image(?:\s[^>]*)?>", re.I)
_EXIT_CODE = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)\s*$", re.M)


@dataclass(frozen=True)
class UserText:
    """How a user-role message maps (kind None: not imported)."""

    kind: str | None
    role: str
    text: str
    meta: dict[str, Any] = field(default_factory=dict)
    opens_turn: bool = False


def classify(parts: list[str]) -> UserText:
    """Map the text parts of one user-role message."""
    text = "\n".join(parts)
    for part in parts:
        lowered = part.lstrip()[:40].lower()
        for opening, kind, role, meta in _CONTEXT:
            if lowered.startswith(opening):
                return UserText(kind, role, text, dict(meta))
    return UserText("message", "user", text, {}, opens_turn=True)


def message_parts(item: dict[str, Any]) -> list[str]:
    """The text parts of a message item; an image becomes ``[image]``."""
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    parts: list[str] = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            text = _IMAGE_TAG.sub("", part["text"]).strip() if "image" in part["text"] else None
            parts.append(part["text"] if text is None else text)
        elif isinstance(part, dict) and part.get("type") == "input_image":
            parts.append("[image]")
    return [p for p in parts if p]


def exit_code_failed(output: str) -> bool:
    """Whether a shell output's "Exit code: N" / "Process exited with code N" line is not 0."""
    head = output[:400]  # the status lines come first; a long output is not searched
    if "xit" not in head:
        return False
    found = _EXIT_CODE.search(head)
    return found is not None and found.group(1) != "0"
