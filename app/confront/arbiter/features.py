"""Text features the offline arbiter reads, in English and Chinese, with no segmenter or model.

Chinese has no spaces, so lexical similarity works on character n-grams; English on words and
character trigrams. Marker lists are deliberately short: each entry is a phrase people use when a
fact changes, is denied or is refined, and a false hit costs a destructive decision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+#/-]*[a-z0-9+#]|[a-z0-9]")
_NUMBER = re.compile(r"\d+(?:[.:/-]\d+)*")
_CN_NUMBER = re.compile(r"[零一二两三四五六七八九十百千万半]+(?=[个点天周月年次人号岁分小时钟%])")

_STOP_EN = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "with",
        "by",
        "from",
        "as",
        "it",
        "its",
        "this",
        "that",
        "user",
        "user's",
        "users",
        "they",
        "their",
        "them",
        "we",
        "our",
        "he",
        "she",
        "his",
        "her",
        "i",
        "my",
        "me",
        "you",
        "your",
        "has",
        "have",
        "had",
        "do",
        "does",
        "should",
        "will",
        "would",
        "can",
        "could",
        "also",
        "now",
    ]
)
_STOP_ZH = frozenset("的了是在和与也都就把被对于用户我们他她它这那个")

NEGATION_EN = re.compile(
    r"\b(not|never|no longer|don't|doesn't|didn't|isn't|aren't|wasn't|won't|can't|cannot|"
    r"shouldn't|avoid|stop(?:ped)? using|no)\b"
)
NEGATION_ZH = re.compile(r"不|没|别|不再|不要|再也|无需|禁止|避免|停用")
# words that contain 不/没 but deny nothing ("different", "not bad", "quite a few", "constantly")
_NOT_NEGATION_ZH = re.compile(r"不同|不错|不少|不仅|不断|不久|不过|没错|差不多|不得不")
CHANGE_EN = re.compile(
    r"\b(now|switched|switch(?:ed)? to|instead|no longer|from now on|moved to|migrated|"
    r"changed|replaced|upgraded|downgraded|renamed|anymore|any more|actually|correction|"
    r"turned out|going forward|these days|nowadays|has become|updated to|bumped)\b"
)
CHANGE_ZH = re.compile(
    r"现在|改为|改用|换成|换到|不再|以后|今后|从此|已经改|迁移到|升级到|降级到|改成|更正|"
    r"纠正|改名|其实是|实际上是|已改|替换|调整为|变成|迁到|如今|最近改"
)
REFINE_EN = re.compile(
    r"\b(also|additionally|specifically|in particular|more precisely|as well|including|"
    r"especially|plus|except|only when|unless|namely|e\.g\.|for example|details?)\b"
)
REFINE_ZH = re.compile(
    r"另外|还|具体|尤其|特别是|包括|此外|并且|同时|细节|比如|例如|除了|而且|补充"
)


@dataclass(frozen=True)
class TextFeatures:
    """Pre-computed features of one text."""

    text: str
    grams: frozenset[str]
    content: frozenset[str]
    numbers: frozenset[str]
    negated: bool
    change: bool
    refine: bool
    cjk: bool


_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def normalise(text: str) -> str:
    """Lower-case and fold full-width forms so 'Ｖｉｍ，' and 'vim,' compare equal."""
    return text.translate(_FULL_WIDTH).lower()


def _grams(text: str) -> set[str]:
    """Words (tagged "w:"), padded character trigrams of words, Chinese characters and bigrams.

    The kinds cannot collide untagged (trigrams are ASCII of length 3, Chinese grams are CJK of
    length 1 or 2), except a three-letter word with its own trigram, hence the one tag.
    """
    grams: set[str] = set()
    for word in _WORD.findall(text):
        if word in _STOP_EN:
            continue
        grams.add("w:" + word)
        padded = f" {word} "
        grams.update([padded[i : i + 3] for i in range(len(padded) - 2)])
    for run in _CJK_RUN.findall(text):
        grams.update([c for c in run if c not in _STOP_ZH])
        grams.update([run[i : i + 2] for i in range(len(run) - 1)])
    return grams


def _content(text: str) -> set[str]:
    """Content units: English words minus stop words, Chinese bigrams minus function characters."""
    units = {w for w in _WORD.findall(text) if w not in _STOP_EN and not w.isdigit()}
    for run in _CJK_RUN.findall(text):
        kept = "".join(c for c in run if c not in _STOP_ZH)
        units.update(kept[i : i + 2] for i in range(len(kept) - 1))
        if len(kept) == 1:
            units.add(kept)
    return units


@lru_cache(maxsize=4096)
def analyse(text: str) -> TextFeatures:
    """Compute the features of `text` once; comparing two analysed texts is then cheap.

    Cached: the same active memories are neighbours of many candidates in a row.
    """
    norm = normalise(text)
    numbers = set(_NUMBER.findall(norm)) | set(_CN_NUMBER.findall(norm))
    return TextFeatures(
        text=norm,
        grams=frozenset(_grams(norm)),
        content=frozenset(_content(norm)),
        numbers=frozenset(numbers),
        negated=bool(
            NEGATION_EN.search(norm) or NEGATION_ZH.search(_NOT_NEGATION_ZH.sub("", norm))
        ),
        change=bool(CHANGE_EN.search(norm) or CHANGE_ZH.search(norm)),
        refine=bool(REFINE_EN.search(norm) or REFINE_ZH.search(norm)),
        cjk=bool(_CJK.search(norm)),
    )


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """Dice overlap of two sets, 0 when both are empty."""
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def containment(a: frozenset[str], b: frozenset[str]) -> float:
    """Share of `a` found in `b`."""
    if not a:
        return 0.0
    return len(a & b) / len(a)


def lexical_similarity(a: TextFeatures, b: TextFeatures) -> float:
    """Character n-gram overlap in 0..1; works for Chinese without word segmentation."""
    return dice(a.grams, b.grams)


# Words people use interchangeably for the same relation; folded before alignment so that
# "prefers Slack" and "likes Slack" align, while "Slack" and "phone" still stand out.
_SYNONYMS_EN = {
    "prefers": "like",
    "prefer": "like",
    "likes": "like",
    "loves": "like",
    "wants": "like",
    "want": "like",
    "enjoys": "like",
    "preferred": "like",
    "favours": "like",
    "favors": "like",
    "written": "make",
    "implemented": "make",
    "built": "make",
    "developed": "make",
    "runs": "run",
    "running": "run",
    "uses": "use",
    "using": "use",
    "used": "use",
    "kept": "keep",
    "stored": "keep",
    "stores": "keep",
    "saved": "keep",
    "lives": "keep",
    "fails": "fail",
    "chokes": "fail",
    "breaks": "fail",
    "errors": "fail",
    "fixed": "fix",
    "resolved": "fix",
    "licensed": "license",
}
_SYNONYMS_ZH = (
    ("偏好", "喜"),
    ("偏爱", "喜"),
    ("喜欢", "喜"),
    ("习惯", "喜"),
    ("希望", "喜"),
    ("想要", "喜"),
    ("实现", "写"),
    ("开发", "写"),
    ("编写", "写"),
    ("保存", "存"),
    ("存放", "存"),
    ("存储", "存"),
    ("报错", "错"),
    ("出错", "错"),
    ("修好", "修复"),
    ("负责", "管"),
    ("管理", "管"),
)
_ALIGN_STOP_ZH = frozenset(
    "的了是在和与也都就把被对于我们他她它这那个用由已经会要请吗呢吧啊中里上下"
)


def align_tokens(text: str) -> list[str]:
    """A token sequence for alignment: English words and single Chinese characters, folded."""
    norm = normalise(text)
    for word, canon in _SYNONYMS_ZH:
        norm = norm.replace(word, canon)
    tokens: list[str] = []
    for piece in re.findall(r"[a-z0-9][a-z0-9_.+#/-]*[a-z0-9+#]|[a-z0-9]|[\u3400-\u9fff]", norm):
        if _CJK.match(piece):
            if piece not in _ALIGN_STOP_ZH:
                tokens.append(piece)
        elif piece not in _STOP_EN:
            word = _SYNONYMS_EN.get(piece, piece)
            # crude plural folding: "editors" and "editor" are the same subject
            if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
                word = word[:-1]
            tokens.append(word)
    return tokens


@dataclass(frozen=True)
class Alignment:
    """How two texts line up: shared share of each side and the substituted pieces."""

    shared_a: float
    shared_b: float
    substitutions: tuple[tuple[str, str], ...]
    inserted_b: int
    # tokens only one side has, order ignored; a Chinese character weighs half an English word
    novel_a: float
    novel_b: float
    # two shared tokens changed places around a third: "tabs over spaces" / "spaces over tabs"
    swapped: bool = False


def align(a: str, b: str) -> Alignment:
    """Align `a` (existing) with `b` (candidate) token by token."""
    from difflib import SequenceMatcher

    ta, tb = align_tokens(a), align_tokens(b)
    sm = SequenceMatcher(None, ta, tb, autojunk=False)
    shared = sum(block.size for block in sm.get_matching_blocks())
    subs = []
    inserted = 0
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "replace":
            subs.append((" ".join(ta[i1:i2]), " ".join(tb[j1:j2])))
        elif op == "insert":
            inserted += j2 - j1
    return Alignment(
        shared_a=shared / len(ta) if ta else 0.0,
        shared_b=shared / len(tb) if tb else 0.0,
        substitutions=tuple(subs),
        inserted_b=inserted,
        novel_a=_weight(set(ta) - set(tb)),
        novel_b=_weight(set(tb) - set(ta)),
        swapped=_swapped(ta, tb),
    )


# Words that relate what stands on their two sides: swap the sides and the meaning flips.
# Chinese is aligned character by character, hence single characters (而不是, 胜过, 比, 依赖).
_PIVOTS_EN = ("over", "than", "instead", "rather", "before", "after", "vs", "versus")
_PIVOTS = frozenset((*_PIVOTS_EN, "depend", "above", "below", "beat", *"而不胜过比于替依赖"))


def _swapped(ta: list[str], tb: list[str]) -> bool:
    """True when two tokens both texts have trade places around a relating word that both
    keep between them ("prefers tabs over spaces" / "prefers spaces over tabs", "喜欢猫而不是狗"
    / "喜欢狗而不是猫"): the same words now say the opposite. Words merely moved ("fixed the
    leak in the worker" / "the worker leak was fixed") do not turn around such a word."""
    pa = {t: i for i, t in enumerate(ta) if ta.count(t) == 1 and tb.count(t) == 1}
    pb = {t: i for i, t in enumerate(tb) if t in pa}
    shared = sorted(pa, key=pa.__getitem__)
    for i, x in enumerate(shared):
        for y in shared[i + 1 :]:
            if pb[y] >= pb[x]:
                continue  # same order in both
            lo_a, hi_a, lo_b, hi_b = pa[x], pa[y], pb[y], pb[x]
            if any(z in _PIVOTS and lo_a < pa[z] < hi_a and lo_b < pb[z] < hi_b for z in shared):
                return True
    return False


def _weight(tokens: set[str]) -> float:
    return sum(0.5 if _CJK.match(t) else 1.0 for t in tokens)
