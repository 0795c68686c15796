"""SKILL.md as Claude Code and Codex read it: YAML front matter (name, description) and a
Markdown body whose steps cite memories as [m12, m15], the way `context` shows ids.

`render` writes a draft; `parse` reads one back (an owner's edited text) and `cited_ids`
finds every memory it cites, so an edited skill is checked like a drafted one.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass

from app.errors import InvalidInput

from .records import SkillDraft, SkillStep

# The Agent Skills rule for `name`: 1-64 lowercase letters and digits in hyphen-joined runs.
NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
RESERVED = frozenset({"tapemind-memory"})
_CITE = re.compile(r"\[(m\d+(?:\s*,\s*m?\d+)*)\]")
_ID = re.compile(r"\d+")
_STEP = re.compile(r"^\s*(\d+)[.)]\s+(.*\S)\s*$")

HEADINGS = {
    "en": {"when": "When to use it", "steps": "Steps", "past": "Past result: "},
    "zh": {"when": "何时使用", "steps": "步骤", "past": "以往结果："},
}
_FOOTER = {
    "en": (
        "Grown by Tapemind from this agent's memories. Each [mN] is a memory: read it, with "
        "the tape entries it came from, with the `memory` tool before relying on a step."
    ),
    "zh": (
        "由 Tapemind 从该智能体的记忆中总结而成。每个 [mN] 是一条记忆：依赖某一步之前，"
        "可用 `memory` 工具查看它及其来源的磁带条目。"
    ),
}


def cite(ids: tuple[int, ...]) -> str:
    return "[" + ", ".join(f"m{i}" for i in ids) + "]"


def render(draft: SkillDraft) -> str:
    """The SKILL.md text of a draft."""
    h = HEADINGS.get(draft.language, HEADINGS["en"])
    lines = [
        "---",
        f"name: {draft.name}",
        # A JSON string is a valid YAML double-quoted scalar: colons and quotes stay safe.
        f"description: {json.dumps(draft.description, ensure_ascii=False)}",
        "---",
        "",
        f"# {draft.title}",
        "",
        f"## {h['when']}",
        "",
        draft.when_to_use,
        "",
        f"## {h['steps']}",
        "",
    ]
    for n, step in enumerate(draft.steps, start=1):
        lines.append(f"{n}. {step.text} {cite(step.memory_ids)}")
    lines += ["", "---", "", _FOOTER.get(draft.language, _FOOTER["en"]), ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class ParsedSkill:
    name: str
    description: str
    steps: tuple[SkillStep, ...]
    cited: tuple[int, ...]


def cited_ids(text: str) -> tuple[int, ...]:
    """Every memory id the text cites, in order of first citation."""
    found: dict[int, None] = {}
    for group in _CITE.findall(text):
        for raw in _ID.findall(group):
            found[int(raw)] = None
    return tuple(found)


def _front_matter(text: str) -> dict[str, str]:
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise InvalidInput(
            "A skill starts with front matter: a line '---', then 'name: …' and "
            "'description: …', then '---'. Keep those lines and edit below them."
        )
    fields: dict[str, str] = {}
    for line in lines[1:]:
        if line.strip() == "---":
            return fields
        key, sep, value = line.partition(":")
        if sep:
            value = value.strip()
            if value.startswith('"'):
                try:
                    value = str(json.loads(value))
                except ValueError:
                    value = value.strip('"')
            fields[key.strip()] = value
    raise InvalidInput("The skill's front matter has no closing '---' line; add it.")


def check_name(name: str) -> str:
    if len(name) > MAX_NAME or not NAME.match(name):
        raise InvalidInput(
            f"Skill name {name!r} is not valid: use 1-{MAX_NAME} lowercase letters, digits "
            "and single hyphens (e.g. staging-deploy), as Claude Code and Codex require."
        )
    if name in RESERVED:
        raise InvalidInput(f"{name!r} is the built-in memory skill's name; choose another.")
    return name


def parse(text: str) -> ParsedSkill:
    """Read a SKILL.md. Raises InvalidInput, saying what to fix, for missing front
    matter, a bad name or description, or a skill with no step."""
    fields = _front_matter(text)
    name = check_name(fields.get("name", "").strip())
    description = fields.get("description", "").strip()
    if not description or len(description) > MAX_DESCRIPTION:
        raise InvalidInput(
            f"The skill needs a description of 1-{MAX_DESCRIPTION} characters (what it does "
            "and when to use it): agents choose skills by it."
        )
    steps = []
    for line in text.splitlines():
        match = _STEP.match(line)
        if match:
            body = match.group(2)
            steps.append(SkillStep(_CITE.sub("", body).strip(), cited_ids(body)))
    if not steps:
        raise InvalidInput("The skill has no steps: write them as a numbered list (1. …).")
    return ParsedSkill(name, description, tuple(steps), cited_ids(text))


def slug(words: list[str]) -> str:
    """A skill name from words: ASCII letters and digits only, hyphen-joined."""
    parts = []
    for word in words:
        ascii_word = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()
        cleaned = re.sub(r"[^a-z0-9]+", "-", ascii_word.lower()).strip("-")
        if cleaned and cleaned not in parts:
            parts.append(cleaned)
    name = "-".join(parts)[:MAX_NAME].strip("-")
    return re.sub(r"-{2,}", "-", name)
