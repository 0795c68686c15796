"""UI tests: real widgets on a real engine over a copy of the demo home (Qt offscreen)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any QApplication

import keyring
import pytest

from app import Engine
from app.demo.seed import seed


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "home"
    seed(path)
    return path


@pytest.fixture
def demo_home(demo_template: Path, tmp_path: Path) -> Path:
    home = tmp_path / "demo-home"
    shutil.copytree(demo_template, home)
    return home


@pytest.fixture(scope="session")
def vault_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """A demo home seeded with its secrets, and the keyring entries holding its vault key
    (an in-memory keyring of its own while it is seeded)."""
    from tests.conftest import MemoryKeyring

    path = tmp_path_factory.mktemp("vault") / "home"
    keys = MemoryKeyring()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(keyring.core, "_keyring_backend", keys)
        mp.delenv("TAPEMIND_VAULT_PASSPHRASE", raising=False)
        counts = seed(path)
    assert counts.get("secrets", 0) > 0
    return path, dict(keys.entries)


@pytest.fixture
def vault_home(vault_template: tuple[Path, dict], tmp_path: Path, memory_keyring) -> Path:  # type: ignore[no-untyped-def]
    """A fresh copy of the seeded demo home with secrets; its vault key in this test's
    keyring."""
    template, keys = vault_template
    home = tmp_path / "vault-home"
    shutil.copytree(template, home)
    memory_keyring.entries.update(keys)
    return home


@pytest.fixture
def english(qapp):  # type: ignore[no-untyped-def]
    from ui import i18n, theme

    i18n.install_language("en")
    theme.apply_fonts(qapp, "en")
    theme.apply_theme(qapp, "light")
    yield
    i18n.install_language("en")


@pytest.fixture
def session(demo_home: Path, qtbot, english) -> Iterator[object]:  # type: ignore[no-untyped-def]
    from ui.session import Session

    engine = Engine.open(demo_home)
    s = Session(engine, page="dashboard", tray=False)
    dashboard = s.window.pages["dashboard"]
    with qtbot.waitSignal(dashboard.loaded, timeout=10000):
        s.window.show()
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def open_page(qtbot, session):  # type: ignore[no-untyped-def]
    """`open_page(name, args)`: open a page and wait for its load to finish."""

    def _open(name: str, args: dict | None = None):  # type: ignore[no-untyped-def]
        page = session.window.pages[name]
        with qtbot.waitSignal(page.loaded, timeout=10000):
            session.window.open_page(name, args or {})
            if page.has_loaded and not page._loading and not args:
                page.refresh()
        return page

    return _open
