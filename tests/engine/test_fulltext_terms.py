"""Full-text query handling: English stems and stop words, Chinese questions as bigrams."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from app import Engine
from app.engine import runtime_of
from app.limits import MAX_ENTRY_TERMS
from app.text.terms import SPLIT_HOLDING_GIL_CHARS, index_tokens, query_terms, stem, text_terms


def _ids(engine: Engine, query: str, **kw: object) -> list[int]:
    return [h.id for h in engine.search("a", query, mode="fulltext", **kw).hits]  # type: ignore[arg-type]


def test_an_inflected_word_finds_its_other_forms(engine: Engine) -> None:
    engine.add_agent("a")
    hike = engine.remember("a", "Sam went hiking in the Alps last summer.", "preference")
    engine.remember("a", "Sam drinks green tea.", "preference")
    assert hike.memory is not None
    assert _ids(engine, "hikes") == [hike.memory.id]
    assert _ids(engine, "Does Sam like hikes?")[0] == hike.memory.id


def test_stop_words_do_not_rank_a_memory(engine: Engine) -> None:
    engine.add_agent("a")
    noise = engine.remember("a", "What was it that they did there and then?", "lesson")
    db = engine.remember("a", "The project database is PostgreSQL 16.", "project_fact")
    assert noise.memory is not None and db.memory is not None
    assert _ids(engine, "What is the database of the project?") == [db.memory.id]
    # A query made only of stop words still searches for them.
    assert _ids(engine, "what did they do") == [noise.memory.id]


def test_a_chinese_question_finds_words_that_are_not_contiguous_in_it(engine: Engine) -> None:
    engine.add_agent("a")
    coffee = engine.remember("a", "小林每天早上喝黑咖啡。", "preference")
    engine.remember("a", "小林的项目部署在上海机房。", "project_fact")
    assert coffee.memory is not None
    hits = _ids(engine, "小林早上一般喝什么咖啡?")
    assert hits[0] == coffee.memory.id


def test_query_terms_drop_particles_but_never_everything() -> None:
    # 喝什, 什么, 么咖 hold particles; the characters count as weaker terms.
    assert query_terms("喝什么咖啡") == ['"咖啡"', '"喝"', '"咖"', '"啡"']
    assert query_terms("什么") == ['"什么"']
    assert query_terms("hiking boots") == ['("hiking" OR "hike")', '("boots" OR "boot")']


def test_index_tokens_store_stems_and_cjk_bigrams() -> None:
    tokens = index_tokens("Running 咖啡店", 3).split()
    assert tokens[0] == "tmagent3x"
    assert "run" in tokens and "running" not in tokens
    assert {"咖", "啡", "店", "咖啡", "啡店"} <= set(tokens)
    assert stem("caf") == "caf" and stem("über") == "über"  # short or non-ASCII: as is


@pytest.mark.embedded_only  # FTS5 rows written by an older version
def test_rows_indexed_before_stemming_still_match(engine: Engine) -> None:
    engine.add_agent("a")
    old = engine.remember("a", "Lin enjoys running marathons.", "preference")
    assert old.memory is not None
    # Rewrite the row's tokens the way homes written before stemming hold them.
    with runtime_of(engine).write() as s:
        s.connection().execute(
            text("UPDATE memory_fts SET tokens = :t WHERE rowid = :id"),
            {"t": "tmagent1x lin enjoys running marathons", "id": old.memory.id},
        )
    assert _ids(engine, "running") == [old.memory.id]
    assert _ids(engine, "marathons") == [old.memory.id]


def test_a_chinese_word_written_against_a_latin_one_is_found(engine: Engine) -> None:
    engine.add_agent("a")
    bill = engine.remember("a", "Tundra的账单用Postgres数据库存。", "project_fact")
    engine.remember("a", "The Tundra team meets on Mondays.", "project_fact")
    assert bill.memory is not None
    assert _ids(engine, "账单") == [bill.memory.id]
    assert _ids(engine, "数据库") == [bill.memory.id]
    assert _ids(engine, "Postgres") == [bill.memory.id]
    assert bill.memory.id in _ids(engine, "Tundra")
    # Tape entries too, in both directions of the mix.
    engine.append(
        "a", [{"thread": "t", "kind": "message", "role": "user", "text": "部署到k8s集群"}]
    )
    assert [h.entry.text for h in engine.search("a", "集群", scope="tape").hits if h.entry] == [
        "部署到k8s集群"
    ]


def test_english_text_gives_one_stemmed_term_per_word_whatever_its_size() -> None:
    assert text_terms("Hiking, HIKING and hikes: 3 trails!") == [
        "hike", "hike", "and", "hike", "3", "trail",
    ]  # fmt: skip
    # A text too long to split holding the GIL gives the same terms.
    long = "hiking boots " * (SPLIT_HOLDING_GIL_CHARS // 6)
    assert text_terms(long) == ["hike", "boot"] * min(len(long) // 13, MAX_ENTRY_TERMS // 2)
    assert text_terms("Café ﬁne") == ["café", "fine"]  # NFKC still applies to non-ASCII


def test_text_with_cjk_keeps_characters_and_bigrams_beside_words() -> None:
    assert text_terms("Postgres数据库 hiking") == [
        "postgr", "数", "据", "库", "数据", "据库", "hike",
    ]  # fmt: skip
