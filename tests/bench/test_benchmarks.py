"""Each benchmark runs end to end on tiny data; the reports' structure and arithmetic.

Times are printed by the benchmarks, never asserted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.benchmarks import latency, locomo, mem0_peer, retrieval
from app.benchmarks.common import percentile
from app.cli.main import cli


def _locomo_file(tmp_path: Path) -> Path:
    """Two sessions, in LoCoMo's format, with malformed evidence ids as in the real file."""
    sample = {
        "sample_id": "tiny",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy called Biscuit."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely! What breed is Biscuit?"},
                {"speaker": "Ann", "dia_id": "D1:3", "text": "A beagle, very noisy."},
            ],
            "session_2_date_time": "10:00 am on 2 June, 2023",
            "session_2": [
                {
                    "speaker": "Bo",
                    "dia_id": "D2:1",
                    "text": "I ran my first marathon in Lisbon.",
                    "blip_caption": "a photo of runners",
                },
                {"speaker": "Ann", "dia_id": "D2:2", "text": "Congratulations on the race!"},
            ],
        },
        "qa": [
            {
                "question": "What is the puppy called?",
                "answer": "Biscuit",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "Where did Bo run a marathon?",
                "answer": "Lisbon",
                "evidence": ["D2:1; D2:2"],
                "category": 1,
            },
            {
                "question": "When did Bo run?",
                "answer": "June",
                "evidence": ["D:2:01"],
                "category": 2,
            },
            {
                "question": "Which breed?",
                "answer": "beagle",
                "evidence": ["D1:3", "D9:9"],
                "category": 3,
            },
            {
                "question": "Adversarial",
                "adversarial_answer": "x",
                "evidence": ["D1:1"],
                "category": 5,
            },
            {"question": "No real evidence", "answer": "-", "evidence": ["D7:1"], "category": 4},
        ],
    }
    path = tmp_path / "tiny-locomo.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


def test_locomo_loader_normalises_evidence_and_dates(tmp_path: Path) -> None:
    (conv,) = locomo.load(_locomo_file(tmp_path))
    assert [q.evidence for q in conv.questions] == [
        ("D1:1",),
        ("D2:1", "D2:2"),
        ("D2:1",),
        ("D1:3",),
    ]  # category 5 and questions naming no real turn are left out
    assert (
        conv.turns[3].text
        == "Bo: I ran my first marathon in Lisbon. [shares an image: a photo of runners]"
    )
    assert conv.turns[0].when.isoformat() == "2023-05-08T13:56:00+00:00"
    assert conv.turns[1].when > conv.turns[0].when  # spoken order kept


def test_recall_at_k_is_the_share_of_evidence_in_the_top_k() -> None:
    assert locomo.recall_at(["D1:1", "D1:2", "D2:1"], ["D2:1", "D9:9"], 2) == 0.0
    assert locomo.recall_at(["D1:1", "D1:2", "D2:1"], ["D2:1", "D1:1"], 3) == 1.0
    assert locomo.recall_at(["D1:1", "D1:2", "D2:1"], ["D2:1", "D1:1"], 1) == 0.5


def test_locomo_report_is_consistent(tmp_path: Path) -> None:
    report = locomo.run(_locomo_file(tmp_path), mode="fulltext")
    assert report["conversations"] == 1 and report["turns"] == 5 and report["questions"] == 4
    cats = report["by_category"]
    assert sum(c["questions"] for c in cats.values()) == 4
    for key in ("recall@5", "recall@10"):
        weighted = sum(c[key] * c["questions"] for c in cats.values()) / 4
        assert report["overall"][key] == pytest.approx(weighted, abs=1e-3)
        assert 0.0 <= report["baseline_bm25"][key] <= 1.0
        assert report["overall"][key] <= report["overall"]["recall@10"]
    # With 5 turns, the top 10 holds every turn the search finds.
    assert cats["4"]["recall@5"] == 1.0  # "puppy called" finds D1:1


