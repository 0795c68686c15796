"""`ui` is one client of the engine: it imports only `app`'s public API."""

from __future__ import annotations

import ast
from pathlib import Path

import ui

# The package, its values and errors; the client snippets the CLI prints
# (a pure function of agent, token and URL); and the host: `app.host.host_home`,
# or the pieces it composes (own the home, then serve it with the default jobs;
# the lock names where it is served), which the app calls one by one so that it
# serves its home after the first paint instead of before. And the GIL switch
# interval every long-running Tapemind process sets (app.host.gil).
PUBLIC = {
    "app",
    "app.models",
    "app.errors",
    "app.host.snippets",
    "app.host",
    "app.host.connect",
    "app.host.server",
    "app.host.background",
    "app.host.lock",
    "app.host.gil",
}


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


def test_qt_calls_keep_their_references_to_none(qapp) -> None:
    """PySide6 6.12.0 on CPython 3.11 drops a reference to None in every void call,
    so a long session dies with "deallocating None" (pyproject keeps it out)."""
    import sys

    from PySide6.QtWidgets import QLabel

    label = QLabel()
    before = sys.getrefcount(None)
    for i in range(2000):
        label.setText(str(i))
        label.setEnabled(i % 2 == 0)
    assert sys.getrefcount(None) > before - 100
