"""The prompts and resources handlers of the server, beside its tools.

Each runs on a worker thread for the connection's agent, as tool calls do; an engine
error becomes a JSON-RPC error whose message tells the agent what to do (prompts and
resources have no `is_error` result as tools do).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread
import mcp_types as types
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPError

from app import TapemindError
from app.mcp import prompts, resources

T = TypeVar("T")
Identify = Callable[[ServerRequestContext[Any, Any]], str]
EngineSource = Callable[[], Any]


def handlers(engine: EngineSource, identify: Identify) -> dict[str, Any]:
    """The `on_*` arguments of `mcp.server.Server` for prompts and resources."""

    async def for_agent(ctx: ServerRequestContext[Any, Any], fn: Callable[[Any, str], T]) -> T:
        def call() -> T:
            try:
                agent = identify(ctx)
                return fn(engine(), agent)
            except TapemindError as exc:
                raise MCPError(types.INVALID_PARAMS, exc.agent_message) from None

        return await anyio.to_thread.run_sync(call)

    async def list_prompts(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return await for_agent(ctx, prompts.prompt_list)

    async def get_prompt(
        ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        return await for_agent(ctx, lambda e, a: prompts.get_prompt(e, a, params.name))

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        return await for_agent(ctx, lambda e, a: resources.resource_list(e, a, cursor))

    async def list_templates(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return resources.templates()

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await for_agent(ctx, lambda e, a: resources.read(e, a, str(params.uri)))

    return {
        "on_list_prompts": list_prompts,
        "on_get_prompt": get_prompt,
        "on_list_resources": list_resources,
        "on_list_resource_templates": list_templates,
        "on_read_resource": read_resource,
    }
