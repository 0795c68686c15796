"""The demo data set that `tapemind demo` seeds is well-formed and tells a coherent story.

These checks guard what the owner sees first in the desktop app and in the README screenshots:
every memory's provenance resolves to a real tape entry, lineage is a DAG, conflicts point at
real memories, and no secret value leaks into tape or memory text.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from importlib import resources
from typing import Any

import pytest

KINDS = {"message", "tool_call", "tool_result", "event", "anchor", "compact"}
ROLES = {"user", "assistant", "tool", "system"}
CATEGORIES = {"preference", "project_fact", "task_outcome", "lesson"}
PERMISSION_MODES = {"ask", "auto", "review"}
ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
# Shapes of real credentials; demo text must contain none of them.
CREDENTIAL = re.compile(
    r"ghp_[A-Za-z0-9]{20,}|github_pat_|sk-[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{16}|-----BEGIN|xox[bp]-"
)
SEPT_START = datetime(2026, 9, 1, tzinfo=UTC)
EARLY_SEPT_END = datetime(2026, 9, 15, tzinfo=UTC)


def load_demo() -> dict[str, Any]:
    text = resources.files("resources.demo").joinpath("demo.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def parse_time(value: str) -> datetime:
    assert isinstance(value, str) and ISO_UTC.match(value), f"not an ISO UTC time: {value!r}"
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def is_chinese(text: str) -> bool:
    return len(CJK.findall(text)) >= 4


def is_english(text: str) -> bool:
    return not CJK.search(text) and len(LATIN_WORD.findall(text)) >= 4


def entries_of(agent: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for th in agent["threads"] for turn in th["turns"] for e in turn["entries"]]


def resolve(agent: dict[str, Any], source: dict[str, Any]) -> tuple[dict[str, Any], datetime]:
    """Return the entry a source points at and its turn's time; fail if it does not exist."""
    assert set(source) == {"thread", "turn", "index"}, source
    for th in agent["threads"]:
        if th["thread"] != source["thread"]:
            continue
        for turn in th["turns"]:
            if turn["turn"] == source["turn"]:
                index = source["index"]
                assert isinstance(index, int) and 0 <= index < len(turn["entries"]), source
                return turn["entries"][index], parse_time(turn["at"])
    raise AssertionError(f"{agent['name']}: source points at no entry: {source}")


