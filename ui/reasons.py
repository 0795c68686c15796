"""The engine's reasons in the owner's language: the secret reviewer's, the arbiter's.

The engine keeps a reason as English text (data shared by the audit, the CLI and
agents) and, beside it, as a code with parameters. The app says it in Chinese from
the code: `REQUEST_ZH` covers every code of `app.REQUEST_REASONS` (a test holds the
two together); the arbiter's decision codes are said by the engine itself
(`app.decision_reason`, in English and Chinese). Free text (the owner's own words, a
model's sentence) passes through as written. A reason stored without a code
(written before codes were kept) falls back to translating the English phrases the
offline arbiter builds its reasons from.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .i18n import current_language

if TYPE_CHECKING:
    from app import AccessRequest

# Every code of app.REQUEST_REASONS, in Chinese, with the same parameters.
REQUEST_ZH: Mapping[str, str] = {
    "agent_not_reviewed": "审查者无权为智能体 '{agent}' 批准",
    "secret_not_reviewed": "审查者无权批准机密 '{secret}'",
    "reason_too_short": "理由至少需要 {min_chars} 个字符；请说明这个机密的用途后再请求",
    "rate_limit": (
        "频率限制：审查者在最近 {window_seconds} 秒内已为 '{agent}' 批准了 {allowed} 次读取"
    ),
    "within_rules": "符合审查规则",
    "model_failed": "审查模型出错（{error}）",
    "model_no_decision": "审查模型没有给出决定",
    "model_not_json": "审查模型的回答不是 JSON",
    "model_invalid": "审查模型没有给出有效的决定",
    "model_said": "{text}",
    "auto_mode": "自动模式",
    "covered_by_grant": "已由授权 #{grant}（始终允许）覆盖",
    "no_answer_within": "{seconds} 秒内没有答复",
    "expired": "到期前没有答复",
    "secret_removed": "该机密已从保险库中删除",
    "owner": "{text}",
}
_REVIEWER_ZH = {"rules": "审查规则", "llm": "审查模型"}

# The rules' differences and actions, for reasons stored before codes were kept.
DIFFERENCE_ZH = {
    "number": "数字、版本或日期不同",
    "negation": "一方否定了另一方",
    "value": "同一主题的取值不同",
    "wording": "措辞不同",
}
_ACTIONS_ZH = {
    "add": "新增",
    "update": "更新",
    "supersede": "取代",
    "duplicate": "重复",
    "conflict": "冲突",
}


def template_fields(template: str) -> set[str]:
    """The parameter names a template uses."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def request_reason(request: AccessRequest) -> str:
    """Why an access request stands as it does, in the app's language."""
    text = request.decision_reason or ""
    code = request.reason_code
    if current_language() != "zh" or not text:
        return text
    if code is None or code not in REQUEST_ZH:
        return reason_text(text)
    params = dict(request.reason_params)
    why = REQUEST_ZH[code].format_map(_Missing(params))
    by = _REVIEWER_ZH.get(str(params.get("by", "")))
    if by is None:
        return why
    # A reviewer's verdict: it left the request to a person, or it decided.
    return f"{by}请你决定：{why}" if request.status == "pending" else f"{by}：{why}"


def decision_reason(code: str | None, params: Mapping[str, object], text: str) -> str:
    """An arbiter's decision reason in the app's language: from its code when the engine
    knows it (app.decision_reason), else from its English phrases."""
    if current_language() != "zh" or not text:
        return text
    from app import DECISION_REASONS  # the engine: only once needed
    from app import decision_reason as said

    if code is None or code not in DECISION_REASONS:
        return reason_text(text)
    return said(code, params, "zh")


class _Missing(dict[str, object]):
    """format_map values where a parameter the template names is missing shows "?"."""

    def __missing__(self, key: str) -> str:
        return "?"


