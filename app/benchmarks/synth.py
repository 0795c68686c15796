"""Synthetic agent memories and queries in English and Chinese, for latency runs.

Templates with many slot values: varied enough that full-text and vector
search do real work, deterministic for a given seed. Not a quality benchmark.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

_EN = {
    "preference": [
        "The user prefers {tool} for {task} and dislikes {other}.",
        "{person} wants {style} answers when asking about {topic}.",
        "When working on {project}, {person} likes {drink} in the morning.",
    ],
    "project_fact": [
        "{project} runs on {db} behind {proxy}; deploys go out on {day}.",
        "The {project} team keeps its docs in {tool} and its tickets in {other}.",
        "{project} talks to the {topic} service over {proto} on port {port}.",
    ],
    "task_outcome": [
        "Migrated {project} from {other} to {db} in {n} hours; {topic} latency fell.",
        "Fixed the {topic} bug in {project}: {cause}.",
        "Released {project} {n}.{port} with the new {topic} screen.",
    ],
    "lesson": [
        "Never run {tool} against {db} in production without a backup: {cause}.",
        "For {topic}, test with real {other} data first; mocks hid {cause}.",
        "{person} learned that {proto} timeouts in {project} come from {cause}.",
    ],
}
_ZH = {
    "preference": [
        "用户做{task_zh}时喜欢用{tool},不喜欢{other}。",
        "{person_zh}问到{topic_zh}时希望回答{style_zh}。",
        "{person_zh}早上写{project}的代码时习惯喝{drink_zh}。",
    ],
    "project_fact": [
        "{project}部署在{db}上,前面是{proxy},每周{day_zh}发布。",
        "{project}团队的文档放在{tool},工单在{other}。",
        "{project}通过{proto}连接{topic_zh}服务,端口{port}。",
    ],
    "task_outcome": [
        "把{project}从{other}迁移到{db}用了{n}小时,{topic_zh}延迟下降了。",
        "修复了{project}里{topic_zh}的问题:{cause_zh}。",
        "发布了{project} {n}.{port},带新的{topic_zh}页面。",
    ],
    "lesson": [
        "生产环境里对{db}执行{tool}之前一定要先备份:{cause_zh}。",
        "做{topic_zh}要先用真实的{other}数据测试,模拟数据掩盖了{cause_zh}。",
        "{person_zh}发现{project}的{proto}超时来自{cause_zh}。",
    ],
}
_SLOTS = {
    "tool": ["ruff", "vim", "VS Code", "Notion", "Obsidian", "pgcli", "tmux", "Grafana", "Jira"],
    "other": ["Confluence", "Emacs", "Trello", "Excel", "MySQL", "Redis", "Linear", "Slack"],
    "task": ["code review", "debugging", "writing docs", "planning", "profiling", "refactoring"],
    "task_zh": ["代码评审", "调试", "写文档", "做计划", "性能分析", "重构"],
    "person": ["Sam", "Lin", "Maya", "Omar", "Priya", "Chen", "Lucas", "Aiko"],
    "person_zh": ["小林", "王芳", "李雷", "张伟", "陈静", "刘洋", "赵敏", "孙悦"],
    "style": ["short", "detailed", "bulleted", "code-first", "formal", "casual"],
    "style_zh": ["简短", "详细", "分点", "先给代码", "正式", "随意"],
    "topic": ["billing", "search", "login", "export", "payments", "sync", "backup", "alerts"],
    "topic_zh": ["账单", "搜索", "登录", "导出", "支付", "同步", "备份", "告警"],
    "project": ["Atlas", "Nimbus", "Orion", "Pebble", "Quill", "Helix", "Tundra", "Vega"],
    "drink": ["espresso", "green tea", "oat latte", "black coffee", "matcha", "water"],
    "drink_zh": ["浓缩咖啡", "绿茶", "燕麦拿铁", "黑咖啡", "抹茶", "白开水"],
    "db": ["PostgreSQL 16", "SQLite", "ClickHouse", "MongoDB", "DuckDB", "TiDB"],
    "proxy": ["nginx", "Caddy", "Envoy", "HAProxy", "Traefik"],
    "day": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
    "day_zh": ["一", "二", "三", "四", "五"],
    "proto": ["gRPC", "HTTP/2", "WebSocket", "AMQP", "REST"],
    "port": [str(p) for p in (443, 5432, 6379, 8080, 8443, 9000, 9090)],
    "n": [str(n) for n in range(2, 30)],
    "cause": [
        "a missing index",
        "a stale cache",
        "clock skew",
        "an unbounded retry loop",
        "a connection pool that was too small",
        "a timezone bug",
    ],
    "cause_zh": ["缺少索引", "缓存过期", "时钟偏差", "无限重试", "连接池太小", "时区错误"],
}
_QUERIES_EN = [
    "which database does {project} use",
    "how does {person} like answers about {topic}",
    "what went wrong with {topic} in {project}",
    "{tool} or {other} for {task}?",
    "lessons about {proto} timeouts",
    "what does the user drink in the morning",
]
_QUERIES_ZH = [
    "{project}用的是什么数据库",
    "{person_zh}喜欢什么样的回答",
    "{project}的{topic_zh}出了什么问题",
    "做{task_zh}用什么工具",
    "{proto}超时的原因",
    "用户早上喝什么",
]


@dataclass(frozen=True)
class SynthMemory:
    text: str
    category: str
    lang: str
    thread: str
    user: str


def _fill(template: str, rng: random.Random) -> str:
    values = {k: rng.choice(v) for k, v in _SLOTS.items()}
    return template.format(**values)


def memories(n: int, seed: int = 7) -> list[SynthMemory]:
    """`n` memories, half English, half Chinese, with a few threads and users."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        lang = "en" if i % 2 == 0 else "zh"
        category = rng.choice(list(_EN))
        template = rng.choice((_EN if lang == "en" else _ZH)[category])
        # A counter keeps every text distinct, as real memories are.
        text = f"{_fill(template, rng)} (#{i})" if lang == "en" else f"{_fill(template, rng)}(#{i})"
        out.append(SynthMemory(text, category, lang, f"t{rng.randrange(50)}", f"u{i % 7}"))
    return out


def queries(n: int, seed: int = 11) -> list[tuple[str, str]]:
    """`n` (lang, query) pairs, alternating English and Chinese."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        lang = "en" if i % 2 == 0 else "zh"
        out.append((lang, _fill(rng.choice(_QUERIES_EN if lang == "en" else _QUERIES_ZH), rng)))
    return out
