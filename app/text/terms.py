"""Full-text tokens for SQLite FTS5 that work for Chinese as well as English.

FTS5's unicode61 tokenizer keeps a run of Han characters as one token, and the
trigram tokenizer cannot match two-character words (咖啡, 过敏). So we index a
token string we build ourselves: Latin words lowercased and reduced to their
English Snowball stem ("hiking" is stored as "hike"), and each CJK run as its
single characters plus overlapping bigrams. No dictionary, no model.

A query is turned into the same tokens, as OR'ed terms ranked by bm25:
- an English word matches its stem ("hikes" finds "hiking"), or itself (rows
  indexed before stems were stored hold the word as written);
- English stop words ("what", "did", "the") are dropped, unless the query has
  nothing else;
- a CJK run of two or more characters (a Chinese question has no spaces, so a
  run is often a whole clause) becomes its bigrams and its single characters,
  each a term; those made with a grammatical particle (的, 了, 吗, 什么…) are
  dropped unless nothing is left. Documents holding more of the query's words
  rank first (bigrams weigh more than characters, being rarer).

Every token string starts with an agent token, so a MATCH can be restricted to
one agent inside the index itself.

What one text can cost is bounded (`app.limits`): a word is indexed by its first
MAX_TERM_CHARS characters and stemmed only up to MAX_STEM_CHARS (Snowball's time grows
with the square of a long word's length on inputs such as "ay" * 500,000), and a text by
its first MAX_ENTRY_TERMS terms.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

import regex
import snowballstemmer

from app.limits import MAX_ENTRY_TERMS, MAX_STEM_CHARS, MAX_TERM_CHARS
from app.text.normalize import CJK_LETTERS

_CJK = CJK_LETTERS
# A Latin word ends where a CJK run starts: "Postgres数据库" is two words, so
# "数据库" finds it (\w alone would glue them into one token nothing else matches).
_TOKEN = regex.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_IS_CJK = re.compile(rf"[{_CJK}]")
_LATIN_WORD = re.compile(r"[a-z]+")
# What _TOKEN finds in lowercased ASCII, where `re` splits it in half the time.
_ASCII_WORD = re.compile(r"[a-z0-9]+")
# A text up to this long is split holding the GIL: letting it go costs more than the
# split whenever another thread runs (search embeds its query on one meanwhile, and a
# thread that takes the GIL may keep it for the switch interval, 5 ms). A longer text
# lets it go, so that splitting a megabyte does not stall the other threads.
SPLIT_HOLDING_GIL_CHARS = 65_536

# Function words that carry no topic. Kept short on purpose: a word that can
# be the point of a question (e.g. "after", "before", "first") stays.
_STOP_TEXT = """a an the and or but if of to in on at by for with about from as into onto than
    is are was were be been being am do does did doing done have has had having
    i you he she it we they me him her them my your his its our their mine yours
    this that these those there here what which who whom whose when where why how
    would could should can will shall may might must s t d ll re ve m
    not no so too very just also then once all any both each some such only own
    same other more most again further out up down over off please tell know
    """
STOP_WORDS = frozenset(_STOP_TEXT.split())
# Characters that make a Chinese bigram grammatical rather than topical.
CJK_PARTICLES = frozenset("的了吗呢吧啊呀么什哪")

_stemmer = snowballstemmer.stemmer("english")


def agent_token(agent_id: int) -> str:
    return f"tmagent{agent_id}x"


def _folded(text: str) -> str:
    """`text` NFKC-normalised and lowercased (ASCII is its own NFKC form: not walked twice)."""
    return text.lower() if text.isascii() else unicodedata.normalize("NFKC", text).lower()


def _words(text: str) -> list[str]:
    return _split(_folded(text))


def _split(folded: str) -> list[str]:
    """The words of a `_folded` text."""
    if len(folded) > SPLIT_HOLDING_GIL_CHARS:
        long: list[str] = _TOKEN.findall(folded, concurrent=True)
        return long
    if folded.isascii():
        return _ASCII_WORD.findall(folded)
    words: list[str] = _TOKEN.findall(folded)
    return words


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """English Snowball stem of a lowercased ASCII word; other words (and words longer
    than any English one) unchanged."""
    if not 4 <= len(word) <= MAX_STEM_CHARS or not _LATIN_WORD.fullmatch(word):
        return word
    return str(_stemmer.stemWord(word))


def text_terms(text: str) -> list[str]:
    """The full-text terms of `text`, at most MAX_ENTRY_TERMS of them, in order."""
    folded = _folded(text)
    words = _split(folded)
    if folded.isascii() or not _IS_CJK.search(folded):
        # No CJK run (most English text): each word is one term. Search tokenizes the
        # turns it ranks, so this path is hot: each distinct word is stemmed once.
        words = words[:MAX_ENTRY_TERMS]
        stems = {word: stem(word[:MAX_TERM_CHARS]) for word in set(words)}
        return [stems[word] for word in words]
    out: list[str] = []
    for word in words:
        room = MAX_ENTRY_TERMS - len(out)
        if room <= 0:
            break
        if _IS_CJK.match(word):
            run = word[: (room + 1) // 2 + 1]
            out.extend(run)  # unigrams: single-character queries still match
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            out.append(stem(word[:MAX_TERM_CHARS]))
    return out[:MAX_ENTRY_TERMS]


def token_string(terms: Sequence[str], agent_id: int) -> str:
    """The token string stored in the FTS table for one agent's row with `terms`."""
    return " ".join([agent_token(agent_id), *terms])


