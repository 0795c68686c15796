"""Print how fast the history importers read large synthetic histories.

Run: python bench/bench_importers.py [turns]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from app.transfer.importers import parse_history


def claude_code(turns: int) -> list[str]:
    """A session of ``turns`` turns: question, tool call, tool result, answer."""
    lines = []
    for t in range(turns):
        base = {"sessionId": "bench", "timestamp": "2026-03-02T09:15:40.500Z", "cwd": "/p"}
        lines.append({**base, "type": "user", "uuid": f"u{t}", "message": {"content": f"问题 {t}"}})
        tool = {"type": "tool_use", "id": f"t{t}", "name": "Bash", "input": {"command": "ls"}}
        lines.append({**base, "type": "assistant", "uuid": f"a{t}", "message": {"content": [tool]}})
        result = {"type": "tool_result", "tool_use_id": f"t{t}", "content": "x" * 2000}
        lines.append({**base, "type": "user", "uuid": f"r{t}", "message": {"content": [result]}})
        answer = {"type": "text", "text": f"answer {t} " * 20}
        lines.append(
            {**base, "type": "assistant", "uuid": f"b{t}", "message": {"content": [answer]}}
        )
    return [json.dumps(line, ensure_ascii=False) for line in lines]


def codex(turns: int) -> list[str]:
    """A rollout of ``turns`` turns in the current envelope format."""
    ts = "2026-03-04T08:00:00.000Z"

    def env(kind: str, payload: dict[str, object]) -> str:
        return json.dumps({"timestamp": ts, "type": kind, "payload": payload}, ensure_ascii=False)

    lines = [env("session_meta", {"id": "bench", "cwd": "/p"})]
    for t in range(turns):
        text = [{"type": "input_text", "text": f"问题 {t}"}]
        lines.append(env("response_item", {"type": "message", "role": "user", "content": text}))
        lines.append(env("event_msg", {"type": "user_message", "message": f"问题 {t}"}))
        call = {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}'}
        lines.append(env("response_item", {**call, "call_id": f"c{t}"}))
        out = {"type": "function_call_output", "call_id": f"c{t}", "output": "x" * 2000}
        lines.append(env("response_item", out))
        answer = [{"type": "output_text", "text": f"answer {t} " * 20}]
        lines.append(
            env("response_item", {"type": "message", "role": "assistant", "content": answer})
        )
    return lines


def chatgpt(turns: int) -> list[str]:
    """An export of conversations of 25 turns: question, code call, its output, answer.

    Returned as one line: the export is one JSON document.
    """
    conversations = []
    for c in range(max(1, turns // 25)):
        mapping: dict[str, object] = {"root": {"id": "root", "parent": None, "message": None}}
        parent = "root"
        for t in range(25):
            for i, (role, ctype, body, to) in enumerate(
                (
                    ("user", "text", f"问题 {c}-{t}", "all"),
                    ("assistant", "code", "print(sum(range(10)))", "python"),
                    ("tool", "execution_output", "x" * 2000, "all"),
                    ("assistant", "text", f"answer {t} " * 20, "all"),
                )
            ):
                node = f"m{c}-{t}-{i}"
                content = {"content_type": ctype, "parts": [body]} if ctype == "text" else {
                    "content_type": ctype, "text": body}  # fmt: skip
                message = {"id": node, "author": {"role": role}, "create_time": 1767225600.0,
                           "content": content, "recipient": to, "metadata": {}}  # fmt: skip
                mapping[node] = {"id": node, "parent": parent, "message": message}
                parent = node
        conversations.append(
            {"id": f"conv-{c}", "title": f"对话 {c}", "mapping": mapping, "current_node": parent}
        )
    return [json.dumps(conversations, ensure_ascii=False)]


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 25_000
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, make in (("claude-code", claude_code), ("codex", codex), ("chatgpt", chatgpt)):
            path = Path(tmp) / f"{fmt}.jsonl"
            lines = make(turns)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            # Records: lines of a JSONL history, messages of a ChatGPT export.
            records = turns // 25 * 100 if fmt == "chatgpt" else len(lines)
            size = path.stat().st_size / 1e6
            start = time.perf_counter()
            batch = parse_history(fmt, path)
            elapsed = time.perf_counter() - start
            rate = f"{records / elapsed:,.0f} records/s, {size / elapsed:.1f} MB/s"
            print(
                f"{fmt:12} {records:>8} records {size:7.1f} MB -> {len(batch.entries):>7} entries"
                f" in {elapsed:6.2f} s ({rate})"
            )


if __name__ == "__main__":
    main()
