"""The contract scripts and agents rely on: every CLI command's help and the MCP tools.

The golden copies beside this file are the contract as shipped. A change to a command,
a flag, a tool name or a schema shows up here as a diff; when the change is intended,
regenerate them with `TAPEMIND_UPDATE_GOLDEN=1 pytest tests/contract` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
from click.testing import CliRunner

from app.cli.main import cli
from app.mcp.server import INSTRUCTIONS, tool_list

HERE = Path(__file__).resolve().parent
CLI_GOLDEN = HERE / "cli_help.txt"
MCP_GOLDEN = HERE / "mcp_tools.json"


def _walk(command: click.Command, path: list[str]) -> list[list[str]]:
    paths = [path]
    if isinstance(command, click.Group):
        for name in sorted(command.list_commands(click.Context(command))):
            sub = command.get_command(click.Context(command), name)
            if sub is not None and not sub.hidden:
                paths.extend(_walk(sub, [*path, name]))
    return paths


def cli_help_tree() -> str:
    runner = CliRunner()
    parts = []
    for path in _walk(cli, []):
        result = runner.invoke(
            cli, [*path, "--help"], prog_name="tapemind", terminal_width=100, env={"COLUMNS": "100"}
        )
        assert result.exit_code == 0, (path, result.output)
        parts.append(f"==== tapemind {' '.join(path)}\n{result.output}")
    return "".join(parts)


def mcp_tool_list() -> str:
    tools = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tool_list()]
    return json.dumps({"instructions": INSTRUCTIONS, "tools": tools}, indent=2, ensure_ascii=False)


def _check(golden: Path, actual: str) -> None:
    if os.environ.get("TAPEMIND_UPDATE_GOLDEN"):
        golden.write_text(actual, "utf-8")
    expected = golden.read_text("utf-8")
    assert actual == expected, f"{golden.name} differs: regenerate it if the change is intended"


def test_the_cli_help_tree_is_the_contract() -> None:
    _check(CLI_GOLDEN, cli_help_tree())


def test_the_mcp_tools_and_schemas_are_the_contract() -> None:
    _check(MCP_GOLDEN, mcp_tool_list() + "\n")


def test_the_tools_offer_exactly_the_engines_choices() -> None:
    """Schemas are static (the golden copy), but their choices come from the engine's
    one source: a mode or category added there must reach the tools too."""
    import typing

    from app import CATEGORIES, SEARCH_MODES
    from app.mcp.tools import remember, search

    assert typing.get_args(search.Mode) == SEARCH_MODES
    schema = remember.Args.model_json_schema()
    assert tuple(schema["properties"]["category"]["enum"]) == CATEGORIES
