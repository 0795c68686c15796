"""The importers on histories shaped like what Claude Code, Codex and ChatGPT write in 2025-2026.

The fixtures under ``tests/fixtures/histories/real`` copy the shapes documented by projects that
read these files (daaain/claude-code-log, sonnes/chitragupt, openai/codex's own rollout code,
mohamed-chs/convoviz), in English and Chinese. What a demanding user expects, and each test
checks: their own words, and only those, are ``user`` messages that open turns; what the tools
injected (IDE context, reminders, AGENTS.md, environment blocks, hidden ChatGPT context) and what
the model thought are kept with their own kind; nothing is imported twice.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from app.transfer.importers import ImportBatch, ImportedEntry, parse_history

REAL = Path(__file__).parent.parent / "fixtures" / "histories" / "real"
S1 = "7d3e9a10-2b4c-4e8f-9a1b-3c5d7e9f1a2b"
S2 = "0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d"
PARENT = "019bc2a0-1111-7000-8000-00000000000a"
FORK = "019bc2a0-2222-7000-8000-00000000000b"
SPAWNED = "019bc2a0-4444-7000-8000-00000000000d"
TRIP = "6956a000-0000-8000-a000-000000000001"
CSV = "6956a000-0000-8000-a000-000000000002"


def of(batch: ImportBatch, thread: str) -> list[ImportedEntry]:
    return [e for e in batch.entries if e.thread == thread]


def said_by_user(entries: list[ImportedEntry]) -> list[str]:
    return [e.text for e in entries if (e.kind, e.role) == ("message", "user")]


def turn_no(entry: ImportedEntry) -> int:
    return int(entry.turn.rsplit(":", 1)[1])


def test_claude_code_project_folder_keeps_only_what_the_person_typed_as_theirs() -> None:
    batch = parse_history("claude-code", REAL / "claude-projects")
    main = of(batch, S1)

    # The compactor's copy (agent-acompact-*) and the "Warmup" cache primer are no threads.
    assert {e.thread for e in batch.entries} == {S1, S2, f"{S1}/a1b2c3d"}
    assert said_by_user(main) == [
        "请解释一下这个函数。",
        "/cost",
        "! git status",
        "Now add a --dry-run flag, and find every caller of load() first.",
        "顺便把 README 也更新一下",  # typed while the agent worked: a queued_command attachment
        "谢谢，今天就到这里。",
    ]
    openers = [turn_no(e) for e in main if (e.kind, e.role) == ("message", "user")]
    # The queued prompt is answered inside the turn it interrupted; it opens none.
    assert openers == [1, 2, 3, 4, 4, 5]
    events = {e.meta.get("event"): e for e in main if e.kind == "event"}
    # IDE context, command output, shell output, a background task's notice and a reminder
    # are kept as events of the turn they came with, never as something the person said.
    assert turn_no(events["ide_context"]) == 1
    assert events["command_output"].text == "Total cost: $0.12"  # no tags, no colour codes
    assert events["bash_output"].text == "On branch main\nnothing to commit"
    assert turn_no(events["task_notification"]) == 4 and turn_no(events["reminder"]) == 4
    assert events["thinking"].role == "assistant"
    # Claude Code's own words ("No response requested.", model "<synthetic>") are no answer.
    assert events["synthetic"].text == "No response requested."
    # Without isCompactSummary (older versions) the summary is still a compact entry.
    [compact] = [e for e in main if e.kind == "compact"]
    assert compact.text.startswith("This session is being continued") and turn_no(compact) == 4
    # A tool result is no new user turn, and it names the tool that produced it.
    task = next(e for e in main if e.kind == "tool_result" and e.meta.get("tool") == "Task")
    assert turn_no(task) == 4 and task.text.startswith("Found 3 callers")


def test_claude_code_titles_go_to_the_session_their_leaf_belongs_to() -> None:
    batch = parse_history("claude-code", REAL / "claude-projects")
    titles = {e.text: e for e in batch.entries if e.meta.get("event") == "title"}

    # Session 1's file also lists a summary of session 2 and one of a session not imported
    # (Claude Code's summary contamination): each lands where its leafUuid is, or nowhere.
    assert set(titles) == {"修复导入器的标题", "导入器修复", "整理周报"}
    assert titles["整理周报"].thread == S2
    assert titles["修复导入器的标题"].thread == S1 and titles["导入器修复"].thread == S1
    assert all(e.turn.endswith(":0") and e.kind == "event" for e in titles.values())
    assert titles["整理周报"].created_at == datetime(2026, 1, 19, 17, 0, tzinfo=UTC)


def test_claude_code_sub_agent_folder_is_its_own_thread_after_the_session() -> None:
    batch = parse_history("claude-code", REAL / "claude-projects")
    sub = of(batch, f"{S1}/a1b2c3d")

    assert [(e.kind, e.role, turn_no(e)) for e in sub] == [
        ("message", "user", 1),
        ("tool_call", "assistant", 1),
        ("tool_result", "tool", 1),
        ("message", "assistant", 1),
    ]
    threads_in_order = list(dict.fromkeys(e.thread for e in batch.entries))
    assert threads_in_order.index(S1) < threads_in_order.index(f"{S1}/a1b2c3d")
    [problem] = batch.problems  # the line cut off by a crash, with its file and number
    assert problem.line == 23 and problem.path and problem.path.endswith(f"{S1}.jsonl")


def test_codex_sessions_folder_reads_what_was_typed_once() -> None:
    batch = parse_history("codex", REAL / "codex-sessions")
    parent = of(batch, PARENT)

    # A compaction sub-session Codex ran for itself is skipped; a spawned sub-agent is kept.
    assert {e.thread for e in batch.entries} == {PARENT, FORK, SPAWNED}
    # The event_msg copy of a message with an image is not a second question.
    assert said_by_user(parent) == ["[image]\n这个报错是什么意思？", "Add a default port of 8080."]
    assert [turn_no(e) for e in parent if (e.kind, e.role) == ("message", "user")] == [1, 2]
    injected = [e for e in parent if e.role == "system" and e.kind == "message"]
    assert [e.text.split("\n")[0] for e in injected] == [
        "<permissions instructions>",
        "# AGENTS.md instructions for /home/li/proj",
    ]
    assert all(turn_no(e) == 0 for e in injected)
    assert not any("<environment_context>" in e.text for e in batch.entries)
    by_event = {e.meta.get("event"): e for e in parent if e.kind == "event"}
    # A "!" command the person ran is theirs but no prompt; an interruption is a notice.
    assert by_event["user_shell_command"].role == "user"
    assert turn_no(by_event["user_shell_command"]) == 1
    assert by_event["turn_aborted"].role == "system"
    # Reasoning written as text (no summary) is kept as the model's, not as an answer.
    assert by_event["reasoning"].text == "The traceback shows a KeyError for 'port'."
    failed = next(e for e in parent if e.kind == "tool_result" and e.meta.get("is_error"))
    assert failed.meta["tool"] == "exec_command" and "KeyError" in failed.text
    assert [e.text for e in parent if e.kind == "compact"] == ["conversation compacted"]
    [problem] = batch.problems
    assert problem.line == 17 and problem.path and problem.path.endswith(f"{PARENT}.jsonl")


def test_codex_fork_does_not_import_its_parents_history_again() -> None:
    batch = parse_history("codex", REAL / "codex-sessions")
    fork = of(batch, FORK)

    assert [(e.kind, e.role, e.text, turn_no(e)) for e in fork] == [
        ("message", "user", "换成 9090 吧。", 1),
        ("message", "assistant", "好，默认端口改成 9090。", 1),
    ]
    assert fork[0].meta["forked_from"] == PARENT
    spawned = of(batch, SPAWNED)
    assert spawned[0].meta["parent_thread"] == PARENT and len(spawned) == 2


def test_codex_fork_read_alone_keeps_the_history_it_copied() -> None:
    [fork_file] = (REAL / "codex-sessions").rglob(f"*{FORK}.jsonl")
    batch = parse_history("codex", fork_file)
    # Without its parent in the import, the copy is the only record of that history.
    assert said_by_user(list(batch.entries)) == [
        "[image]\n这个报错是什么意思？",
        "换成 9090 吧。",
    ]


def test_chatgpt_export_shows_what_the_person_saw() -> None:
    batch = parse_history("chatgpt", REAL / "chatgpt")
    trip = of(batch, TRIP)

    assert said_by_user(trip) == [
        "[image]\n这张照片是哪座寺庙？",
        "What time does it open?\n[audio]",  # a voice message: its transcript
    ]
    assert "这是清水寺。" not in [e.text for e in trip]  # the regenerated-away branch
    answer = next(e for e in trip if e.kind == "message" and e.text.startswith("这是金阁寺"))
    # Search citation markers (private-use characters) removed; a link keeps its label.
    assert answer.text == "这是金阁寺（鹿苑寺）。 参见 Kinkaku-ji official site。"
    assert not any("\ue200" in e.text or "asset_pointer" in e.text for e in batch.entries)
    hidden = next(e for e in trip if e.meta.get("event") == "hidden")
    assert (hidden.kind, hidden.role, turn_no(hidden)) == ("event", "system", 1)
    instructions = trip[0]
    assert (instructions.kind, instructions.role) == ("message", "system")
    assert instructions.text == "我是素食者。\n回答要简短。"
    # Messages without a create_time take the time before them, never the import's.
    assert instructions.created_at == datetime(2026, 1, 1, tzinfo=UTC)
    voice = next(e for e in trip if e.text.startswith("What time"))
    assert voice.created_at == answer.created_at
    reasoning = [e.text for e in trip if e.meta.get("event") == "reasoning"]
    # "Thought for 6 seconds" (reasoning_recap) says nothing worth keeping.
    assert reasoning == ["Identify the temple\nA golden pavilion by a pond: Kinkaku-ji."]
    call = next(e for e in trip if e.kind == "tool_call")
    assert call.text == 'web.run {"search_query": [{"q": "金阁寺 开放时间"}]}'
    web = next(e for e in trip if e.kind == "tool_result")
    assert web.meta["tool"] == "web.run" and web.meta["url"].startswith("https://")
    csv = of(batch, CSV)
    assert Counter((e.kind, e.role) for e in csv) == Counter(
        {("message", "user"): 1, ("tool_call", "assistant"): 1, ("tool_result", "tool"): 1,
         ("message", "assistant"): 1}
    )  # fmt: skip
    assert next(e for e in csv if e.kind == "tool_result").meta["is_error"] is True
    [problem] = batch.problems
    assert "conversation 2" in problem.message


def test_chatgpt_export_wrapped_in_an_object_is_read(tmp_path: Path) -> None:
    export = json.loads((REAL / "chatgpt" / "conversations.json").read_text("utf-8"))
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps({"conversations": export[:2]}, ensure_ascii=False), "utf-8")
    batch = parse_history("chatgpt", path)
    assert batch.threads == 2 and not batch.problems


def test_real_shapes_parse_to_the_same_keys_twice() -> None:
    for fmt, name in (
        ("claude-code", "claude-projects"),
        ("codex", "codex-sessions"),
        ("chatgpt", "chatgpt"),
    ):
        first = parse_history(fmt, REAL / name)
        keys = [e.source_key for e in first.entries]
        assert keys == [e.source_key for e in parse_history(fmt, REAL / name).entries]
        assert len(set(keys)) == len(keys)


def test_claude_folder_with_its_prompt_history_reads_only_sessions(tmp_path: Path) -> None:
    shutil.copytree(REAL / "claude-projects", tmp_path / "projects")
    history = {"display": "帮我整理这周的周报", "pastedContents": {}, "timestamp": 1768838400000}
    (tmp_path / "history.jsonl").write_text(json.dumps(history, ensure_ascii=False) + "\n")
    batch = parse_history("claude-code", tmp_path)  # ~/.claude itself, not ~/.claude/projects
    assert len(batch.entries) == len(parse_history("claude-code", REAL / "claude-projects").entries)
    assert [p.path for p in batch.problems if "prompt history" in p.message] == ["history.jsonl"]


def test_codex_events_without_their_response_items_are_still_told_apart(tmp_path: Path) -> None:
    # Some rollouts hold only the UI events (no response items): the context Codex sent as
    # user_message events is still no question from the person.
    lines = [
        {"timestamp": "2025-09-01T10:00:00Z", "type": "session_meta", "payload": {"id": "e1"}},
        {"timestamp": "2025-09-01T10:00:01Z", "type": "event_msg", "payload": {
            "type": "user_message", "message": "<environment_context>\n<cwd>/p</cwd>\n"
            "</environment_context>", "kind": "environment_context"}},
        {"timestamp": "2025-09-01T10:00:02Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "为什么测试失败？", "kind": "plain"}},
        {"timestamp": "2025-09-01T10:00:05Z", "type": "event_msg",
         "payload": {"type": "agent_message", "message": "缺少依赖。"}},
    ]  # fmt: skip
    path = tmp_path / "rollout-2025-09-01T10-00-00-e1.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), "utf-8")
    batch = parse_history("codex", path)
    assert [(e.role, e.text, e.turn) for e in batch.entries] == [
        ("user", "为什么测试失败？", "e1:1"),
        ("assistant", "缺少依赖。", "e1:1"),
    ]


def test_chatgpt_export_zip_as_downloaded_is_read(tmp_path: Path) -> None:
    zipped = tmp_path / "export-2026-01-03.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.write(REAL / "chatgpt" / "conversations.json", "conversations.json")
        archive.writestr("user.json", "{}")
    from_zip = parse_history("chatgpt", zipped)
    plain = parse_history("chatgpt", REAL / "chatgpt")
    assert [e.source_key for e in from_zip.entries] == [e.source_key for e in plain.entries]
    assert [p.path for p in from_zip.problems] == ["export-2026-01-03.zip/conversations.json"]
    # A folder holding only the downloaded ZIP is found too.
    assert len(parse_history("chatgpt", tmp_path).entries) == len(plain.entries)


def test_codex_fork_copied_after_a_compaction_is_still_recognised(tmp_path: Path) -> None:
    def line(kind: str, payload: dict[str, object]) -> str:
        return json.dumps({"timestamp": "2026-02-01T10:00:00Z", "type": kind, "payload": payload})

    def said(role: str, text: str) -> str:
        part = {"type": "input_text" if role == "user" else "output_text", "text": text}
        return line("response_item", {"type": "message", "role": role, "content": [part]})

    parent, fork = "p-1", "f-1"
    early = [said("user", "第一个问题"), said("assistant", "第一个回答")]
    kept = [said("user", "第二个问题"), said("assistant", "第二个回答")]
    day = tmp_path / "2026" / "02" / "01"
    day.mkdir(parents=True)
    (day / f"rollout-2026-02-01T10-00-00-{parent}.jsonl").write_text("\n".join(
        [line("session_meta", {"id": parent}), *early, line("compacted", {"message": "摘要"}),
         *kept]), "utf-8")  # fmt: skip
    # The fork copies the history as it stood after the compaction: not from the start.
    (day / f"rollout-2026-02-01T11-00-00-{fork}.jsonl").write_text("\n".join(
        [line("session_meta", {"id": fork, "forked_from_id": parent}),
         line("session_meta", {"id": parent}), line("compacted", {"message": "摘要"}), *kept,
         said("user", "换个问法"), said("assistant", "好的")]), "utf-8")  # fmt: skip
    batch = parse_history("codex", tmp_path)
    assert [e.text for e in of(batch, fork)] == ["换个问法", "好的"]
    assert len(of(batch, parent)) == 5


def test_chatgpt_hidden_memory_call_stays_a_tool_call(tmp_path: Path) -> None:
    hidden = {"is_visually_hidden_from_conversation": True}
    nodes = [
        ("u", "user", {"content_type": "text", "parts": ["记住：我对花生过敏。"]}, "all", {}),
        ("c", "assistant", {"content_type": "text", "parts": ["User is allergic to peanuts."]},
         "bio", hidden),
        ("r", "tool", {"content_type": "text", "parts": ["Model set context updated."]}, "all",
         hidden),
        ("a", "assistant", {"content_type": "text", "parts": ["好的，我记住了。"]}, "all", {}),
    ]  # fmt: skip
    mapping: dict[str, object] = {}
    parent = None
    for node_id, role, content, to, metadata in nodes:
        author = {"role": role, "name": "bio" if role == "tool" else None}
        message = {"id": node_id, "author": author, "content": content, "recipient": to,
                   "metadata": metadata, "create_time": 1767225600.0}  # fmt: skip
        mapping[node_id] = {"id": node_id, "parent": parent, "message": message}
        parent = node_id
    path = tmp_path / "conversations.json"
    conv = {"id": "mem", "title": "记忆", "mapping": mapping, "current_node": "a"}
    path.write_text(json.dumps([conv], ensure_ascii=False), "utf-8")
    batch = parse_history("chatgpt", path)
    assert [(e.kind, e.role, e.text) for e in batch.entries] == [
        ("message", "user", "记住：我对花生过敏。"),
        ("tool_call", "assistant", "bio User is allergic to peanuts."),
        ("tool_result", "tool", "Model set context updated."),
        ("message", "assistant", "好的，我记住了。"),
    ]


def test_claude_code_inline_sub_agents_of_2025_are_one_thread_each(tmp_path: Path) -> None:
    # Parallel Task calls written inline (no agentId, no subagents/ folder) interleave.
    def side(uuid: str, parent: str | None, kind: str, text: str) -> dict[str, object]:
        content = [{"type": "text", "text": text}] if kind == "assistant" else text
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "isSidechain": True,
                "sessionId": "s-2025", "timestamp": "2025-07-01T10:00:00Z",
                "message": {"role": kind, "content": content}}  # fmt: skip

    lines = [
        side("x1", None, "user", "Search the docs for 衰减"),
        side("y1", None, "user", "List the tests"),
        side("x2", "x1", "assistant", "Found it in DESIGN.md."),
        side("y2", "y1", "assistant", "There are 12 tests."),
    ]
    path = tmp_path / "s-2025.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), "utf-8")
    batch = parse_history("claude-code", path)
    assert [(e.thread, e.turn, e.text) for e in batch.entries] == [
        ("s-2025/x1", "s-2025/x1:1", "Search the docs for 衰减"),
        ("s-2025/y1", "s-2025/y1:1", "List the tests"),
        ("s-2025/x1", "s-2025/x1:1", "Found it in DESIGN.md."),
        ("s-2025/y1", "s-2025/y1:1", "There are 12 tests."),
    ]
