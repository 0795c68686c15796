"""MCP resources: the agent's skills and memories as `tapemind://` URIs.

- `tapemind://skills/NAME`: a SKILL.md (the memory skill, or one of the agent's grown
  skills), text/markdown;
- `tapemind://memories/ID`: one memory in full with its evidence, the JSON the `memory`
  tool returns.
The list gives the skills, then the agent's active memories newest first, a page at a time
(the cursor is opaque to clients: the id the next page starts below). Archived ones are
read through the template. Everything is scoped to the connection's agent: another agent's
memory id reads as not found, as it does with the tools.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from app import NotFound
from app.mcp.prompts import MEMORY_SKILL, memory_skill, note, served, served_skill
from app.mcp.tools import memory as memory_tool

PAGE = 100
SKILL_URI = "tapemind://skills/{name}"
MEMORY_URI = "tapemind://memories/{id}"
_SKILL = re.compile(r"^tapemind://skills/([a-z0-9-]{1,64})$")
_MEMORY = re.compile(r"^tapemind://memories/([1-9][0-9]{0,17})$")


def _one_line(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _skills(engine: Any, agent: str) -> list[types.Resource]:
    description, _ = memory_skill()
    out = [
        types.Resource(
            uri=SKILL_URI.format(name=MEMORY_SKILL),
            name=MEMORY_SKILL,
            title="Tapemind memory",
            description=description,
            mime_type="text/markdown",
        )
    ]
    for skill in served(engine, agent):
        out.append(
            types.Resource(
                uri=SKILL_URI.format(name=skill.name),
                name=skill.name,
                description=skill.description,
                mime_type="text/markdown",
            )
        )
    return out


def _cursor(raw: str | None) -> int | None:
    if raw is None:
        return None
    if not raw.isdigit():
        raise MCPError(
            types.INVALID_PARAMS,
            "That cursor is not one this server gave; list again from the start.",
        )
    return int(raw)


def resource_list(engine: Any, agent: str, cursor: str | None) -> types.ListResourcesResult:
    before = _cursor(cursor)
    found = (
        engine.memories(agent, status="active", limit=PAGE)
        if before is None
        else engine.memories_before(agent, before, status="active", limit=PAGE)
    )
    items = _skills(engine, agent) if before is None else []
    for m in found:
        items.append(
            types.Resource(
                uri=MEMORY_URI.format(id=m.id),
                name=f"memory {m.id}",
                description=f"({m.category}) {_one_line(m.text)}",
                mime_type="application/json",
            )
        )
    more = str(found[-1].id) if len(found) == PAGE else None
    return types.ListResourcesResult(resources=items, next_cursor=more)


def templates() -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(
        resource_templates=[
            types.ResourceTemplate(
                name="memory",
                uri_template=MEMORY_URI,
                description="One of your memories (any status) with the tape entries it "
                "came from: the id is the one `context` and `search` show as [mID].",
                mime_type="application/json",
            ),
            types.ResourceTemplate(
                name="skill",
                uri_template=SKILL_URI,
                description="A skill to follow: tapemind-memory, or one grown from your "
                "memories (prompts/list names them).",
                mime_type="text/markdown",
            ),
        ]
    )


def _not_found() -> MCPError:
    # The URI sent is never repeated: it may be a pasted credential, or huge.
    return MCPError(
        types.INVALID_PARAMS,
        "No resource of yours at that URI. Use a URI from resources/list: "
        "tapemind://skills/NAME or tapemind://memories/ID.",
    )


def read(engine: Any, agent: str, uri: str) -> types.ReadResourceResult:
    """The contents of `uri`. Raises MCPError (invalid params) for an unknown URI, or one
    naming another agent's memory."""
    skill = _SKILL.match(uri)
    memory = _MEMORY.match(uri)
    try:
        if skill is not None:
            if skill.group(1) == MEMORY_SKILL:
                text = memory_skill()[1]
            else:
                grown = served_skill(engine, agent, skill.group(1))
                warning = note(grown)
                text = f"{warning}\n\n{grown.text}" if warning else grown.text
            contents = types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)
        elif memory is not None:
            args = memory_tool.Args(id=int(memory.group(1)))
            detail = memory_tool.run(engine, agent, args)
            contents = types.TextResourceContents(
                uri=uri, mime_type="application/json", text=json.dumps(detail, ensure_ascii=False)
            )
        else:
            raise _not_found()
    except NotFound:
        raise _not_found() from None
    return types.ReadResourceResult(contents=[contents])