def index_tokens(text: str, agent_id: int) -> str:
    """The token string stored in the FTS table for `text` of one agent."""
    return token_string(text_terms(text), agent_id)


def _bigrams(run: str) -> list[str]:
    grams = list(dict.fromkeys(run[i : i + 2] for i in range(len(run) - 1)))
    topical = [g for g in grams if not (set(g) & CJK_PARTICLES)]
    return topical or grams


def query_groups(query: str) -> list[tuple[str, ...]]:
    """The query's terms, each as the index tokens that count for it (a word and its
    stem, or one CJK bigram or character), in order, without repeats."""
    words = _words(query)
    content = [w for w in words if _IS_CJK.match(w) or w not in STOP_WORDS]
    groups: list[tuple[str, ...]] = []
    for word in content or words:
        if _IS_CJK.match(word) and len(word) > 1:
            groups.extend((g,) for g in _bigrams(word))
            # Single characters too: a question seldom repeats the stored wording, and
            # a shared character (茶 in 绿茶 / 红茶) is weak evidence that bm25 weighs.
            groups.extend((c,) for c in word if c not in CJK_PARTICLES)
            continue
        cut = word[:MAX_TERM_CHARS]
        # Rows indexed before stems were stored hold only the word itself, and rows
        # indexed before long words were cut hold the whole word.
        groups.append(tuple(dict.fromkeys((cut, stem(cut), word))))
    return list(dict.fromkeys(groups))


def _quoted(group: tuple[str, ...]) -> str:
    quoted = [f'"{t}"' for t in group]
    return quoted[0] if len(quoted) == 1 else f"({' OR '.join(quoted)})"


def query_terms(query: str) -> list[str]:
    """FTS5 query terms (each quoted, or an OR group) for a free-text query."""
    return [_quoted(g) for g in query_groups(query)]


def groups_expression(
    groups: Sequence[tuple[str, ...]], agent_id: int | None, *, any_term: bool = True
) -> str | None:
    """A MATCH expression for query terms (`query_groups`) restricted to one agent (None:
    not restricted, the caller filters by agent itself), or None when there is no term.
    `any_term`: OR the terms (ranked by bm25), else AND them."""
    if not groups:
        return None
    joined = (" OR " if any_term else " AND ").join(_quoted(g) for g in groups)
    if agent_id is None:
        return f"({joined})"
    return f"{agent_token(agent_id)} AND ({joined})"
