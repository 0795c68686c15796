"""`tapemind bench longmemeval` and `tapemind bench recall` on tiny data in the real formats.

Full-text mode throughout: no model is loaded, and the rankings are the product's.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app import Engine
from app.benchmarks import longmemeval
from app.cli.main import cli


def _question(qid: str, qtype: str, question: str, sessions: list[list[dict[str, Any]]],
              answer_sessions: list[str]) -> dict[str, Any]:  # fmt: skip
    ids = [f"{qid}-s{i}" for i in range(len(sessions))]
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": question,
        "answer": "-",
        "question_date": "2023/06/01 (Thu) 10:00",
        # Out of date order on purpose: the haystack is appended oldest first.
        "haystack_dates": [f"2023/05/{20 - i:02d} (Sat) 09:{i:02d}" for i in range(len(sessions))],
        "haystack_session_ids": ids,
        "haystack_sessions": sessions,
        "answer_session_ids": [ids[int(a)] for a in answer_sessions],
    }


def _turn(role: str, content: str, answer: bool = False) -> dict[str, Any]:
    return {"role": role, "content": content, **({"has_answer": True} if answer else {})}


def _data() -> list[dict[str, Any]]:
    return [
        _question(
            "q-en",
            "single-session-user",
            "What breed is my dog Biscuit?",
            [
                [_turn("user", "Any tips for sourdough bread?"), _turn("assistant", "Feed it.")],
                [
                    _turn("user", "My dog Biscuit is a beagle and he howls.", answer=True),
                    _turn("assistant", "Beagles are vocal hounds; try more walks."),
                ],
                [_turn("user", "Which laptop should I buy?"), _turn("assistant", "A light one.")],
            ],
            ["1"],
        ),
        _question(
            "q-zh",
            "multi-session",
            "我一共养了几只猫?",
            [
                [
                    _turn("user", "我上个月养了一只猫，叫年糕。", answer=True),
                    _turn("assistant", "年糕这个名字很可爱。"),
                ],
                [
                    _turn("user", "推荐一本关于历史的书。"),
                    _turn("assistant", "可以读《万历十五年》。"),
                ],
                [
                    _turn("user", "昨天又领养了一只猫，叫汤圆。", answer=True),
                    _turn("assistant", "恭喜！两只猫会做伴。"),
                ],
            ],
            ["0", "2"],
        ),
        _question(
            "q-x_abs",
            "single-session-user",
            "What is my cat's name?",
            [[_turn("user", "I have no pets.")]],
            [],
        ),
    ]


def _write(tmp_path: Path, *, gz: bool) -> Path:
    raw = json.dumps(_data(), ensure_ascii=False).encode()
    path = tmp_path / ("tiny-lme.json.gz" if gz else "tiny-lme.json")
    path.write_bytes(gzip.compress(raw) if gz else raw)
    return path


@pytest.mark.parametrize("gz", [True, False])
def test_loader_reads_gzipped_or_plain_and_leaves_abstention_out(tmp_path: Path, gz: bool) -> None:
    questions = longmemeval.load(_write(tmp_path, gz=gz))
    assert [q.question_id for q in questions] == ["q-en", "q-zh"]
    en, zh = questions
    assert en.answer_turns == ("1:0",) and en.answer_sessions == ("q-en-s1",)
    assert zh.answer_turns == ("0:0", "2:0")
    assert en.turns[2].when.isoformat() == "2023-05-19T09:01:00+00:00"  # session 1's date
    assert (en.turns[3].when - en.turns[2].when).total_seconds() == 30


def test_a_file_that_is_not_longmemeval_says_so(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"question": "x"}')
    with pytest.raises(Exception, match="JSON list of questions"):
        longmemeval.load(bad)
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(b"\x1f\x8b not gzip")
    with pytest.raises(Exception, match="Cannot read LongMemEval data"):
        longmemeval.load(broken)


def test_measures_follow_the_definitions(tmp_path: Path) -> None:
    _, zh = longmemeval.load(_write(tmp_path, gz=False))
    # Both answer turns in the top 5; both sessions among the first 5 sessions.
    full = longmemeval.measures(zh, ["0:0", "1:0", "2:0"])
    assert full["turn_recall_all@5"] == full["session_recall_all@5"] == 1.0
    # One answer turn found: any, not all; its session only.
    one = longmemeval.measures(zh, ["2:0", "1:1"])
    assert one["turn_recall_any@5"] == 1.0 and one["turn_recall_all@5"] == 0.0
    assert one["session_recall_all@10"] == 0.0
    # Sessions count distinct: the other answer session's assistant turn brings it in.
    sessions = longmemeval.measures(zh, ["2:0", "2:1", "0:1"])
    assert sessions["session_recall_all@5"] == 1.0 and sessions["turn_recall_all@5"] == 0.0


def test_run_writes_each_question_as_an_agent_with_dated_threads(tmp_path: Path) -> None:
    data = _write(tmp_path, gz=True)
    keep = tmp_path / "kept"
    report = longmemeval.run(data, mode="fulltext", home=keep)
    assert report["questions"] == 2 and report["turns"] == 12
    assert set(report["overall"]) == set(longmemeval.MEASURES)
    assert set(report["baseline_bm25"]) == set(longmemeval.MEASURES)
    assert set(report["by_type"]) == {"single-session-user", "multi-session"}
    assert report["by_type"]["single-session-user"]["turn_recall_all@5"] == 1.0
    with Engine.open(keep / "home") as engine:
        assert sorted(a.name for a in engine.agents()) == ["lme-q-en", "lme-q-zh"]
        tape = engine.tape("lme-q-zh")
        assert [e.thread for e in tape[:2]] == ["q-zh-s2", "q-zh-s2"]  # oldest session first
        assert [e.role for e in tape[:2]] == ["user", "assistant"]
        assert tape[0].created_at.isoformat().startswith("2023-05-18T09:02")
    # A kept home is asked again without writing the haystacks twice.
    again = longmemeval.run(data, mode="fulltext", home=keep)
    assert again["overall"] == report["overall"]
    with Engine.open(keep / "home") as engine:
        assert len(engine.tape("lme-q-zh", limit=100)) == 6


def test_command_prints_the_contract_keys_and_a_table(tmp_path: Path) -> None:
    data = _write(tmp_path, gz=True)
    args = ["bench", "longmemeval", "--data", str(data), "--mode", "fulltext"]
    result = CliRunner().invoke(cli, [*args, "--json", "--limit", "1"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["questions"] == 1
    for key in ("overall", "by_type", "baseline_bm25", "search_ms", "seconds"):
        assert key in report
    assert set(report["by_type"]["single-session-user"]["baseline_bm25"]) == set(
        longmemeval.MEASURES
    )
    text = CliRunner().invoke(cli, args).output
    assert "BM25 baseline" in text and "multi-session" in text


def _retrieval_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bilingual"
    folder.mkdir()
    mems = [
        {
            "id": "en-m1",
            "lang": "en",
            "text": "The user drinks oat lattes.",
            "category": "preference",
        },
        {"id": "zh-m1", "lang": "zh", "text": "小林喜欢喝绿茶。", "category": "preference"},
    ]
    qs = [
        {"id": "en-q1", "lang": "en", "question": "Which latte?", "relevant": ["en-m1"]},
        {"id": "zh-q1", "lang": "zh", "question": "小林喝什么茶?", "relevant": ["zh-m1"]},
    ]
    for name, rows in (("retrieval_memories.jsonl", mems), ("retrieval_bilingual.jsonl", qs)):
        (folder / name).write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows))
    return folder


def test_recall_board_has_a_row_per_slice_and_compares_with_an_earlier_board(
    tmp_path: Path,
) -> None:
    data, folder = _write(tmp_path, gz=True), _retrieval_dir(tmp_path)
    missing = tmp_path / "no-locomo.json"
    missing.write_text("[]")  # a LoCoMo file without conversations: no rows but "all"
    args = ["bench", "recall", "--mode", "fulltext", "--longmemeval", str(data)]
    args += ["--data-dir", str(folder), "--locomo", str(missing)]
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    board = json.loads(result.stdout)
    slices = {(r["bench"], r["slice"]) for r in board["rows"]}
    assert ("longmemeval", "multi-session") in slices and ("bilingual", "zh") in slices
    assert ("bilingual", "all") in slices and ("locomo", "all") in slices
    bilingual = next(r for r in board["rows"] if r["bench"] == "bilingual" and r["slice"] == "all")
    assert bilingual["questions"] == 2 and set(bilingual["baseline_bm25"]) == {
        "recall@1",
        "recall@5",
        "mrr",
    }
    # An earlier board with a better figure: the change is shown and named as worse.
    earlier = json.loads(result.stdout)
    row = next(r for r in earlier["rows"] if r["slice"] == "single-session-user")
    row["tapemind"]["turn_recall_all@5"] = 2.0
    path = tmp_path / "earlier.json"
    path.write_text(json.dumps(earlier))
    text = CliRunner().invoke(cli, [*args, "--against", str(path)]).output
    assert "longmemeval single-session-user turn_recall_all@5: 200.0 -> 100.0" in text
    assert "below BM25:" in text
