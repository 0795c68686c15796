"""Full-text and vector search on PostgreSQL: the embedded home's tokens, one agent's rows."""

from __future__ import annotations

import numpy as np
from sqlalchemy import Engine, text

from app.db import Qmark, postgres
from app.db.postgres.schema import agent_graph_name
from app.recall import terms_column
from app.text import index_tokens
from tests.postgres.helpers import NOW, add_agent, prepared

ADA_TEXTS = [
    "我对花生过敏，点菜时要避开",  # 0
    "周末喜欢去山里徒步",  # 1
    "She went hiking in the Alps last summer",  # 2
    "The deploy script needs the staging database URL",  # 3
    "咖啡要少糖",  # 4
]
BOB_TEXTS = [
    "我也对花生过敏",
    "Bob hikes every Sunday",
]


def _tapes(pg: Engine) -> tuple[int, int, list[int], list[int]]:
    with pg.begin() as conn:
        ada, bob = add_agent(conn, "ada"), add_agent(conn, "bob")
        ada_ids = [i for i, _ in postgres.insert_entries(conn, ada, prepared(ADA_TEXTS), NOW)]
        bob_ids = [i for i, _ in postgres.insert_entries(conn, bob, prepared(BOB_TEXTS), NOW)]
    return ada, bob, ada_ids, bob_ids


def _search(pg: Engine, agent: int, query: str, **kw: bool) -> list[int]:
    with pg.connect() as conn:
        return [i for i, _ in postgres.search(conn, "tape_entries", agent, query, **kw)]


def test_chinese_words_are_found_by_their_characters_and_bigrams(pg: Engine) -> None:
    ada, _, ids, _ = _tapes(pg)
    assert _search(pg, ada, "过敏")[0] == ids[0]
    assert _search(pg, ada, "花生过敏吗")[0] == ids[0]
    assert _search(pg, ada, "徒步")[0] == ids[1]
    assert _search(pg, ada, "咖啡") == [ids[4]]


def test_english_words_are_found_by_their_stems(pg: Engine) -> None:
    ada, _, ids, _ = _tapes(pg)
    assert _search(pg, ada, "hikes") == [ids[2]]
    assert _search(pg, ada, "what did she say about the databases")[0] == ids[3]
    assert _search(pg, ada, "staging deploy", any_term=False) == [ids[3]]
    assert _search(pg, ada, "staging hiking", any_term=False) == []


def test_a_query_never_returns_another_agents_rows(pg: Engine) -> None:
    ada, bob, ada_ids, bob_ids = _tapes(pg)
    assert set(_search(pg, ada, "花生过敏 hiking")) <= set(ada_ids)
    assert set(_search(pg, bob, "花生过敏 hiking")) == set(bob_ids)
    assert _search(pg, bob, "咖啡 staging") == []


def test_the_stored_terms_are_the_embedded_homes_tokens(pg: Engine) -> None:
    ada, _, ids, _ = _tapes(pg)
    with pg.connect() as conn:
        lexemes = conn.execute(
            text("SELECT tsvector_to_array(terms) FROM tape_entries WHERE id = :i"), {"i": ids[4]}
        ).scalar_one()
    assert set(lexemes) == set(index_tokens(ADA_TEXTS[4], ada).split())


def _unit(seed: int, dim: int = 32) -> list[float]:
    v = np.random.default_rng(seed).normal(size=dim)
    return [float(x) for x in v / np.linalg.norm(v)]


