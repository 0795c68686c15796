"""The owner's host, eight agents over MCP and the CLI on one home at once: nothing lost."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app import Engine

from .mcp_helpers import ROOT, cli, counts, env, integrity, start_serve, stop, stored

AGENTS = [f"agent{i}" for i in range(8)]
TURNS = 3
CLI_APPENDS = 4


@pytest.mark.slow
def test_eight_agents_and_the_cli_at_once_lose_nothing(
    home: Path, database_url: str | None
) -> None:
    with Engine.open(home, create=True, database_url=database_url) as engine:
        for name in [*AGENTS, "cli"]:
            engine.add_agent(name)
        tokens = {name: engine.agent_token(name).token for name in AGENTS}
    proc, url = start_serve(home)
    cli_ids: list[int] = []
    # Half the agents in each protocol era: stateless POSTs, and `initialize`d sessions.
    worker = [sys.executable, "-m", "tests.mcp.agent_worker"]
    try:
        workers = [
            subprocess.Popen(
                [*worker, url, tokens[n], n, str(TURNS), "legacy" if i % 2 else "auto"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env(),
                cwd=ROOT,
            )
            for i, n in enumerate(AGENTS)
        ]

        def cli_writer() -> None:
            for n in range(CLI_APPENDS):
                out = cli(
                    home,
                    "--json",
                    "tape",
                    "append",
                    "--agent",
                    "cli",
                    "--thread",
                    "c",
                    "--role",
                    "user",
                    "--text",
                    f"命令行第 {n} 条",
                )
                cli_ids.extend(json.loads(out.stdout)["ids"])

        writer = threading.Thread(target=cli_writer)
        writer.start()
        reports = []
        for w in workers:
            out, err = w.communicate(timeout=300)
            assert w.returncode == 0, err
            reports.append(json.loads(out.strip().splitlines()[-1]))
        writer.join(300)
    finally:
        stop(proc)

    assert len(cli_ids) == CLI_APPENDS
    total = counts(home)
    assert total["tape_entries"] == len(AGENTS) * TURNS * 2 + CLI_APPENDS
    assert integrity(home) == "ok"
    with stored(home) as conn:
        for report in reports:
            assert len(report["entries"]) == TURNS * 2
            rows = conn.execute(
                "SELECT t.id FROM tape_entries t JOIN agents a ON a.id = t.agent_id "
                "WHERE a.name = ? ORDER BY t.seq",
                (report["agent"],),
            ).fetchall()
            assert [r[0] for r in rows] == report["entries"]
            for memory_id in report["memories"]:
                owner = conn.execute(
                    "SELECT a.name FROM memories m JOIN agents a ON a.id = m.agent_id "
                    "WHERE m.id = ?",
                    (memory_id,),
                ).fetchone()
                assert owner == (report["agent"],)
            assert report["memories"], "each agent stored at least one memory"
        # Every use an agent reported is stored, for that agent, and nothing else.
        uses = conn.execute(
            "SELECT a.name, u.memory_id FROM memory_uses u JOIN agents a ON a.id = u.agent_id"
        ).fetchall()
        reported = [(r["agent"], m) for r in reports for m in r["memories"]]
        assert sorted(uses) == sorted(reported)
        # The CLI's appends went in alongside, exactly as it was told.
        cli_rows = conn.execute(
            "SELECT t.id FROM tape_entries t JOIN agents a ON a.id = t.agent_id "
            "WHERE a.name = 'cli' ORDER BY t.seq"
        ).fetchall()
        assert [r[0] for r in cli_rows] == cli_ids
        assert len(workers) == len(AGENTS) == 8  # eight agent processes, one token each
        seqs = conn.execute(
            "SELECT agent_id, count(*), count(DISTINCT seq), max(seq) FROM tape_entries "
            "GROUP BY agent_id"
        ).fetchall()
        assert all(n == distinct == top for _a, n, distinct, top in seqs)
