"""Why the arbiter decided as it did: a code with parameters, said in English or Chinese.

A decision's reason is kept three ways: `reason_code` (a short stable word), `reason_params`
(ids, scores and short words; JSON) and `reason`, the English made here from the two: what the
CLI, the audit and agents read. A client says the same reason in the owner's language with
`render(code, params, "zh")`. A code this version does not know (written by a newer one)
renders a generic sentence: `render` never raises.

Parameters any code may carry: a decision taken on a farther neighbour (walk.py) names it
(`decided_on`) and the closer ones passed over (`passed`: [[id, "unrelated" | "conflicting" |
"unclear"], ...]); `settles` says why the walk left an overwrite to a person. A parameter
holding a reason of its own ({"code", "params"}, or {"text"} for free text) renders as one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace

from app.confront.arbiter.base import Action, Decision

Params = Mapping[str, object]
Lang = str  # "en" | "zh"; anything else is English

# code -> (English, Chinese). {scores}, {what}, {signs}, {failure} and nested reasons are
# made from the parameters (see `_values`); the others are the parameters as they are.
TEMPLATES: Mapping[str, tuple[str, str]] = {
    # the rules (offline.py)
    "no_neighbours": ("no similar memory found to compare with", "没有可比较的相似记忆"),
    "nothing_close": (
        "nothing close enough; nearest is {scores}",
        "没有足够接近的记忆；最接近的是 {scores}",
    ),
    "change_unclear": (
        "the candidate says something changed but it is unclear it is this memory; {scores}",
        "新记忆说有变化，但不清楚说的是否是这条记忆；{scores}",
    ),
    "changed": (
        "the candidate says it changed ({what}) and replaces {scores}",
        "新记忆说情况已改变（{what}），取代 {scores}",
    ),
    "refines": (
        "the candidate repeats the memory and adds detail; {scores}",
        "新记忆重复了已有记忆并补充了细节；{scores}",
    ),
    "another_outcome": (
        "another outcome about something else; nearest is {scores}",
        "是另一件事的结果；最接近的是 {scores}",
    ),
    "differs": (
        "{what}, without saying which is current; {scores}",
        "{what}，但没有说明哪个是现在的；{scores}",
    ),
    "qualifier": (
        "repeats the memory with a qualifier; kept both; nearest is {scores}",
        "在已有记忆上加了限定条件，两条都保留；最接近的是 {scores}",
    ),
    "same_meaning": ("same meaning as {scores}", "意思相同：{scores}"),
    "related_new": (
        "related but says something new; nearest is {scores}",
        "相关，但说了新的内容；最接近的是 {scores}",
    ),
    # the rules across scripts (crossscript.py)
    "across_changed": (
        "the candidate says it changed; other language; {scores}",
        "新记忆说情况已改变；另一种语言；{scores}",
    ),
    "across_number": (
        "a number, version or date differs; other language; {scores}",
        "数字、版本或日期不同；另一种语言；{scores}",
    ),
    "across_negation": (
        "one side negates the other; other language; {scores}",
        "一方否定了另一方；另一种语言；{scores}",
    ),
    "across_name": (
        "a different name for the same subject; other language; {scores}",
        "同一主题的名称不同；另一种语言；{scores}",
    ),
    "across_refines": (
        "the candidate repeats the memory and adds detail; other language; {scores}",
        "新记忆重复了已有记忆并补充了细节；另一种语言；{scores}",
    ),
    "across_same": ("same meaning; other language; {scores}", "意思相同；另一种语言；{scores}"),
    "across_related": (
        "related but says something new; other language; nearest is {scores}",
        "相关，但说了新的内容；另一种语言；最接近的是 {scores}",
    ),
    "across_nothing": (
        "nothing close enough; other language; nearest is {scores}",
        "没有足够接近的记忆；另一种语言；最接近的是 {scores}",
    ),
    # the learned arbiter (learned/arbiter.py)
    "learned_unrelated": (
        "nothing here is about the same thing ({sure})",
        "这里没有说同一件事的记忆（{sure}）",
    ),
    "learned": (
        "{action} ({sure} sure): {signs}; {scores}",
        "{action}（把握 {sure}）：{signs}；{scores}",
    ),
    "learned_held_back": (
        "looks like {held_back} ({sure} sure, not enough to overwrite): {then}; {signs}; {scores}",
        "看起来是{held_back}（把握 {sure}，不足以覆盖）：{then}；{signs}；{scores}",
    ),
    # the LLM arbiter (llm.py): its own sentence, or the rules when it failed
    "llm_judgement": ("{text}", "{text}"),
    "llm_fallback_conflict": (
        "fell back because {failure}; kept both and raised a conflict with the near memory "
        "{target} (offline arbiter: {offline})",
        "已改用离线规则，因为{failure}；两条都保留，并对相近的记忆 #{target} 提出冲突"
        "（离线规则：{offline}）",
    ),
    "llm_fallback_add": (
        "fell back because {failure}; no near memory, stored as new",
        "已改用离线规则，因为{failure}；没有相近的记忆，作为新记忆保存",
    ),
    # the engine around the arbiter (decisions.py, offer.py, undo.py)
    "new_memory": ("New memory.", "新记忆。"),
    "exact_duplicate": (
        "Exact duplicate of memory {target} (same text once normalised); nothing stored, the "
        "existing memory was reinforced.",
        "与记忆 #{target} 完全相同（规范化后文字一致）；没有存储，已强化原有记忆。",
    ),
    "stale_target": (
        "{action} of memory {target} was decided, but that memory is no longer active (changed "
        "meanwhile); stored as new. ({inner})",
        "已判定对记忆 #{target} {action}，但那条记忆已不再活跃（期间被改动）；作为新记忆保存。"
        "（{inner}）",
    ),
    "owner_disputes": (
        "the owner disputes that {successor} replaces {target}",
        "你不同意 #{successor} 取代 #{target}",
    ),
}
UNKNOWN = (
    "decided for a reason this version cannot show ({code})",
    "判定理由无法在此版本中显示（{code}）",
)

# What differs between two memories (the rules' `what`)
DIFFERENCES: Mapping[str, tuple[str, str]] = {
    "number": ("a number, version or date differs", "数字、版本或日期不同"),
    "negation": ("one side negates the other", "一方否定了另一方"),
    "value": ("a different value for the same subject", "同一主题的取值不同"),
}
NO_DIFFERENCE = ("new wording", "措辞不同")
# The learned arbiter's features (learned/pair.py) as a person reads them, in its column order.
SIGNS: Mapping[str, tuple[str, str]] = {
    "bias": ("the prior", "先验"),
    "cosine": ("the embedder finds them close", "向量模型认为两者接近"),
    "no_cosine": ("one side is not embedded yet", "有一方还没有向量"),
    "cosine_sq": ("the embedder finds them very close", "向量模型认为两者非常接近"),
    "lexical": ("they share words", "两者有共同的词"),
    "contains_old": ("the candidate repeats the memory's words", "新记忆重复了已有记忆的词"),
    "contains_new": ("the memory holds the candidate's words", "已有记忆包含新记忆的词"),
    "shared_old": ("the memory's words line up with the candidate", "已有记忆的词与新记忆对得上"),
    "shared_new": ("the candidate's words line up with the memory", "新记忆的词与已有记忆对得上"),
    "novel_old": ("the memory says things the candidate does not", "已有记忆说了新记忆没说的内容"),
    "novel_new": ("the candidate says things the memory does not", "新记忆说了已有记忆没说的内容"),
    "substituted": ("a word was replaced by another", "有一个词换成了另一个"),
    "swapped": ("two words changed places", "两个词互换了位置"),
    "numbers_differ": ("a number, version or date differs", "数字、版本或日期不同"),
    "numbers_new": ("the candidate brings a number", "新记忆带来了一个数字"),
    "numbers_lost": ("the memory's number is missing", "已有记忆里的数字不见了"),
    "numbers_same": ("the same numbers on both sides", "两边的数字相同"),
    "negation_flip": ("one side negates the other", "一方否定了另一方"),
    "change_new": ("the candidate says something changed", "新记忆说有变化"),
    "change_old": ("the memory itself says something changed", "已有记忆本身说过有变化"),
    "refine_new": ("the candidate adds a detail (also, 另外)", "新记忆补充了细节（另外、还）"),
    "second_clause": ("the candidate has a second clause", "新记忆有第二个分句"),
    "other_script": ("one is Chinese, the other English", "一条是中文，一条是英文"),
    "same_category": ("both are of the same kind", "两者类别相同"),
    "outcomes": ("both are task outcomes", "两者都是任务结果"),
    "longer": ("the candidate is longer", "新记忆更长"),
    "bag_old_in_new": (
        "every word of the memory is in the candidate, in any order",
        "已有记忆的每个词都在新记忆里（不论顺序）",
    ),
    "bag_new_in_old": (
        "every word of the candidate is in the memory, in any order",
        "新记忆的每个词都在已有记忆里（不论顺序）",
    ),
    "closest": ("it is the closest memory", "它是最接近的记忆"),
    "behind_best": ("a closer memory looks more like the candidate", "有更接近的记忆更像新记忆"),
    "change_x_substituted": (
        "it says it changed, and a value was replaced",
        "说有变化，且有取值被替换",
    ),
    "change_x_numbers": ("it says it changed, and a number differs", "说有变化，且数字不同"),
    "change_x_negation": (
        "it says it changed, and one side negates",
        "说有变化，且一方否定了另一方",
    ),
    "change_x_cosine": (
        "it says it changed, about something close",
        "说有变化，且说的是很接近的事",
    ),
    "negation_x_cosine": (
        "one side negates the other, about something close",
        "一方否定了另一方，且说的是很接近的事",
    ),
    "substituted_x_cosine": (
        "a value was replaced, in sentences otherwise close",
        "有取值被替换，其余部分很接近",
    ),
    "novel_x_contains": ("it repeats the memory and says more", "重复了已有记忆并说了更多"),
    "other_x_cosine": ("a translation of the memory", "是已有记忆的译文"),
    "bags_x_cosine": ("the same words in another order, and close", "同样的词换了顺序，且很接近"),
}
NO_SIGN = ("no single sign", "没有单独突出的迹象")
ACTIONS_ZH: Mapping[str, str] = {
    "add": "新增",
    "update": "更新",
    "supersede": "取代",
    "duplicate": "重复",
    "conflict": "冲突",
}
# What the learned arbiter did with an overwrite it was not sure enough of.
THEN: Mapping[str, tuple[str, str]] = {
    "conflict": ("a person settles it", "交给人来决定"),
    "add": ("kept both", "两条都保留"),
}
# Why the LLM arbiter fell back to the rules; {detail} is a status, an error's name or a word.
FAILURES: Mapping[str, tuple[str, str]] = {
    "timeout": ("the model did not answer in time", "模型没有及时回答"),
    "http": ("the endpoint returned HTTP {detail}", "接口返回了 HTTP {detail}"),
    "error": ("the call failed ({detail})", "调用失败（{detail}）"),
    "not_json": ("the model's answer was not JSON", "模型的回答不是 JSON"),
    "not_object": ("the model's answer was not a JSON object", "模型的回答不是 JSON 对象"),
    "unknown_action": ("unknown action {detail!r}", "未知的动作 {detail!r}"),
    "unknown_target": ("unknown target for {detail}", "{detail} 的目标不明"),
}
# Why a decision on a farther neighbour became a conflict (walk.py).
SETTLES: Mapping[str, tuple[str, str]] = {
    "thinner": ("the evidence being thinner than on the closest memory", "证据比最接近的记忆弱"),
    "closer_conflicting": ("a closer memory conflicting as well", "更接近的记忆也有冲突"),
    "not_closest": ("the memory it would replace not the closest", "它要取代的不是最接近的记忆"),
}
PASSED: Mapping[str, tuple[str, str]] = {
    "unrelated": ("unrelated", "无关"),
    "conflicting": ("conflicting", "有冲突"),
    "unclear": ("unclear", "不确定"),
}


def render(code: str, params: Params, lang: Lang = "en") -> str:
    """The reason `code` with `params` as a sentence in `lang` ("en" or "zh").

    Never raises: an unknown code or a malformed parameter gives a generic sentence, a
    missing parameter shows as "?"."""
    zh = lang == "zh"
    try:
        template = TEMPLATES[code][zh]
        body = template.format_map(_Missing(_values(params, zh)))
        return _walked(body, params, zh)
    except (KeyError, ValueError, TypeError, IndexError, AttributeError):
        return UNKNOWN[zh].format(code=str(code)[:40])


def decision(
    action: Action, target_id: int | str | None, arbiter: str, code: str, /, **params: object
) -> Decision:
    """A decision whose reason is `code` with `params`, its English made by `render`."""
    return Decision(action, target_id, render(code, params), arbiter, code, params)


def amended(d: Decision, action: Action | None = None, /, **params: object) -> Decision:
    """`d` with more parameters (and another action), its English made again. A decision
    without a code (free text) keeps its text, with what the walk adds said after it."""
    if d.reason_code is None:
        return replace(d, action=action or d.action, reason=_walked(d.reason, params, False))
    merged = {**d.reason_params, **params}
    code = d.reason_code
    return Decision(action or d.action, d.target_id, render(code, merged), d.arbiter, code, merged)


def nested(d: Decision) -> dict[str, object]:
    """`d`'s reason as a parameter of another reason."""
    if d.reason_code is None:
        return {"text": d.reason}
    return {"code": d.reason_code, "params": dict(d.reason_params)}


