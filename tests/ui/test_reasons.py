"""The offline arbiter's reasons read in Chinese when the app is in Chinese."""

from __future__ import annotations

import re
from pathlib import Path

from app.confront.arbiter import Candidate, Neighbour, OfflineArbiter
from app.confront.arbiter.evaluate import load_cases
from ui import i18n
from ui.pages.conflicts import QUEUE_COLUMNS
from ui.reasons import reason_text

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


def offline_reasons() -> set[str]:
    """Every reason the offline arbiter gives on the bilingual decision sets (all actions,
    with and without embeddings: cosine given, then absent)."""
    arbiter = OfflineArbiter()
    reasons = set()
    for path in ("decisions.jsonl", "decisions_holdout.jsonl"):
        for case in load_cases(DATA / path):
            for sim in (0.9, None):
                near = [
                    Neighbour(e.id, e.text, e.category, similarity=sim, fulltext_score=None)
                    for e in case.existing
                ]
                reasons.add(arbiter.decide(case.candidate, near).reason)
    reasons.add(arbiter.decide(Candidate("anything", "lesson"), []).reason)
    return reasons


def test_every_offline_reason_reads_in_chinese_and_stays_english_in_english(qapp, english) -> None:
    reasons = offline_reasons()
    assert len(reasons) > 50
    i18n.install_language("zh")
    try:
        for reason in reasons:
            shown = reason_text(reason)
            assert not re.search(r"[A-Za-z]{3,}", shown), (reason, shown)
            assert re.search(r"[\u4e00-\u9fff]", shown)
            # the scores survive the translation
            assert re.findall(r"\d\.\d\d", shown) == re.findall(r"\d\.\d\d", reason)
    finally:
        i18n.install_language("en")
    assert all(reason_text(r) == r for r in reasons)


def test_a_reason_from_an_llm_passes_through(qapp, english) -> None:
    i18n.install_language("zh")
    try:
        assert reason_text("两条记忆说的是不同的部署日") == "两条记忆说的是不同的部署日"
    finally:
        i18n.install_language("en")


def test_the_conflict_queue_shows_the_reason_in_chinese(session, qtbot, open_page) -> None:
    engine = session.engine
    agent = engine.agents()[0].name
    engine.remember(agent, "The user prefers tabs over spaces.", "preference")
    raised = engine.remember(agent, "The user prefers spaces over tabs.", "preference")
    assert raised.decision == "conflict"
    page = open_page("conflicts")
    column = [c.header for c in QUEUE_COLUMNS].index("Arbiter's reason")

    def shown() -> str:
        row = next(i for i, c in enumerate(page.model.rows) if c.new.memory_id == raised.memory.id)
        return str(page.model.data(page.model.index(row, column)))

    assert shown().startswith("a different value for the same subject")
    with qtbot.waitSignal(session.window.language_changed):
        session.window.language_actions["zh"].trigger()
    page = session.window.pages["conflicts"]
    if not page.has_loaded:
        qtbot.waitSignal(page.loaded, timeout=10000).wait()
    assert shown().startswith("同一主题的取值不同，但没有说明哪个是现在的；"), shown()
    assert not re.search(r"[A-Za-z]{3,}", shown())
    with qtbot.waitSignal(session.window.language_changed):
        session.window.language_actions["en"].trigger()
