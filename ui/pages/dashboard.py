"""Dashboard: health cards, what maintenance did lately, and one small trend per figure."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from .. import health
from ..context import AppContext
from ..dateaxis import DateAxis
from ..i18n import counted, current_language, tr
from ..theme import colors, current_scheme
from ..widgets import Card, fmt_age, fmt_time, section_label, title_label
from .base import Page

# One hue per figure, the card's and the trend's.
LINE_COLORS = ("#2f6fed", "#e8833a", "#d64545", "#8a5cf6", "#2aa876", "#b08a1e")
TREND_COLUMNS = 3
CARD_COLUMNS = 5  # nine cards in two rows at 1024 wide
RECENT_RUN = timedelta(days=1)  # a maintenance run this recent is said above the trends

# key, title, page it opens, that page's arguments, whether a non-zero value wants a look
CARDS: tuple[tuple[str, str, str, dict[str, Any], bool], ...] = (
    ("memories", "Memories", "memories", {"status": "active"}, False),
    ("never_recalled", "Never recalled", "memories", {"never_recalled": True}, True),
    ("conflicts", "Open conflicts", "conflicts", {"review": True}, True),
    ("insights", "Skills to review", "insights", {"review": True}, True),
    ("unembedded", "Unembedded", "memories", {"unembedded": True}, True),
    ("archived", "Archived", "archive", {}, False),
    ("fading", "Fading", "archive", {"view": "fading"}, True),
    ("secrets", "Secrets pending approval", "vault", {}, True),
    ("tape", "Tape entries", "tape", {}, False),
)


class TrendPlots(pg.GraphicsLayoutWidget):  # type: ignore[misc]
    """Small multiples: one plot per health figure, each on its own scale, dates shared.

    The plot items are made once; a load only sets their data (pyqtgraph redraws).
    """

    def __init__(self) -> None:
        super().__init__()
        c = colors(current_scheme())
        self.setBackground(c["card"])
        self.ci.layout.setSpacing(2)
        self.plots: dict[str, pg.PlotItem] = {}
        self.lines: dict[str, pg.PlotDataItem] = {}
        self.marks: dict[str, list[pg.InfiniteLine]] = {}
        self.titles: dict[str, str] = {}
        first: pg.PlotItem | None = None
        tick_font = QFont(QApplication.font())
        tick_font.setPointSizeF(8.0)
        for i, ((key, label), color) in enumerate(
            zip(health.TREND_METRICS, LINE_COLORS, strict=True)
        ):
            plot = self.addPlot(row=i // TREND_COLUMNS, col=i % TREND_COLUMNS)
            plot.setAxisItems({"bottom": DateAxis()})
            plot.showGrid(x=True, y=True, alpha=0.15)
            plot.setMenuEnabled(False)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            for side in ("left", "bottom"):
                axis = plot.getAxis(side)
                axis.setPen(pg.mkPen(c["border"]))
                axis.setTextPen(pg.mkPen(c["muted"]))
                axis.setStyle(tickFont=tick_font)
            plot.getAxis("left").setWidth(34)
            if first is None:
                first = plot
            else:
                plot.setXLink(first)
            self.titles[key] = tr(label)
            self.plots[key] = plot
            self.lines[key] = plot.plot([], [], pen=pg.mkPen(color, width=2))
            self.marks[key] = []
            self._title(key, None)

    def _title(self, key: str, latest: float | None) -> None:
        c = colors(current_scheme())
        value = "" if latest is None else f"  <b>{latest:,.0f}</b>"
        self.plots[key].setTitle(
            f"<span style='color:{c['muted']}'>{self.titles[key]}</span>"
            f"<span style='color:{c['text']}'>{value}</span>",
            size="9pt",
        )

    def show_history(self, view: health.HealthView, days: int | None) -> None:
        xs = [t for t, _ in view.history]
        for key, line in self.lines.items():
            pts = [(t, v[key]) for t, v in view.history if key in v]
            line.setData([p[0] for p in pts], [p[1] for p in pts])
            top = max([1.0, *(p[1] for p in pts)])
            # Whole numbers on a scale of this figure's own: 0-3 conflicts fill their plot.
            # a little below 0, so that the 0 tick has its label
            self.plots[key].setYRange(-0.06 * top, top * 1.15, padding=0)
            self.plots[key].getAxis("left").setTickSpacing(*_ticks(top))
            self._title(key, pts[-1][1] if pts else None)
        self._mark_maintenance(view)
        first = next(iter(self.plots.values()))
        if len(xs) > 1:
            first.setXRange(min(xs), max(xs), padding=0.02)
        else:
            # A point or none: show the chosen range's dates, not an axis of fractions.
            now = time.time()
            first.setXRange(now - (days or 30) * 86400, now, padding=0)

    def _mark_maintenance(self, view: health.HealthView) -> None:
        """A dashed line where maintenance archived memories; the active plot says how many."""
        c = colors(current_scheme())
        for key, plot in self.plots.items():
            for mark in self.marks[key]:
                plot.removeItem(mark)
            self.marks[key] = []
            for run in view.maintenance:
                label = f"−{run.archived}" if key in ("active", "archived") else None
                mark = pg.InfiniteLine(
                    run.at.timestamp(),
                    angle=90,
                    pen=pg.mkPen(c["muted"], width=1, style=Qt.PenStyle.DashLine),
                    label=label,
                    labelOpts={"position": 0.9, "color": c["muted"]},
                )
                plot.addItem(mark)
                self.marks[key].append(mark)

    def dispose(self) -> None:
        # pyqtgraph keeps Python-owned graphics items; clearing the scene on the GUI
        # thread before the widget goes, instead of leaving them to a later garbage
        # collection (which crashed the app).
        self.clear()
        self.close()


def _ticks(top: float) -> tuple[float, float]:
    """(major, minor) tick spacing giving at most 4 whole-number ticks up to `top`."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 2000, 5000, 10_000):
        if top / step <= 3:  # a small plot: a few labels that do not touch
            return float(step), float(step)
    return top / 3, top / 3


