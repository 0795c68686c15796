"""Insights: skills proposed from the agents' memories, and the skills grown so far.

"Find skills" runs an insights pass for the chosen agent (off the GUI thread); each
proposal waits in the queue and is reviewed in its own dialog: the draft beside its
evidence memories and their tape entries; accept, edit, reject. Below the queue, the grown
skills, those whose memories changed first (stale, or to review).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedLayout,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..context import AppContext
from ..i18n import counted, tr
from ..insight_data import ProposalView, SkillView, load_insights
from ..insight_review import InsightReviewDialog, writer_text
from ..tablemodels import Column, RowsModel
from ..widgets import EmptyState, fmt_time, one_line, section_label, title_label
from .base import Page

if TYPE_CHECKING:
    from app import GrownSkill, InsightsReport, Proposal

QUEUE_COLUMNS = (
    Column("Agent", lambda p: p.agent),
    Column("Skill", lambda p: p.name),
    Column("Kind", lambda p: tr(SHORT_KINDS.get(p.kind, p.kind))),
    Column("Steps", lambda p: str(p.steps), sort=lambda p: p.steps, align_right=True),
    Column("Description", lambda p: one_line(p.description, 140), tooltip=lambda p: p.description),
    Column(
        "Written by",
        lambda p: p.writer[4:] if p.writer.startswith("llm:") else tr("own words"),
        tooltip=lambda p: writer_text(p.writer),
    ),
    Column("Proposed", lambda p: fmt_time(p.created_at), sort=lambda p: p.created_at),
)

SHORT_KINDS: dict[str, str] = {"new": "new skill", "revision": "new version"}
STATES = {"current": "current", "review": "to review", "stale": "stale"}
WHAT = {
    "forgotten": "m{m} was forgotten",
    "superseded": "m{m} was superseded by m{o}",
    "contradicted": "m{m} is contradicted by m{o}",
    "edited": "m{m} was edited",
}


def why(s: SkillView) -> str:
    return "; ".join(tr(WHAT.get(w, w)).format(m=m, o=o) for m, w, o in s.issues)


SKILL_COLUMNS = (
    Column("Agent", lambda s: s.agent),
    Column("Skill", lambda s: s.name, tooltip=lambda s: s.text),
    Column("Version", lambda s: str(s.version), sort=lambda s: s.version, align_right=True),
    Column("State", lambda s: tr(STATES.get(s.state, s.state))),
    Column("Why", lambda s: why(s) or "—", tooltip=why),
    Column("Updated", lambda s: fmt_time(s.updated_at), sort=lambda s: s.updated_at),
)

HINT = "Double-click a proposal (or select it and press Enter) to review it beside its evidence."


def _table(model: RowsModel) -> QTableView:
    table = QTableView()
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(30)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return table


class InsightsPage(Page):
    """Pending proposals oldest first, then the grown skills. Review… (or a double-click,
    or Enter) opens the review dialog; the dashboard's card opens it on the oldest."""

    name = "insights"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.items: list[ProposalView] = []
        self.skills: list[SkillView] = []
        self.review: InsightReviewDialog | None = None
        self._review_on_load: dict[str, Any] | None = None
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 20, 24, 16)
        root.addLayout(self._head())
        self.stack = QStackedLayout()
        self.empty = EmptyState(
            tr("No proposed skills"),
            tr(
                "Choose an agent and press Find skills: lessons, outcomes and preferences "
                "that recur or are used together become skills for you to review."
            ),
        )
        self.model = RowsModel(QUEUE_COLUMNS, self)
        self.table = _table(self.model)
        for col, width in ((0, 110), (1, 200), (2, 170), (3, 60)):
            self.table.setColumnWidth(col, width)
        self.table.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(lambda index: self.open_review(index.row()))
        self.table.activated.connect(lambda index: self.open_review(index.row()))
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.table)
        root.addLayout(self.stack, 3)
        self.hint = QLabel(tr(HINT))
        self.hint.setObjectName("muted")
        root.addWidget(self.hint)
        root.addSpacing(8)
        root.addWidget(section_label(tr("Grown skills")))
        self.skill_model = RowsModel(SKILL_COLUMNS, self)
        self.skill_table = _table(self.skill_model)
        for col, width in ((0, 110), (1, 200), (2, 70), (3, 100)):
            self.skill_table.setColumnWidth(col, width)
        self.skill_table.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        root.addWidget(self.skill_table, 2)
        for signal in (ctx.bridge.insights_changed, ctx.bridge.memories_changed,
                       ctx.bridge.conflicts_changed, ctx.bridge.agents_changed):  # fmt: skip
            signal.connect(self.changed)

    def _head(self) -> QHBoxLayout:
        head = QHBoxLayout()
        head.addWidget(title_label(tr("Insights")))
        head.addStretch(1)
        self.count_label = QLabel("")
        self.count_label.setObjectName("muted")
        head.addWidget(self.count_label)
        head.addWidget(QLabel(tr("Agent")))
        self.agent_box = QComboBox()
        self.agent_box.setMinimumWidth(120)
        head.addWidget(self.agent_box)
        self.find_button = QPushButton(tr("&Find skills"))
        self.find_button.setToolTip(tr("Group this agent's memories and propose skills"))
        self.find_button.clicked.connect(self.find_skills)
        head.addWidget(self.find_button)
        self.review_button = QPushButton(tr("&Review…"))
        self.review_button.setEnabled(False)
        self.review_button.clicked.connect(lambda: self.open_review(self._selected_row()))
        head.addWidget(self.review_button)
        return head

    # -- loading -----------------------------------------------------------------------

    def open_with(self, args: dict[str, Any]) -> None:
        if args.get("review"):
            self._review_on_load = args
        self.refresh()

    def refresh(self, *_: object) -> None:
        self._start_load()
        self.ctx.runner.read(
            load_insights, self.ctx.engine, on_result=self._loaded, on_error=self._finish_load
        )

    def _loaded(self, found: tuple[list[ProposalView], list[SkillView], list[str]]) -> None:
        items, skills, agents = found
        self._sync_agents(agents)
        selected = self._selected_row()
        keep = self.items[selected].id if 0 <= selected < len(self.items) else None
        self.items, self.skills = items, skills
        self.model.set_rows(items)
        self.skill_model.set_rows(skills)
        self.stack.setCurrentIndex(1 if items else 0)
        self.review_button.setEnabled(bool(items))
        waiting = sum(s.state != "current" for s in skills)
        parts = [tr("{n} waiting").format(n=len(items))] if items else []
        if waiting:
            parts.append(counted(waiting, tr("{n} skill to look at"), tr("{n} skills to look at")))
        self.count_label.setText(" · ".join(parts))
        ids = [p.id for p in items]
        if items:
            self.table.selectRow(ids.index(keep) if keep in ids else 0)
        if self.review is not None:
            self.review.set_queue(items)
        if self._review_on_load is not None:
            wanted, self._review_on_load = self._review_on_load, None
            row = next((i for i, p in enumerate(items) if p.agent == wanted.get("agent")), 0)
            self.open_review(row)
        self._finish_load()

    def _sync_agents(self, agents: list[str]) -> None:
        present = [self.agent_box.itemText(i) for i in range(self.agent_box.count())]
        if present == agents:
            return
        current = self.agent_box.currentText()
        self.agent_box.clear()
        self.agent_box.addItems(agents)
        self.agent_box.setCurrentIndex(max(0, self.agent_box.findText(current)))
        self.find_button.setEnabled(bool(agents))

    def changed(self, *_: object) -> None:
        """Reload now while the review is open (it is modeless), else as any page."""
        if self.review is not None and self.review.isVisible():
            self.refresh()
        else:
            super().changed()

    # -- finding ------------------------------------------------------------------------

    def find_skills(self) -> None:
        agent = self.agent_box.currentText()
        if not agent:
            return
        self.find_button.setEnabled(False)
        self.count_label.setText(tr("Reading {agent}'s memories…").format(agent=agent))

        def found(report: InsightsReport) -> None:
            self.find_button.setEnabled(True)
            self.count_label.setText(
                tr("{groups} groups found, {created} new proposals").format(
                    groups=report.groups, created=report.created
                )
            )
            self.refresh()

        def failed(exc: object) -> None:
            self.find_button.setEnabled(True)
            self.count_label.setText(str(exc))

        self.ctx.runner.write(self.ctx.engine.insights, agent, on_result=found, on_error=failed)

    # -- the review dialog ----------------------------------------------------------------

    def _selected_row(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else (0 if self.items else -1)

    def open_review(self, row: int = 0) -> InsightReviewDialog | None:
        """Open (or bring up) the review dialog on the proposal at `row` of the queue."""
        if not self.items or not 0 <= row < len(self.items):
            return None
        if self.review is None:
            self.review = InsightReviewDialog(self.items, row, self)
            self.review.accept_requested.connect(self._accept)
            self.review.reject_requested.connect(self._reject)
            self.review.entry_activated.connect(self._open_entry)
            self.review.finished.connect(self._review_closed)
        else:
            self.review.set_queue(self.items)
            self.review.index = row
            self.review.show_current()
        self.review.show()
        self.review.raise_()
        self.review.activateWindow()
        return self.review

    def _review_closed(self, *_: object) -> None:
        review, self.review = self.review, None
        if review is not None:
            review.deleteLater()

    def _answer(self, proposal_id: int, said: str) -> tuple[Any, Any]:
        review = self.review

        def done(result: GrownSkill | Proposal) -> None:
            if review is not None and review is self.review:
                review.settled(proposal_id, said.format(name=result.name))
            self.changed()

        def failed(exc: object) -> None:
            if review is not None and review is self.review:
                review.failed(proposal_id, str(exc))

        return done, failed

    def _accept(self, proposal_id: int, text: object) -> None:
        done, failed = self._answer(proposal_id, tr("Accepted: agents now get the skill {name}."))
        self.ctx.runner.write(
            self.ctx.engine.accept_proposal, proposal_id, text, on_result=done, on_error=failed
        )

    def _reject(self, proposal_id: int) -> None:
        done, failed = self._answer(proposal_id, tr("Rejected: {name} is not proposed again."))
        self.ctx.runner.write(
            self.ctx.engine.reject_proposal, proposal_id, on_result=done, on_error=failed
        )

    def _open_entry(self, agent: str, entry_id: int) -> None:
        self.ctx.nav.page_requested.emit("tape", {"agent": agent, "entry": entry_id})

    def dispose(self) -> None:
        if self.review is not None:
            self.review.close()
