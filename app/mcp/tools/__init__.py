"""One module per tool: NAME, DESCRIPTION, READ_ONLY, an `Args` model, `run`, and
optionally `render_text` (its text content, when not the JSON of its result)."""

from __future__ import annotations

from types import ModuleType

from app.mcp.tools import append, context, memory, remember, request_secret, search, tape, used

TOOLS: dict[str, ModuleType] = {
    m.NAME: m for m in (context, append, remember, search, tape, memory, used, request_secret)
}
