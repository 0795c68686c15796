"""Desktop app speed on a big home: cold start, page switches, table scrolling.

    python -m bench.ui_speed [--memories 100000]

Builds a home from the demo plus N synthetic memories (through export/import,
the engine's bulk path), then measures in one process, Qt offscreen:
- cold start: from creating the window to a drawn dashboard (imports excluded,
  printed separately);
- page switches: GUI-thread time of the switch, and time until the page loaded;
- scrolling the memory table to the end of what is loaded, page after page:
  the longest GUI-thread stretch per step (scroll + repaint, and each result
  slot that appends a page).
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ANONYMIZED_TELEMETRY"] = "False"

T_IMPORT = time.perf_counter()
from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app import Engine  # noqa: E402
from app.demo import seed  # noqa: E402
from ui import i18n, theme, workers  # noqa: E402
from ui.session import Session  # noqa: E402
from ui.window import PAGE_NAMES  # noqa: E402

T_IMPORT = time.perf_counter() - T_IMPORT


def build_home(root: Path, n: int) -> Path:
    """The demo home plus `n` memories for its first agent, imported in bulk."""
    demo = root / "demo"
    seed(demo)
    buf = io.StringIO()
    with Engine.open(demo) as engine:
        engine.export(buf)
    lines = buf.getvalue().splitlines()
    out = [lines[0]]
    template = None
    next_id = 0
    for line in lines[1:]:
        d = json.loads(line)
        if d["table"] == "memories":
            next_id = max(next_id, d["row"]["id"])
            template = template or d
        out.append(line)
        if d["table"] == "memories" and template is d:
            pass
    assert template is not None
    extra = []
    for i in range(n):
        row = dict(template["row"])
        next_id += 1
        row.update(
            id=next_id,
            text=f"Synthetic memory {i}: the build of module {i % 997} takes {i % 60} s; "
            f"模块 {i % 997} 的构建需要 {i % 60} 秒。",
            content_hash=f"{next_id:064x}",
            recall_count=i % 7,
            superseded_by=None,
        )
        extra.append(json.dumps({"row": row, "table": "memories"}, ensure_ascii=False))
    # memories come right after the demo's memories (before tables that refer to them)
    at = max(i for i, line in enumerate(out) if '"table": "memories"' in line) + 1
    out[at:at] = extra
    path = root / "big.jsonl"
    path.write_text("\n".join(out) + "\n", "utf-8")
    home = root / "big"
    with Engine.open(home, create=True) as engine:
        engine.import_(path)
    return home


def wait(session: Session, page_name: str | None = None, timeout_ms: int = 60000) -> None:
    loop = QEventLoop()
    page = session.window.pages[page_name] if page_name else None

    def check(*_: object) -> None:
        if (page is None or page.has_loaded) and session.runner.pending == 0:
            loop.quit()

    session.runner.busy_changed.connect(check)
    if page is not None:
        page.loaded.connect(check)
    QTimer.singleShot(timeout_ms, loop.quit)
    check()
    if not ((page is None or page.has_loaded) and session.runner.pending == 0):
        loop.exec()
    session.runner.busy_changed.disconnect(check)
    if page is not None:
        page.loaded.disconnect(check)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    args = parser.parse_args()
    slots: list[float] = []
    original = workers._deliver

    def timed(callback, value):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        original(callback, value)
        slots.append(time.perf_counter() - t)

    workers._deliver = timed
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        home = build_home(Path(tmp), args.memories)
        print(
            f"built a home with {args.memories:,} extra memories in {time.perf_counter() - t:.1f} s"
        )
        app = QApplication.instance() or QApplication([])
        i18n.install_language("en")
        theme.apply_fonts(app, "en")
        theme.apply_theme(app, "light")
        print(f"imports (PySide6, pyqtgraph, engine, ui): {T_IMPORT * 1000:.0f} ms")
        t = time.perf_counter()
        engine = Engine.open(home)
        session = Session(engine, tray=False)
        session.window.resize(1280, 820)
        session.window.show()
        wait(session, "dashboard")
        app.processEvents()
        print(f"cold start to a drawn dashboard: {(time.perf_counter() - t) * 1000:.0f} ms")

        slots.clear()
        for name in (*PAGE_NAMES, "dashboard"):
            page = session.window.pages[name]
            t = time.perf_counter()
            session.window.open_page(name, {})
            gui = time.perf_counter() - t
            if not page.has_loaded or page._loading:
                wait(session, name)
            total = time.perf_counter() - t
            print(
                f"switch to {name:<10} GUI thread {gui * 1000:6.1f} ms, "
                f"loaded after {total * 1000:6.0f} ms"
            )
        print(f"longest result slot during switches: {max(slots) * 1000:.1f} ms")

        dash = session.window.pages["dashboard"]
        slots.clear()
        t = time.perf_counter()
        dash.refresh()
        wait(session, "dashboard")
        print(
            f"dashboard refresh: {(time.perf_counter() - t) * 1000:.0f} ms, "
            f"GUI thread {sum(slots) * 1000:.1f} ms"
        )

        page = session.window.pages["memories"]
        session.window.open_page("memories", {"agent": engine.agents()[0].name})
        wait(session, "memories")
        bar = page.table.verticalScrollBar()
        steps: list[float] = []
        slots.clear()
        for _ in range(50):
            t = time.perf_counter()
            bar.setValue(bar.maximum())
            page.table.viewport().repaint()
            steps.append(time.perf_counter() - t)
            wait(session)
        loaded = page.model.rowCount()
        print(
            f"scrolled the memory table through {loaded:,} of {page.model.total:,} rows: "
            f"longest scroll+repaint {max(steps) * 1000:.1f} ms, "
            f"longest page-append slot {max(slots) * 1000:.1f} ms"
        )
        session.close()


if __name__ == "__main__":
    main()