def params_json(params: Params) -> str | None:
    """Parameters as a row stores them (JSON), None for none."""
    return json.dumps(dict(params), ensure_ascii=False, sort_keys=True) if params else None


def params_of(stored: str | None) -> dict[str, object]:
    """The parameters a row stores, {} for none (or for JSON this version cannot read)."""
    try:
        loaded = json.loads(stored) if stored else {}
    except ValueError:
        return {}
    return dict(loaded) if isinstance(loaded, dict) else {}


class _Missing(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "?"


def _word(value: object) -> str:
    """A parameter as the sentence shows it: a score with two decimals, a missing one "-"."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _values(params: Params, zh: bool) -> dict[str, object]:
    values: dict[str, object] = {k: _word(v) for k, v in params.items()}
    for key, value in params.items():
        if isinstance(value, Mapping):
            values[key] = _inner(value, zh)
    if "closeness" in params:
        values["scores"] = _scores(values, zh, long="lexical" in params)
    if "what" in params:
        what = [DIFFERENCES[w][zh] for w in _words(params["what"])]
        values["what"] = ("、" if zh else ", ").join(what) or NO_DIFFERENCE[zh]
    if "signs" in params:
        signs = [SIGNS[s][zh] if s in SIGNS else s for s in _words(params["signs"])]
        values["signs"] = ("；" if zh else "; ").join(signs) or NO_SIGN[zh]
    if "sure" in params:
        values["sure"] = f"{params['sure']}%"
    if "then" in params:
        values["then"] = THEN[str(params["then"])][zh]
    if "failure" in params:
        detail = params.get("detail")
        values["failure"] = FAILURES[str(params["failure"])][zh].format(detail=detail)
    if zh:
        for key in ("action", "held_back"):
            if key in params:
                values[key] = ACTIONS_ZH.get(str(params[key]), str(params[key]))
    return values


def _scores(values: Mapping[str, object], zh: bool, *, long: bool) -> str:
    v = values
    if zh:
        tail = f"，词面 {v.get('lexical')}，全文 {v.get('fulltext', '-')}" if long else ""
        return (
            f"#{v.get('target')}，接近度 {v['closeness']}（向量余弦 {v.get('cosine', '-')}{tail}）"
        )
    tail = f", lexical {v.get('lexical')}, full-text {v.get('fulltext', '-')}" if long else ""
    return f"{v.get('target')}: closeness {v['closeness']} (cosine {v.get('cosine', '-')}{tail})"


def _inner(reason: Mapping[object, object], zh: bool) -> str:
    if "code" in reason:
        params = reason.get("params")
        return render(
            str(reason["code"]), params if isinstance(params, Mapping) else {}, "zh" if zh else "en"
        )
    return str(reason.get("text", "?"))


def _words(value: object) -> Sequence[str]:
    if isinstance(value, str):
        return [w for w in value.split(",") if w]
    if isinstance(value, Sequence):
        return [str(w) for w in value]
    return []


def _walked(body: str, params: Params, zh: bool) -> str:
    """`body` with the farther neighbour decided on and why a person settles it (walk.py)."""
    if "decided_on" in params:
        listed = params.get("passed")
        passed = [p for p in listed if isinstance(p, Sequence)] if isinstance(listed, list) else []
        if zh:
            closer = "、".join(f"#{p[0]}（{PASSED[str(p[1])][1]}）" for p in passed)
            body += f"；判定依据是 #{params['decided_on']}，而不是更接近的 {closer}"
        else:
            closer = ", ".join(f"{p[0]} ({PASSED[str(p[1])][0]})" for p in passed)
            body += f"; decided on {params['decided_on']}, not the closer {closer}"
    if "settles" in params:
        why = SETTLES[str(params["settles"])][zh]
        body = f"交给人来决定，{why}：{body}" if zh else f"a person settles it, {why}: {body}"
    return body
