"""Tape search ranks a turn with its neighbours: the answer after a matching question."""

from __future__ import annotations

from app import Engine


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
