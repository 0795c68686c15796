"""Agents: the list, adding one, and each agent's settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..context import AppContext
from ..i18n import counted, tr
from ..mcp_config import McpConfigDialog, load_snippets
from ..widgets import fmt_time, section_label, title_label
from .base import Page

if TYPE_CHECKING:
    from app import Agent, AgentStats, Engine, IndexStatus

NAME_ROLE = Qt.ItemDataRole.UserRole
ARBITER_LABELS = {
    "offline": "offline (no model)",
    "learned": "learned (offline, fitted on examples)",
    "llm": "LLM (OpenAI-compatible)",
}


def load_agents(engine: Engine) -> list[tuple[Agent, AgentStats]]:
    return [(a, engine.agent_stats(a.name)) for a in engine.agents()]


def active_memories(n: int) -> str:
    """ "3 active memories": the figure `tapemind agent list` gives too (ACTIVE MEMORIES)."""
    return counted(n, tr("{n} active memory"), tr("{n} active memories"))


def home_embedder(engine: Engine) -> str:
    """The home's embedder model (one per home)."""
    return engine.index_status().model


class AddAgentDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Add an agent"))
        self.setMinimumWidth(380)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel(tr("A name for the agent (letters, digits, '.', '-' or '_'):")))
        self.name = QLineEdit()
        self.name.setPlaceholderText(tr("e.g. claude-code"))
        lay.addWidget(self.name)
        self.error = QLabel("")
        self.error.setStyleSheet("color: #d64545;")
        self.error.setWordWrap(True)
        lay.addWidget(self.error)
        # `accepted` of the buttons is not wired to accept(): the page closes the
        # dialog only once the engine has added the agent (or shows its error here).
        self.buttons = QDialogButtonBox()
        self.ok = self.buttons.addButton(tr("Add"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(tr("Cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)


class AgentsPage(Page):
    name = "agents"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        from app import ARBITERS, EMBEDDER_MODELS, MAX_BUDGET, PERMISSION_MODES

        super().__init__(ctx, parent)
        self.rows: list[tuple[Agent, AgentStats]] = []
        self.selected: str | None = None
        # An agent just added, to select once a load that knows it arrives (a load
        # started before the add must not move the selection elsewhere).
        self._adding: str | None = None
        self.dialog: Any = None
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 20, 24, 16)
        head = QHBoxLayout()
        head.addWidget(title_label(tr("Agents")))
        head.addStretch(1)
        self.add_button = QPushButton(tr("Add agent…"))
        self.add_button.clicked.connect(self.ask_add)
        head.addWidget(self.add_button)
        root.addLayout(head)

        body = QHBoxLayout()
        self.list = QListWidget()
        self.list.setMaximumWidth(280)
        self.list.currentItemChanged.connect(self._picked)
        body.addWidget(self.list)
        panel = QFrame()
        panel.setObjectName("panel")
        form_lay = QVBoxLayout(panel)
        form_lay.setContentsMargins(18, 14, 18, 14)
        self.heading = QLabel("")
        self.heading.setObjectName("emptyTitle")
        form_lay.addWidget(self.heading)
        self.stats = QLabel("")
        self.stats.setObjectName("muted")
        self.stats.setWordWrap(True)
        form_lay.addWidget(self.stats)
        form_lay.addWidget(section_label(tr("Settings")))
        form = QFormLayout()
        self.half_life = QDoubleSpinBox()
        self.half_life.setRange(0.5, 3650)
        self.half_life.setDecimals(1)
        self.half_life.setSuffix(" " + tr("days"))
        self.budget = QSpinBox()
        self.budget.setRange(50, MAX_BUDGET)
        self.budget.setSingleStep(100)
        self.budget.setSuffix(" " + tr("tokens"))
        self.mode = QComboBox()
        for m in PERMISSION_MODES:
            self.mode.addItem(tr(m), m)
        self.arbiter = QComboBox()
        for arbiter in ARBITERS:
            self.arbiter.addItem(tr(ARBITER_LABELS[arbiter]), arbiter)
        self.llm = QLineEdit()
        self.llm.setPlaceholderText("qwen2.5:3b@http://127.0.0.1:11434/v1")
        self.arbiter.currentIndexChanged.connect(
            lambda _i: self.llm.setEnabled(self.arbiter.currentData() == "llm")
        )
        # One embedder per home: changing it re-embeds everything in the background.
        self.embedder = QComboBox()
        for model in EMBEDDER_MODELS:
            self.embedder.addItem(model, model)
        self.home_model: str | None = None
        form.addRow(tr("Half-life"), self.half_life)
        form.addRow(tr("Recall budget"), self.budget)
        form.addRow(tr("Permission mode"), self.mode)
        form.addRow(tr("Arbiter"), self.arbiter)
        form.addRow(tr("LLM (model@URL)"), self.llm)
        form.addRow(tr("Embedder (whole home)"), self.embedder)
        for w in (self.half_life, self.budget, self.mode, self.arbiter, self.llm, self.embedder):
            w.setMaximumWidth(260)
        form_lay.addLayout(form)
        note = QLabel(
            tr(
                "Half-life: how fast an unused memory fades. Recall budget: how many tokens "
                "of memories an agent gets per turn. Permission mode: how the agent's "
                "requests for secrets are answered."
            )
        )
        note.setObjectName("muted")
        note.setWordWrap(True)
        form_lay.addWidget(note)
        buttons = QHBoxLayout()
        self.save_button = QPushButton(tr("Save settings"))
        self.save_button.clicked.connect(self.save)
        self.mcp_button = QPushButton(tr("Copy MCP configuration…"))
        self.mcp_button.clicked.connect(self.show_mcp)
        buttons.addWidget(self.mcp_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        form_lay.addLayout(buttons)
        form_lay.addStretch(1)
        body.addWidget(panel, 1)
        root.addLayout(body, 1)
        ctx.bridge.agents_changed.connect(self.changed)

    def refresh(self, *_: object) -> None:
        self._start_load()
        self.ctx.runner.read(
            load_agents, self.ctx.engine, on_result=self._loaded, on_error=self._finish_load
        )
        self.ctx.runner.read(home_embedder, self.ctx.engine, on_result=self._model_loaded)

    def _model_loaded(self, model: str) -> None:
        self.home_model = model
        index = self.embedder.findData(model.split("-")[0])
        self.embedder.setCurrentIndex(max(0, index))

    def _loaded(self, rows: list[tuple[Agent, AgentStats]]) -> None:
        self.rows = rows
        self.list.blockSignals(True)
        self.list.clear()
        for agent, stats in rows:
            # Active memories, the figure `tapemind agent list` gives too.
            n = active_memories(stats.active)
            item = QListWidgetItem(f"{agent.name}\n{n}")
            item.setData(NAME_ROLE, agent.name)
            self.list.addItem(item)
        self.list.blockSignals(False)
        names = [a.name for a, _ in rows]
        if self._adding is not None and self._adding in names:
            self.selected, self._adding = self._adding, None
        if self.selected not in names:
            self.selected = names[0] if names else None
        if self.selected is not None:
            self.list.setCurrentRow(names.index(self.selected))
        self._show_selected()
        self._finish_load()

    def _picked(self, item: QListWidgetItem | None, _prev: Any = None) -> None:
        if item is not None:
            self.selected = item.data(NAME_ROLE)
            self._show_selected()

    def _show_selected(self) -> None:
        row = next(((a, s) for a, s in self.rows if a.name == self.selected), None)
        enabled = row is not None
        for w in (self.half_life, self.budget, self.mode, self.arbiter, self.save_button):
            w.setEnabled(enabled)
        if row is None:
            self.heading.setText(tr("No agents yet"))
            self.stats.setText(tr("Add an agent to give it a tape and memories."))
            return
        agent, stats = row
        self.heading.setText(agent.name)
        others = [
            tr("{n} {status}").format(n=n, status=tr(status))
            for status, n in sorted(stats.memories.items())
            if status != "active" and n
        ]
        memories = active_memories(stats.active)
        self.stats.setText(
            tr("Added {when} · {entries} in {threads} · {memories}").format(
                when=fmt_time(agent.created_at),
                entries=counted(stats.tape_entries, tr("{n} tape entry"), tr("{n} tape entries")),
                threads=counted(stats.threads, tr("{n} thread"), tr("{n} threads")),
                memories=memories + (f" ({', '.join(others)})" if others else ""),
            )
        )
        s = agent.settings
        self.half_life.setValue(float(s.half_life_days))
        self.budget.setValue(int(s.recall_budget))
        self.mode.setCurrentIndex(max(0, self.mode.findData(s.permission_mode)))
        self.arbiter.setCurrentIndex(max(0, self.arbiter.findData(s.arbiter)))
        self.llm.setText(s.llm or "")
        self.llm.setEnabled(s.arbiter == "llm")

    def save(self) -> None:
        if self.selected is None:
            return
        self.ctx.runner.write(
            self.ctx.engine.configure_agent,
            self.selected,
            half_life_days=self.half_life.value(),
            recall_budget=self.budget.value(),
            permission_mode=self.mode.currentData(),
            arbiter=self.arbiter.currentData(),
            llm=self.llm.text().strip() or None,
            on_error=self._save_failed,
        )
        chosen = self.embedder.currentData()
        current = (self.home_model or "").split("-")[0]
        if self.home_model is not None and chosen != current:
            # Re-embeds in the background; searches use the old model until it is done.
            self.ctx.runner.write(
                self.ctx.engine.rebuild_index,
                chosen,
                on_result=self._model_changed,
                on_error=self._save_failed,
            )

    def _model_changed(self, status: IndexStatus) -> None:
        self.home_model = status.model

    def _save_failed(self, error: Any) -> None:
        QMessageBox.warning(self, tr("Settings not saved"), str(error))

    def show_mcp(self) -> None:
        if self.selected is None:
            return
        self.ctx.runner.read(
            load_snippets, self.ctx.engine, self.selected, on_result=self._snippets_loaded
        )

    def _snippets_loaded(self, snippets: list[Any]) -> None:
        self.dialog = McpConfigDialog(self.selected or "", snippets, self)
        self.dialog.open()

    def ask_add(self) -> None:
        self.dialog = AddAgentDialog(self)
        self.dialog.buttons.accepted.connect(self._add)
        self.dialog.open()

    def _add(self) -> None:
        assert self.dialog is not None
        name = self.dialog.name.text().strip()
        self.ctx.runner.write(
            self.ctx.engine.add_agent, name, on_result=self._added, on_error=self._add_failed
        )

    def _added(self, agent: Agent) -> None:
        self.selected = self._adding = agent.name
        if self.dialog is not None:
            self.dialog.accept()

    def _add_failed(self, exc: object) -> None:
        if self.dialog is not None:
            self.dialog.error.setText(str(exc))
