"""`ui` is one client of the engine: it imports only `app`'s public API."""

from __future__ import annotations

import ast
from pathlib import Path

import ui

# The package, its values and errors; the client snippets the CLI prints
# (a pure function of agent, token and URL); and `app.host.host_home`, with
# which the app becomes its home's host.
PUBLIC = {"app", "app.models", "app.errors", "app.mcp.snippets", "app.host"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_ui_imports_only_the_public_engine_api() -> None:
    bad = {}
    for path in Path(ui.__file__).parent.rglob("*.py"):
        engine_imports = {n for n in _imports(path) if n == "app" or n.startswith("app.")}
        if engine_imports - PUBLIC:
            bad[path.name] = sorted(engine_imports - PUBLIC)
    assert bad == {}
