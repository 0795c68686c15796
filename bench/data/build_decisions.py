"""Assemble the hand-written cases into decisions.jsonl and decisions_holdout.jsonl.

The pairs (existing memory, candidate, expected action) are written by hand in cases_en.py and
cases_zh.py; this script only adds unrelated distractor memories from a hand-written pool,
adds the related same-topic memories listed in RELATED, shuffles the neighbours, numbers them, and sets every fourth case of each (language, action)
group aside as the holdout. Run: python bench/data/build_decisions.py

It then writes the cross-language sets: the cases of each set whose candidate has a hand-written
translation in cases_crosslang.py, with the candidate replaced by its translation and everything
else (existing memories, expected action, target) kept; `lang` says which way, e.g. "zh-en" is a
Chinese case with an English candidate.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import cases_crosslang  # noqa: E402
import cases_en  # noqa: E402
import cases_zh  # noqa: E402


def build(lang: str, cases: list, pool: list, related: dict, rng: random.Random) -> list[dict]:
    """Turn one language's tuples into JSON-ready cases."""
    out = []
    for expected, category, target, candidate, extra in cases:
        memories = [(category, target, True)]
        extra = [*extra, *related.get(target, [])]
        memories += [(category, text, False) for text in extra]
        k = rng.randint(0, 8 - len(extra))
        memories += [(c, t, False) for c, t in rng.sample(pool, k)]
        rng.shuffle(memories)
        existing, target_id = [], None
        for i, (cat, text, is_target) in enumerate(memories, start=1):
            existing.append({"id": f"m{i}", "text": text, "category": cat})
            if is_target and expected != "add":
                target_id = f"m{i}"
        out.append(
            {
                "existing": existing,
                "candidate": {"text": candidate, "category": category},
                "expected": expected,
                "target": target_id,
                "lang": lang,
            }
        )
    return out


def crosslang(rows: list[dict], translations: dict[str, str]) -> list[dict]:
    """The cases of `rows` with a translated candidate, in the order of `rows`."""
    out = []
    for row in rows:
        text = row["candidate"]["text"]
        if text not in translations:
            continue
        other = "zh" if row["lang"] == "en" else "en"
        out.append(
            {
                **row,
                "candidate": {**row["candidate"], "text": translations[text]},
                "lang": f"{row['lang']}-{other}",
            }
        )
    found = {row["candidate"]["text"] for row in rows}
    missing = sorted(set(translations) - found)
    if missing:
        raise SystemExit(f"translations of unknown candidates: {missing}")
    return out


def main() -> None:
    rng = random.Random(20261130)
    dev, holdout = [], []
    for lang, module in (("en", cases_en), ("zh", cases_zh)):
        seen: dict[str, int] = {}
        for case in build(lang, module.CASES, module.POOL, module.RELATED, rng):
            n = seen.get(case["expected"], 0)
            seen[case["expected"]] = n + 1
            (holdout if n % 4 == 3 else dev).append(case)
    sets = (
        ("decisions.jsonl", dev),
        ("decisions_holdout.jsonl", holdout),
        ("decisions_crosslang.jsonl", crosslang(dev, cases_crosslang.DEV)),
        ("decisions_crosslang_holdout.jsonl", crosslang(holdout, cases_crosslang.HOLDOUT)),
    )
    for name, rows in sets:
        with open(HERE / name, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(name, len(rows))


if __name__ == "__main__":
    main()
