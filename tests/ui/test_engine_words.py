"""Codes the engine uses (categories, arbiters) reach the owner as words, in both languages."""

from __future__ import annotations

from ui import i18n
from ui.conflict_review import ConflictReviewDialog


def test_english_categories_read_as_words_not_codes(session, qtbot, open_page) -> None:
    page = open_page("memories")
    shown = {page.proxy.index(r, 1).data() for r in range(page.proxy.rowCount())}
    assert {"project fact", "task outcome"} <= shown
    assert not any("_" in c for c in shown)
    box = [page.category_box.itemText(i) for i in range(page.category_box.count())]
    assert "project fact" in box and "project_fact" not in box
    page.table.selectRow(
        next(
            r
            for r in range(page.proxy.rowCount())
            if page.proxy.index(r, 1).data() == "task outcome"
        )
    )
    qtbot.waitUntil(lambda: "task outcome" in page.detail.header.text(), timeout=5000)
    archive = open_page("archive")
    cells = {archive.model.index(r, 1).data() for r in range(archive.model.rowCount())}
    assert cells and not any("_" in c for c in cells)


def test_chinese_review_names_the_arbiter_in_chinese(session, qtbot, open_page) -> None:
    i18n.install_language("zh")
    page = open_page("conflicts")
    page.open_review()
    dialog = page.review
    assert isinstance(dialog, ConflictReviewDialog)
    qtbot.waitUntil(dialog.isVisible)
    assert "由离线仲裁器提出" in dialog.meta.text()
    assert "offline" not in dialog.meta.text()
    dialog.close()


def test_chinese_version_history_names_who_changed_it_in_chinese(session, qtbot, open_page) -> None:
    i18n.install_language("zh")
    page = open_page("memories")
    page.table.selectRow(0)
    versions = page.detail.versions
    qtbot.waitUntil(lambda: versions.count() > 0, timeout=5000)
    lines = [versions.item(i).text() for i in range(versions.count())]
    assert any(" · 智能体: " in line for line in lines)
    assert not any(" · agent: " in line for line in lines)
