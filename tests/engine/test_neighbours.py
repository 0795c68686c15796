"""Tape search ranks a turn with its neighbours: the answer after a matching question."""

from __future__ import annotations

from app import Engine
from app.engine import runtime_of
from app.index.service import RETRIEVAL

from .index_helpers import VectorStandIn


def _turns(engine: Engine, thread: str, texts: list[str]) -> list[int]:
    entries = [{"thread": thread, "kind": "message", "role": "user", "text": t} for t in texts]
    return list(engine.append("a", entries).ids)


def test_the_reply_to_a_matching_turn_is_found_through_its_neighbour(engine: Engine) -> None:
    engine.add_agent("a")
    ids = _turns(
        engine,
        "s1",
        [
            "Good morning!",
            "Where did you go on holiday with the kids?",
            "Yosemite, we camped for a week.",
            "Nice. Anything else new?",
            "Not much, work is busy.",
        ],
    )
    _turns(engine, "s2", ["Yosemite? No, I have never been.", "Shall we talk tomorrow?"])
    hits = engine.search("a", "holiday with the kids", scope="tape", mode="fulltext").hits
    by_id = {h.id: h for h in hits}
    assert hits[0].id == ids[1]  # the matching turn itself first
    reply = by_id[ids[2]]  # the answer has no query word but ranks through its neighbour
    assert reply.why.get("fulltext") == 0.0 and reply.why["neighbours"] > 0
    assert {h.id for h in hits[1:3]} == {ids[0], ids[2]}  # both next to the match
    # Another thread's entries are never pulled in as neighbours.
    other = set(range(ids[-1] + 1, ids[-1] + 3))
    assert not other & set(by_id)


def test_why_says_the_same_in_every_scope(engine: Engine) -> None:
    engine.add_agent("a")
    engine.remember("a", "用户的银行账户在招商银行", "project_fact")
    ids = _turns(engine, "s1", ["我的银行账户换了", "换成招商银行了", "好的"])
    whys = {}
    for scope in ("tape", "memories", "all"):
        for hit in engine.search("a", "银行账户", scope=scope, mode="fulltext").hits:
            # Each scope fuses its own lists, so only the fused score (rrf) may differ.
            whys.setdefault((hit.kind, hit.id), []).append(
                {k: v for k, v in hit.why.items() if k != "rrf"}
            )
    # The memory, its remember event on the tape, and the three turns.
    assert len(whys) == 5 and ("tape", ids[1]) in whys
    for seen in whys.values():
        assert len(seen) == 2 and seen[0] == seen[1]  # its own scope, then "all"
        assert set(seen[0]) <= {"fulltext", "neighbours"}, seen[0]
    assert whys[("tape", ids[1])][0]["neighbours"] > 0


def test_nearer_neighbours_count_more(engine: Engine) -> None:
    engine.add_agent("a")
    ids = _turns(engine, "s", ["one", "two", "the zebra crossing", "three", "four", "five"])
    hits = engine.search("a", "zebra", scope="tape", mode="fulltext").hits
    why = {h.id: h.why.get("neighbours", 0.0) for h in hits}
    assert why[ids[1]] > why[ids[0]] > 0  # distance 1 > distance 2
    assert why[ids[3]] > why[ids[4]] > 0
    assert ids[5] not in why  # beyond the window


def test_time_filters_apply_to_neighbours(engine: Engine, clock) -> None:  # type: ignore[no-untyped-def]
    engine.add_agent("a")
    early = _turns(engine, "s", ["the old answer"])
    clock.advance(days=2)
    since = clock.now()
    late = _turns(engine, "s", ["a question about lighthouses"])
    hits = engine.search("a", "lighthouses", scope="tape", mode="fulltext", since=since).hits
    assert [h.id for h in hits] == late
    assert early[0] not in {h.id for h in hits}


def test_tape_ranking_uses_the_agents_own_statistics(engine: Engine) -> None:
    """Another agent's text must not change how one agent's tape ranks."""
    engine.add_agent("a")
    snake = _turns(engine, "t1", ["python snake"])[0]
    garden = _turns(engine, "t2", ["garden tools garden shed"])[0]

    def order() -> list[int]:
        hits = engine.search("a", "python garden", scope="tape", mode="fulltext").hits
        return [h.id for h in hits]

    before = order()
    assert before == [garden, snake]
    engine.add_agent("b")  # b talks about gardens all day: "garden" is common home-wide
    engine.append(
        "b",
        [
            {"thread": "x", "kind": "message", "role": "user", "text": f"garden note {i}"}
            for i in range(60)
        ],
    )
    assert order() == before


class _KeywordVectors(VectorStandIn):
    """A stand-in for the vector index: entries holding `word` are 'similar' (0.9)."""

    def __init__(self, word: str) -> None:
        self.word = word

    def semantic_ids(self, s, arow, kind, query, f, n, pending=None):  # type: ignore[no-untyped-def]
        from sqlalchemy import text

        rows = s.connection().execute(
            text("SELECT id, content FROM tape_entries WHERE agent_id = :a ORDER BY id"),
            {"a": arow.id},
        )
        return [(int(i), 0.9) for i, body in rows if self.word in body][:n]


def test_semantic_tape_hits_are_smoothed_and_fused_with_full_text(engine: Engine) -> None:
    engine.add_agent("a")
    ids = _turns(
        engine,
        "s",
        ["hello", "We adopted a beagle puppy.", "What a cute dog!", "bye", "see you"],
    )
    runtime_of(engine).services.put(RETRIEVAL, _KeywordVectors("beagle"))
    sem = engine.search("a", "dog breed", scope="tape", mode="semantic").hits
    assert sem[0].id == ids[1] and sem[0].why["semantic"] == 0.9
    by_id = {h.id: h for h in sem}
    assert by_id[ids[2]].why["semantic_neighbours"] > 0  # the reply, through its neighbour
    hybrid = engine.search("a", "dog breed", scope="tape", mode="hybrid").hits
    # "cute dog" matches the words and neighbours the semantic hit; the beagle turn is
    # the semantic hit and neighbours the word match: both lead, with every score part.
    assert {h.id for h in hybrid[:2]} == {ids[1], ids[2]}
    why = {h.id: h.why for h in hybrid}
    assert why[ids[1]]["semantic"] == 0.9 and why[ids[1]]["neighbours"] > 0
    assert why[ids[2]]["fulltext"] > 0 and why[ids[2]]["semantic_neighbours"] > 0
    assert all("rrf" in w for w in why.values())


def test_weighted_fusion_lets_the_heavier_list_lead() -> None:
    from app.recall.fusion import SEARCH_K as RRF_K
    from app.recall.fusion import fuse

    lists = {"fulltext": [(1, 3.0), (2, 1.0)], "semantic": [(2, 0.9), (1, 0.2)]}
    even = fuse(lists)
    assert even[0][1] == even[1][1]  # a tie: each list puts one first
    weighted = fuse(lists, {"semantic": 0.5})
    assert [k for k, _, _ in weighted] == [1, 2]
    assert weighted[0][1] == 1 / (RRF_K + 1) + 0.5 / (RRF_K + 2)
    assert weighted[0][2] == {"fulltext": 3.0, "semantic": 0.2, "rrf": round(weighted[0][1], 5)}
