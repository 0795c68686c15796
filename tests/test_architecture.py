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
