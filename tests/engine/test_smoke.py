"""The shortest path a user takes: an agent, a turn on the tape, a memory from it."""

from app import Engine


def test_turn_becomes_memory_with_provenance(engine: Engine) -> None:
    engine.add_agent("cc")
    ids = engine.append(
        "cc",
        [
            {
                "thread": "t1",
                "turn": "u1",
                "kind": "message",
                "role": "user",
                "text": "以后代码缩进都用 tab",
            },
            {
                "thread": "t1",
                "turn": "u1",
                "kind": "message",
                "role": "assistant",
                "text": "好的，以后用 tab。",
            },
        ],
    ).ids
    result = engine.remember("cc", "用户要求代码缩进用 tab", "preference", sources=[ids[0]])
    assert result.decision == "add"
    assert result.memory is not None
    detail = engine.memory(result.memory.id)
    assert [e.id for e in detail.sources] == [ids[0]]
    assert detail.memory.thread == "t1"
