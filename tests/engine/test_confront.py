"""Write-time confrontation through `Engine.remember`: each decision, applied, in zh and en."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest

from app import Engine, decision_reason
from app.clock import ManualClock
from app.engine import runtime_of
from app.index.embedders import HashingEmbedder, Vectors
from app.index.service import RETRIEVAL
from tests.llm_server import chat_server, user_prompt

from .index_helpers import VectorStandIn

SUPERSEDE = {
    "en": ("Use pip to install dependencies in this repo.",
           "This repo replaced pip with uv for installing dependencies.", "lesson"),
    "zh": ("用户习惯用 Vim 写代码。", "用户现在改用 VS Code 写代码了。", "preference"),
}  # fmt: skip
UPDATE = {
    "en": ("User prefers Python for scripts.",
           "User prefers Python for scripts, specifically with type hints and argparse.",
           "preference"),
    "zh": ("用户喜欢 Vim 键位。", "用户喜欢 Vim 键位，尤其是在 VS Code 和浏览器里。", "preference"),
}  # fmt: skip
DUPLICATE = {
    "en": ("Upgraded the staging cluster to Kubernetes 1.29.",
           "Staging cluster upgraded to Kubernetes 1.29.", "task_outcome"),
    "zh": ("预发集群升级到了 Kubernetes 1.29。", "预发集群已经升级到 Kubernetes 1.29 了。",
           "task_outcome"),
}  # fmt: skip
CONFLICT = {
    "en": ("Likes dark mode.", "Does not like dark mode.", "preference"),
    "zh": ("用户喜欢猫。", "用户不喜欢猫。", "preference"),
}
ADD = {
    "en": ("The backend is written in Go.",
           "We added a nightly backup job for the billing database.", "project_fact"),
    "zh": ("后端用的是 Python 3.12。", "给预发集群配置了磁盘使用率告警。", "project_fact"),
}  # fmt: skip
LANGS = ["en", "zh"]


def source(engine: Engine, text: str) -> int:
    return engine.append("cc", [{"thread": "t", "turn": "u1", "kind": "message",
                                 "role": "user", "text": text}]).ids[0]  # fmt: skip


@pytest.mark.parametrize("lang", LANGS)
def test_add_stores_a_new_memory_and_the_decision(cc: Engine, lang: str) -> None:
    old, new, cat = ADD[lang]
    first = cc.remember("cc", old, cat)
    result = cc.remember("cc", new, cat)
    assert result.decision == "add" and result.target_id is None
    assert result.arbiter == "offline"
    assert result.memory is not None and result.memory.id != first.memory.id  # type: ignore[union-attr]
    assert cc.count_memories("cc", status="active") == 2
    stored = cc.decisions("cc")[0]
    assert (stored.action, stored.memory_id, stored.arbiter) == ("add", result.memory.id, "offline")
    assert stored.reason == result.reason


@pytest.mark.parametrize("lang", LANGS)
def test_update_refines_the_target_and_keeps_its_history(cc: Engine, lang: str) -> None:
    old, new, cat = UPDATE[lang]
    target = cc.remember("cc", old, cat, sources=[source(cc, old)]).memory
    assert target is not None
    later = source(cc, new)
    result = cc.remember("cc", new, cat, sources=[later])
    assert result.decision == "update" and result.target_id == target.id
    assert cc.count_memories("cc") == 1  # nothing new stored
    detail = cc.memory(target.id)
    assert detail.memory.text == new and detail.memory.version == 2
    assert [v.text for v in detail.versions] == [old, new]
    assert later in {e.id for e in detail.sources}  # the candidate's provenance joined
    assert len(detail.sources) == 2
    assert cc.search("cc", new.split()[0], mode="fulltext").hits[0].id == target.id


@pytest.mark.parametrize("lang", LANGS)
def test_supersede_links_the_successor_and_retires_the_target(cc: Engine, lang: str) -> None:
    old, new, cat = SUPERSEDE[lang]
    target = cc.remember("cc", old, cat).memory
    assert target is not None
    result = cc.remember("cc", new, cat)
    assert result.decision == "supersede" and result.target_id == target.id
    assert result.memory is not None and result.memory.text == new
    retired = cc.memory(target.id)
    assert retired.memory.status == "superseded"
    assert retired.memory.superseded_by == result.memory.id
    assert retired.memory.strength is None  # history does not fade
    assert cc.memory(result.memory.id).memory.strength == 1.0
    assert retired.memory.text == old  # kept, not overwritten
    parents = {(p.memory_id, p.relation) for p in cc.memory(result.memory.id).parents}
    assert (target.id, "supersedes") in parents
    assert cc.context("cc", query=new).included_ids == (result.memory.id,)


@pytest.mark.parametrize("lang", LANGS)
def test_duplicate_stores_nothing_and_reinforces_the_target(
    cc: Engine, clock: ManualClock, lang: str
) -> None:
    old, new, cat = DUPLICATE[lang]
    target = cc.remember("cc", old, cat, importance=0.2).memory
    assert target is not None
    clock.advance(days=60)
    result = cc.remember("cc", new, cat)
    assert result.decision == "duplicate" and result.target_id == target.id
    assert result.memory is not None and result.memory.id == target.id
    assert cc.count_memories("cc") == 1
    assert cc.memory(target.id).memory.text == old
    # reinforced: 60 days after writing it would have faded, but it was reinforced just now
    report = cc.maintain("cc", as_of=clock.now() + timedelta(days=20), dry_run=True)
    assert target.id not in [c.memory_id for c in report.candidates]
    report = cc.maintain("cc", as_of=clock.now() + timedelta(days=90), dry_run=True)
    assert target.id in [c.memory_id for c in report.candidates]


@pytest.mark.parametrize("lang", LANGS)
def test_conflict_keeps_both_and_opens_a_conflict(cc: Engine, lang: str) -> None:
    old, new, cat = CONFLICT[lang]
    target = cc.remember("cc", old, cat).memory
    assert target is not None
    result = cc.remember("cc", new, cat)
    assert result.decision == "conflict" and result.target_id == target.id
    assert result.conflict_id is not None and result.memory is not None
    # both stay active: an open conflict hides nothing and blocks nothing
    assert cc.memory(target.id).memory.status == "active"
    assert result.memory.status == "active"
    [conflict] = cc.conflicts("cc")
    assert conflict.id == result.conflict_id
    assert (conflict.existing.memory.text, conflict.challenger.memory.text) == (old, new)
    assert conflict.reason == result.reason
    assert cc.decisions("cc")[0].conflict_id == conflict.id
    # the reason is kept as a code with parameters too, the English made from them
    assert (result.reason_code, result.reason_params["what"]) == ("differs", ["negation"])
    assert result.reason_params["target"] == target.id
    stored = cc.decisions("cc")[0]
    for kept in (conflict, stored):
        assert (kept.reason_code, kept.reason_params) == ("differs", result.reason_params)
    assert decision_reason("differs", conflict.reason_params) == conflict.reason
    assert decision_reason("differs", conflict.reason_params, "zh").startswith(
        "一方否定了另一方，但没有说明哪个是现在的；"
    )
    other = cc.remember("cc", "Another, unrelated note about the deploy checklist." if lang == "en"
                        else "部署清单里加上回滚演练。", "lesson")  # fmt: skip
    assert other.decision == "add"


def test_exact_duplicate_is_a_decision_too(cc: Engine) -> None:
    cc.remember("cc", "王芳喜欢深色主题。", "preference")
    again = cc.remember("cc", "王芳喜欢深色主题。", "preference")
    assert (again.decision, again.arbiter) == ("duplicate", "hash")
    assert [d.action for d in cc.decisions("cc")] == ["duplicate", "add"]


def test_neighbours_are_the_same_agents_only(cc: Engine) -> None:
    cc.add_agent("other")
    cc.remember("other", "Likes dark mode.", "preference")
    result = cc.remember("cc", "Does not like dark mode.", "preference")
    assert result.decision == "add"
    assert cc.conflicts() == []


def test_neighbours_are_found_behind_many_better_matches_of_other_agents(cc: Engine) -> None:
    cc.add_agent("other")
    for i in range(45):  # they rank above cc's memory in the shared full-text index
        cc.remember("other", f"用户不喜欢深色模式，用户不喜欢深色模式 {i}。", "preference")
    mine = cc.remember("cc", "用户喜欢深色模式。", "preference").memory
    assert mine is not None
    result = cc.remember("cc", "用户不喜欢深色模式。", "preference")
    assert (result.decision, result.target_id) == ("conflict", mine.id)


def test_superseded_memories_are_not_neighbours(cc: Engine) -> None:
    old, new, cat = SUPERSEDE["en"]
    retired = cc.remember("cc", old, cat).memory
    successor = cc.remember("cc", new, cat).memory
    assert retired is not None and successor is not None
    # the old text again is compared with the active successor only, never the retired one
    again = cc.remember("cc", old, cat)
    assert again.target_id in (None, successor.id)
    assert cc.memory(retired.id).memory.status == "superseded"


# -- the LLM arbiter, chosen per agent ----------------------------------------------


def _answer(action: str, target: int | None, reason: str = "model says so"):  # type: ignore[no-untyped-def]
    return lambda body: json.dumps({"action": action, "target": target, "reason": reason})


def test_llm_arbiter_is_chosen_per_agent(cc: Engine) -> None:
    old, new, cat = ADD["en"]  # the offline arbiter calls this an add
    with chat_server(_answer("supersede", 1, "the user moved on")) as (url, seen):
        cc.add_agent("smart")
        cc.configure_agent("smart", arbiter="llm", llm=f"tiny-model@{url}")
        cc.remember("cc", old, cat)
        offline = cc.remember("cc", new, cat)
        target = cc.remember("smart", old, cat).memory
        assert target is not None
        smart = cc.remember("smart", new, cat)
    assert (offline.decision, offline.arbiter) == ("add", "offline")
    assert (smart.decision, smart.arbiter, smart.target_id) == ("supersede", "llm:tiny-model",
                                                                 target.id)  # fmt: skip
    assert smart.reason == "the user moved on"
    assert len(seen) == 1 and seen[0]["body"]["model"] == "tiny-model"
    assert old in user_prompt(seen[0]["body"]) and new in user_prompt(seen[0]["body"])
    assert cc.memory(target.id).memory.status == "superseded"


@pytest.mark.parametrize(
    "reply",
    [lambda body: 500, lambda body: "I think you should overwrite it",
     lambda body: json.dumps({"action": "supersede", "target": 99})],
    ids=["http-error", "not-json", "unknown-target"],
)  # fmt: skip
def test_llm_fallback_never_overwrites(cc: Engine, reply, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TAPEMIND_LLM_API_KEY", "test-key-123")
    old, new, cat = UPDATE["en"]
    with chat_server(reply) as (url, seen):
        cc.configure_agent("cc", arbiter="llm", llm=f"tiny@{url}")
        target = cc.remember("cc", old, cat).memory
        assert target is not None
        result = cc.remember("cc", new, cat)
    assert seen and seen[0]["auth"] == "Bearer test-key-123"
    assert result.decision in ("add", "conflict")
    assert "fell back" in result.reason
    assert result.reason_code in ("llm_fallback_add", "llm_fallback_conflict")
    assert result.reason_params["failure"] in ("http", "not_json", "unknown_target")
    assert decision_reason(result.reason_code, result.reason_params) == result.reason
    kept = cc.memory(target.id).memory
    assert (kept.status, kept.text, kept.version) == ("active", old, 1)
    assert cc.count_memories("cc", status="active") == 2


def test_a_target_gone_meanwhile_turns_into_add(
    cc: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.confront import decisions as confront

    old, new, cat = SUPERSEDE["zh"]
    target = cc.remember("cc", old, cat).memory
    assert target is not None
    verdict = confront.consider(runtime_of(cc), "cc", new, cat)
    assert verdict is not None and verdict.decision.action == "supersede"
    cc.forget(target.id)  # another writer, between the decision and the write
    monkeypatch.setattr(confront, "consider", lambda *a, **k: verdict)
    result = cc.remember("cc", new, cat)
    assert result.decision == "add" and "no longer active" in result.reason
    assert result.reason_code == "stale_target"
    assert result.reason_params["inner"]["code"] == verdict.decision.reason_code  # type: ignore[index]
    assert decision_reason("stale_target", result.reason_params) == result.reason
    assert cc.memory(target.id).memory.status == "forgotten"


# -- vector neighbours ---------------------------------------------------------------


class FixedIndex(VectorStandIn):
    """A vector index stand-in that says memory `target` is `cosine` close to anything."""

    def __init__(self, target: int, cosine: float, fail: bool = False) -> None:
        self.target, self.cosine, self.fail = target, cosine, fail
        self.queries: list[str] = []

    def semantic_ids(self, s, arow, kind, text, filters, n, pending=None):  # type: ignore[no-untyped-def]
        self.queries.append(text)
        if self.fail:
            raise RuntimeError("index unavailable")
        assert kind == "memory" and filters.statuses == ("active",)
        return [(self.target, self.cosine)]


def test_vector_neighbours_count_even_without_shared_words(cc: Engine) -> None:
    m = cc.remember("cc", "王芳对花生过敏。", "project_fact").memory
    assert m is not None
    paraphrase = "Wang Fang has a peanut allergy."
    index = FixedIndex(m.id, 0.97)
    runtime_of(cc).services.put(RETRIEVAL, index)
    result = cc.remember("cc", paraphrase, "project_fact")
    assert index.queries == [paraphrase]
    # the arbiter compared it with the memory the index found (its reason shows the cosine)
    assert "cosine 0.97" in result.reason and f"{m.id}:" in result.reason
    assert cc.decisions("cc")[0].neighbours == 1


def test_a_failing_index_leaves_full_text_neighbours(cc: Engine) -> None:
    old, new, cat = CONFLICT["en"]
    m = cc.remember("cc", old, cat).memory
    assert m is not None
    runtime_of(cc).services.put(RETRIEVAL, FixedIndex(m.id, 0.9, fail=True))
    result = cc.remember("cc", new, cat)
    assert (result.decision, result.target_id) == ("conflict", m.id)


class CountingEmbedder(HashingEmbedder):
    """The test embedder, recording what it was asked to embed."""

    def __init__(self, *, symmetric: bool) -> None:
        super().__init__(64)
        self.queries_are_documents = symmetric  # type: ignore[misc]
        self.documents: list[str] = []
        self.asked: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.documents.extend(texts)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        self.asked.append(text)
        return super().embed_query(text)


@pytest.mark.parametrize("symmetric", [True, False])
def test_the_candidate_is_embedded_once(home: Path, clock: ManualClock, symmetric: bool) -> None:
    embedder = CountingEmbedder(symmetric=symmetric)
    with Engine.open(home, create=True, clock=clock, embedder=embedder) as eng:
        eng.add_agent("cc")
        eng.remember("cc", "The backend is written in Go.", "project_fact")
        eng.run_indexer()
        embedder.documents.clear()
        body = "王芳对花生过敏，订餐时要避开。"
        result = eng.remember("cc", body, "project_fact")
        assert result.decision == "add" and result.memory is not None
        assert embedder.asked == [body]  # once, for its vector neighbours
        assert eng.run_indexer().embedded == 1
        # a model that embeds queries like documents hands that vector to the index; one
        # with query and passage prefixes (e5) embeds the memory as a document
        assert embedder.documents == ([] if symmetric else [body])
        hit = eng.search("cc", body, mode="semantic").hits[0]
        assert hit.id == result.memory.id and embedder.asked == [body]  # cached query
        assert eng.health("cc").unembedded == 0
