"""The real `tapemind` process: `python -m app.cli.main` and `python -m app`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tapemind(
    home: Path, *args: str, stdin: bytes | None = None, module: str = "app.cli.main"
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TAPEMIND_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )


def test_a_session_in_real_processes(home: Path) -> None:
    assert tapemind(home, "init").returncode == 0
    assert tapemind(home, "agent", "add", "cc", module="app").returncode == 0
    batch = "".join(
        json.dumps({"thread": "t", "turn": "u1", "role": r, "text": t}, ensure_ascii=False) + "\n"
        for r, t in (("user", "以后都用 tab"), ("assistant", "好的，记住了"))
    ).encode()
    appended = tapemind(home, "tape", "append", "--agent", "cc", "--jsonl", "-", stdin=batch)
    assert appended.returncode == 0, appended.stderr
    assert appended.stdout.decode() == "Appended 2 entries to the tape of cc: 1, 2.\n"
    made = tapemind(
        home,
        "--json",
        "remember",
        "--agent",
        "cc",
        "--category",
        "preference",
        "--source",
        "1",
        "用户要求用 tab 缩进",
    )
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["decision"] == "add"
    listed = tapemind(home, "memory", "list", "--agent", "cc")
    assert "用户要求用 tab 缩进" in listed.stdout.decode("utf-8")


def test_errors_go_to_stderr_with_an_exit_code(home: Path) -> None:
    missing = tapemind(home, "agent", "list")
    assert missing.returncode == 5
    assert missing.stdout == b""
    assert f"tapemind --home {home} init".encode() in missing.stderr
    assert b"Traceback" not in missing.stderr
    tapemind(home, "init")
    tapemind(home, "agent", "add", "cc")
    bad = tapemind(
        home,
        "--json",
        "tape",
        "append",
        "--agent",
        "cc",
        "--jsonl",
        "-",
        stdin=b'{"thread": "t", "role": "user", "text": "ok"}\n{broken\n',
    )
    assert bad.returncode == 2 and bad.stdout == b""
    error = json.loads(bad.stderr)
    assert error["error"] == "invalid_input" and "line 2" in error["message"]
    refused = tapemind(home, "remember", "--agent", "cc", "--category", "lesson", "谢谢")
    assert refused.returncode == 4 and b"chit-chat" in refused.stderr
    shown = tapemind(home, "--json", "tape", "show", "--agent", "cc")
    assert json.loads(shown.stdout) == []