# -- reasons without a code: the offline arbiter's English phrases ------------------------

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
    ("a number, version or date differs", DIFFERENCE_ZH["number"]),
    ("one side negates the other", DIFFERENCE_ZH["negation"]),
    ("a different value for the same subject", DIFFERENCE_ZH["value"]),
    ("new wording", DIFFERENCE_ZH["wording"]),
    ("same meaning as ", "意思相同："),
    ("other language; nearest is ", "另一种语言；最接近的是 "),
    ("other language; ", "另一种语言；"),
    (
        "is no longer active (changed meanwhile); stored as new.",
        "已不再活跃（期间被改动）；作为新记忆保存。",
    ),
    (" was decided, but that memory ", "，但那条记忆"),
    # across scripts (crossscript.py): "<why>; other language; [nearest is ]<scores>"
    ("the candidate says it changed; ", "新记忆说情况已改变；"),
    ("a different name for the same subject", "同一主题的名称不同"),
    ("related but says something new; ", "相关，但说了新的内容；"),
    ("nothing close enough; ", "没有足够接近的记忆；"),
    ("same meaning; ", "意思相同；"),
    ("nearest is ", "最接近的是 "),
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
# The learned arbiter's words (app/confront/arbiter/learned/pair.py WORDS) and the frame of
# its reasons (learned/arbiter.py): "supersede (82% sure): <words>; <id>: closeness …".
LEARNED_ZH: Mapping[str, str] = {
    "the prior": "先验",
    "the embedder finds them close": "向量模型认为两者接近",
    "one side is not embedded yet": "有一方还没有向量",
    "the embedder finds them very close": "向量模型认为两者非常接近",
    "they share words": "两者有共同的词",
    "the candidate repeats the memory's words": "新记忆重复了已有记忆的词",
    "the memory holds the candidate's words": "已有记忆包含新记忆的词",
    "the memory's words line up with the candidate": "已有记忆的词与新记忆对得上",
    "the candidate's words line up with the memory": "新记忆的词与已有记忆对得上",
    "the memory says things the candidate does not": "已有记忆说了新记忆没说的内容",
    "the candidate says things the memory does not": "新记忆说了已有记忆没说的内容",
    "a word was replaced by another": "有一个词换成了另一个",
    "two words changed places": "两个词互换了位置",
    "a number, version or date differs": DIFFERENCE_ZH["number"],
    "the candidate brings a number": "新记忆带来了一个数字",
    "the memory's number is missing": "已有记忆里的数字不见了",
    "the same numbers on both sides": "两边的数字相同",
    "one side negates the other": DIFFERENCE_ZH["negation"],
    "the candidate says something changed": "新记忆说有变化",
    "the memory itself says something changed": "已有记忆本身说过有变化",
    "the candidate adds a detail (also, 另外)": "新记忆补充了细节（另外、还）",
    "the candidate has a second clause": "新记忆有第二个分句",
    "one is Chinese, the other English": "一条是中文，一条是英文",
    "both are of the same kind": "两者类别相同",
    "both are task outcomes": "两者都是任务结果",
    "the candidate is longer": "新记忆更长",
    "every word of the memory is in the candidate, in any order": (
        "已有记忆的每个词都在新记忆里（不论顺序）"
    ),
    "every word of the candidate is in the memory, in any order": (
        "新记忆的每个词都在已有记忆里（不论顺序）"
    ),
    "it is the closest memory": "它是最接近的记忆",
    "a closer memory looks more like the candidate": "有更接近的记忆更像新记忆",
    "it says it changed, and a value was replaced": "说有变化，且有取值被替换",
    "it says it changed, and a number differs": "说有变化，且数字不同",
    "it says it changed, and one side negates": "说有变化，且一方否定了另一方",
    "it says it changed, about something close": "说有变化，且说的是很接近的事",
    "one side negates the other, about something close": "一方否定了另一方，且说的是很接近的事",
    "a value was replaced, in sentences otherwise close": "有取值被替换，其余部分很接近",
    "it repeats the memory and says more": "重复了已有记忆并说了更多",
    "a translation of the memory": "是已有记忆的译文",
    "the same words in another order, and close": "同样的词换了顺序，且很接近",
    "no single sign": "没有单独突出的迹象",
}
_LEARNED_FRAME_ZH: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (
        re.compile(
            r"^looks like (\w+) \((\d+)% sure, not enough to overwrite\): "
            r"(a person settles it|kept both); "
        ),
        lambda m: (
            f"看起来是{_ACTIONS_ZH.get(m[1], m[1])}（把握 {m[2]}%，不足以覆盖）："
            + ("交给人来决定；" if m[3] == "a person settles it" else "两条都保留；")
        ),
    ),
    (
        re.compile(r"^(add|update|supersede|duplicate|conflict) \((\d+)% sure\): "),
        lambda m: f"{_ACTIONS_ZH[m[1]]}（把握 {m[2]}%）：",
    ),
    (
        re.compile(r"^nothing here is about the same thing \((\d+)%\)"),
        lambda m: f"这里没有说同一件事的记忆（{m[1]}%）",
    ),
    (
        re.compile(r"(\w+): closeness ([\d.]+) \(cosine ([\d.]+|-)\)$"),
        lambda m: f"#{m[1]}，接近度 {m[2]}（向量余弦 {m[3]}）",
    ),
)


def _learned_text(reason: str) -> str | None:
    """A learned arbiter's reason in Chinese, or None when `reason` is not one."""
    text = reason
    for pattern, replace in _LEARNED_FRAME_ZH:
        text = pattern.sub(replace, text)
    if text == reason:
        return None
    for english in sorted(LEARNED_ZH, key=len, reverse=True):
        text = text.replace(english, LEARNED_ZH[english])
    return text.replace("; ", "；")


_SCORES = re.compile(
    r"(?P<id>\w+): closeness (?P<c>[\d.]+) \(cosine (?P<cos>[\d.]+|-), "
    r"lexical (?P<lex>[\d.]+), full-text (?P<ft>[\d.]+|-)\)"
)
_DECIDED = re.compile(r"\b(add|update|supersede|duplicate|conflict) of memory (\d+)")
# The secret reviewer's verdicts stored before codes were kept (app/vault/reasons.py).
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
        # the farther neighbour decided on and the closer ones passed (walk.py)
        (r"; decided on (\w+), not the closer ", r"；判定依据是 #\1，而不是更接近的 "),
        (r"\b(\w+) \(unrelated\), ", r"#\1（无关）、"),
        (r"\b(\w+) \(unclear\), ", r"#\1（不确定）、"),
        (r"\b(\w+) \(conflicting\), ", r"#\1（有冲突）、"),
        (r"\b(\w+) \(unrelated\)", r"#\1（无关）"),
        (r"\b(\w+) \(conflicting\)", r"#\1（有冲突）"),
        (r"\b(\w+) \(unclear\)", r"#\1（不确定）"),
        # the owner disputed a supersede (app/confront/undo.py `dispute`)
        (r"the owner disputes that (\d+) replaces (\d+)", r"你不同意 #\1 取代 #\2"),
    )
)


def reason_text(reason: str) -> str:
    """A reason stored as English only, in the app's language (phrase by phrase)."""
    if current_language() != "zh" or not reason:
        return reason
    learned = _learned_text(reason)
    if learned is not None:
        return learned
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
