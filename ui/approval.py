"""Approval prompts: when an agent asks for a secret, the owner answers at once.

`ApprovalWatcher` looks for pending access requests whenever the engine says
requests changed, and opens one `ApprovalPrompt` at a time. Every answer is
reachable by keyboard (mnemonics; Enter denies). Closing the prompt leaves the
request pending: it stays on the Vault page and in the tray. A request answered
elsewhere (the CLI, the Vault page) or expired closes its prompt; "this session"
is offered only to a request that came with a session (the engine refuses it
otherwise, and the prompt would have closed on an answer that did nothing); "for an
hour" is there for every agent, those without a session included.
Lights up when the engine has `access_requests` and `answer_request`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QDialog, QFormLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from .i18n import tr
from .probe import field
from .reasons import reason_text
from .widgets import fmt_age

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

    def __init__(self, request: Any, parent: Any = None) -> None:
        super().__init__(parent)
        self.request = request
        self.request_id = field(request, "id")
        self.setWindowTitle(tr("Secret requested"))
        self.setMinimumWidth(440)
        lay = QVBoxLayout(self)
        heading = QLabel(
            tr("{agent} asks for {secret}").format(
                agent=field(request, "agent", default="?"),
                secret=field(request, "secret", "name", default="?"),
            )
        )
        heading.setObjectName("emptyTitle")
        lay.addWidget(heading)
        form = QFormLayout()
        # An agent's reason can be a long sentence: wrap it, don't cut it at the edge.
        self.reason = QLabel(str(field(request, "reason", default="") or "—"))
        self.reason.setWordWrap(True)
        form.addRow(tr("Reason"), self.reason)
        verdict = field(request, "decision_reason", "verdict")
        self.verdict = QLabel(reason_text(str(verdict or "")) or "—")
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
        if not field(request, "session"):
            self.buttons["session"].setEnabled(False)
            self.buttons["session"].setToolTip(tr(NO_SESSION))
        lay.addLayout(row)
        self.expires = field(request, "expires_at")
        self.timer = QTimer(self)
        self.timer.setInterval(1000)
        self.timer.timeout.connect(self._tick)
        self._tick()
        if isinstance(self.expires, datetime):
            self.timer.start()

    def _tick(self) -> None:
        if not isinstance(self.expires, datetime):
            self.countdown.setText(tr("no time limit"))
            return
        left = (self.expires - datetime.now(UTC)).total_seconds()
        if left <= 0:
            self.countdown.setText(tr("expired"))
            self.timer.stop()
            for key in ("once", "session", "hour", "always"):
                self.buttons[key].setEnabled(False)
            return
        self.countdown.setText(fmt_age(left) if left >= 60 else tr("{n} s").format(n=int(left)))

    def answer(self, scope: str) -> None:
        self.timer.stop()
        self.answered.emit(self.request_id, scope)
        self.accept()


class ApprovalWatcher(QObject):
    """Opens a prompt for each new pending request, one at a time."""

    prompt_opened = Signal(object)

    def __init__(self, ctx: Any, parent: Any = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.window = parent
        self.prompt: ApprovalPrompt | None = None
        self.queue: list[Any] = []
        self.seen: set[Any] = set()
        self.enabled = ctx.has("access_requests", "answer_request")
        if self.enabled:
            ctx.bridge.requests_changed.connect(self.check)  # and check() once at start

    def check(self, *_: object) -> None:
        if not self.enabled:
            return
        self.ctx.runner.read(
            self.ctx.engine.access_requests, status="pending", on_result=self._pending
        )

    def _pending(self, requests: list[Any]) -> None:
        waiting = {field(r, "id") for r in requests}
        # answered elsewhere (CLI, Vault page, another prompt) or expired: not asked any more
        self.queue = [r for r in self.queue if field(r, "id") in waiting]
        if self.prompt is not None and self.prompt.request_id not in waiting:
            self.prompt.timer.stop()
            self.prompt.done(QDialog.DialogCode.Rejected)  # finished -> _closed -> _next
        for r in requests:
            rid = field(r, "id")
            if rid not in self.seen:
                self.seen.add(rid)
                self.queue.append(r)
        self._next()

    def _next(self) -> None:
        if self.prompt is not None or not self.queue:
            return
        self.prompt = ApprovalPrompt(self.queue.pop(0), self.window)
        self.prompt.answered.connect(self._answer)
        self.prompt.finished.connect(self._closed)
        self.prompt.open()
        self.prompt.raise_()
        self.prompt_opened.emit(self.prompt)

    def _answer(self, request_id: Any, scope: str) -> None:
        kwargs: dict[str, Any] = {"allow": scope != "deny"}
        if scope != "deny":
            kwargs["scope"] = scope
        self.ctx.runner.write(self.ctx.engine.answer_request, request_id, **kwargs)

    def _closed(self, *_: object) -> None:
        self.prompt = None
        self._next()
