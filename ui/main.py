"""`tapemind-desktop`: open the app on a home, or render one page to a PNG and exit."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

PAGE_CHOICES = ("dashboard", "memories", "conflicts", "archive", "tape", "vault", "agents")


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
        "--page conflicts); with --screenshot the picture is of the dialog",
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
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `tapemind-desktop`; returns the process exit code."""
    args = parse_args(argv)
    if args.review:
        args.page = "conflicts"
    if args.version:
        from app import __version__

        print(f"tapemind-desktop {__version__}")
        return 0
    if args.screenshot is not None:
        # A screenshot needs no display: render offscreen unless told otherwise.
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

    from PySide6.QtWidgets import QApplication, QMessageBox

    from app import Engine, TapemindError
    from app.host import host_home

    from . import i18n, theme
    from .icons import app_icon
    from .session import Session

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
    host = None
    try:
        if args.screenshot is not None:
            engine = Engine.open(args.home)
        else:
            # The app is the home's host: it owns the home, serves MCP to agents and
            # runs the background jobs (indexer, maintenance, snapshots).
            host = host_home(args.home, role="desktop")
            engine = host.engine
    except TapemindError as exc:
        if args.screenshot is not None:
            print(f"tapemind-desktop: {exc}", file=sys.stderr)
        else:
            QMessageBox.critical(None, i18n.tr("Tapemind"), str(exc))
        return 2
    session = Session(engine, page=args.page, tray=args.screenshot is None)
    if host is not None and callable(getattr(engine, "unlock_vault", None)):
        # Agents' writes arrive through this process: unlock the vault up front
        # (a passphrase prompt where there is no keyring) so they can be checked
        # for secret values instead of being refused as "vault locked".
        session.runner.write(engine.unlock_vault, on_error=lambda _error: None)
    if args.agent or args.review:
        target = {"agent": args.agent} if args.agent else {}
        session.window.open_page(args.page, {**target, **({"review": True} if args.review else {})})
    try:
        if args.screenshot is not None:
            width, height = (int(v) for v in args.size.lower().split("x"))
            ok = session.screenshot(args.screenshot, width, height, review=args.review)
            return 0 if ok else 1
        session.window.show()
        return app.exec()
    finally:
        if host is not None:
            host.stop()  # jobs and MCP end before the engine closes
        session.close()


if __name__ == "__main__":
    sys.exit(main())
