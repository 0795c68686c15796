"""Tape search ranks turns by what each shows: the user's own words, not the assistant's
long reply around them; the agent's words when the question asks for them; the same
top whatever page is asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import Engine
from app.index.embedders import HashingEmbedder
from app.recall.turns import addresses_agent, question_part

LONG_REPLY_EN = (
    "Congratulations on the new cat! Here are some ideas for a young cat: interactive "
    "wand toys, puzzle feeders, a scratching post, and a cosy bed. A cat this age also "
    "needs vaccinations, so book a vet visit soon. Many owners find that a cat settles "
    "in faster with a quiet room of its own for the first days. Would you like tips on "
    "litter training your cat too?"
)
LONG_REPLY_ZH = (
    "恭喜你养了新猫！小猫可以玩逗猫棒、益智喂食器，还需要猫抓板和舒服的猫窝。"
    "这个年龄的小猫需要打疫苗，最好尽快预约兽医。很多主人发现，给小猫一个安静的房间，"
    "它会更快适应新家。需要我再介绍一些训练小猫用猫砂的方法吗？"
)


def _conversation(engine: Engine, turns: list[tuple[str, str]], thread: str = "t1") -> list[int]:
    entries = [{"thread": thread, "kind": "message", "role": r, "text": t} for r, t in turns]
    return list(engine.append("a", entries).ids)


def _filler(engine: Engine, lang: str) -> None:
    """Other conversations, so that common words are common."""
    for n in range(6):
        if lang == "en":
            turns = [
                ("user", f"Can you help me plan trip number {n}?"),
                ("assistant", f"Sure, trip {n} could start with a museum and a walk."),
            ]
        else:
            turns = [("user", f"你能帮我安排第{n}次旅行吗？"),
                     ("assistant", f"当然，第{n}次旅行可以先去博物馆，再散步。")]  # fmt: skip
        _conversation(engine, turns, thread=f"other-{n}")


@pytest.mark.parametrize(
    ("lang", "fact", "reply", "question"),
    [
        (
            "en",
            "I adopted a cat last week and named her Mochi.",
            LONG_REPLY_EN,
            "What is the name of my cat?",
        ),
        ("zh", "我上周领养了一只猫，给它取名叫年糕。", LONG_REPLY_ZH, "我的猫叫什么名字？"),
    ],
)
def test_the_users_statement_ranks_above_the_assistants_long_reply(
    engine: Engine, lang: str, fact: str, reply: str, question: str
) -> None:
    engine.add_agent("a")
    _filler(engine, lang)
    ids = _conversation(engine, [("user", fact), ("assistant", reply)])
    for mode in ("fulltext", "hybrid"):
        hits = engine.search("a", question, scope="tape", mode=mode).hits
        assert hits[0].id == ids[0], (mode, [h.text[:30] for h in hits])
        assert ids[1] in {h.id for h in hits}  # still found, further down


@pytest.mark.parametrize(
    ("asked", "suggestion", "to_agent", "not_to_agent"),
    [
        (
            "Can you recommend a Jamaican dish I could cook this weekend?",
            "Try ackee and saltfish, the national dish: ackee fruit cooked with salted cod, "
            "onions, tomatoes and scotch bonnet peppers.",
            "Which Jamaican dish with salted cod did you recommend?",
            "Which Jamaican dish with salted cod was recommended?",
        ),
        (
            "你能推荐一道这个周末可以做的牙买加菜吗？",
            "试试阿奇果炒咸鳕鱼，这是牙买加的国菜：用阿奇果、咸鳕鱼、洋葱、番茄和辣椒一起炒。",
            "你推荐的那道用咸鳕鱼做的牙买加菜是什么？",
            "推荐的那道用咸鳕鱼做的牙买加菜是什么？",
        ),
    ],
)
def test_a_question_to_the_agent_weighs_what_the_agent_said_more(
    engine: Engine, asked: str, suggestion: str, to_agent: str, not_to_agent: str
) -> None:
    """Most questions are about what the user said; one that speaks to the agent ("you",
    你) is often about what the agent said, and its turns count for more."""
    engine.add_agent("a")
    user, agent = _conversation(engine, [("user", asked), ("assistant", suggestion)])

    def lead(question: str) -> float:
        score = {h.id: h.score for h in engine.search("a", question, scope="tape").hits}
        return score[agent] - score[user]

    assert lead(to_agent) > lead(not_to_agent)


def test_the_top_of_the_ranking_does_not_depend_on_the_page(tmp_path: Path) -> None:
    with Engine.open(tmp_path / "h", create=True, embedder=HashingEmbedder(dim=64)) as engine:
        engine.add_agent("a")
        for n in range(30):
            _conversation(
                engine,
                [("user", f"Day {n}: I walked the dog {n % 4} times and cooked pasta."),
                 ("assistant", f"Nice, {n % 3} walks is healthy for a dog; pasta is fine.")],
                thread=f"day-{n}",
            )  # fmt: skip
        engine.run_indexer()
        for mode in ("fulltext", "hybrid"):
            short = engine.search("a", "how often did I walk the dog", scope="tape", mode=mode,
                                  limit=5)  # fmt: skip
            long = engine.search("a", "how often did I walk the dog", scope="tape", mode=mode,
                                 limit=60)  # fmt: skip
            assert [h.id for h in short.hits] == [h.id for h in long.hits[:5]], mode
            paged = engine.search("a", "how often did I walk the dog", scope="tape", mode=mode,
                                  limit=5, offset=5)  # fmt: skip
            assert [h.id for h in paged.hits] == [h.id for h in long.hits[5:10]], mode


def test_questions_and_address_are_read_in_both_languages() -> None:
    assert question_part("I like tea. Do you? Yes.") == " Do you?"
    assert question_part("我喜欢茶。你呢？好的。") == "你呢？"
    assert question_part("No question here.") == ""
    assert addresses_agent("What did you recommend?") and addresses_agent("你推荐了什么？")
    assert not addresses_agent("What is my cat called?") and not addresses_agent("我的猫叫什么？")
    assert not addresses_agent("Where is the youth hostel?")  # a word, not the pronoun