def test_the_nearest_vector_comes_from_the_agents_own_graph(pg: Engine) -> None:
    with pg.begin() as conn:
        ada, bob = add_agent(conn, "ada"), add_agent(conn, "bob")
        postgres.put(conn, "m", "memory", ada, [(i, f"h{i}", _unit(i)) for i in range(1, 200)])
        postgres.put(conn, "m", "memory", bob, [(1000, "h", _unit(7))])  # B's copy of row 7
    with pg.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        postgres.build_graph(conn, "m", 32, "memory", ada)
    near_seven = [x + 0.05 * y for x, y in zip(_unit(7), _unit(9999), strict=True)]
    with pg.begin() as conn:
        # A table this small is cheaper to sort whole: make the planner take the graph,
        # which is what answers on a real one.
        for path in ("seqscan", "bitmapscan", "sort"):
            conn.execute(text(f"SET LOCAL enable_{path} = off"))
        found = postgres.nearest_in_graph(conn, "m", "memory", ada, near_seven, limit=3)
        plan = conn.execute(
            text(
                "EXPLAIN SELECT item_id FROM vectors WHERE model = 'm' AND kind = 'memory' "
                f"AND agent_id = {ada} "
                "ORDER BY (embedding::vector(32)) <=> CAST(:v AS vector(32)) LIMIT 3"
            ),
            {"v": postgres.vector_text(near_seven)},
        ).scalars()
        assert any(agent_graph_name("m", "memory", ada) in line for line in plan)
    assert found[0][0] == 7 and found[0][1] < 0.01
    assert 1000 not in [i for i, _ in found]
    with pg.begin() as conn:  # Bob has no graph: his one row is read through the b-tree
        assert [
            i for i, _ in postgres.vectors.nearest_exact(conn, "m", "memory", bob, near_seven)
        ] == [1000]


def test_a_new_vector_replaces_the_old_one(pg: Engine) -> None:
    with pg.begin() as conn:
        ada = add_agent(conn, "ada")
        postgres.put(conn, "m", "memory", ada, [(1, "old", _unit(1)), (2, "x", _unit(2))])
        postgres.put(conn, "m", "memory", ada, [(1, "new", _unit(2))])
        hashes = conn.execute(text("SELECT content_hash FROM vectors ORDER BY item_id")).scalars()
        assert list(hashes) == ["new", "x"]


def test_lexemes_are_stored_as_written_whatever_their_characters(pg: Engine) -> None:
    terms = ["it's", "back\\slash", "a:b", "&|!", "咖啡"]
    with pg.connect() as conn:
        stored = conn.execute(
            text("SELECT tsvector_to_array(CAST(:v AS tsvector))"),
            {"v": postgres.tsvector_literal(terms, 1)},
        ).scalar_one()
        matched = conn.execute(
            text("SELECT CAST(:v AS tsvector) @@ CAST(:q AS tsquery)"),
            {
                "v": postgres.tsvector_literal(terms, 1),
                "q": postgres.tsquery_literal([("it's",), ("&|!",)], 1, any_term=False),
            },
        ).scalar_one()
    assert set(stored) == {*terms, "tmagent1x"}
    assert matched is True


def test_a_common_words_count_comes_from_postgresqls_statistics(pg: Engine) -> None:
    with pg.begin() as conn:
        ada = add_agent(conn, "ada")
        texts = [f"green tea note {i}" for i in range(300)] + ["我们周日听爵士乐"] * 3
        postgres.insert_entries(conn, ada, prepared(texts), NOW)
    with pg.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("ANALYZE tape_entries"))
    with pg.begin() as conn:  # written after ANALYZE
        postgres.insert_entries(conn, ada, prepared(["more tea"] * 20 + ["saxophone"] * 2), NOW)
    with pg.connect() as conn:
        db = Qmark(conn.connection.driver_connection)
        counts = terms_column.document_counts(db, "tape_fts", ["tea", "爵士", "saxophon", "无"], {})
    # A word ANALYZE listed: its share of the rows it read (all of them, at this size),
    # not a count through GIN, so the 20 rows since are not in it until the next ANALYZE.
    assert counts["tea"] == 300 and counts["爵士"] == 3
    # A word it did not see is counted: exactly, under the statistics' floor.
    assert counts["saxophon"] == 2 and counts["无"] == 0
