"""The gate's small-talk rule: only greetings, thanks and acknowledgements are refused,
alone or run together; a sentence that says something is kept, in English and Chinese."""

from __future__ import annotations

import pytest

from app.memory.intake import is_chit_chat


@pytest.mark.parametrize(
    "text",
    ["好的，谢谢！", "好的好的", "对，可以", "哈哈哈哈", "谢谢你！", "thanks, sounds good",
     "OK!!! 👍", "no problem, thanks a lot", "You’re welcome", "Thank you so much!"],
)  # fmt: skip
def test_small_talk_run_together_is_small_talk(text: str) -> None:
    assert is_chit_chat(text)


@pytest.mark.parametrize(
    "text",
    ["yes, use tabs", "好的，用 tabs", "可以用 Postgres", "部署好了", "用户喜欢猫。",
     "See you tomorrow at the 9:00 stand-up", "The user says thanks a lot for the tea"],
)  # fmt: skip
def test_a_sentence_that_says_something_is_not(text: str) -> None:
    assert not is_chit_chat(text)
