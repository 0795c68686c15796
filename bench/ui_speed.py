"""Desktop app speed on a big home: cold start, page switches, table scrolling.

    python -m bench.ui_speed [--memories 100000] [--cache DIR] [--cold 3]

Builds a home from the demo plus N synthetic memories (through export/import,
the engine's bulk path; with --cache it is built once into DIR and reused),
then measures, Qt offscreen:
- cold start: the real app (`python -m ui.main --home COPY`, the home's host)
  started as a fresh process on a copy of the home; from just before the
  process is spawned to the dashboard drawn with its data (`--quit-when-drawn`
  prints the moment); interpreter start and every import included. The OS file
  cache is warm (the copy was just written);
- in one process: the window built on an open engine to a drawn dashboard;
- page switches: GUI-thread time of the switch, and time until the page loaded;
- scrolling the memory table to the end of the whole list, page after page
  (every row loaded), then back by wheel notches: the longest GUI-thread
  stretch per step (scroll + repaint) and per event-loop pass while a page
  arrives (its result slot, the view's layout and repaint); the three longest
  stretches with what they were and the GUI thread's involuntary (preempted)
  and voluntary (blocked) context switches during each.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["ANONYMIZED_TELEMETRY"] = "False"
from ui.qtenv import prepare_gui_process

prepare_gui_process()  # as the app does before its QApplication

T_IMPORT = time.perf_counter()
from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app import Engine  # noqa: E402
from app.demo.seed import seed  # noqa: E402
from ui import i18n, theme, workers  # noqa: E402
from ui.session import Session  # noqa: E402
from ui.window import PAGE_NAMES, Pages  # noqa: E402

T_IMPORT = time.perf_counter() - T_IMPORT


def common_hanzi() -> list[str]:
    """The 3,755 level-1 characters of GB 2312 (the most common hanzi), in order."""
    out = []
    for row in range(0xB0, 0xD8):
        for cell in range(0xA1, 0xFF):
            with contextlib.suppress(UnicodeDecodeError):  # the last row is short
                out.append(bytes((row, cell)).decode("gb2312"))
    return out


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
    hanzi = common_hanzi()
    for i in range(n):
        row = dict(template["row"])
        next_id += 1
        # Eight characters that walk through the 3,755 common hanzi: like real
        # Chinese memories, rows further down hold glyphs not drawn before.
        words = "".join(hanzi[(i * 8 + k) % len(hanzi)] for k in range(8))
        row.update(
            id=next_id,
            text=f"Synthetic memory {i}: the build of module {i % 997} takes {i % 60} s; "
            f"模块 {i % 997} 的构建需要 {i % 60} 秒，{words}。",
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


def home_for(cache: Path | None, root: Path, n: int) -> Path:
    """The big home: built into `cache` once (then reused), else into `root`."""
    if cache is None:
        return build_home(root, n)
    home = cache / f"home-{n}-hanzi"  # (homes built before the varied hanzi are not reused)
    if not (home / "tapemind.db").exists():
        tmp = cache / f"build-{n}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        built = build_home(tmp, n)
        built.rename(home)
        shutil.rmtree(tmp, ignore_errors=True)
    return home


def cold_start(home: Path, runs: int, code: Path) -> list[float]:
    """Seconds from spawning the real app to its dashboard drawn, once per run.

    Prints the phases the app marked on its way (of the last run)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(code)}
    out = []
    cpus: list[float] = []
    phases = ""
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "home"
            shutil.copytree(home, copy, ignore=shutil.ignore_patterns(".lock", "*.token"))
            t0 = time.time()
            done = subprocess.run(
                [sys.executable, "-m", "ui.main", "--home", str(copy), "--quit-when-drawn"],
                cwd=code,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            drawn = [line for line in done.stdout.splitlines() if line.startswith("drawn ")]
            if done.returncode != 0 or not drawn:
                raise SystemExit(f"the app did not draw its dashboard:\n{done.stderr[-2000:]}")
            out.append(float(drawn[0].split()[1]) - t0)
            cpus.extend(
                float(line.split()[1])
                for line in done.stdout.splitlines()
                if line.startswith("cpu ")
            )
            marks = [w.split("=", 1) for w in done.stdout.split() if "=" in w]
            phases = ", ".join(
                f"{k.replace('_', ' ')} {(float(v) - t0) * 1000:.0f}" for k, v in marks
            )
    if phases:
        print(f"  phases of the last run (ms after spawning): {phases}")
    if cpus:
        print(
            f"  process CPU (all threads) up to the drawn dashboard: median "
            f"{statistics.median(cpus) * 1000:.0f} ms, runs "
            f"{', '.join(f'{c * 1000:.0f}' for c in cpus)} ms (the start-up is CPU-bound: "
            "on a quiet machine its wall time is close to this)"
        )
    return out


def _worst(samples: list[tuple[float, float]]) -> str:
    """The longest of (wall, CPU) samples, both figures."""
    wall = max(w for w, _ in samples)
    cpu = max(c for _, c in samples)
    return f"{wall * 1000:.1f} ms wall ({cpu * 1000:.1f} ms GUI-thread CPU)"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


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


def context_switches() -> tuple[int, int]:
    """(involuntary, voluntary) context switches of the calling thread so far: an
    involuntary one is the thread preempted (waiting for a core), a voluntary one
    the thread blocked (a lock, the GIL, I/O). (0, 0) where /proc has no such file."""
    try:
        status = Path("/proc/thread-self/status").read_text()
    except OSError:
        return 0, 0
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return int(fields["nonvoluntary_ctxt_switches"]), int(fields["voluntary_ctxt_switches"])


class Stretches:
    """Every timed GUI-thread stretch of the scroll, with what it was and how often
    the thread was switched out during it, to tell CPU from waiting."""

    def __init__(self) -> None:
        self.all: list[tuple[float, float, str, int, int, int]] = []

    def timed(self, kind: str, step: int, fn: Any) -> tuple[float, float]:
        inv, vol = context_switches()
        t, c = time.perf_counter(), time.thread_time()
        fn()
        wall, cpu = time.perf_counter() - t, time.thread_time() - c
        inv2, vol2 = context_switches()
        self.all.append((wall, cpu, kind, step, inv2 - inv, vol2 - vol))
        return wall, cpu

    def longest(self, n: int = 3) -> str:
        top = sorted(self.all, key=lambda s: -s[0])[:n]
        return "; ".join(
            f"{kind} {step}: {wall * 1000:.1f} ms wall, {cpu * 1000:.1f} ms CPU, "
            f"{inv} involuntary / {vol} voluntary context switches"
            for wall, cpu, kind, step, inv, vol in top
        )


def pump(
    app: QApplication,
    session: Session,
    passes: list[tuple[float, float]],
    record: Stretches | None = None,
    step: int = 0,
) -> None:
    """Run the event loop until no job is pending and what they posted is done,
    timing every pass: a pass is a stretch in which the GUI thread does not come
    back to the event loop (a page's result slot, the view's delayed layout and
    the repaint that rows arriving cause all run in such passes)."""
    idle = 0
    deadline = time.perf_counter() + 60
    record = record or Stretches()
    while idle < 5 and time.perf_counter() < deadline:
        passes.append(
            record.timed(
                "pass after step",
                step,
                lambda: app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents),
            )
        )
        idle = idle + 1 if session.runner.pending == 0 else 0
        time.sleep(0.001)  # the worker runs; zero-delay timers come due


