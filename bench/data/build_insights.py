"""Write the insights scenarios of cases_insights.py as insights.jsonl (dev) and
insights_holdout.jsonl (held out). Run: python bench/data/build_insights.py

One line per scenario: {"agent", "memories": [{"key", "category", "group", "point", "thread",
"text"}], "used": [{"turn", "memories"}], "parents": {child: [parents]}}. A memory's `point`
is the key of the memory it says the same thing as (itself when none), so a scorer can tell
a step that merges paraphrases from one that merges different advice.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import cases_insights  # noqa: E402


def scenario_json(scenario: dict) -> dict:
    same = dict(scenario["same"])
    keys = [m[0] for m in scenario["memories"]]
    if len(set(keys)) != len(keys):
        raise ValueError(f"{scenario['agent']}: a key is used twice")
    memories = [
        {"key": k, "category": c, "group": g, "point": same.get(k, k), "thread": t, "text": x}
        for k, c, g, t, x in scenario["memories"]
    ]
    used = [{"turn": turn, "memories": ids} for turn, ids in scenario["used"]]
    at = {k: i for i, k in enumerate(keys)}
    for turn, ids in scenario["used"]:
        if turn.startswith("@") and any(at[k] >= at[turn[1:]] for k in ids):
            raise ValueError(f"{scenario['agent']}: {turn} uses a memory learned after it")
    for u in used:
        for key in [*u["memories"], u["turn"][1:] if u["turn"].startswith("@") else None]:
            if key is not None and key not in keys:
                raise ValueError(f"{scenario['agent']}: used names unknown memory {key}")
    return {
        "agent": scenario["agent"],
        "memories": memories,
        "used": used,
        "parents": scenario["parents"],
    }


def main() -> None:
    for split, name in (("dev", "insights.jsonl"), ("holdout", "insights_holdout.jsonl")):
        rows = [scenario_json(s) for s in cases_insights.SCENARIOS if s["split"] == split]
        with (HERE / name).open("w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        n = sum(len(r["memories"]) for r in rows)
        groups = sum(len({m["group"] for m in r["memories"] if m["group"]}) for r in rows)
        print(f"{name}: {len(rows)} scenarios, {n} memories, {groups} groups")


if __name__ == "__main__":
    main()
