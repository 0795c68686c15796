"""What agents are given of a grown skill never holds what the owner took back: a value
stored in the vault afterwards, or the words of a memory the skill rested on that was
forgotten. In English and Chinese, through the engine."""

from __future__ import annotations

from typing import Any

import pytest

from app import Engine
from tests import committed
from tests.insight_cases import DEPLOY_EN, SLOWSQL_ZH, learn, proposal_for

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

# (memories, the index of the one holding a value, the value)
CASES = {
    "en": (DEPLOY_EN, 1, "Zq8-deploy-token-42"),
    "zh": (SLOWSQL_ZH, 0, "数据库口令-Xk9#"),
}


def with_value(items: Any, at: int, value: str, language: str) -> list[tuple[str, str, str]]:
    said = f"（登录口令 {value}）" if language == "zh" else f" (log in with {value})"
    out = list(items)
    category, thread, text = out[at]
    out[at] = (category, thread, text + said)
    return out


def grow(engine: Engine, items: Any) -> tuple[list[int], Any]:
    ids = learn(engine, "cc", items)
    engine.report_used("cc", "use-1", ids)
    engine.report_used("cc", "use-2", ids[1:])
    return ids, engine.accept_proposal(proposal_for(engine.insights("cc"), ids).id)


def raw(engine: Engine, sql: str) -> str:
    return " ".join(str(r[0]) for r in committed.rows(engine, sql))


@pytest.mark.parametrize("language", sorted(CASES))
def test_vault_set_takes_a_value_out_of_grown_skills_and_drafts(cc: Engine, language: str) -> None:
    items, at, value = CASES[language]
    _, skill = grow(cc, with_value(items, at, value, language))
    assert value in skill.text  # the memory's own words, quoted in a step
    # The accepted proposal's draft, which the owner reads, quotes it too.
    assert value in raw(cc, "SELECT draft FROM insight_proposals")
    info = cc.set_secret("DEPLOY_LOGIN", value)
    assert info.redacted_skills >= 2  # the accepted version, the accepted draft
    again = cc.skill("cc", skill.name)
    assert value not in again.text and "[secret]" in again.text  # cc was never given it
    assert again.state == "current"  # taking a value out is not a change of meaning
    assert all(value not in v.text for v in cc.skill_versions("cc", skill.name))
    assert all(value not in p.text for p in cc.proposals())
    for sql in (
        "SELECT text || description FROM skill_versions",
        "SELECT draft || coalesce(note, '') FROM insight_proposals",
    ):
        assert value not in raw(cc, sql)
    assert value.encode() not in committed.raw(cc)


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_forgotten_memory_withholds_its_skill_until_the_owner_accepts_one_without_it(
    cc: Engine, language: str
) -> None:
    items, at, _ = CASES[language]
    ids, skill = grow(cc, items)
    words = cc.memory(ids[at]).memory.text
    assert words in skill.text and not skill.withheld
    cc.forget(ids[at])
    held = cc.skill("cc", skill.name)
    assert held.state == "stale" and held.withheld
    assert (ids[at], "forgotten") in [(i.memory_id, i.what) for i in held.issues]
    assert held.text == skill.text  # the owner's accepted version is kept as accepted
    revision = proposal_for(cc.insights("cc"), [i for i in ids if i != ids[at]])
    assert revision is not None and revision.reason == "stale"
    assert revision.skill_id == skill.id and words not in revision.text
    back = cc.accept_proposal(revision.id)
    assert back.version == 2 and not back.withheld and words not in back.text
