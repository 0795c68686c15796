"""Approval prompts: when an agent asks for a secret, the owner answers at once.

`ApprovalWatcher` looks for pending access requests whenever the engine says
requests changed, and opens one `ApprovalPrompt` at a time for a request that
arrives while the app runs. The prompt is a window of its own beside the main
window, not modal: the sidebar, menus and pages keep working while it waits.
Requests that were already waiting when the app started do not pop up; the
watcher says how many wait (`waiting`), for the window's notice, the tray and
the Vault page, where they are answered. Every answer is reachable by keyboard
(mnemonics; Enter denies). Closing the prompt leaves the request pending. A
request answered elsewhere (the CLI, the Vault page) or expired closes its
prompt; "this session" is offered only to a request that came with a session
(the engine refuses it otherwise); "for an hour" is there for every agent.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QDialog, QFormLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from .i18n import tr
from .reasons import request_reason
from .widgets import fmt_age

if TYPE_CHECKING:
    from app import AccessRequest

    from .context import AppContext

NO_SESSION = (
    "This agent's connection has no session, so a grant for this session would never "
    "apply: allow once, for an hour, or always."
)
HOUR_TIP = "Every read by this agent for the next hour, then it asks again."

ANSWERS = (
    ("once", "Allow &once"),
    ("session", "Allow this &session"),
    ("hour", "Allow for an &hour"),
    ("always", "&Always allow"),
    ("deny", "&Deny"),
)


class ApprovalPrompt(QDialog):
    """One pending request; `answered(request_id, scope)` with scope
    once|session|hour|always|deny."""

    answered = Signal(object, str)

    def __init__(self, request: AccessRequest, parent: Any = None) -> None:
        super().__init__(parent)
        self.request = request
        self.request_id = request.id
        self.setWindowTitle(tr("Secret requested"))
        # Its own window: the main window stays usable while the request waits.
        self.setModal(False)
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.setMinimumWidth(440)
        lay = QVBoxLayout(self)
        heading = QLabel(
            tr("{agent} asks for {secret}").format(agent=request.agent, secret=request.secret)
        )
        heading.setObjectName("emptyTitle")
        lay.addWidget(heading)
        form = QFormLayout()
        # An agent's reason can be a long sentence: wrap it, don't cut it at the edge.
        self.reason = QLabel(request.reason or "—")
        self.reason.setWordWrap(True)
        form.addRow(tr("Reason"), self.reason)
        self.verdict = QLabel(request_reason(request) or "—")
        self.verdict.setWordWrap(True)
        form.addRow(tr("Reviewer"), self.verdict)
        self.countdown = QLabel("")
        form.addRow(tr("Time left"), self.countdown)
        lay.addLayout(form)
        row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for key, label in ANSWERS:
            button = QPushButton(tr(label))
            button.clicked.connect(lambda _=False, k=key: self.answer(k))
            self.buttons[key] = button
            row.addWidget(button)
        self.buttons["deny"].setDefault(True)  # Enter never grants
        self.buttons["hour"].setToolTip(tr(HOUR_TIP))
        if not request.session:
            self.buttons["session"].setEnabled(False)
            self.buttons["session"].setToolTip(tr(NO_SESSION))
        lay.addLayout(row)
        self.expires: datetime = request.expires_at
        self.timer = QTimer(self)
        self.timer.setInterval(1000)
        self.timer.timeout.connect(self._tick)
        self._tick()
        self.timer.start()

    def _tick(self) -> None:
        left = (self.expires - datetime.now(UTC)).total_seconds()
        if left <= 0:
            self.countdown.setText(tr("expired"))
            self.timer.stop()
            from app import GRANT_SCOPES

            for key in GRANT_SCOPES:  # every answer that would grant: gone with the time
                self.buttons[key].setEnabled(False)
            return
        self.countdown.setText(fmt_age(left) if left >= 60 else tr("{n} s").format(n=int(left)))

    def answer(self, scope: str) -> None:
        self.timer.stop()
        self.answered.emit(self.request_id, scope)
        self.accept()


class ApprovalWatcher(QObject):
    """Opens a prompt for each request that arrives while the app runs, one at a time;
    `waiting(n)` says how many requests are pending (after each look)."""

    prompt_opened = Signal(object)
    waiting = Signal(int)

    def __init__(self, ctx: AppContext, parent: Any = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.window = parent
        self.prompt: ApprovalPrompt | None = None
        self.queue: list[AccessRequest] = []
        self.seen: set[int] = set()
        self.started = False  # the first look only notes what already waits
        ctx.bridge.requests_changed.connect(self.check)  # and check() once at start

    def check(self, *_: object) -> None:
        self.ctx.runner.read(
            self.ctx.engine.access_requests, status="pending", on_result=self._pending
        )

    def _pending(self, requests: list[AccessRequest]) -> None:
        waiting = {r.id for r in requests}
        # answered elsewhere (CLI, Vault page, another prompt) or expired: not asked any more
        self.queue = [r for r in self.queue if r.id in waiting]
        if self.prompt is not None and self.prompt.request_id not in waiting:
            self.prompt.timer.stop()
            self.prompt.done(QDialog.DialogCode.Rejected)  # finished -> _closed -> _next
        for r in requests:
            if r.id not in self.seen:
                self.seen.add(r.id)
                if self.started:  # asked while the owner is here: ask at once
                    self.queue.append(r)
        self.started = True
        self.waiting.emit(len(requests))
        self._next()

    def _next(self) -> None:
        if self.prompt is not None or not self.queue:
            return
        self.prompt = ApprovalPrompt(self.queue.pop(0), self.window)
        self.prompt.answered.connect(self._answer)
        self.prompt.finished.connect(self._closed)
        self.prompt.show()
        self.prompt.raise_()
        self.prompt_opened.emit(self.prompt)

    def _answer(self, request_id: int, scope: str) -> None:
        kwargs: dict[str, Any] = {"allow": scope != "deny"}
        if scope != "deny":
            kwargs["scope"] = scope
        self.ctx.runner.write(self.ctx.engine.answer_request, request_id, **kwargs)

    def _closed(self, *_: object) -> None:
        self.prompt = None
        self._next()