class DashboardPage(Page):
    name = "dashboard"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.view: health.HealthView | None = None
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 16, 24, 14)
        root.setSpacing(10)

        head = QHBoxLayout()
        head.addWidget(title_label(tr("Dashboard")))
        head.addStretch(1)
        head.addWidget(QLabel(tr("Agent")))
        self.agent_box = QComboBox()
        self.agent_box.addItem(tr("All agents"), None)
        self.agent_box.currentIndexChanged.connect(self.refresh)
        head.addWidget(self.agent_box)
        head.addWidget(QLabel(tr("Range")))
        self.range_box = QComboBox()
        for label, days in health.RANGES:
            self.range_box.addItem(tr(label), days)
        self.range_box.setCurrentIndex(1)
        self.range_box.currentIndexChanged.connect(self.refresh)
        head.addWidget(self.range_box)
        root.addLayout(head)

        grid = QGridLayout()
        grid.setSpacing(10)
        self.cards: dict[str, Card] = {}
        for i, (key, title, page, args, _watch) in enumerate(CARDS):
            card = Card(tr(title))
            card.clicked.connect(lambda p=page, a=args: self._open(p, a))
            self.cards[key] = card
            grid.addWidget(card, i // CARD_COLUMNS, i % CARD_COLUMNS)
        root.addLayout(grid)

        self.maintenance_note = QLabel("")
        self.maintenance_note.setObjectName("notice")
        self.maintenance_note.setWordWrap(True)
        self.maintenance_note.setTextFormat(Qt.TextFormat.RichText)
        self.maintenance_note.linkActivated.connect(lambda _href: self._open("archive", {}))
        self.maintenance_note.hide()
        root.addWidget(self.maintenance_note)
        # Why semantic search answers from full-text now, and what to do (the engine's
        # sentence, in the app's language): shown only while the index is stalled.
        self.index_note = QLabel("")
        self.index_note.setObjectName("notice")
        self.index_note.setWordWrap(True)
        self.index_note.hide()
        root.addWidget(self.index_note)

        root.addWidget(section_label(tr("Trends")))
        self.trends = TrendPlots()
        self.trends.setMinimumHeight(200)
        root.addWidget(self.trends, 1)
        self.trend_note = QLabel("")
        self.trend_note.setObjectName("muted")
        self.trend_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        root.addWidget(self.trend_note)

        ctx.bridge.health_changed.connect(self.changed)
        ctx.bridge.agents_changed.connect(self.changed)

    def dispose(self) -> None:
        self.trends.dispose()

    def _open(self, page: str, args: dict[str, Any]) -> None:
        agent = self.agent_box.currentData()
        self.ctx.nav.page_requested.emit(page, {**args, **({"agent": agent} if agent else {})})

    def refresh(self, *_: object) -> None:
        agent = self.agent_box.currentData()
        days = self.range_box.currentData()
        self._start_load()
        self.ctx.runner.read(
            health.load,
            self.ctx.engine,
            agent,
            days,
            on_result=self._show,
            on_error=self._finish_load,
        )

    def _show(self, view: health.HealthView) -> None:
        self.view = view
        self._sync_agents(view.agents)
        snap = view.now
        others = [
            tr("{n} {status}").format(n=n, status=tr(status))
            for status, n in (
                ("archived", snap.archived),
                ("superseded", snap.superseded),
                ("forgotten", snap.forgotten),
            )
            if n
        ]
        self._value("memories", snap.active, " · ".join(others) or tr("all active"))
        self._value("never_recalled", snap.never_recalled, tr("recalled by no agent yet"))
        self._value(
            "conflicts",
            snap.open_conflicts,
            tr("oldest: {age}").format(age=fmt_age(_days(snap.oldest_conflict_age_days)))
            if snap.open_conflicts
            else tr("nothing to review"),
        )
        waiting = view.insights
        to_look_at = waiting.skills_to_review + waiting.stale_skills if waiting else 0
        self._value(
            "insights",
            waiting.proposals if waiting else 0,
            counted(
                to_look_at,
                tr("{n} grown skill to look at"),
                tr("{n} grown skills to look at"),
            )
            if to_look_at
            else tr("proposed from the memories"),
        )
        self._value(
            "unembedded",
            snap.unembedded,
            tr("oldest waiting: {age}").format(age=fmt_age(_days(snap.oldest_unembedded_age_days)))
            if snap.unembedded
            else tr("index up to date"),
        )
        stalled = snap.index_note(current_language())
        self.index_note.setText(stalled or "")
        self.index_note.setVisible(stalled is not None)
        if stalled is not None:
            card = self.cards["unembedded"]
            card.show_value(f"{snap.unembedded:,}", tr("index stalled: see below"))
            card.set_alert(True)
        self._value("archived", snap.archived, tr("restore what still matters"))
        self._value(
            "fading",
            snap.archive_candidates,
            tr("archived at the next maintenance") if snap.archive_candidates else tr("none due"),
        )
        self._value("secrets", view.pending_requests, tr("requests waiting for you"))
        self._value("tape", snap.tape_entries, tr("entries on the tape"))
        self._say_maintenance(view)
        self.trends.show_history(view, self.range_box.currentData())
        self.trend_note.setText(
            ""
            if view.stored
            else tr("No snapshots stored in this range yet: the trends start with today's figures.")
        )
        self._finish_load()

    def _value(self, key: str, value: int, note: str) -> None:
        card = self.cards[key]
        card.show_value(f"{value:,}", note)
        watch = next(c[4] for c in CARDS if c[0] == key)
        card.set_alert(watch and value > 0)

    def _say_maintenance(self, view: health.HealthView) -> None:
        """The last maintenance run that archived memories, if it was recent."""
        recent = [r for r in view.maintenance if datetime.now(UTC) - r.at <= RECENT_RUN]
        if not recent:
            self.maintenance_note.hide()
            return
        run = recent[-1]
        link = colors(current_scheme())["link"]
        whose = ", ".join(f"{agent} {n}" for agent, n in run.by_agent)
        self.maintenance_note.setText(
            tr(
                "Maintenance archived {n} faded memories at {time} ({whose}): unrecalled and "
                "unused for a while. <a href='archive' style='color:{link}'>See the Archive</a>"
            ).format(n=run.archived, whose=whose, time=fmt_time(run.at), link=link)
        )
        self.maintenance_note.show()

    def _sync_agents(self, agents: tuple[str, ...]) -> None:
        present = [self.agent_box.itemData(i) for i in range(1, self.agent_box.count())]
        if list(agents) == present:
            return
        current = self.agent_box.currentData()
        self.agent_box.blockSignals(True)
        while self.agent_box.count() > 1:
            self.agent_box.removeItem(1)
        for name in agents:
            self.agent_box.addItem(name, name)
        i = self.agent_box.findData(current)
        self.agent_box.setCurrentIndex(max(0, i))
        self.agent_box.blockSignals(False)


def _days(days: float | None) -> float | None:
    return None if days is None else days * 86400
