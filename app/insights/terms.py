"""Topic terms of a memory, in English and Chinese: what its words are about.

English words become their Snowball stems (stop words and words of manner left out);
Chinese runs become their bigrams, leaving out those made with a particle or that begin or
end with a word that glues others together (在从, 上试 are fragments, not words). No
dictionary and no model, as the full-text index does it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from app.text import CJK_LETTERS, CJK_PARTICLES, STOP_WORDS, stem

_TOKEN = re.compile(rf"[{CJK_LETTERS}]+|[A-Za-z][A-Za-z0-9+#.\-]*[A-Za-z0-9+#]|[A-Za-z]")
IS_CJK = re.compile(rf"[{CJK_LETTERS}]")
# Words that say how, not about what: a title of them names nothing.
_GENERIC_EN_TEXT = """use used using make every before after first never always want wants wanted
    need needs instead rather than new last next time times week day days one two three get got
    run"""
_GENERIC_EN = frozenset(_GENERIC_EN_TEXT.split())
# A bigram that begins or ends with one of these is mostly a fragment across two words
# (在从, 上试): prepositions, adverbs and verbs of manner that glue Chinese words together.
_CJK_EDGE = frozenset(
    "在上先把和是不要用就再也都很还让给对被时后前中里下到了过着与及或每次该这那个"
)
_GENERIC_ZH_TEXT = """不要 之前 之后 时候 一个 一下 一遍 可以 如果 然后 以后 已经 这个 那个
    没有 就是 还是 因为 所以 但是 而是 不是 先看 要在 希望 要求 每次 上次 喜欢 时先"""
_GENERIC_ZH = frozenset(_GENERIC_ZH_TEXT.split())


def terms(text: str) -> dict[str, str]:
    """Topic terms of a text: English stems -> the word as written, CJK bigrams -> themselves."""
    out: dict[str, str] = {}
    for token in _TOKEN.findall(text):
        if IS_CJK.match(token):
            for i in range(len(token) - 1):
                gram = token[i : i + 2]
                if set(gram) & CJK_PARTICLES or gram in _GENERIC_ZH:
                    continue
                if gram[0] not in _CJK_EDGE and gram[-1] not in _CJK_EDGE:
                    out.setdefault(gram, gram)
        else:
            word = token.lower()
            if len(word) < 3 or word in STOP_WORDS or word in _GENERIC_EN:
                continue
            out.setdefault(stem(word), token if not token.islower() else word)
    return out


def pool_terms(texts: Sequence[str]) -> Counter[str]:
    """Document frequency of every term over a pool of texts."""
    return Counter(key for t in texts for key in terms(t))


def similarity(texts: Sequence[str]) -> npt.NDArray[np.float64]:
    """Pairwise cosine of the texts' term sets weighted by inverse document frequency over
    `texts` (a word every memory has, such as the user's name, counts for little)."""
    found = [terms(t) for t in texts]
    df = Counter(key for f in found for key in f)
    vocab = {key: i for i, key in enumerate(sorted(df))}
    m = np.zeros((len(texts), max(1, len(vocab))))
    n = len(texts)
    for row, f in enumerate(found):
        for key in f:
            m[row, vocab[key]] = math.log((n + 1) / df[key])
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    m /= norms
    out: npt.NDArray[np.float64] = m @ m.T
    return out
