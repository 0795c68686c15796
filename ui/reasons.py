"""The engine's reasons in the owner's language: the offline arbiter's, the reviewer's.

The engine stores a reason in English: it is data, shared by the audit, the decision log,
the CLI and agents. The offline arbiter and the secret reviewer's rules build every
reason from the few fixed phrases below plus scores and names, so the app can show them
in Chinese. A reason written by an LLM (arbiter or reviewer) is free text in whatever
language the model chose: it passes through unchanged (a phrase of ours that it happens
to contain is still translated).
"""

from __future__ import annotations

import re

from .i18n import current_language

# Longest first where one phrase contains another.
PHRASES_ZH: tuple[tuple[str, str], ...] = (
    (
        "the candidate says something changed but it is unclear it is this memory; ",
        "新记忆说有变化，但不清楚说的是否是这条记忆；",
    ),
    ("the candidate repeats the memory and adds detail; ", "新记忆重复了已有记忆并补充了细节；"),
    (
        "repeats the memory with a qualifier; kept both; nearest is ",
        "在已有记忆上加了限定条件，两条都保留；最接近的是 ",
    ),
    ("related but says something new; nearest is ", "相关，但说了新的内容；最接近的是 "),
    ("another outcome about something else; nearest is ", "是另一件事的结果；最接近的是 "),
    ("nothing close enough; nearest is ", "没有足够接近的记忆；最接近的是 "),
    ("no similar memory found to compare with", "没有可比较的相似记忆"),
    ("no existing memory to compare with", "没有可比较的已有记忆"),
    ("the candidate says it changed (", "新记忆说情况已改变（"),
    (") and replaces ", "），取代 "),
    (", without saying which is current; ", "，但没有说明哪个是现在的；"),
    ("a number, version or date differs", "数字、版本或日期不同"),
    ("one side negates the other", "一方否定了另一方"),
    ("a different value for the same subject", "同一主题的取值不同"),
    ("new wording", "措辞不同"),
    ("same meaning as ", "意思相同："),
    (
        "is no longer active (changed meanwhile); stored as new.",
        "已不再活跃（期间被改动）；作为新记忆保存。",
    ),
    (" was decided, but that memory ", "，但那条记忆"),
    # a decision taken on a farther neighbour (app/confront/arbiter/walk.py)
    (
        "a person settles it, the evidence being thinner than on the closest memory: ",
        "交给人来决定，证据比最接近的记忆弱：",
    ),
    (
        "a person settles it, a closer memory conflicting as well: ",
        "交给人来决定，更接近的记忆也有冲突：",
    ),
    (
        "a person settles it, the memory it would replace not the closest: ",
        "交给人来决定，它要取代的不是最接近的记忆：",
    ),
)
_SCORES = re.compile(
    r"(?P<id>\w+): closeness (?P<c>[\d.]+) \(cosine (?P<cos>[\d.]+|-), "
    r"lexical (?P<lex>[\d.]+), full-text (?P<ft>[\d.]+|-)\)"
)
_DECIDED = re.compile(r"\b(add|update|supersede|duplicate|conflict) of memory (\d+)")
# The secret reviewer's verdicts (app/vault/reviewer.py, approvals.py); names kept as given.
_PATTERNS_ZH: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), chinese)
    for pattern, chinese in (
        (r"reviewer \(rules\) asks a person: ", "审查规则请你决定："),
        (r"reviewer \(llm\) asks a person: ", "审查模型请你决定："),
        (r"the reviewer may not approve for agent ('.*?')", r"审查者无权为智能体 \1 批准"),
        (r"the reviewer may not approve secret ('.*?')", r"审查者无权批准机密 \1"),
        (
            r"rate limit: the reviewer already allowed (\d+) reads for ('.*?') in the last "
            r"(\d+) seconds",
            r"频率限制：审查者在最近 \3 秒内已为 \2 批准了 \1 次读取",
        ),
        (
            r"a reason of at least (\d+) characters is required; ask again saying what the "
            r"secret is for",
            r"理由至少需要 \1 个字符；请说明这个机密的用途后再请求",
        ),
        (r"the reviewer model failed \((\w+)\)", r"审查模型出错（\1）"),
        (r"the reviewer model gave no valid decision", "审查模型没有给出有效的决定"),
        (r"the reviewer model gave no decision", "审查模型没有给出决定"),
        (r"the reviewer model's answer was not JSON", "审查模型的回答不是 JSON"),
        (r"within the reviewer's rules", "符合审查规则"),
        (r"covered by grant (\d+) \(always\)", r"已由授权 #\1（始终允许）覆盖"),
        (r"\(no reason given\)", "（未给出理由）"),
        # the farther neighbour decided on and the closer ones passed (app/confront/arbiter/walk.py)
        (r"; decided on (\w+), not the closer ", r"；判定依据是 #\1，而不是更接近的 "),
        (r"\b(\w+) \(unrelated\), ", r"#\1（无关）、"),
        (r"\b(\w+) \(unclear\), ", r"#\1（不确定）、"),
        (r"\b(\w+) \(conflicting\), ", r"#\1（有冲突）、"),
        (r"\b(\w+) \(unrelated\)", r"#\1（无关）"),
        (r"\b(\w+) \(conflicting\)", r"#\1（有冲突）"),
        (r"\b(\w+) \(unclear\)", r"#\1（不确定）"),
        # the owner disputed a supersede (app/confront/conflicts.py `dispute`)
        (r"the owner disputes that (\d+) replaces (\d+)", r"你不同意 #\1 取代 #\2"),
    )
)
_ACTIONS_ZH = {
    "add": "新增",
    "update": "更新",
    "supersede": "取代",
    "duplicate": "重复",
    "conflict": "冲突",
}


def reason_text(reason: str) -> str:
    """`reason` in the app's language (English reasons are shown as they are)."""
    if current_language() != "zh" or not reason:
        return reason
    text = _SCORES.sub(
        lambda m: (
            f"#{m['id']}，接近度 {m['c']}（向量余弦 {m['cos']}，词面 {m['lex']}，全文 {m['ft']}）"
        ),
        reason,
    )
    text = _DECIDED.sub(lambda m: f"已判定对记忆 #{m[2]} {_ACTIONS_ZH[m[1]]}", text)
    for english, chinese in PHRASES_ZH:
        text = text.replace(english, chinese)
    for pattern, replacement in _PATTERNS_ZH:
        text = pattern.sub(replacement, text)
    return text
