"""Events: published after commit, with ids and counts only; a rolled-back write says nothing."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from app import EVENT_KINDS, Engine
from app.engine import runtime_of
from app.errors import Refused
from app.events import Event, record
from tests import committed
from tests.insight_cases import DEPLOY_EN, DEPLOY_EN_MORE, SLOWSQL_ZH, learn, proposal_for

TEXT = "用户要求代码缩进用 tab / Lin wants tabs"


@pytest.fixture
def seen(engine: Engine) -> list[Event]:
    events: list[Event] = []
    engine.events.subscribe(events.append)
    return events


def _committed_rows(engine: Engine, sql: str) -> int:
    """Read through a separate connection: only committed rows are visible."""
    return int(committed.rows(engine, sql)[0][0])


def test_each_mutation_publishes_one_content_free_event(engine: Engine, seen: list[Event]) -> None:
    engine.add_agent("cc")
    ids = engine.append("cc", [{"thread": "t", "turn": "u1", "role": "user", "text": TEXT}] * 3).ids
    made = engine.remember("cc", TEXT, "preference", sources=ids[:2])
    assert made.memory is not None
    mid = made.memory.id
    engine.remember("cc", TEXT, "preference")
    engine.edit_memory(mid, TEXT + "!!! always")
    engine.report_used("cc", "u2", [mid])
    engine.erase_entry(ids[2])
    engine.forget(mid)
    engine.configure_agent("cc", half_life_days=10)
    engine.remove_agent("cc")
    assert [(e.name, e.agent, e.ids, dict(e.counts)) for e in seen] == [
        ("agent_did_add", "cc", (1,), {}),
        ("tape_did_append", "cc", ids, {"entries": 3}),
        ("memory_did_add", "cc", (mid,), {"sources": 2, "parents": 0}),
        ("memory_did_duplicate", "cc", (mid,), {}),
        ("memory_did_edit", "cc", (mid,), {"version": 2}),
        ("memory_did_use", "cc", (mid,), {"memories": 1}),
        ("tape_did_erase", "cc", (ids[2],), {}),
        ("memory_did_forget", "cc", (mid,), {"tape_erased": 0}),
        ("agent_did_configure", "cc", (1,), {"settings": 1}),
        ("agent_did_remove", "cc", (1,), {"tape_entries": 3, "memories": 1}),
    ]
    for event in seen:
        assert all(isinstance(i, int) for i in event.ids)
        assert all(isinstance(v, int) for v in event.counts.values())
        assert "tab" not in repr(event) and "用户" not in repr(event)
    audit = engine.audit(limit=100)
    assert [a.action.replace(".", "_did_") for a in reversed(audit)] == [e.name for e in seen]


def test_events_come_after_commit(engine: Engine, home: Path) -> None:
    engine.add_agent("cc")
    visible: list[int] = []

    def on_append(event: Event) -> None:
        visible.append(_committed_rows(engine, "SELECT count(*) FROM tape_entries"))

    engine.events.subscribe(on_append, "tape_did_append")
    engine.append("cc", [{"thread": "t", "role": "user", "text": "a"}] * 5)
    assert visible == [5]


def test_big_batches_name_the_first_ids_and_the_total(engine: Engine, seen: list[Event]) -> None:
    engine.add_agent("cc")
    engine.append("cc", [{"thread": "t", "role": "user", "text": "x"}] * 250)
    event = seen[-1]
    assert len(event.ids) == 100
    assert event.counts == {"entries": 250, "ids_total": 250}


def test_a_rolled_back_write_publishes_nothing(
    engine: Engine, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.add_agent("cc")
    seen: list[Event] = []
    engine.events.subscribe(seen.append)
    audit_rows = _committed_rows(engine, "SELECT count(*) FROM audit")

    with pytest.raises(RuntimeError), runtime_of(engine).write() as s:
        record(s, runtime_of(engine).now_iso(), "tape.append", agent="cc", actor="agent", ids=[1])
        raise RuntimeError("the disk is full")

    # A source-less remember appends the call to the tape, then stores the memory;
    # if storing fails, the appended entry and its event go too.
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("index broke")

    monkeypatch.setattr("app.memory.records.index_memory_text", broken)
    with pytest.raises(RuntimeError, match="index broke"):
        engine.remember("cc", TEXT, "lesson")
    assert seen == []
    assert _committed_rows(engine, "SELECT count(*) FROM audit") == audit_rows
    assert engine.tape("cc") == []
    assert engine.memories("cc") == []


def test_a_broken_listener_does_not_undo_the_write(engine: Engine) -> None:
    engine.add_agent("cc")

    def explode(_event: Event) -> None:
        raise ValueError("listener bug")

    engine.events.subscribe(explode)
    later: list[str] = []
    unsubscribe = engine.events.subscribe(lambda e: later.append(e.name))
    (entry,) = engine.append("cc", [{"thread": "t", "role": "user", "text": "kept"}]).ids
    assert engine.entry(entry).text == "kept"
    assert later == ["tape_did_append"]
    unsubscribe()
    engine.append("cc", [{"thread": "t", "role": "user", "text": "again"}])
    assert later == ["tape_did_append"]


def _drive_every_verb(engine: Engine, home: Path) -> None:
    """Every verb that publishes an event, once (in the order a home meets them)."""
    engine.add_agent("cc")
    engine.configure_agent("cc", half_life_days=10)
    engine.agent_token("cc")
    e1, e2, e3 = engine.append("cc", [
        {"thread": "t", "turn": "u1", "role": "user", "text": "Use pip to install dependencies."},
        {"thread": "t", "turn": "u2", "role": "user", "text": "用户喜欢猫。"},
        {"thread": "t", "turn": "u3", "role": "user", "text": "an aside to erase"},
    ]).ids  # fmt: skip
    engine.erase_entry(e3)
    old = engine.remember("cc", "User prefers Python for scripts.", "preference", sources=[e1])
    assert old.memory is not None
    refined = engine.remember(
        "cc", "User prefers Python for scripts, specifically with type hints and argparse.",
        "preference",
    )  # fmt: skip
    pip = engine.remember("cc", "Use pip to install dependencies in this repo.", "lesson")
    uv = engine.remember("cc", "This repo replaced pip with uv for installing dependencies.",
                         "lesson")  # fmt: skip
    again = engine.remember(
        "cc", "This repo replaced pip with uv for installing dependencies.", "lesson"
    )
    cats = engine.remember("cc", "用户喜欢猫。", "preference", sources=[e2])
    dislike = engine.remember("cc", "用户不喜欢猫。", "preference")
    assert (refined.decision, pip.decision, uv.decision, again.decision, dislike.decision) == (
        "update", "add", "supersede", "duplicate", "conflict",
    )  # fmt: skip
    assert dislike.conflict_id is not None and cats.memory is not None
    engine.resolve_conflict(dislike.conflict_id, "both")
    engine.reopen_conflict(dislike.conflict_id)
    engine.context("cc", query="Python scripts")
    engine.report_used("cc", "u9", [old.memory.id])
    engine.edit_memory(old.memory.id, "User prefers Python 3.12 for scripts.")
    engine.maintain("cc", as_of=engine.clock.now() + timedelta(days=3650))
    archived = engine.archived("cc")
    engine.restore([archived[0].id])
    engine.keep([archived[0].id])
    engine.forget(cats.memory.id)
    engine.set_secret("API_TOKEN", "tok-1234567890-secret", ["ci"])
    engine.set_secret_mode("API_TOKEN", "ask")
    engine.reveal_secret("API_TOKEN")
    engine.configure_reviewer(min_reason_chars=5)
    asked = engine.request_secret("cc", "API_TOKEN", "deploy the release")
    engine.answer_request(asked.request_id or 0, True, "always")
    grant = engine.request_secret("cc", "API_TOKEN", "deploy again")
    engine.revoke_grant(grant.grant_id or 0)
    engine.set_secret_mode("API_TOKEN", "review")
    engine.configure_reviewer(agents=["someone-else"])
    engine.request_secret("cc", "API_TOKEN", "a reason the reviewer escalates")
    engine.request_secret("cc", "API_TOKEN", "waited on by nobody", wait_seconds=0.01)
    engine.set_secret("DB_PASSWORD", "dbpass-0987654321-value", ["ci"])
    with pytest.raises(Refused):  # cc was never given the value it writes
        engine.append("cc", [{"thread": "t", "role": "user", "text": "dbpass-0987654321-value"}])
    engine.unblock_agent("cc")
    engine.rotate_vault_key()
    handed = home.parent / "vault.key"  # the key handed to another host, then taken back
    engine.export_vault_key(str(handed), "a passphrase for the handover 交接")
    engine.import_vault_key(str(handed), "a passphrase for the handover 交接")
    engine.remove_secret("API_TOKEN")
    _drive_insights(engine)
    engine.export(home.parent / "home.jsonl")
    with Engine.open(home.parent / "copy", create=True) as copy:
        seen_copy: list[Event] = []
        copy.events.subscribe(seen_copy.append)
        copy.import_(home.parent / "home.jsonl")
        engine.events.publish(seen_copy[-1])  # heard here: the one event an import makes
    engine.remove_agent("cc")


def _drive_insights(engine: Engine) -> None:
    """Skills proposed from memories used together, one accepted, one rejected, and one
    withdrawn when a memory it drew on is forgotten."""
    engine.add_agent("ops")
    deploy = learn(engine, "ops", DEPLOY_EN)
    sql = learn(engine, "ops", SLOWSQL_ZH)
    for ids in (deploy, sql):
        engine.report_used("ops", f"use-{ids[0]}", ids[1:])
        engine.report_used("ops", f"again-{ids[0]}", ids[:3])
    report = engine.insights("ops")
    engine.accept_proposal(proposal_for(report, deploy).id)
    engine.reject_proposal(proposal_for(report, sql).id)
    more = learn(engine, "ops", [DEPLOY_EN_MORE])
    engine.report_used("ops", "use-more", [*deploy[:2], *more])
    revision = proposal_for(engine.insights("ops"), deploy)
    engine.forget(deploy[1])
    assert engine.proposal(revision.id).status == "withdrawn"


def test_every_catalogued_event_is_published_and_none_other(engine: Engine, home: Path) -> None:
    seen: list[Event] = []
    engine.events.subscribe(seen.append)
    _drive_every_verb(engine, home)
    published = {e.name for e in seen}
    catalogued = {k.name for k in EVENT_KINDS}
    assert published - catalogued == set(), "published but not catalogued"
    assert catalogued - published == set(), "catalogued but never published"
    assert all(e.changes for e in seen)  # each says what a client must redraw


def test_an_action_the_catalogue_lacks_is_refused(engine: Engine) -> None:
    engine.add_agent("cc")
    rt = runtime_of(engine)
    with pytest.raises(ValueError, match=r"not in app\.events\.CATALOGUE"), rt.write() as s:
        record(s, rt.now_iso(), "memory.vanish", agent="cc", actor="agent")
    assert [a.action for a in engine.audit()] == ["agent.add"]
