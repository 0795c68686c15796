"""`tapemind-desktop`: open the app on a home, or render one page to a PNG and exit."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app import Engine

    from .session import Session
    from .startup import HostStarter

PAGE_CHOICES = (
    "dashboard", "memories", "conflicts", "insights", "archive", "tape", "vault", "agents",
)  # fmt: skip


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="tapemind-desktop",
        description="The Tapemind desktop app: health, memories, conflicts, archive, tape, "
        "vault and agents of a home.",
    )
    p.add_argument(
        "--home",
        type=Path,
        help="the home to open (default: TAPEMIND_HOME or the platform's data directory)",
    )
    p.add_argument("--page", choices=PAGE_CHOICES, default="dashboard", help="the page to open")
    p.add_argument("--agent", help="the agent to show first on pages that show one agent")
    p.add_argument(
        "--screenshot",
        type=Path,
        metavar="FILE.png",
        help="render the page once its data has loaded, save it and exit",
    )
    p.add_argument(
        "--review",
        action="store_true",
        help="open the conflict review dialog on the oldest open conflict (implies "
        "--page conflicts; with --page insights, the review of the oldest proposed skill); "
        "with --screenshot the picture is of the dialog",
    )
    p.add_argument(
        "--lang",
        choices=("en", "zh", "system"),
        default="system",
        help="the interface language (default: the system's)",
    )
    p.add_argument(
        "--theme",
        choices=("light", "dark", "system"),
        default="system",
        help="light or dark palette (default: the system's)",
    )
    p.add_argument("--size", default="1280x820", help="window size for --screenshot (WxH)")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    # For bench/ui_speed.py: the real app's cold start, measured from outside.
    p.add_argument("--quit-when-drawn", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `tapemind-desktop`; returns the process exit code.

    Start-up order is what makes the first paint quick: the home opens on a
    thread (engine imports included) while this thread imports Qt and builds
    the window; the MCP server and the background jobs start once the
    dashboard has been drawn.
    """
    import multiprocessing

    # The indexer embeds a large backlog in a spawned child (app/index/offload.py): in a
    # frozen build that child is this executable again, and this call runs it instead.
    multiprocessing.freeze_support()
    args = parse_args(argv)
    if args.review and args.page != "insights":
        args.page = "conflicts"
    if args.version:
        from app import __version__

        print(f"tapemind-desktop {__version__}")
        return 0
    if args.screenshot is not None:
        # A screenshot needs no display: render offscreen unless told otherwise.
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    from .qtenv import prepare_gui_process

    prepare_gui_process()

    from .startup import EngineOpener, HostStarter, mark

    mark("main")

    # The app is the home's host (it owns the home, serves MCP to agents and runs
    # the background jobs); a screenshot only reads it.
    own = args.screenshot is None
    opener = EngineOpener(args.home, own=own)
    opener.start()

    from PySide6.QtWidgets import QApplication, QMessageBox

    from . import i18n, theme
    from .icons import app_icon

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Tapemind")
    app.setApplicationDisplayName("Tapemind")
    app.setDesktopFileName("tapemind-desktop")
    app.setWindowIcon(app_icon())
    lang = i18n.install_language(args.lang)
    theme.apply_fonts(app, lang)
    app.setProperty("tapemind_theme", args.theme)
    theme.apply_theme(app, args.theme)
    from .session import Session
    from .window import page_class

    page_class(args.page)  # its module (the dashboard's brings pyqtgraph) loads meanwhile too
    mark("qt and ui imported")

    from .opening import wait_for_home

    try:
        engine, lock = wait_for_home(opener)
    except Exception as exc:
        from app import TapemindError

        if not isinstance(exc, TapemindError):
            raise
        if args.screenshot is not None:
            print(f"tapemind-desktop: {exc}", file=sys.stderr)
        else:
            QMessageBox.critical(None, i18n.tr("Tapemind"), str(exc))
        return 2
    session = Session(engine, page=args.page, tray=own)
    mark("window built")
    host = HostStarter(engine, lock) if lock is not None else None
    if host is not None:
        host.on_served = lambda url, wanted: say_served(session, url, wanted)
    if args.agent or args.review:
        target = {"agent": args.agent} if args.agent else {}
        session.window.open_page(args.page, {**target, **({"review": True} if args.review else {})})
    try:
        if args.screenshot is not None:
            width, height = (int(v) for v in args.size.lower().split("x"))
            ok = session.screenshot(args.screenshot, width, height, review=args.review)
            return 0 if ok else 1
        if host is not None:
            after_first_paint(session, lambda: serve(session, engine, host))
        if args.quit_when_drawn:
            after_first_paint(session, lambda: report_drawn(session))
        session.window.show()
        return app.exec()
    finally:
        if host is not None:
            host.stop()  # jobs and MCP end before the engine closes
        session.close()


def after_first_paint(session: Session, then: Callable[[], None]) -> None:
    """Call `then` once the first page has loaded its data and the window painted it."""
    from PySide6.QtCore import QTimer

    page = session.window.current_page()
    done = False

    def loaded() -> None:
        nonlocal done
        if not done:
            from .startup import mark

            done = True
            mark("page loaded")
            page.loaded.disconnect(loaded)
            session.window.repaint()  # the data, on screen now
            QTimer.singleShot(0, then)

    page.loaded.connect(loaded)


def serve(session: Session, engine: Engine, host: HostStarter) -> None:
    """Unlock the vault, then serve the home to agents (MCP, jobs) from a thread."""
    # Agents' writes arrive through this process: unlock the vault first (a passphrase
    # prompt where there is no keyring) so they can be checked for secret values
    # instead of being refused as "vault locked".
    session.runner.write(
        engine.unlock_vault,
        on_result=lambda _r: host.start(),
        on_error=lambda _e: host.start(),
    )


def say_served(session: Session, url: str, wanted: int | None) -> None:
    """Tell the owner when agents must use another port than the one they were given
    (runs on the host's thread: the notice signal is queued to the window)."""
    if wanted is None:
        return
    from .i18n import tr

    session.ctx.nav.notice.emit(
        tr(
            "Port {port} is taken by another program: agents reach this home at {url}/mcp. "
            "Agents → Copy MCP configuration… and `tapemind agent token` name it."
        ).format(port=wanted, url=url)
    )


def report_drawn(session: Session) -> None:
    """--quit-when-drawn: print when the first page was drawn with its data, then quit."""
    from PySide6.QtWidgets import QApplication

    from .startup import MARKS

    print(" ".join(f"{what.replace(' ', '_')}={at:.6f}" for what, at in MARKS), flush=True)
    # CPU of the whole process (every thread) so far: on a quiet machine the
    # start-up is CPU-bound, so this is close to its wall time there.
    print(f"cpu {time.process_time():.3f}", flush=True)
    print(f"drawn {time.time():.6f}", flush=True)
    QApplication.quit()


if __name__ == "__main__":
    sys.exit(main())
