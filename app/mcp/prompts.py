"""MCP prompts: the memory skill and the agent's grown skills, each a SKILL.md to follow.

"A skill is the manual, MCP the toolbox": a client that reads `tapemind-memory` knows how
to use the tools; a grown skill is a procedure the agent's own memories taught, accepted
by the owner. Only the connection's agent's skills are listed or given. A skill whose
memories changed since it was accepted comes with a note naming them (ids only), so the
agent checks those steps with `memory` before relying on them; one resting on a forgotten
memory is neither listed nor given until the owner accepts a version without it
(`GrownSkill.withheld`, app/insights/skills.py says why).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from app import NotFound

MEMORY_SKILL = "tapemind-memory"

_NOTES = {
    "forgotten": "memory m{m} it rests on was forgotten",
    "superseded": "memory m{m} it rests on was superseded by m{o}",
    "contradicted": "memory m{m} it rests on is contradicted by m{o} (the owner has not settled which holds)",  # noqa: E501
    "edited": "memory m{m} it rests on was edited since",
}


@cache
def memory_skill() -> tuple[str, str]:
    """(description, text) of the built-in memory skill."""
    text = (resources.files("resources") / "skills" / MEMORY_SKILL / "SKILL.md").read_text("utf-8")
    description = ""
    for line in text.splitlines()[1:]:
        if line.strip() == "---":
            break
        key, _, value = line.partition(":")
        if key.strip() == "description":
            value = value.strip()
            description = json.loads(value) if value.startswith('"') else value
    return description, text


def note(skill: Any) -> str | None:
    """What changed under a grown skill, for the agent reading it (None: nothing)."""
    if not skill.issues:
        return None
    parts = [_NOTES[i.what].format(m=i.memory_id, o=i.other_id) for i in skill.issues]
    return "Note: " + "; ".join(parts) + ". Check those steps with `memory` before relying on them."


WITHHELD = (
    "That skill is held back until the owner reviews it: a memory it rested on was "
    "forgotten. Do without it for now; prompts/list names the skills you can use."
)


def served(engine: Any, agent: str) -> list[Any]:
    """The agent's grown skills that agents are given (not withheld)."""
    return [s for s in engine.skills(agent) if not s.withheld]


def served_skill(engine: Any, agent: str, name: str) -> Any:
    """Grown skill `name` of the agent. Raises NotFound, or MCPError for a withheld one."""
    skill = engine.skill(agent, name)
    if skill.withheld:
        raise MCPError(types.INVALID_PARAMS, WITHHELD)
    return skill


def prompt_list(engine: Any, agent: str) -> types.ListPromptsResult:
    description, _ = memory_skill()
    prompts = [types.Prompt(name=MEMORY_SKILL, title="Tapemind memory", description=description)]
    for skill in served(engine, agent):
        prompts.append(types.Prompt(name=skill.name, description=skill.description))
    return types.ListPromptsResult(prompts=prompts)


def get_prompt(engine: Any, agent: str, name: str) -> types.GetPromptResult:
    """The SKILL.md of prompt `name` as one user message. Raises MCPError (invalid
    params) for a name that is not one of this agent's prompts."""
    if name == MEMORY_SKILL:
        description, text = memory_skill()
    else:
        try:
            skill = served_skill(engine, agent, name)
        except NotFound:
            names = [MEMORY_SKILL, *(s.name for s in served(engine, agent))]
            raise MCPError(
                types.INVALID_PARAMS,
                # The name sent is never repeated: it may be a pasted credential, or huge.
                f"There is no prompt of yours by that name. Your prompts are: {', '.join(names)}.",
            ) from None
        description, text = skill.description, skill.text
        warning = note(skill)
        if warning:
            text = f"{warning}\n\n{text}"
    return types.GetPromptResult(
        description=description,
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        ],
    )
