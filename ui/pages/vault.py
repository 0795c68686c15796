"""Vault: pending requests and their answers, secret names, tags and grants.

Values are never shown in a list: reveal asks first, and add/replace take the
value in a password field. Everything goes through the engine's vault API.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..approval import HOUR_TIP, NO_SESSION
from ..context import AppContext
from ..dialogs import ConfirmDialog
from ..i18n import tr
from ..reasons import request_reason
from ..tablemodels import Column, RowsModel
from ..widgets import age_since, fmt_age, fmt_time, section_label, title_label
from .base import Page

if TYPE_CHECKING:
    from app import AccessRequest, Engine, SecretInfo, VaultStatus

ID_ROLE = Qt.ItemDataRole.UserRole
SESSION_ROLE = Qt.ItemDataRole.UserRole + 1
ANSWERS = (  # app.GRANT_SCOPES, then deny
    ("once", "Allow once"),
    ("session", "Allow this session"),
    ("hour", "Allow for an hour"),
    ("always", "Always allow"),
    ("deny", "Deny"),
)


@dataclass(frozen=True)
class SecretRow:
    info: SecretInfo
    grants: tuple[str, ...]


@dataclass(frozen=True)
class VaultView:
    status: VaultStatus
    secrets: tuple[SecretRow, ...]
    pending: tuple[AccessRequest, ...]
    problem: str | None = None
    active_grants: int = 0
    next_lapse: datetime | None = None  # when the first hour grant shown ends


SECRET_COLUMNS = (
    Column("Name", lambda s: s.info.name),
    Column("Tags", lambda s: ", ".join(s.info.tags)),
    Column("Mode", lambda s: tr(s.info.mode) if s.info.mode else tr("agent's setting")),
    Column("Grants", lambda s: ", ".join(s.grants) or "—"),
    Column("Updated", lambda s: fmt_time(s.info.updated_at)),
)


def vault_error_text(exc: BaseException) -> str:
    """A vault error as the owner reads it: the engine's message, led by what to do in
    the owner's language when this computer lacks the key (the engine speaks English)."""
    from app import VaultKeyNotHere

    if isinstance(exc, VaultKeyNotHere):
        lead = tr(
            "This computer does not have the vault key. On a computer that has it, run "
            "`tapemind vault export-key --to FILE`; copy the file here and run "
            "`tapemind vault import-key FILE`."
        )
        return f"{lead}\n{exc}"
    return str(exc)


def load_vault(engine: Engine) -> VaultView:
    """Status, secrets with their active grants, pending requests (worker side)."""
    status = engine.vault_status()
    pending = tuple(engine.access_requests(status="pending"))
    try:
        secrets = engine.secrets()
    except Exception as exc:  # a locked vault: say so, keep the requests visible
        return VaultView(status, (), pending, vault_error_text(exc))
    holders: dict[str, list[str]] = {}
    lapses_first: datetime | None = None
    for g in engine.grants(active_only=True):
        lapses = g.expires_at
        # an hour grant ends within the hour: its time of day says when
        how = tr("until {time}").format(time=fmt_time(lapses)[-5:]) if lapses else tr(g.scope)
        label = f"{g.agent} ({how})"
        holders.setdefault(g.secret, []).append(label)
        if lapses is not None and (lapses_first is None or lapses < lapses_first):
            lapses_first = lapses
    rows = tuple(SecretRow(s, tuple(holders.get(s.name, ()))) for s in secrets)
    granted = sum(len(h) for h in holders.values())
    return VaultView(status, rows, pending, None, granted, lapses_first)


def request_text(r: AccessRequest) -> str:
    """What a pending request says: agent, secret, reason, reviewer, age."""
    parts = [tr("{agent} asks for {secret}").format(agent=r.agent, secret=r.secret)]
    if r.reason:
        parts.append(tr("Reason: {reason}").format(reason=r.reason))
    verdict = request_reason(r)
    if verdict:
        parts.append(tr("Reviewer: {verdict}").format(verdict=verdict))
    parts.append(tr("waiting {age}").format(age=fmt_age(age_since(r.created_at))))
    return "\n".join(parts)


