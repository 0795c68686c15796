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


def cross_script_reasons() -> set[str]:
    """The reasons the offline arbiter gives between a Chinese and an English memory (its
    cross-script rules), over every pair of the sets' Chinese and English cases."""
    arbiter = OfflineArbiter()
    sets = ("decisions.jsonl", "decisions_holdout.jsonl")
    cases = [c for name in sets for c in load_cases(DATA / name)]
    zh = [c for c in cases if re.search(r"[\u4e00-\u9fff]", c.candidate.text)]
    en = [c for c in cases if not re.search(r"[\u4e00-\u9fff]", c.candidate.text)]
    reasons = set()
    for chinese, english in zip(zh, en, strict=False):
        for case, other in ((chinese, english), (english, chinese)):
            for sim in (0.3, 0.6, 0.95):
                near = [Neighbour(e.id, e.text, e.category, similarity=sim) for e in other.existing]
                near += [Neighbour(e.id, e.text, e.category, similarity=sim) for e in case.existing]
                reasons.add(arbiter.decide(case.candidate, near).reason)
    return {r for r in reasons if "other language" in r}


def test_every_offline_reason_reads_in_chinese_and_stays_english_in_english(qapp, english) -> None:
    across = cross_script_reasons()
    assert len(across) > 10
    reasons = offline_reasons() | across
    assert len(reasons) > 60
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
    # said from the code the engine keeps (the English phrases are for reasons without one)
    view = next(c for c in page.model.rows if c.new.memory_id == raised.memory.id)
    assert (view.reason_code, view.reason_params["what"]) == ("differs", ["value"])
    with qtbot.waitSignal(session.window.language_changed):
        session.window.language_actions["zh"].trigger()
    page = session.window.pages["conflicts"]
    if not page.has_loaded:
        qtbot.waitSignal(page.loaded, timeout=10000).wait()
    assert shown().startswith("同一主题的取值不同，但没有说明哪个是现在的；"), shown()
    assert not re.search(r"[A-Za-z]{3,}", shown())
    with qtbot.waitSignal(session.window.language_changed):
        session.window.language_actions["en"].trigger()


def test_every_request_reason_code_has_chinese_with_the_same_parameters() -> None:
    from app import REQUEST_REASONS
    from ui.reasons import REQUEST_ZH, template_fields

    assert set(REQUEST_ZH) == set(REQUEST_REASONS)
    for code, english in REQUEST_REASONS.items():
        assert template_fields(REQUEST_ZH[code]) == template_fields(english), code


def test_a_request_reason_is_said_from_its_code(qapp, english) -> None:
    from datetime import UTC, datetime

    from app import AccessRequest
    from ui.reasons import request_reason

    def request(status: str, code: str, params: dict, text: str) -> AccessRequest:
        now = datetime(2026, 12, 1, tzinfo=UTC)
        return AccessRequest(
            1, "cc", "DB", "deploy", None, "review", status, None, text, None, None,
            now, None, now, None, reason_code=code, reason_params=params,
        )  # fmt: skip

    escalated = request(
        "pending", "rate_limit", {"allowed": 20, "agent": "cc", "window_seconds": 3600,
                                  "by": "rules"},
        "reviewer (rules) asks a person: rate limit: the reviewer already allowed 20 reads "
        "for 'cc' in the last 3600 seconds",
    )  # fmt: skip
    expired = request("expired", "no_answer_within", {"seconds": 30}, "no answer within 30 seconds")
    assert request_reason(escalated) == escalated.decision_reason  # English: the stored text
    i18n.install_language("zh")
    try:
        assert request_reason(escalated) == (
            "审查规则请你决定：频率限制：审查者在最近 3600 秒内已为 'cc' 批准了 20 次读取"
        )
        assert request_reason(expired) == "30 秒内没有答复"
    finally:
        i18n.install_language("en")


def test_every_learned_reason_reads_in_chinese(qapp, english) -> None:
    """The learned arbiter's reasons on the decision sets (with and without cosines, across
    languages too) read in Chinese with their figures kept, and every word it can name has
    its Chinese."""
    from app.confront.arbiter import LearnedArbiter
    from app.confront.arbiter.learned.pair import WORDS
    from ui.reasons import LEARNED_ZH

    assert set(WORDS.values()) <= set(LEARNED_ZH)
    arbiter = LearnedArbiter()
    reasons = {arbiter.decide(Candidate("anything", "lesson"), []).reason}
    for path in ("decisions.jsonl", "decisions_crosslang.jsonl", "decisions_mixed.jsonl"):
        for case in load_cases(DATA / path):
            for sim in (0.9, 0.5, None):
                near = [Neighbour(e.id, e.text, e.category, similarity=sim) for e in case.existing]
                reasons.add(arbiter.decide(case.candidate, near).reason)
    assert any(r.startswith("looks like") for r in reasons)
    assert any(r.startswith("nothing here") for r in reasons)
    i18n.install_language("zh")
    try:
        for reason in reasons:
            shown = reason_text(reason)
            assert not re.search(r"[A-Za-z]{3,}", shown), (reason, shown)
            assert re.findall(r"\d+%|\d\.\d\d", shown) == re.findall(r"\d+%|\d\.\d\d", reason)
    finally:
        i18n.install_language("en")
    assert all(reason_text(r) == r for r in reasons)
