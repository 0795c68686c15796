"""The history importers read real-shaped files into entries, turns and threads."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.transfer.importers import FORMATS, KINDS, ROLES, ImportBatch, ImportedEntry, parse_history
from app.transfer.importers._common import MAX_TEXT_BYTES

HISTORIES = Path(__file__).parent.parent / "fixtures" / "histories"
CLAUDE_SESSION = "5f0c2a1e-7b3d-4c55-9a61-2f1e8d4c7a10"
CODEX_NEW = "0199a3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9"
CODEX_OLD = "3c1f9b52-8d0e-4a7b-9f36-1b2c3d4e5f60"
CHATGPT_A = "67c1a2b3-0000-8000-a000-00000000000a"
CHATGPT_B = "67c1a2b3-0000-8000-a000-00000000000b"

CASES = [
    ("claude-code", "claude-code"),
    ("codex", "codex"),
    ("chatgpt", "chatgpt"),
    ("jsonl", "generic.jsonl"),
]


def kinds(batch: ImportBatch) -> Counter[tuple[str, str]]:
    return Counter((e.kind, e.role) for e in batch.entries)


def by_text(batch: ImportBatch, text: str) -> ImportedEntry:
    [entry] = [e for e in batch.entries if e.text == text]
    return entry


def test_claude_code_session_maps_blocks_to_entries() -> None:
    batch = parse_history("claude-code", HISTORIES / "claude-code")

    assert kinds(batch) == Counter(
        {
            ("message", "user"): 6,
            ("message", "assistant"): 5,
            ("event", "system"): 4,  # title, caveat, command output, interruption
            ("event", "assistant"): 1,  # thinking
            ("tool_call", "assistant"): 4,
            ("tool_result", "tool"): 4,
            ("anchor", "system"): 1,
            ("compact", "system"): 1,
        }
    )
    assert batch.threads == 2  # the session and its sub-agent
    assert [p.line for p in batch.problems] == [11, 26]
    assert all(p.path and p.path.endswith(f"{CLAUDE_SESSION}.jsonl") for p in batch.problems)
    bash = by_text(batch, "42:def list_entries(ctx, limit):")
    assert bash.meta["tool"] == "Bash" and bash.meta["call_id"] == "toolu_01"
    edit_error = [e for e in batch.entries if e.meta.get("is_error")]
    assert [e.meta["tool"] for e in edit_error] == ["Edit", "Bash"]
    assert by_text(batch, "/model opus").meta["command"] == "/model"
    # The title line has no time: it takes the session's first, not the import's.
    title = by_text(batch, "Add --json output to the list command")
    first = min(e.created_at for e in batch.entries if e is not title and e.created_at)
    assert title.created_at == first


def test_claude_code_turns_open_at_real_user_input_only() -> None:
    batch = parse_history("claude-code", HISTORIES / "claude-code")
    main = [e for e in batch.entries if e.thread == CLAUDE_SESSION]

    openers = [e.text for e in main if e.kind == "message" and e.role == "user"][:-1]
    turns_in_order = list(dict.fromkeys(e.turn for e in main))
    assert turns_in_order == [f"{CLAUDE_SESSION}:{n}" for n in range(5)]
    assert openers == [
        "/model opus",
        "Add a --json flag to `tapecli list` so scripts can parse the output.",
        "把测试里的注释也改成中文，谢谢。",
        "Run the tests please.",
    ]
    # The tool loop, the interruption and the compaction stay in the turn that caused them.
    chinese_turn = by_text(batch, "把测试里的注释也改成中文，谢谢。").turn
    for kind in ("tool_call", "tool_result", "anchor", "compact"):
        assert any(e.turn == chinese_turn and e.kind == kind for e in main)
    last = [e for e in main if e.turn == f"{CLAUDE_SESSION}:4"]
    loop = ["tool_call", "tool_result", "message"]
    assert [e.kind for e in last] == ["message", *loop, *loop]
    assert last[3].text == "全部 12 个测试都通过了。"
    # Words typed while refusing a tool call answer inside the loop; they open no turn.
    assert (last[-1].role, last[-1].text) == ("user", "不要删 build，先问我。")
    sub = [e for e in batch.entries if e.thread != CLAUDE_SESSION]
    assert {e.thread for e in sub} == {f"{CLAUDE_SESSION}/a7c1"}
    assert [e.turn for e in sub] == [f"{CLAUDE_SESSION}/a7c1:1"] * 2
    assert by_text(batch, "Run the tests please.").created_at == datetime(
        2026, 3, 2, 10, 3, tzinfo=UTC
    )


def test_codex_reads_current_and_legacy_rollouts() -> None:
    batch = parse_history("codex", HISTORIES / "codex")

    assert batch.threads == 2
    new = [e for e in batch.entries if e.thread == CODEX_NEW]
    old = [e for e in batch.entries if e.thread == CODEX_OLD]
    assert len(new) + len(old) == len(batch.entries)
    assert Counter((e.kind, e.role) for e in new) == Counter(
        {
            ("message", "system"): 2,  # developer permissions, AGENTS.md
            ("message", "user"): 3,
            ("message", "assistant"): 2,
            ("event", "assistant"): 1,  # reasoning summary
            ("event", "system"): 1,  # turn aborted
            ("tool_call", "assistant"): 2,
            ("tool_result", "tool"): 2,
            ("compact", "system"): 1,
        }
    )
    assert Counter((e.kind, e.role) for e in old) == Counter(
        {
            ("message", "user"): 3,
            ("message", "assistant"): 2,
            ("tool_call", "assistant"): 1,
            ("tool_result", "tool"): 1,
        }
    )
    assert [(p.line, p.path.split("/")[0] if p.path else None) for p in batch.problems] == [
        (10, "2025"),
        (14, "2026"),
        (24, "2026"),
    ]
    assert not any("<environment_context>" in e.text for e in batch.entries)
    # event_msg copies of response items are not imported twice; an uncopied one is.
    users = [e.text for e in new if e.role == "user"]
    assert users == [
        "Why does `make test` fail on CI but not locally?",
        "请把 CI 改成 3.11，然后用中文总结一下修复方案。",
        "继续",
    ]
    assert [e.turn for e in new if e.role == "user"] == [f"{CODEX_NEW}:{n}" for n in (1, 2, 3)]
    call = next(e for e in new if e.kind == "tool_call")
    assert call.text.startswith("shell ") and call.meta["call_id"] == "call_A1"
    result = next(e for e in new if e.kind == "tool_result")
    assert result.text == "python-version: '3.10'\n" and result.meta["tool"] == "shell"
    assert call.meta["model"] == "gpt-5-codex" and call.meta["cwd"] == "/home/mei/proj/ledger"
    assert call.created_at == datetime(2026, 3, 4, 8, 0, 8, tzinfo=UTC)
    # The old format has no per-line times: its lines take the session's start, not "now".
    assert {e.created_at for e in old} == {datetime(2025, 8, 20, 14, 5, 11, 302000, tzinfo=UTC)}
    assert by_text(batch, "main.rs\nlib.rs\n").meta["tool"] == "shell"


def test_codex_repeated_identical_lines_keep_distinct_keys() -> None:
    batch = parse_history("codex", HISTORIES / "codex")
    repeats = [e for e in batch.entries if e.text == "continue"]
    assert len(repeats) == 2
    assert repeats[0].source_key != repeats[1].source_key
    assert [e.turn for e in repeats] == [f"{CODEX_OLD}:2", f"{CODEX_OLD}:3"]


def test_chatgpt_export_follows_the_current_branch() -> None:
    batch = parse_history("chatgpt", HISTORIES / "chatgpt" / "conversations.json")

    assert batch.threads == 2
    assert kinds(batch) == Counter(
        {
            ("message", "user"): 3,
            ("message", "assistant"): 3,
            ("message", "system"): 1,  # custom instructions
            ("event", "assistant"): 1,  # o3 thoughts
            ("tool_call", "assistant"): 1,
            ("tool_result", "tool"): 1,
        }
    )
    texts = [e.text for e in batch.entries]
    assert "The mean is about 4.2 (first draft)." not in texts  # a regenerated-away branch
    a = [e for e in batch.entries if e.thread == CHATGPT_A]
    assert [(e.kind, e.turn) for e in a] == [
        ("message", f"{CHATGPT_A}:0"),
        ("message", f"{CHATGPT_A}:1"),
        ("tool_call", f"{CHATGPT_A}:1"),
        ("tool_result", f"{CHATGPT_A}:1"),
        ("message", f"{CHATGPT_A}:1"),
    ]
    assert a[2].meta["tool"] == "python" and a[3].text == "4.2"
    b_users = [e for e in batch.entries if e.thread == CHATGPT_B and e.role == "user"]
    assert [e.turn for e in b_users] == [f"{CHATGPT_B}:1", f"{CHATGPT_B}:2"]
    assert b_users[0].meta["title"] == "翻译：记忆会衰减"
    assert len(batch.problems) == 2
    assert "b-bad" in batch.problems[0].message
    assert "conversation 2" in batch.problems[1].message


def test_chatgpt_without_current_node_follows_the_latest_answers(tmp_path: Path) -> None:
    export = json.loads((HISTORIES / "chatgpt" / "conversations.json").read_text("utf-8"))
    del export[0]["current_node"]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export[:1]), "utf-8")
    texts = [e.text for e in parse_history("chatgpt", path).entries]
    assert texts[-1] == "The mean price is 4.2."
    assert "The mean is about 4.2 (first draft)." not in texts


def test_codex_fork_keeps_its_own_thread(tmp_path: Path) -> None:
    fork, parent = "0199ffff-0000-7000-8000-000000000001", CODEX_NEW
    lines = [
        {"type": "session_meta", "payload": {"id": fork, "forked_from_id": parent}},
        {"type": "session_meta", "payload": {"id": parent}},
        {
            "timestamp": "2026-03-05T01:00:00Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "换个思路试试"}],
            },
        },
    ]
    path = tmp_path / f"rollout-2026-03-05T01-00-00-{fork}.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), "utf-8")
    [entry] = parse_history("codex", path).entries
    assert (entry.thread, entry.turn) == (fork, f"{fork}:1")
    assert entry.meta["forked_from"] == parent


def test_chatgpt_truncated_export_is_a_problem_with_its_line() -> None:
    batch = parse_history("chatgpt", HISTORIES / "chatgpt-broken")
    assert batch.entries == () and batch.threads == 0
    [problem] = batch.problems
    assert problem.line == 120 and "not valid JSON" in problem.message


def test_generic_jsonl_entries_turns_and_times() -> None:
    batch = parse_history("jsonl", HISTORIES / "generic.jsonl")

    assert batch.threads == 2
    assert [p.line for p in batch.problems] == [7, 8, 11, 12]
    chat = [e for e in batch.entries if e.thread == "chat-42"]
    assert [(e.kind, e.role, e.turn) for e in chat] == [
        ("message", "user", "chat-42:1"),
        ("tool_call", "assistant", "chat-42:1"),
        ("tool_result", "tool", "chat-42:1"),
        ("message", "assistant", "chat-42:1"),
        ("message", "user", "chat-42:2"),
        ("message", "assistant", "chat-42:2"),
    ]
    assert chat[0].source_key == "jsonl:chat-42:g1"
    assert chat[1].meta["tool"] == "grep"
    # "+08:00", Unix seconds and Unix milliseconds all become aware UTC times.
    assert chat[3].created_at == datetime(2026, 1, 5, 10, 0, 3, tzinfo=UTC)
    assert chat[2].created_at == datetime(2026, 1, 5, 10, 0, 2, tzinfo=UTC)
    notes = [e for e in batch.entries if e.thread == "notes"]
    assert [(e.kind, e.turn) for e in notes] == [("anchor", "t-9"), ("message", "notes:1")]
    assert notes[1].created_at == datetime(2026, 1, 5, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(("fmt", "name"), CASES)
def test_parsing_twice_gives_the_same_keys_and_keys_are_unique(fmt: str, name: str) -> None:
    first = parse_history(fmt, HISTORIES / name)
    second = parse_history(fmt, HISTORIES / name)
    keys = [e.source_key for e in first.entries]
    assert keys == [e.source_key for e in second.entries]
    assert len(set(keys)) == len(keys)
    assert [e.turn for e in first.entries] == [e.turn for e in second.entries]
    assert all(k.startswith(f"{fmt}:") for k in keys)
    # meta is small and JSON-safe, ready to store as it is.
    assert all(len(json.dumps(e.meta, ensure_ascii=False)) < 2000 for e in first.entries)


@pytest.mark.parametrize(("fmt", "name"), CASES)
def test_every_time_is_aware_utc(fmt: str, name: str) -> None:
    batch = parse_history(fmt, HISTORIES / name)
    times = [e.created_at for e in batch.entries if e.created_at is not None]
    assert times
    assert all(t.utcoffset() is not None and t.utcoffset().total_seconds() == 0 for t in times)


def test_a_grown_session_keeps_its_old_keys_and_turns(tmp_path: Path) -> None:
    source = HISTORIES / "claude-code" / "-home-mei-proj-tapecli" / f"{CLAUDE_SESSION}.jsonl"
    copy = tmp_path / f"{CLAUDE_SESSION}.jsonl"
    shutil.copy(source, copy)
    before = parse_history("claude-code", copy)
    with copy.open("a", encoding="utf-8") as fh:
        line = {
            "type": "user",
            "uuid": "u-0100",
            "sessionId": CLAUDE_SESSION,
            "timestamp": "2026-03-03T08:00:00Z",
            "message": {"role": "user", "content": "明天继续。"},
        }
        fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    after = parse_history("claude-code", copy)
    old = {e.source_key: e.turn for e in before.entries}
    assert {e.source_key: e.turn for e in after.entries[: len(before.entries)]} == old
    assert after.entries[-1].text == "明天继续。"
    assert after.entries[-1].turn == f"{CLAUDE_SESSION}:5"


def test_a_copied_session_is_not_imported_twice(tmp_path: Path) -> None:
    source = HISTORIES / "claude-code" / "-home-mei-proj-tapecli" / f"{CLAUDE_SESSION}.jsonl"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    shutil.copy(source, tmp_path / "a" / "one.jsonl")
    shutil.copy(source, tmp_path / "b" / "two.jsonl")
    once = parse_history("claude-code", source)
    twice = parse_history("claude-code", tmp_path)
    assert [e.source_key for e in twice.entries] == [e.source_key for e in once.entries]
    assert len(twice.problems) == 2 * len(once.problems)


def test_huge_texts_are_cut_to_one_mebibyte(tmp_path: Path) -> None:
    text = "记忆" * 400_000  # 2.4 MB of UTF-8
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"thread": "t", "role": "tool", "text": text}) + "\n", "utf-8")
    [entry] = parse_history("jsonl", path).entries
    assert len(entry.text.encode("utf-8")) <= MAX_TEXT_BYTES
    assert text.startswith(entry.text) and len(entry.text) > 300_000
    assert entry.meta["truncated"] is True
    assert entry.meta["original_bytes"] == len(text.encode("utf-8"))


def test_bad_arguments_are_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="claude-code"):
        parse_history("slack", tmp_path)
    with pytest.raises(FileNotFoundError, match="no history"):
        parse_history("codex", tmp_path / "missing")
    assert parse_history("codex", tmp_path).entries == ()  # an empty directory is no error


_junk_line = st.one_of(
    st.binary(max_size=80),
    st.text(max_size=80).map(str.encode),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=10),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(
                st.sampled_from(
                    ["type", "payload", "message", "content", "role", "text", "thread", "mapping"]
                ),
                children,
                max_size=4,
            )
        ),
        max_leaves=12,
    ).map(lambda v: json.dumps(v).encode()),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(fmt=st.sampled_from(FORMATS), lines=st.lists(_junk_line, max_size=8))
def test_malformed_input_is_never_fatal(tmp_path: Path, fmt: str, lines: list[bytes]) -> None:
    path = tmp_path / ("conversations.json" if fmt == "chatgpt" else "history.jsonl")
    path.write_bytes(b"\n".join(lines))
    batch = parse_history(fmt, path)
    assert all(e.kind in KINDS and e.role in ROLES and e.source_key for e in batch.entries)
    assert all(p.message for p in batch.problems)


_node_id = st.sampled_from(["r", "a", "b", "c"])
_chatgpt_message = st.fixed_dictionaries(
    {
        "id": st.text(max_size=3),
        "author": st.one_of(
            st.none(), st.fixed_dictionaries({"role": st.sampled_from(["user", "tool", "x"])})
        ),
        "content": st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {
                    "content_type": st.sampled_from(["text", "code", "thoughts", "x"]),
                    "parts": st.lists(st.one_of(st.text(max_size=5), st.integers()), max_size=2),
                }
            ),
        ),
        "recipient": st.one_of(st.none(), st.text(max_size=3), st.integers()),
        "create_time": st.one_of(st.none(), st.floats(), st.text(max_size=4)),
    }
)
_chatgpt_conversation = st.fixed_dictionaries(
    {
        "id": st.one_of(st.text(max_size=3), st.integers()),
        "current_node": st.one_of(_node_id, st.none(), st.lists(_node_id, max_size=1)),
        "mapping": st.dictionaries(
            _node_id,
            st.fixed_dictionaries(
                {
                    "parent": st.one_of(_node_id, st.none(), st.lists(_node_id, max_size=1)),
                    "children": st.one_of(st.lists(_node_id, max_size=3), st.integers()),
                    "message": st.one_of(st.none(), _chatgpt_message),
                }
            ),
            max_size=4,
        ),
    }
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(conversations=st.lists(_chatgpt_conversation, max_size=3))
def test_odd_chatgpt_trees_are_never_fatal(tmp_path: Path, conversations: list[object]) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(conversations), "utf-8")
    batch = parse_history("chatgpt", path)
    assert len({e.source_key for e in batch.entries}) == len(batch.entries)


def test_chatgpt_export_with_bad_bytes_is_read_with_a_problem(tmp_path: Path) -> None:
    data = (HISTORIES / "chatgpt" / "conversations.json").read_bytes()
    marker = "再给一个更文学的版本。".encode()
    path = tmp_path / "conversations.json"
    path.write_bytes(data.replace(marker, marker[:-1] + b"\xff"))  # break one character
    batch = parse_history("chatgpt", path)
    assert len(batch.entries) == 10
    bad = [p for p in batch.problems if "UTF-8" in p.message]
    assert len(bad) == 1 and bad[0].line == data[: data.index(marker)].count(b"\n") + 1
