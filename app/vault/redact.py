"""Keep secret values out of text: redact known values, spot unknown credentials.

``Redactor`` replaces every occurrence of a vault secret's value, and of its simple
encodings (base64, URL-encoding, JSON string escaping), with ``[secret:NAME]``. The
tape and memory writes pass through it, so an agent that echoes a value it was granted
stores only the placeholder.

``looks_like_credential`` / ``find_credentials`` spot credentials the vault does not
know (API keys, tokens, private keys, ``password=…`` / ``密码：…``) so the intake gate
can refuse a memory. They report a kind and a position, never the matched text.

Decisions, with the reasons:
- Hex-only strings (git commit ids, SHA-256 digests, UUIDs) are NOT flagged: agents
  cite commits all day, and a flag would refuse ordinary memories. The price: a bare
  hex API key is only caught when labelled (``token=…``, ``密钥：…``).
- Values shorter than ``MIN_VALUE_CHARS`` are not redacted: replacing every "abc"
  in every text would mangle it and still protect nothing. ``Redactor.unprotected``
  lists them so the vault can warn the owner.
"""

from __future__ import annotations

import base64
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import quote, quote_plus

MIN_VALUE_CHARS = 4


@dataclass(frozen=True)
class Redaction:
    """A redacted text and the names of the secrets found in it."""

    text: str
    names: frozenset[str]


class Redactor:
    """Replace known secret values (and simple encodings of them) with ``[secret:NAME]``.

    Args:
        known: secret name -> value (str, or bytes decoded as UTF-8).
    """

    def __init__(self, known: Mapping[str, str | bytes]) -> None:
        variants: dict[str, str] = {}
        unprotected: list[str] = []
        for name in sorted(known):
            raw = known[name]
            value = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
            if len(value) < MIN_VALUE_CHARS:
                unprotected.append(name)
                continue
            for form in _encodings(value):
                # setdefault: two secrets with one value keep the first name (sorted).
                variants.setdefault(form, name)
        self.unprotected: tuple[str, ...] = tuple(unprotected)
        self._names = variants
        # Longest first, so a value that contains another secret is replaced whole.
        forms = sorted(variants, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, forms))) if forms else None

    def redact(self, text: str) -> str:
        """Return ``text`` with every known value replaced by ``[secret:NAME]``."""
        return self.scan(text).text

    def scan(self, text: str) -> Redaction:
        """Redact ``text`` and say which secrets were in it."""
        if self._pattern is None:
            return Redaction(text, frozenset())
        found: set[str] = set()

        def replace(match: re.Match[str]) -> str:
            name = self._names[match.group(0)]
            found.add(name)
            return f"[secret:{name}]"

        return Redaction(self._pattern.sub(replace, text), frozenset(found))


def _encodings(value: str) -> set[str]:
    data = value.encode("utf-8")
    forms = {value}
    for b64 in (base64.b64encode(data), base64.urlsafe_b64encode(data)):
        text = b64.decode("ascii")
        forms.update({text, text.rstrip("=")})
    for url in (quote(value, safe=""), quote_plus(value, safe="")):
        forms.update({url, re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), url)})
    # JSON escaping: a value with quotes, backslashes or non-ASCII (Chinese) text
    # appears escaped inside a JSON document.
    forms.add(json.dumps(value)[1:-1])
    forms.add(json.dumps(value, ensure_ascii=False)[1:-1])
    return {form for form in forms if len(form) >= MIN_VALUE_CHARS}


# -- unknown credentials ------------------------------------------------------


@dataclass(frozen=True)
class CredentialHit:
    """A credential-looking span: its kind and position (never its text)."""

    kind: str
    start: int
    end: int


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("PEM private key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b")),
    (
        "AWS secret key",
        re.compile(r"(?i)aws_?secret_?access_?key\s*[:=]\s*[\"']?[A-Za-z0-9/+]{40}\b"),
    ),
    ("Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("Stripe secret key", re.compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("OpenAI-style API key", re.compile(r"\bsk-[A-Za-z0-9_\-]{20,}")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("Slack token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}")),
    (
        "Slack webhook",
        re.compile(r"hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]+"),
    ),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    ("JWT", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
)

