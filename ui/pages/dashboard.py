"""Dashboard: health cards and trends of the stored health snapshots."""

from __future__ import annotations

import time
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from .. import health
from ..dateaxis import DateAxis
from ..i18n import tr
from ..theme import colors, current_scheme
from ..widgets import Card, EmptyState, fmt_age, section_label, title_label
from .base import Page

# One hue per line, far apart: archive candidates were a dark gold beside never
# recalled's orange, and the two read as one.
LINE_COLORS = ("#2f6fed", "#e8833a", "#d64545", "#8a5cf6", "#2aa876", "#8c8c8c")
# Room above the highest point for the legend, which spans the top of the plot: in the
# top-right corner it covered the latest points, the ones the owner looks at first.
HEADROOM = 1.45


class DashboardPage(Page):
    name = "dashboard"

    def __init__(self, ctx: Any, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.view: health.HealthView | None = None
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 20, 24, 20)
        root.setSpacing(14)

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
        grid.setSpacing(12)
        self.cards: dict[str, Card] = {}
        specs = [
            ("memories", "Memories", "memories", {"status": "active"}),
            ("never_recalled", "Never recalled", "memories", {"never_recalled": True}),
            ("conflicts", "Open conflicts", "conflicts", {"review": True}),
            ("insights", "Skills to review", "insights", {"review": True}),
            ("unembedded", "Unembedded", "memories", {}),
            ("archived", "Archived", "archive", {}),
            ("secrets", "Secrets pending approval", "vault", {}),
            ("tape", "Tape entries", "tape", {}),
        ]
        for i, (key, title, page, args) in enumerate(specs):
            card = Card(tr(title))
            card.clicked.connect(lambda p=page, a=args: self._open(p, a))
            self.cards[key] = card
            grid.addWidget(card, i // 4, i % 4)
        root.addLayout(grid)

        root.addWidget(section_label(tr("Trends")))
        self.plot = pg.PlotWidget(axisItems={"bottom": DateAxis()})
        self.plot.setMinimumHeight(220)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.legend = self.plot.addLegend(offset=(10, 6), colCount=3)  # a strip along the top
        self.lines = {
            key: self.plot.plot([], [], name=tr(label), pen=pg.mkPen(color, width=2))
            for (key, label), color in zip(health.TREND_METRICS, LINE_COLORS, strict=True)
        }
        self.trend_note = QLabel("")
        self.trend_note.setObjectName("muted")
        self.trend_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.trend_stack = QStackedWidget()
        self.trend_stack.addWidget(self.plot)
        self.no_history = EmptyState(
            tr("Trends are not available in this version"),
            tr("This engine keeps no health snapshots yet; the cards above are live counts."),
        )
        self.trend_stack.addWidget(self.no_history)
        root.addWidget(self.trend_stack, 1)
        root.addWidget(self.trend_note)
        self._style_plot()

        ctx.bridge.health_changed.connect(self.changed)
        ctx.bridge.agents_changed.connect(self.changed)

    def dispose(self) -> None:
        # pyqtgraph keeps Python-owned graphics items; closing the plot clears
        # its scene on the GUI thread before the widget goes, instead of leaving
        # them to a later garbage collection (which crashed the app).
        self.plot.close()

    def _style_plot(self) -> None:
        c = colors(current_scheme())
        self.plot.setBackground(c["card"])
        for axis in ("left", "bottom"):
            ax = self.plot.getAxis(axis)
            ax.setPen(pg.mkPen(c["border"]))
            ax.setTextPen(pg.mkPen(c["muted"]))
        self.legend.setLabelTextColor(c["text"])
        card = pg.mkColor(c["card"])
        card.setAlpha(215)
        self.legend.setBrush(pg.mkBrush(card))
        self.legend.setPen(pg.mkPen(c["border"]))

    def _open(self, page: str, args: dict[str, Any]) -> None:
        agent = self.agent_box.currentData()
        # Nothing archived yet: what is fading is what the card can show.
        if page == "archive" and self.view is not None and not self.view.archived:
            args = {**args, "view": "fading"}
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
        total = sum(view.totals.values())
        active = view.totals.get("active", 0)
        others = [
            tr("{n} {status}").format(n=view.totals.get(s, 0), status=tr(s))
            for s in ("archived", "superseded", "forgotten")
            if view.totals.get(s)
        ]
        self.cards["memories"].show_value(
            f"{active:,}", " · ".join(others) or tr("{n} in all").format(n=total)
        )
        self._value("never_recalled", view.never_recalled, tr("recalled by no agent yet"))
        self._value(
            "conflicts",
            view.open_conflicts,
            tr("oldest: {age}").format(age=fmt_age(view.oldest_conflict_age_s))
            if view.open_conflicts
            else tr("nothing to review"),
        )
        skills = view.skills_to_review or 0
        self._value(
            "insights",
            view.proposals_waiting,
            tr("{n} grown skills to look at").format(n=skills)
            if skills
            else tr("proposed from the memories"),
        )
        self._value(
            "unembedded",
            view.unembedded,
            tr("oldest waiting: {age}").format(age=fmt_age(view.oldest_unembedded_age_s))
            if view.unembedded
            else tr("index up to date"),
        )
        if view.archive_candidates is not None:
            note = tr("{n} candidates").format(n=view.archive_candidates)
        else:
            note = tr("candidates: not available in this version")
        self._value("archived", view.archived, note)
        self._value("secrets", view.pending_requests, tr("requests waiting for you"))
        self._value("tape", view.tape_entries, tr("entries on the tape"))
        self._show_history(view)
        self._finish_load()

    def _value(self, key: str, value: int | None, note: str) -> None:
        if value is None:
            self.cards[key].show_unavailable()
        else:
            self.cards[key].show_value(f"{value:,}", note)

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

    def _show_history(self, view: health.HealthView) -> None:
        # Update the existing plot items; never rebuild them.
        if view.history is None:
            for line in self.lines.values():
                line.setData([], [])
            self.trend_stack.setCurrentWidget(self.no_history)
            self.trend_note.setText("")
            return
        self.trend_stack.setCurrentWidget(self.plot)
        xs = [t for t, _ in view.history]
        top = 0.0  # the highest point drawn, to keep the legend above it
        for key, line in self.lines.items():
            pts = [(t, v[key]) for t, v in view.history if key in v]
            line.setData([p[0] for p in pts], [p[1] for p in pts])
            top = max([top, *(p[1] for p in pts)])
        self.trend_note.setText("" if xs else tr("No snapshots in this range yet."))
        if xs:
            self.plot.enableAutoRange(axis="x")
            self.plot.setYRange(-0.03 * max(top, 1), max(top, 1) * HEADROOM, padding=0)
        else:
            # Nothing to fit: show the chosen range's dates, not an axis of fractions.
            days = self.range_box.currentData() or 30
            now = time.time()
            self.plot.setXRange(now - days * 86400, now, padding=0)
            self.plot.setYRange(0, 10, padding=0)
