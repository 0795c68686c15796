"""Arrows point into the engine: `app` never imports the UI or Qt."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_APP = ("ui", "PySide6", "pyqtgraph", "shiboken6")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_engine_never_imports_ui_or_qt() -> None:
    offenders = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        for name in imported_modules(path):
            if name.split(".")[0] in FORBIDDEN_IN_APP:
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_the_check_sees_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from PySide6.QtCore import QObject\nimport ui.main\n", "utf-8")
    assert {"PySide6.QtCore", "ui.main"} <= imported_modules(bad)


# A package is a room: its `__init__` says what it offers (`__all__`), its modules are its
# own, and the other packages of the engine import only what the `__init__` offers. The
# top layers (the CLI, the host, the MCP server, the demo, the benchmarks) are clients of
# the packages below, not rooms with an API of their own.
ROOMS_WITHOUT_API = {"benchmarks", "cli", "host", "mcp", "demo"}


def _offers(package: str) -> set[str]:
    tree = ast.parse((ROOT / "app" / package / "__init__.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
    return set()


def test_packages_import_each_other_only_through_what_their_init_offers() -> None:
    rooms = {
        p.name
        for p in (ROOT / "app").iterdir()
        if (p / "__init__.py").exists() and p.name not in ROOMS_WITHOUT_API
    }
    offers = {room: _offers(room) for room in rooms}
    offenders = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        own = parts[1] if len(parts) > 2 else None
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
                continue
            names = node.module.split(".")
            if names[0] != "app" or len(names) < 2 or names[1] not in rooms or names[1] == own:
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            if len(names) > 2:
                offenders.append(f"{where} imports {node.module} (use app.{names[1]})")
                continue
            for alias in node.names:
                if alias.name not in offers[names[1]]:
                    offenders.append(f"{where}: app.{names[1]} does not offer {alias.name}")
    assert offenders == []


def test_every_package_says_what_it_is_for() -> None:
    for init in sorted((ROOT / "app").rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text("utf-8")))
        assert doc, f"{init.relative_to(ROOT)} has no docstring"