_LABEL_EN = (
    r"password|passwd|pwd|passphrase|secret|client[_ -]?secret|api[_ -]?key|"
    r"access[_ -]?token|auth[_ -]?token|refresh[_ -]?token|bearer|token|private[_ -]?key"
)
_LABEL_ZH = r"密码|口令|密钥|秘钥|私钥|令牌|访问令牌|授权码|验证码"
# "password=…", "password: …", "密码：…", "密码 = …": an explicit assignment.
_ASSIGNED = re.compile(
    rf"(?i)(?:(?<![a-z])(?:{_LABEL_EN})(?![a-z])|{_LABEL_ZH})"
    r"[\"']?\s*(?:[:=：]|=>)\s*[\"']?([\x21-\x7e]+)"
)
# "the password is …", "密码是…", "密码为…": prose, so the value must look like one.
_STATED = re.compile(
    rf"(?i)(?:(?<![a-z])(?:{_LABEL_EN})\s+is|(?:{_LABEL_ZH})\s*(?:是|为))\s*([\x21-\x7e]+)"
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:[<{$*%\[(]|x{3,}|\.{3}|none|null|nil|true|false|undefined|required|"
    r"optional|changeme|example|your[_-]|redacted|hidden|secret$|password$|env\b)"
)
_TOKEN = re.compile(r"(?<![A-Za-z0-9_+/=\-])[A-Za-z0-9_+/=\-]{32,}(?![A-Za-z0-9_+/=\-])")
_HEX_ONLY = re.compile(r"^[0-9a-fA-F\-]+$")
MIN_TOKEN_ENTROPY = 4.0  # bits per character; random base62 of 32+ chars is about 4.7
MIN_CLASS_SWITCHES = 0.4


def find_credentials(text: str) -> list[CredentialHit]:
    """Return every credential-looking span in ``text``, by position.

    Where spans overlap, the most specific kind wins ("OpenAI-style API key" over
    "password" for ``api_key=sk-…``), then the earliest and widest.
    """
    kept: list[CredentialHit] = []
    for hit in _iter_hits(text):  # yielded from most to least specific
        if not any(hit.start < other.end and other.start < hit.end for other in kept):
            kept.append(hit)
    return sorted(kept, key=lambda hit: hit.start)


def looks_like_credential(text: str) -> str | None:
    """Return the kind of the first credential-looking span in ``text``, or None."""
    hits = find_credentials(text)
    return hits[0].kind if hits else None


def _iter_hits(text: str) -> Iterator[CredentialHit]:
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            yield CredentialHit(kind, match.start(), match.end())
    for pattern, strict in ((_ASSIGNED, False), (_STATED, True)):
        for match in pattern.finditer(text):
            value = match.group(1).rstrip(".,;:!?)]}'\"")
            if _plausible_password(value, strict=strict):
                yield CredentialHit("password", match.start(), match.start(1) + len(value))
    for match in _TOKEN.finditer(text):
        if _random_looking(match.group(0)):
            yield CredentialHit("high-entropy token", match.start(), match.end())


def _plausible_password(value: str, *, strict: bool) -> bool:
    if len(value) < (4 if strict else 6) or _PLACEHOLDER.match(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    has_symbol = any(not c.isalnum() for c in value)
    if strict:  # prose: "the password is correct" is not a password
        return has_digit or (has_symbol and has_alpha)
    return True


def _random_looking(token: str) -> bool:
    if _HEX_ONLY.match(token):
        return False  # git commit ids, digests, UUIDs: see the module docstring
    segments = token.split("/")
    if len(segments) > 2 and len(token) / len(segments) < 10:
        return False  # a path; in base64 a "/" comes about once in 64 characters
    kinds = [_char_class(c) for c in token]
    if not {"upper", "lower", "digit"} <= set(kinds):
        return False
    # Identifiers (CamelCase, snake_case) switch character class only at word
    # boundaries; random tokens switch at about 60% of positions.
    switches = sum(a != b for a, b in itertools.pairwise(kinds)) / (len(token) - 1)
    return switches >= MIN_CLASS_SWITCHES and _entropy(token) >= MIN_TOKEN_ENTROPY


def _char_class(c: str) -> str:
    if c.isdigit():
        return "digit"
    if c.isupper():
        return "upper"
    return "lower" if c.islower() else "symbol"


def _entropy(token: str) -> float:
    counts = Counter(token)
    n = len(token)
    return -sum(k / n * math.log2(k / n) for k in counts.values())