def find_cycle(parents: dict[str, list[str]]) -> list[str] | None:
    """Return one cycle in the parent graph as a list of keys, or None for a DAG."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished

    def visit(path: list[str]) -> list[str] | None:
        key = path[-1]
        state[key] = 1
        for parent in parents.get(key, []):
            if state.get(parent) == 1:
                return [*path[path.index(parent) :], parent]
            if parent not in state and (cycle := visit([*path, parent])):
                return cycle
        state[key] = 2
        return None

    for key in parents:
        if key not in state and (cycle := visit([key])):
            return cycle
    return None


DEMO = load_demo()
AGENTS = {a["name"]: a for a in DEMO["agents"]}


def test_top_level_shape() -> None:
    assert set(DEMO) == {"now", "agents", "secrets"}
    parse_time(DEMO["now"])
    assert set(AGENTS) == {"claude-code", "deepchat"}
    for agent in DEMO["agents"]:
        assert set(agent) == {"name", "settings", "threads", "memories", "conflicts"}
        settings = agent["settings"]
        assert settings["half_life_days"] > 0
        assert settings["recall_budget"] > 0
        assert settings["permission_mode"] in PERMISSION_MODES


def test_total_entry_count_is_a_realistic_size() -> None:
    total = sum(len(entries_of(a)) for a in DEMO["agents"])
    assert 150 <= total <= 250, total


@pytest.mark.parametrize("name", ["claude-code", "deepchat"])
def test_threads_and_turns(name: str) -> None:
    agent = AGENTS[name]
    now = parse_time(DEMO["now"])
    threads = agent["threads"]
    assert 4 <= len(threads) <= 6
    assert len({th["thread"] for th in threads}) == len(threads), "thread names repeat"
    for th in threads:
        assert th["user"], th["thread"]
        turns = th["turns"]
        assert 3 <= len(turns) <= 6, th["thread"]
        assert len({t["turn"] for t in turns}) == len(turns), f"turn ids repeat in {th['thread']}"
        times = [parse_time(t["at"]) for t in turns]
        assert parse_time(th["started_at"]) == times[0], th["thread"]
        assert times == sorted(times), f"turns out of order in {th['thread']}"
        assert all(SEPT_START <= t <= now for t in times), th["thread"]
        assert all(t["entries"] for t in turns), th["thread"]


@pytest.mark.parametrize("name", ["claude-code", "deepchat"])
def test_entries_use_allowed_kinds_and_roles(name: str) -> None:
    entries = entries_of(AGENTS[name])
    for entry in entries:
        assert set(entry) == {"kind", "role", "text"}
        assert entry["kind"] in KINDS, entry["kind"]
        assert entry["role"] in ROLES, entry["role"]
        assert entry["text"].strip()
        if entry["kind"] == "tool_call":
            call = json.loads(entry["text"])
            assert entry["role"] == "assistant"
            assert isinstance(call["tool"], str) and isinstance(call["input"], dict)
        if entry["kind"] == "tool_result":
            assert entry["role"] == "tool"
        if entry["kind"] == "compact":
            assert entry["role"] == "system"
    kinds = {e["kind"] for e in entries}
    assert {"message", "tool_call", "tool_result", "compact"} <= kinds
    assert {e["role"] for e in entries} >= {"user", "assistant", "tool", "system"}


@pytest.mark.parametrize("name", ["claude-code", "deepchat"])
def test_memories_have_provenance_and_valid_fields(name: str) -> None:
    agent = AGENTS[name]
    now = parse_time(DEMO["now"])
    memories = agent["memories"]
    assert 12 <= len(memories) <= 20
    keys = [m["key"] for m in memories]
    assert len(set(keys)) == len(keys), "memory keys repeat"
    assert {m["category"] for m in memories} == CATEGORIES
    for m in memories:
        assert m["category"] in CATEGORIES
        assert 0 < len(m["text"]) <= 200, m["key"]
        assert 0.2 <= m["importance"] <= 0.95, m["key"]
        created = parse_time(m["created_at"])
        assert created <= now, m["key"]
        assert 1 <= len(m["sources"]) <= 3, m["key"]
        for source in m["sources"]:
            _, turn_at = resolve(agent, source)
            # A memory cannot be distilled before the turn it came from.
            assert turn_at <= created, (m["key"], source)
        assert isinstance(m["recalls"], int) and m["recalls"] >= 0
        if m["recalls"] == 0:
            assert m["last_recalled_at"] is None, m["key"]
        else:
            assert created <= parse_time(m["last_recalled_at"]) <= now, m["key"]


@pytest.mark.parametrize("name", ["claude-code", "deepchat"])
def test_lineage_is_a_dag_within_the_agent(name: str) -> None:
    memories = {m["key"]: m for m in AGENTS[name]["memories"]}
    for m in memories.values():
        for parent in m["parents"]:
            assert parent in memories, f"{m['key']}: unknown parent {parent}"
            assert parent != m["key"]
            assert parse_time(memories[parent]["created_at"]) <= parse_time(m["created_at"])
    assert find_cycle({k: m["parents"] for k, m in memories.items()}) is None
    assert any(m["parents"] for m in memories.values()), "no lineage at all"


def test_cycle_detection_finds_a_cycle() -> None:
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) is not None
    assert find_cycle({"a": ["b", "c"], "b": ["c"], "c": []}) is None


@pytest.mark.parametrize("name", ["claude-code", "deepchat"])
def test_later_features_have_material(name: str) -> None:
    memories = AGENTS[name]["memories"]
    never_recalled = [m for m in memories if m["recalls"] == 0]
    assert len(never_recalled) >= 3
    archive_candidates = [
        m
        for m in never_recalled
        if parse_time(m["created_at"]) < EARLY_SEPT_END and m["importance"] <= 0.3
    ]
    assert archive_candidates, "no old, weak, never-recalled memory for the archive feature"
    assert len({m["recalls"] for m in memories}) >= 5, "recall counts are not varied"


@pytest.mark.parametrize("name", ["claude-code", "deepchat"])
def test_conflicts_reference_existing_memories(name: str) -> None:
    agent = AGENTS[name]
    memories = {m["key"]: m for m in agent["memories"]}
    conflicts = agent["conflicts"]
    assert 1 <= len(conflicts) <= 2
    for conflict in conflicts:
        existing = memories[conflict["existing"]]
        challenger = conflict["challenger"]
        assert challenger["category"] in CATEGORIES
        assert 0 < len(challenger["text"]) <= 200
        assert challenger["text"] != existing["text"]
        assert conflict["reason"].strip()
        assert 1 <= len(challenger["sources"]) <= 3
        for source in challenger["sources"]:
            _, turn_at = resolve(agent, source)
            # The challenger is newer evidence than the memory it contradicts.
            assert turn_at >= parse_time(existing["created_at"])


def test_both_languages_present() -> None:
    coder = [e["text"] for e in entries_of(AGENTS["claude-code"]) if e["kind"] == "message"]
    helper = [e["text"] for e in entries_of(AGENTS["deepchat"]) if e["kind"] == "message"]
    # claude-code works for lin mostly in English with Chinese mixed in.
    assert sum(map(is_english, coder)) > len(coder) / 3
    assert any(CJK.search(t) for t in coder)
    # deepchat works for 王芳 mostly in Chinese.
    assert sum(map(is_chinese, helper)) > len(helper) * 0.8
    memory_texts = [m["text"] for a in DEMO["agents"] for m in a["memories"]]
    assert any(map(is_chinese, memory_texts)) and any(map(is_english, memory_texts))


def test_secrets_are_obviously_fake_and_never_leak() -> None:
    secrets = DEMO["secrets"]
    assert len(secrets) == 3
    assert len({s["name"] for s in secrets}) == 3
    for secret in secrets:
        assert secret["value"].startswith("demo-")
        assert secret["tags"] and all(isinstance(t, str) for t in secret["tags"])
    texts = [e["text"] for a in DEMO["agents"] for e in entries_of(a)]
    texts += [m["text"] for a in DEMO["agents"] for m in a["memories"]]
    texts += [c["challenger"]["text"] for a in DEMO["agents"] for c in a["conflicts"]]
    for text in texts:
        assert not CREDENTIAL.search(text), text
        for secret in secrets:
            assert secret["value"] not in text
