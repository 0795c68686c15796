"""The parts of insights that need no model: grouping on given vectors, SKILL.md written
and read back (English and Chinese), and the checks on a model's citations."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from app import InvalidInput
from app.insights.evidence import PoolMemory
from app.insights.grouping import GroupingParams, average_linkage, find_groups
from app.insights.records import SkillDraft, SkillStep
from app.insights.skillmd import cited_ids, parse, render, slug
from app.insights.writer import check_steps

NO_WORDS = GroupingParams(term_weight=0.0)  # the vectors alone, and use and lineage


def unit(*xs: float) -> list[float]:
    v = np.array(xs, dtype=float)
    return list(v / np.linalg.norm(v))


def test_average_linkage_does_not_chain_through_one_bridging_memory() -> None:
    # a-b close, b-c close, a-c far: single linkage would make one group of three.
    a = np.array([[1.0, 0.6, 0.0], [0.6, 1.0, 0.6], [0.0, 0.6, 1.0]])
    assert sorted(average_linkage(a, 0.5)) == [[0, 1], [2]]


def test_memories_used_together_group_and_a_preference_used_everywhere_glues_nothing() -> None:
    # 0 and 1 are worded apart (cosine 0.2); the hub (3) says something else again
    vectors = [unit(1, 0.1, 0, 0), unit(0.1, 1, 0, 0), unit(0, 0, 1, 0), unit(0, 0, 0.2, 1)]
    texts = ["one", "two", "three", "hub"]
    assert find_groups(vectors, texts, [set()] * 4, [], NO_WORDS) == []
    # 0 and 1 used together twice; the hub used with everyone, in nineteen turns
    uses = [{"t1", "t2", "t3"}, {"t1", "t2", "t4"}, {"t5", "t6"}, {f"t{i}" for i in range(1, 20)}]
    groups = find_groups(vectors, texts, uses, [], NO_WORDS)
    assert [sorted(g.members) for g in groups] == [[0, 1]]
    assert groups[0].linked


def test_a_lone_pair_of_similar_memories_needs_use_or_lineage_to_recur() -> None:
    vectors = [unit(1, 0.2, 0), unit(1, 0.25, 0), unit(0, 0, 1)]
    texts = ["a", "b", "c"]
    none: list[set[str]] = [set(), set(), set()]
    assert find_groups(vectors, texts, none, [], GroupingParams(min_size=3)) == []
    linked = find_groups(vectors, texts, none, [(1, 0)], GroupingParams(min_size=3))
    assert [sorted(g.members) for g in linked] == [[0, 1]]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_draft_reads_back_as_the_skill_it_renders(language: str) -> None:
    text = "先看慢查询日志: 再用 EXPLAIN。" if language == "zh" else 'Run "migrations": first.'
    draft = SkillDraft(
        name="slow-queries",
        title="慢查询" if language == "zh" else "Slow queries",
        description='Find slow SQL: "EXPLAIN" first. Use when a query is slow.',
        when_to_use="When a query is slow.",
        steps=(SkillStep(text, (12, 15)), SkillStep("Past result: indexes fixed it.", (7,))),
        language=language,
    )
    rendered = render(draft)
    assert ("## 步骤" in rendered) == (language == "zh")
    parsed = parse(rendered)
    assert (parsed.name, parsed.description) == (draft.name, draft.description)
    assert [s.memory_ids for s in parsed.steps] == [(12, 15), (7,)]
    assert parsed.steps[0].text == text and cited_ids(rendered) == (12, 15, 7)


@pytest.mark.parametrize(
    "text,message",
    [
        ("no front matter\n1. a [m1]\n", "front matter"),
        ("---\nname: ok\n1. a [m1]\n", "closing '---'"),
        ("---\nname: Bad_Name\ndescription: x\n---\n1. a [m1]\n", "not valid"),
        ("---\nname: ok\ndescription:\n---\n1. a [m1]\n", "description"),
        ("---\nname: ok\ndescription: d\n---\nno steps here\n", "no steps"),
    ],
)
def test_a_broken_skill_says_what_to_fix(text: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        parse(text)


def test_names_are_ascii_kebab_case() -> None:
    assert slug(["Deploy", "Staging", "数据库", "CI/CD"]) == "deploy-staging-ci-cd"
    assert slug(["数据库"]) == ""


def test_a_models_citations_outside_the_evidence_or_far_from_the_step_are_dropped() -> None:
    when = datetime(2026, 11, 1, tzinfo=UTC)
    members = [
        PoolMemory(1, "lesson", "run migrations first", None, None, when, 1),
        PoolMemory(2, "lesson", "watch the error rate", None, None, when, 1),
    ]
    vectors = {"run migrations first": unit(1, 0), "watch the error rate": unit(0, 1),
               "Apply migrations before deploy.": unit(1, 0.1),
               "Buy cake.": unit(-1, -1)}  # fmt: skip

    def embed(texts: list[str]) -> list[list[float]]:
        return [vectors[t] for t in texts]

    raw = [
        {"text": "Apply migrations before deploy.", "memory_ids": [1, "m2", "#99"]},
        {"text": "Buy cake.", "memory_ids": [2]},
        "not a step",
    ]
    kept, dropped_cites, dropped_steps = check_steps(raw, members, embed)  # type: ignore[arg-type]
    assert [(s.text, s.memory_ids) for s in kept] == [("Apply migrations before deploy.", (1,))]
    assert (dropped_cites, dropped_steps) == (3, 1)  # m2 far, 99 invented; cake unsupported