class SecretDialog(QDialog):
    """Add or replace a secret: name, value (hidden), tags."""

    def __init__(self, name: str = "", tags: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Add a secret") if not name else tr("Replace a secret"))
        self.setMinimumWidth(420)
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.name = QLineEdit(name)
        self.name.setReadOnly(bool(name))
        self.value = QLineEdit()
        self.value.setEchoMode(QLineEdit.EchoMode.Password)
        self.tags = QLineEdit(tags)
        self.tags.setPlaceholderText(tr("comma-separated, e.g. staging, db"))
        form.addRow(tr("Name"), self.name)
        form.addRow(tr("Value"), self.value)
        form.addRow(tr("Tags"), self.tags)
        lay.addLayout(form)
        self.error = QLabel("")
        self.error.setStyleSheet("color: #d64545;")
        self.error.setWordWrap(True)
        lay.addWidget(self.error)
        self.buttons = QDialogButtonBox()
        self.ok = self.buttons.addButton(tr("Save"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(tr("Cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)

    def tag_list(self) -> list[str]:
        return [t.strip() for t in self.tags.text().split(",") if t.strip()]


class VaultPage(Page):
    name = "vault"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.view: VaultView | None = None
        self.dialog: Any = None
        # Reloads the page when an hour grant it shows ends: nothing else would say so.
        self.lapse_timer = QTimer(self)
        self.lapse_timer.setSingleShot(True)
        self.lapse_timer.timeout.connect(self.refresh)
        self.revealed: QLabel | None = None
        root = QVBoxLayout(self)
        root.setContentsMargins(24, 20, 24, 16)
        head = QHBoxLayout()
        head.addWidget(title_label(tr("Vault")))
        head.addStretch(1)
        self.status_label = QLabel("")
        self.status_label.setObjectName("muted")
        head.addWidget(self.status_label)
        root.addLayout(head)
        root.addWidget(section_label(tr("Pending requests")))
        self.requests = QListWidget()
        self.requests.setMaximumHeight(150)
        self.requests.currentItemChanged.connect(self._request_selected)
        root.addWidget(self.requests)
        answers = QHBoxLayout()
        answers.addStretch(1)
        self.answer_buttons: dict[str, QPushButton] = {}
        for key, label in ANSWERS:
            button = QPushButton(tr(label))
            button.clicked.connect(lambda _=False, k=key: self.answer(k))
            self.answer_buttons[key] = button
            answers.addWidget(button)
        self.answer_buttons["hour"].setToolTip(tr(HOUR_TIP))
        root.addLayout(answers)

        bar = QHBoxLayout()
        bar.addWidget(section_label(tr("Secrets")))
        bar.addStretch(1)
        self.add_button = QPushButton(tr("Add…"))
        self.add_button.clicked.connect(lambda: self.ask_set(None))
        self.replace_button = QPushButton(tr("Replace value…"))
        self.replace_button.clicked.connect(lambda: self.ask_set(self.selected()))
        self.reveal_button = QPushButton(tr("Reveal…"))
        self.reveal_button.clicked.connect(self.ask_reveal)
        self.remove_button = QPushButton(tr("Remove…"))
        self.remove_button.clicked.connect(self.ask_remove)
        self.rotate_button = QPushButton(tr("Rotate key…"))
        self.rotate_button.clicked.connect(self.ask_rotate)
        for b in (
            self.add_button,
            self.replace_button,
            self.reveal_button,
            self.remove_button,
            self.rotate_button,
        ):
            bar.addWidget(b)
        root.addLayout(bar)
        self.model = RowsModel(SECRET_COLUMNS, self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # A name is read whole (a cut one names another secret); tags and grants share the rest.
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(2, 120)
        self.table.setColumnWidth(4, 130)
        root.addWidget(self.table, 1)
        self.note = QLabel(
            tr(
                "Values stay hidden in the list: Reveal… shows one after asking, and the read "
                "is audited. Agents get a value only by request."
            )
        )
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        root.addWidget(self.note)
        ctx.bridge.secrets_changed.connect(self.changed)
        ctx.bridge.requests_changed.connect(self.changed)

    # -- loading ---------------------------------------------------------------------

    def refresh(self, *_: object) -> None:
        self._start_load()
        self.ctx.runner.read(
            load_vault, self.ctx.engine, on_result=self._loaded, on_error=self._finish_load
        )

    def _loaded(self, view: VaultView) -> None:
        self.view = view
        self.lapse_timer.stop()
        if view.next_lapse is not None:
            left = (view.next_lapse - datetime.now(UTC)).total_seconds()
            self.lapse_timer.start(max(0, int(left * 1000)) + 1000)
        st = view.status
        self.status_label.setText(
            tr("Key store: {where} · {n} secrets · {g} active grants").format(
                where=tr(st.keystore), n=len(view.secrets) or st.secrets, g=view.active_grants
            )
        )
        self.model.set_rows(view.secrets)
        if view.secrets:
            self.table.selectRow(0)
        self.requests.clear()
        for r in view.pending:
            item = QListWidgetItem(request_text(r))
            item.setData(ID_ROLE, r.id)
            item.setData(SESSION_ROLE, bool(r.session))
            self.requests.addItem(item)
        if not view.pending:
            empty = QListWidgetItem(tr("No requests are waiting."))
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.requests.addItem(empty)
        else:
            self.requests.setCurrentRow(0)
        for button in self.answer_buttons.values():
            button.setEnabled(bool(view.pending))
        self._request_selected()
        if view.problem:
            self.note.setText(tr("The vault is locked: {problem}").format(problem=view.problem))
        self._finish_load()

    def selected(self) -> SecretInfo | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()).info if rows else None

    # -- requests --------------------------------------------------------------------

    def _request_selected(self, *_: object) -> None:
        """ "This session" only for a request that came with one (the engine refuses it)."""
        item = self.requests.currentItem()
        button = self.answer_buttons["session"]
        has_session = item is not None and bool(item.data(SESSION_ROLE))
        if item is not None and item.data(ID_ROLE) is not None:
            button.setEnabled(has_session)
        button.setToolTip("" if has_session else tr(NO_SESSION))

    def answer(self, key: str) -> None:
        """Answer the selected request: once | session | hour | always, or deny."""
        item = self.requests.currentItem()
        if item is None or item.data(ID_ROLE) is None:
            return
        kwargs: dict[str, Any] = {"allow": key != "deny"}
        if key != "deny":
            kwargs["scope"] = key
        self.ctx.runner.write(self.ctx.engine.answer_request, item.data(ID_ROLE), **kwargs)

    # -- secrets ---------------------------------------------------------------------

    def ask_set(self, info: SecretInfo | None) -> None:
        name = info.name if info is not None else ""
        tags = ", ".join(info.tags) if info is not None else ""
        self.dialog = SecretDialog(name, tags, self)
        self.dialog.buttons.accepted.connect(self._set)
        self.dialog.open()

    def _set(self) -> None:
        d = self.dialog
        self.ctx.runner.write(
            self.ctx.engine.set_secret,
            d.name.text().strip(),
            d.value.text(),
            d.tag_list(),
            on_result=lambda _info: d.accept(),
            on_error=lambda exc: d.error.setText(vault_error_text(exc)),
        )

    def ask_remove(self) -> None:
        info = self.selected()
        if info is None:
            return
        self.dialog = ConfirmDialog(
            tr("Remove secret {name}?").format(name=info.name),
            tr("Its value and grants are deleted and its pending requests denied."),
            "",
            tr("Remove"),
            self,
        )
        self.dialog.accepted.connect(
            lambda: self.ctx.runner.write(self.ctx.engine.remove_secret, info.name)
        )
        self.dialog.open()

    def ask_rotate(self) -> None:
        self.dialog = ConfirmDialog(
            tr("Rotate the vault key?"),
            tr("Every secret is encrypted again under a new key."),
            "",
            tr("Rotate"),
            self,
        )
        self.dialog.accepted.connect(
            lambda: self.ctx.runner.write(
                self.ctx.engine.rotate_vault_key, on_result=self.changed, on_error=self._failed
            )
        )
        self.dialog.open()

    def ask_reveal(self) -> None:
        info = self.selected()
        if info is None:
            return
        self.dialog = ConfirmDialog(
            tr("Reveal {name}?").format(name=info.name),
            tr("The value is shown on screen until you close this window. The read is audited."),
            "",
            tr("Reveal"),
            self,
        )
        self.dialog.accepted.connect(lambda: self._reveal(info.name))
        self.dialog.open()

    def _reveal(self, name: str) -> None:
        self.ctx.runner.read(
            self.ctx.engine.reveal_secret, name, on_result=self._show_value, on_error=self._failed
        )

    def _failed(self, exc: BaseException) -> None:
        self.note.setText(vault_error_text(exc))

    def _show_value(self, value: str) -> None:
        box = QDialog(self)
        box.setWindowTitle(tr("Secret value"))
        lay = QVBoxLayout(box)
        self.revealed = QLabel(value)
        self.revealed.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.revealed.setStyleSheet("font-family: monospace; font-size: 12pt;")
        lay.addWidget(self.revealed)
        # Qt's own words are not translated (no qtbase catalogue ships): name it ourselves
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.button(QDialogButtonBox.StandardButton.Close).setText(tr("Close"))
        close.rejected.connect(box.reject)
        lay.addWidget(close)
        box.finished.connect(box.deleteLater)  # the value leaves memory with the dialog
        self.dialog = box
        box.open()
