"""A proposal's draft as stored (JSON) and as shown (SKILL.md text, a diff)."""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable
from typing import Any

from .records import SkillDraft, SkillStep
from .skillmd import render


def to_json(draft: SkillDraft) -> str:
    return json.dumps(
        {
            "name": draft.name,
            "title": draft.title,
            "description": draft.description,
            "when_to_use": draft.when_to_use,
            "language": draft.language,
            "steps": [{"text": s.text, "memory_ids": list(s.memory_ids)} for s in draft.steps],
        },
        ensure_ascii=False,
        sort_keys=True,
    )


def from_json(raw: str) -> SkillDraft:
    data: dict[str, Any] = json.loads(raw) if raw else {}
    return SkillDraft(
        name=str(data.get("name", "")),
        title=str(data.get("title", "")),
        description=str(data.get("description", "")),
        when_to_use=str(data.get("when_to_use", "")),
        steps=tuple(
            SkillStep(str(s["text"]), tuple(int(i) for i in s["memory_ids"]))
            for s in data.get("steps", [])
        ),
        language=str(data.get("language", "en")),
    )


def without_memories(draft: SkillDraft, forgotten: set[int]) -> SkillDraft:
    """The draft with every step that cites a forgotten memory removed: its words (quoted
    or paraphrased) must not outlive the memory."""
    kept = tuple(s for s in draft.steps if not forgotten & set(s.memory_ids))
    return SkillDraft(
        draft.name, draft.title, draft.description, draft.when_to_use, kept, draft.language
    )


def group_key(memory_ids: Iterable[int], skill_id: int | None) -> str:
    """Names a group of memories (for one skill, or none): the same memories proposed
    again get the same key, so a run does not propose what waits or was rejected."""
    ids = ",".join(str(i) for i in sorted(set(memory_ids)))
    return hashlib.sha256(f"{skill_id or 0}:{ids}".encode()).hexdigest()[:32]


def diff(old_text: str, new_text: str, name: str, base_version: int) -> str:
    """A unified diff from a grown skill's text to a proposed one."""
    lines = difflib.unified_diff(
        old_text.splitlines(),
        new_text.splitlines(),
        fromfile=f"{name}/SKILL.md (version {base_version})",
        tofile=f"{name}/SKILL.md (proposed)",
        lineterm="",
    )
    return "\n".join(lines)


def text_of(draft: SkillDraft) -> str:
    return render(draft)