class GcWatch:
    """Garbage collections while it is installed (gc.callbacks): generation, seconds,
    and whether the GUI thread ran it, so a long stretch can be told apart from one."""

    def __init__(self) -> None:
        self.events: list[tuple[int, float, bool]] = []
        self._started: dict[int, float] = {}
        self._gui = threading.get_ident()

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        me = threading.get_ident()
        if phase == "start":
            self._started[me] = time.perf_counter()
        elif me in self._started:
            took = time.perf_counter() - self._started.pop(me)
            self.events.append((int(info["generation"]), took, me == self._gui))

    def summary(self) -> str:
        if not self.events:
            return "no garbage collection"
        by_gen = [sum(1 for g, _, _ in self.events if g == n) for n in range(3)]
        gen, took, gui = max(self.events, key=lambda e: e[1])
        return (
            f"garbage collections by generation {by_gen[0]} / {by_gen[1]} / {by_gen[2]}; "
            f"longest {took * 1000:.1f} ms (generation {gen}, "
            f"{'GUI thread' if gui else 'a worker'})"
        )


def scroll_table(
    app: QApplication, session: Session, page: Any, slots: list[tuple[float, float]]
) -> None:
    """Scroll the memory table to the end of the whole list, then back by wheel notches.

    Each step to the end is the scroll bar dragged to its bottom and the view
    repainted whole (the row at the bottom asks for the next page); then the
    event loop runs until that page has arrived and been drawn, every pass timed.
    The wheel notches go back up through rows drawn for the first time.
    """
    bar = page.table.verticalScrollBar()
    steps: list[tuple[float, float]] = []
    passes: list[tuple[float, float]] = []
    slots.clear()
    first: list[tuple[float, float]] = []
    collections = GcWatch()
    record = Stretches()
    warming: list[int] = []  # glyphs still queued for the warmer at each step
    gc.callbacks.append(collections)
    t0 = time.perf_counter()
    for _ in range(2 * page.model.total // page.model.page_size + 10):
        if page.model.rowCount() >= page.model.total:
            break

        def to_the_end() -> None:
            bar.setValue(bar.maximum())
            page.table.viewport().repaint()

        steps.append(record.timed("step", len(steps), to_the_end))
        warming.append(page.warmer.pending)
        pump(app, session, passes, record, len(steps) - 1)
        if len(first) < 10:
            first.append(max([steps[-1], *passes[-20:]]))
    scrolled = time.perf_counter() - t0
    wheel: list[tuple[float, float]] = []
    row_px = page.table.verticalHeader().defaultSectionSize()

    def notch() -> None:
        bar.setValue(bar.value() - 3 * row_px)
        page.table.viewport().repaint()

    for i in range(300):  # back up through rows never drawn, a wheel notch at a time
        wheel.append(record.timed("wheel notch", i, notch))
    gc.callbacks.remove(collections)
    worst = max(steps + passes + wheel)
    print(
        f"scrolled the memory table through {page.model.rowCount():,} of "
        f"{page.model.total:,} rows ({len(steps)} steps, {scrolled:.1f} s): "
        f"longest scroll+repaint to the end {_worst(steps)}, "
        f"longest event-loop pass while pages arrive {_worst(passes)} "
        f"(of which the page-append slot {_worst(slots)}); "
        f"the first ten steps' longest stretches "
        f"{', '.join(f'{w * 1000:.1f} ({c * 1000:.1f})' for w, c in first)} ms wall (CPU)"
    )
    print(
        f"wheel steps back: longest {_worst(wheel)}, "
        f"median {statistics.median(c for _, c in wheel) * 1000:.1f} ms CPU"
    )
    print(
        f"longest GUI-thread stretch while scrolling: {worst[0] * 1000:.1f} ms wall; "
        f"steps over 16 ms wall: {sum(w > 0.016 for w, _ in steps + passes + wheel)} of "
        f"{len(steps) + len(passes) + len(wheel)}; load {loadavg()}"
    )
    print(f"the longest stretches: {record.longest()}")
    print(f"while scrolling: {collections.summary()}")
    slowest = max(range(len(steps)), key=lambda i: steps[i][1])
    warm_steps = next((i for i, n in enumerate(warming) if n == 0), len(warming))
    print(
        f"glyph warmer: characters still queued at the first step {warming[0] if warming else 0}, "
        f"none from step {warm_steps}; the step with the most GUI-thread CPU was step "
        f"{slowest} ({steps[slowest][1] * 1000:.1f} ms CPU, {warming[slowest]} queued then)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--cache", type=Path, help="build the home here once and reuse it")
    parser.add_argument("--cold", type=int, default=3, help="fresh-process cold starts to time")
    parser.add_argument(
        "--code",
        type=Path,
        default=Path(__file__).resolve().parent.parent,
        help="the checkout whose app to start for the cold start (default: this one)",
    )
    args = parser.parse_args()
    print(f"load average at start: {loadavg()}")
    # (wall, GUI-thread CPU) seconds of each result slot: CPU time is what the
    # GUI thread itself spent, robust to other processes' load; wall includes
    # the time this process waited for a core.
    slots: list[tuple[float, float]] = []
    original = workers._deliver

    def timed(callback, value):  # type: ignore[no-untyped-def]
        t, c = time.perf_counter(), time.thread_time()
        original(callback, value)
        slots.append((time.perf_counter() - t, time.thread_time() - c))

    workers._deliver = timed
    builds: list[tuple[float, float]] = []
    build_page = Pages.__missing__

    def timed_build(pages, name):  # type: ignore[no-untyped-def]
        t, c = time.perf_counter(), time.thread_time()
        page = build_page(pages, name)
        builds.append((time.perf_counter() - t, time.thread_time() - c))
        return page

    Pages.__missing__ = timed_build  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        home = home_for(args.cache, Path(tmp), args.memories)
        print(
            f"a home with {args.memories:,} extra memories ready in {time.perf_counter() - t:.1f} s"
        )
        if args.cold:
            starts = cold_start(home, args.cold, args.code)
            print(
                f"cold start of the real app to a drawn dashboard (fresh process, {args.cold} "
                f"runs): median {statistics.median(starts) * 1000:.0f} ms, "
                f"runs {', '.join(f'{s * 1000:.0f}' for s in starts)} ms; load {loadavg()}"
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
        print(
            f"in-process: window on an open engine to a drawn dashboard: "
            f"{(time.perf_counter() - t) * 1000:.0f} ms"
        )

        # After the first paint the other pages are built in the background, one
        # at a time: each build is a stretch of the GUI thread too.
        builds.clear()  # the dashboard's own build was part of the start
        t = time.perf_counter()
        while len(session.window.pages) < len(PAGE_NAMES) and time.perf_counter() - t < 30:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            time.sleep(0.005)
        print(
            f"the other pages built in the background within {time.perf_counter() - t:.1f} s; "
            f"longest build {_worst(builds)}"
        )
        slots.clear()
        for name in (*PAGE_NAMES, "dashboard"):
            # A page is built the first time it is shown: that is part of the switch.
            t, c = time.perf_counter(), time.thread_time()
            page = session.window.open_page(name, {})
            app.processEvents()  # the switch painted
            gui, cpu = time.perf_counter() - t, time.thread_time() - c
            if not page.has_loaded or page._loading:
                wait(session, name)
            total = time.perf_counter() - t
            print(
                f"switch to {name:<10} GUI thread {gui * 1000:6.1f} ms wall "
                f"({cpu * 1000:5.1f} ms CPU), loaded after {total * 1000:6.0f} ms"
            )
        print(f"longest result slot during switches: {_worst(slots)}")

        dash = session.window.pages["dashboard"]
        slots.clear()
        t = time.perf_counter()
        dash.refresh()
        wait(session, "dashboard")
        busy = (sum(w for w, _ in slots), sum(c for _, c in slots))
        print(
            f"dashboard refresh: {(time.perf_counter() - t) * 1000:.0f} ms, "
            f"GUI thread {_worst([busy])}"
        )

        page = session.window.open_page("memories", {"agent": engine.agents()[0].name})
        wait(session, "memories")
        scroll_table(app, session, page, slots)
        session.close()
    print(f"load average at the end: {loadavg()}")


if __name__ == "__main__":
    main()
