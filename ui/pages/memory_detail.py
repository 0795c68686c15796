"""The detail pane of a memory: text, numbers, sources on the tape, lineage, versions."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ..i18n import tr, word
from ..widgets import EmptyState, fmt_time, one_line, section_label

ID_ROLE = Qt.ItemDataRole.UserRole


def _list(height: int = 110) -> QListWidget:
    widget = QListWidget()
    widget.setMaximumHeight(height)
    widget.setProperty("max_height", height)
    # One line per row (full text in the tooltip): rows keep one height, so the
    # list can be sized to its contents before it has a width.
    widget.setWordWrap(False)
    widget.setTextElideMode(Qt.TextElideMode.ElideRight)
    widget.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    widget.setUniformItemSizes(True)
    widget.setCursor(Qt.CursorShape.PointingHandCursor)
    return widget


def _fit(widget: QListWidget) -> None:
    """Size a list to its rows (up to its maximum) so short lists leave no holes."""
    widget.doItemsLayout()
    rows = widget.sizeHintForRow(0) * widget.count() if widget.count() else 0
    cap = int(widget.property("max_height") or 110)
    widget.setFixedHeight(min(cap, max(28, rows + 2 * widget.frameWidth() + 4)))


class MemoryDetailPane(QWidget):
    """Shows one MemoryDetail; emits what the owner clicks."""

    entry_activated = Signal(str, int)  # agent, entry id
    memory_activated = Signal(int)
    edit_requested = Signal()
    forget_requested = Signal()
    dispute_requested = Signal()  # a superseded memory: bring it back as a conflict

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.detail: Any = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.empty = EmptyState(tr("No memory selected"), tr("Pick a memory in the list."))
        outer.addWidget(self.empty)
        self.pane = QScrollArea()
        self.pane.setWidgetResizable(True)
        # The pane wraps to its width: a narrow window must not hide its right side.
        self.pane.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer.addWidget(self.pane)
        body = QWidget()
        self.pane.setWidget(body)
        lay = QVBoxLayout(body)
        lay.setContentsMargins(14, 10, 14, 10)
        self.header = QLabel()
        self.header.setObjectName("sectionTitle")
        self.header.setWordWrap(True)
        lay.addWidget(self.header)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setStyleSheet("font-size: 11.5pt; padding: 6px 0;")
        lay.addWidget(self.text)

        form = QFormLayout()
        form.setHorizontalSpacing(18)
        self.fields: dict[str, QLabel] = {}
        for key, label in (
            ("importance", "Importance"),
            ("confidence", "Confidence"),
            ("strength", "Strength"),
            ("recalls", "Recalls"),
            ("uses", "Uses"),
            ("last_recalled", "Last recalled"),
            ("created", "Created"),
            ("updated", "Updated"),
            ("thread", "Thread"),
        ):
            value = QLabel()
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.fields[key] = value
            form.addRow(tr(label), value)
        self.fields["strength"].setToolTip(
            tr(
                "How strong the memory is now: 1.00 when it was written, recalled or used, "
                "then halving over the agent's half-life (slower for important and often-used "
                "memories). Maintenance archives it once it fades below the agent's threshold."
            )
        )
        lay.addLayout(form)

        lay.addWidget(section_label(tr("Source tape entries")))
        self.sources = _list(180)
        self.sources.itemActivated.connect(self._entry_clicked)
        self.sources.itemClicked.connect(self._entry_clicked)
        lay.addWidget(self.sources)
        lay.addWidget(section_label(tr("Parents")))
        self.parents = _list()
        lay.addWidget(self.parents)
        lay.addWidget(section_label(tr("Children")))
        self.children_list = _list()
        lay.addWidget(self.children_list)
        for widget in (self.parents, self.children_list):
            widget.itemActivated.connect(self._memory_clicked)
            widget.itemClicked.connect(self._memory_clicked)
        lay.addWidget(section_label(tr("Versions")))
        self.versions = _list(120)
        self.versions.setCursor(Qt.CursorShape.ArrowCursor)
        lay.addWidget(self.versions)

        buttons = QHBoxLayout()
        self.edit_button = QPushButton(tr("Edit…"))
        self.edit_button.clicked.connect(self.edit_requested)
        self.forget_button = QPushButton(tr("Forget…"))
        self.forget_button.clicked.connect(self.forget_requested)
        buttons.addWidget(self.edit_button)
        buttons.addWidget(self.forget_button)
        self.dispute_button = QPushButton(tr("Bring back…"))
        self.dispute_button.setToolTip(
            tr("It should not have been replaced: review it against what replaced it")
        )
        self.dispute_button.clicked.connect(self.dispute_requested)
        buttons.addWidget(self.dispute_button)
        buttons.addStretch(1)
        lay.addLayout(buttons)
        lay.addStretch(1)
        self.show_detail(None)

    def show_detail(self, detail: Any) -> None:
        self.detail = detail
        self.empty.setVisible(detail is None)
        self.pane.setVisible(detail is not None)
        if detail is None:
            return
        m = detail.memory
        self.header.setText(
            f"#{m.id} · {word(m.category)} · {word(m.status)} · {tr('version')} {m.version}"
        )
        self.text.setText(m.text if m.text else tr("(forgotten: the text was removed)"))
        self.fields["importance"].setText(f"{m.importance:.2f}")
        self.fields["confidence"].setText(f"{m.confidence:.2f}")
        # 1.00 just recalled or used, halving every half-life: how near it is to fading.
        strength = "—" if m.strength is None else f"{m.strength:.2f}"
        self.fields["strength"].setText(strength)
        self.fields["recalls"].setText(str(m.recall_count))
        self.fields["uses"].setText(str(m.use_count))
        self.fields["last_recalled"].setText(fmt_time(m.last_recalled_at))
        self.fields["created"].setText(fmt_time(m.created_at))
        self.fields["updated"].setText(fmt_time(m.updated_at))
        self.fields["thread"].setText(m.thread or "—")
        self.sources.clear()
        for e in detail.sources:
            item = QListWidgetItem(f"#{e.id} · {e.thread} · {tr(e.role)}: {one_line(e.text, 160)}")
            item.setData(ID_ROLE, e.id)
            item.setToolTip(f"{tr('Open the tape around this entry')}\n\n{e.text[:600]}")
            self.sources.addItem(item)
        self._links(self.parents, detail.parents)
        self._links(self.children_list, detail.children)
        self.versions.clear()
        for v in detail.versions:
            who = word(v.changed_by)  # owner | agent | system, in the owner's language
            self.versions.addItem(
                f"v{v.version} · {fmt_time(v.changed_at)} · {who}: {one_line(v.text, 90)}"
            )
        for widget in (self.sources, self.parents, self.children_list, self.versions):
            _fit(widget)
        editable = m.status != "forgotten"
        self.edit_button.setEnabled(editable)
        self.forget_button.setEnabled(editable)
        self.dispute_button.setVisible(m.status == "superseded")

    def _links(self, widget: QListWidget, links: Any) -> None:
        widget.clear()
        for link in links:
            item = QListWidgetItem(
                f"#{link.memory_id} · {tr(link.relation)} · {one_line(link.text, 120)}"
            )
            item.setData(ID_ROLE, link.memory_id)
            item.setToolTip(link.text)
            widget.addItem(item)
        if not links:
            placeholder = QListWidgetItem(tr("none"))
            placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
            widget.addItem(placeholder)

    def _entry_clicked(self, item: QListWidgetItem) -> None:
        if self.detail is not None and item.data(ID_ROLE) is not None:
            self.entry_activated.emit(self.detail.memory.agent, int(item.data(ID_ROLE)))

    def _memory_clicked(self, item: QListWidgetItem) -> None:
        if item.data(ID_ROLE) is not None:
            self.memory_activated.emit(int(item.data(ID_ROLE)))
