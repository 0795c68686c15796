"""Normalisation and hashing of text: what counts as "the same" memory."""

from __future__ import annotations

import hashlib
import re
import unicodedata

# Han, kana and Hangul, as a regex character-class body: scripts written without
# spaces between words (full-text, token counting and test embeddings split them
# by character rather than by word).
CJK_LETTERS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = " \t\n.。!！?？,，;；:：'\"“”‘’「」()（）[]【】-—…"


# Line breaks of every kind: what a line-based block (the `context` block, a transcript
# for a model) must not let a text hold, or the text could add lines of its own.
_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` on one line: each line break becomes " / "."""
    return _BREAKS.sub(" / ", text)


def normalise(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed, edge punctuation stripped.

    "Lin prefers tabs." and "  lin prefers TABS " normalise alike; so do the
    full-width and half-width forms of the same Chinese sentence.
    """
    value = unicodedata.normalize("NFKC", text).casefold()
    value = _SPACE.sub(" ", value).strip(_EDGE_PUNCT)
    return value


def memory_hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def entry_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
