"""Vault: secret names, tags and grants; pending access requests and their answers."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..i18n import tr
from ..probe import age_seconds, field
from ..tablemodels import Column, RowsModel
from ..widgets import fmt_age, section_label, title_label, unavailable
from .base import Page

ID_ROLE = Qt.ItemDataRole.UserRole


def _join(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return ", ".join(str(field(v, "agent", "name", default=v)) for v in value)


SECRET_COLUMNS = (
    Column("Name", lambda s: str(field(s, "name", default=""))),
    Column("Tags", lambda s: _join(field(s, "tags"))),
    Column("Grants", lambda s: _join(field(s, "grants"))),
)


def load_vault(engine: Any) -> tuple[list[Any], list[Any]]:
    pending = (
        engine.access_requests(status="pending")
        if callable(getattr(engine, "access_requests", None))
        else []
    )
    return list(engine.secrets()), list(pending)


def request_text(r: Any) -> str:
    """One line for a pending request: agent, secret, reason, reviewer, age."""
    parts = [
        tr("{agent} asks for {secret}").format(
            agent=field(r, "agent", default="?"), secret=field(r, "secret", "name", default="?")
        )
    ]
    reason = field(r, "reason")
    if reason:
        parts.append(tr("Reason: {reason}").format(reason=reason))
    verdict = field(r, "verdict", "review", "reviewer_verdict")
    if verdict:
        parts.append(tr("Reviewer: {verdict}").format(verdict=verdict))
    age = age_seconds(r)
    if age is not None:
        parts.append(tr("waiting {age}").format(age=fmt_age(age)))
    return "\n".join(parts)


class VaultPage(Page):
    name = "vault"

    def __init__(self, ctx: Any, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.available = ctx.has("secrets")
        self.can_answer = ctx.has("access_requests", "answer_request")
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 20, 24, 16)
        root.addWidget(title_label(tr("Vault")))
        if not self.available:
            root.addWidget(unavailable(tr("the secret vault")), 1)
            return
        root.addWidget(section_label(tr("Pending requests")))
        self.requests = QListWidget()
        self.requests.setMaximumHeight(180)
        root.addWidget(self.requests)
        answers = QHBoxLayout()
        answers.addStretch(1)
        self.answer_buttons: dict[str, QPushButton] = {}
        for key, label in (
            ("once", "Allow once"),
            ("session", "Allow this session"),
            ("always", "Always allow"),
            ("deny", "Deny"),
        ):
            button = QPushButton(tr(label))
            button.setEnabled(self.can_answer)
            button.clicked.connect(lambda _=False, k=key: self.answer(k))
            self.answer_buttons[key] = button
            answers.addWidget(button)
        root.addLayout(answers)
        root.addWidget(section_label(tr("Secrets")))
        self.model = RowsModel(SECRET_COLUMNS, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        root.addWidget(self.table, 1)
        note = QLabel(tr("Secret values are never shown here; agents get them only by request."))
        note.setObjectName("muted")
        root.addWidget(note)
        ctx.bridge.secrets_changed.connect(self.changed)
        ctx.bridge.requests_changed.connect(self.changed)

    def refresh(self, *_: object) -> None:
        if not self.available:
            self._finish_load()
            return
        self._start_load()
        self.ctx.runner.read(
            load_vault, self.ctx.engine, on_result=self._loaded, on_error=self._finish_load
        )

    def _loaded(self, result: tuple[list[Any], list[Any]]) -> None:
        secrets, pending = result
        self.model.set_rows(secrets)
        self.requests.clear()
        for r in pending:
            item = QListWidgetItem(request_text(r))
            item.setData(ID_ROLE, field(r, "id"))
            self.requests.addItem(item)
        if not pending:
            empty = QListWidgetItem(tr("No requests are waiting."))
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.requests.addItem(empty)
        else:
            self.requests.setCurrentRow(0)
        self._finish_load()

    def answer(self, key: str) -> None:
        item = self.requests.currentItem()
        if item is None or item.data(ID_ROLE) is None:
            return
        allow = key != "deny"
        kwargs = {"allow": allow, "scope": key} if allow else {"allow": False}
        self.ctx.runner.write(
            self.ctx.engine.answer_request, item.data(ID_ROLE), **kwargs, on_result=self.changed
        )