def test_locomo_command_prints_json_with_the_documented_keys(tmp_path: Path) -> None:
    data = _locomo_file(tmp_path)
    result = CliRunner().invoke(
        cli, ["bench", "locomo", "--data", str(data), "--json", "--max-turns", "3"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report["overall"]) == {"recall@5", "recall@10"}
    assert set(report["baseline_bm25"]) == {"recall@5", "recall@10"}
    assert report["turns"] == 3 and report["questions"] == 2  # session 2 truncated away
    text = CliRunner().invoke(cli, ["bench", "locomo", "--data", str(data), "--mode", "fulltext"])
    assert "BM25 baseline" in text.output and "target" in text.output


def _retrieval_dir(tmp_path: Path) -> Path:
    mems = [
        {
            "id": "en-m1",
            "lang": "en",
            "text": "The user drinks oat lattes.",
            "category": "preference",
        },
        {
            "id": "en-m2",
            "lang": "en",
            "text": "Deploys go out on Fridays.",
            "category": "project_fact",
        },
        {"id": "zh-m1", "lang": "zh", "text": "小林喜欢喝绿茶。", "category": "preference"},
        {"id": "zh-m2", "lang": "zh", "text": "项目部署在上海机房。", "category": "project_fact"},
    ]
    qs = [
        {
            "id": "en-q1",
            "lang": "en",
            "question": "What latte does the user drink?",
            "relevant": ["en-m1"],
        },
        {"id": "en-q2", "lang": "en", "question": "Which day are deploys?", "relevant": ["en-m2"]},
        {"id": "zh-q1", "lang": "zh", "question": "小林爱喝什么茶?", "relevant": ["zh-m1"]},
        {"id": "zh-q2", "lang": "zh", "question": "没有关系的问题", "relevant": ["zh-m2"]},
    ]
    folder = tmp_path / "retrieval"
    folder.mkdir()
    for name, rows in ((retrieval.MEMORIES, mems), (retrieval.QUESTIONS, qs)):
        (folder / name).write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows))
    return folder


def test_retrieval_scores_per_language(tmp_path: Path) -> None:
    report = retrieval.run(_retrieval_dir(tmp_path), modes=["fulltext"])
    ft = report["modes"]["fulltext"]
    assert report["stored"] == 4
    assert ft["by_language"]["en"] == {"questions": 2, "recall@1": 1.0, "recall@5": 1.0, "mrr": 1.0}
    # zh: one found first, one never found -> half of everything.
    assert ft["by_language"]["zh"] == {"questions": 2, "recall@1": 0.5, "recall@5": 0.5, "mrr": 0.5}
    assert ft["overall"]["mrr"] == 0.75
    assert retrieval.score([3, 7, 9], {9, 4}) == {"recall@1": 0.0, "recall@5": 0.5, "mrr": 1 / 3}


def test_retrieval_command_reports_every_mode(tmp_path: Path) -> None:
    folder = _retrieval_dir(tmp_path)
    result = CliRunner().invoke(cli, ["bench", "retrieval", "--data-dir", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report["modes"]) == {"fulltext", "semantic", "hybrid"}


def test_latency_report_on_a_small_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mem0_peer, "available", lambda: False)
    report = latency.run([50], queries=10, embedder="hashing")
    (row,) = report["sizes"]
    tm = row["tapemind"]
    assert row["size"] == 50 and tm["memories"] == 50
    for key in ("search_ms", "context_ms"):
        assert 0 < tm[key]["p50"] <= tm[key]["p95"]
    assert tm["rss_mb"] > 0 and row["raw_embed_rows_per_s"] > 0
    assert row["mem0"] == {"skipped": mem0_peer.INSTALL_HINT}
    assert "mem0" in latency.render(report) and "pip install" in latency.render(report)


def test_percentile_interpolates() -> None:
    values: list[Any] = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert percentile(values, 50) == 3.0
    assert percentile(values, 95) == pytest.approx(4.8)
    assert percentile([], 50) == 0.0 and percentile([7.0], 95) == 7.0
