"""`ui` is one client of the engine: it imports only `app`'s public API."""

from __future__ import annotations

import ast
from pathlib import Path

import ui

# The package (its values, errors, constants and the event catalogue); the client
# snippets the CLI prints (a pure function of agent, token and URL) and where the home
# is served (app.host.served: the URL they name); and the host: `app.host.host_home`,
# or the pieces it composes (own the home, then serve it with the default jobs;
# the lock names where it is served), which the app calls one by one so that it
# serves its home after the first paint instead of before. And the GIL switch
# interval every long-running Tapemind process sets (app.host.gil).
PUBLIC = {
    "app",
    "app.host.snippets",
    "app.host.served",
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


def test_ui_reads_the_engine_by_its_typed_api_without_probing() -> None:
    """No `getattr`/`hasattr` guessing at engine features or field names: the pages are
    typed against `app.Engine` and its frozen values. (Three Qt look-ups remain: a page
    class by name, a Qt 6.5+ colour-scheme hint, Qt 6.10's filter-change calls.)"""
    allowed = {"window.py": 1, "theme.py": 1, "tablemodels.py": 1}
    found: dict[str, int] = {}
    for path in Path(ui.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        calls = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id in ("getattr", "hasattr")
        ]
        if calls:
            found[path.name] = len(calls)
    assert found == allowed
    assert not (Path(ui.__file__).parent / "probe.py").exists()


def test_categories_statuses_modes_and_choices_come_from_the_engine() -> None:
    """One source: no list of categories, statuses, modes, arbiters, models, scopes or
    event names is spelled again in ui/."""
    import app

    sources = {
        "CATEGORIES": app.CATEGORIES,
        "STATUSES": app.STATUSES,
        "PERMISSION_MODES": app.PERMISSION_MODES,
        "ARBITERS": app.ARBITERS,
        "EMBEDDER_MODELS": app.EMBEDDER_MODELS,
        "GRANT_SCOPES": app.GRANT_SCOPES,
        "CONFLICT_KEEPS": app.CONFLICT_KEEPS,
    }
    copies = []
    for path in Path(ui.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
                values = tuple(e.value for e in node.elts if isinstance(e, ast.Constant))
                if len(values) == len(node.elts) and len(values) > 1:
                    copies += [
                        (path.name, name) for name, v in sources.items() if set(values) == set(v)
                    ]
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert "_did_" not in node.value, (path.name, node.value)  # no event names
    assert copies == []
