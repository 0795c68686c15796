"""Spot credentials the vault does not know, and take them out of tape text.

``find_credentials`` spots API keys, tokens, private keys and ``password=…`` /
``密码：…`` assignments in English and Chinese text. It reports a kind and a position,
never the matched text; the intake gate refuses a memory holding one, and
``redact_credentials`` replaces each in a tape entry by ``[credential: KIND]``.

Decisions, with the reasons:
- Hex-only strings (git commit ids, SHA-256 digests, UUIDs) are NOT flagged: agents
  cite commits all day, and a flag would refuse ordinary memories. The price: a bare
  hex API key is only caught when labelled (``token=…``, ``密钥：…``).
- The vault's and this module's own markers (``[secret:NAME]``, ``[credential: KIND]``)
  are never flagged: naming a secret is not leaking it.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import regex as re


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
# A maximal run: scanning left to right, a run of 32 or more is matched from its start,
# and a shorter one matches nowhere (lookarounds to say so cost the scan 5x).
_TOKEN = re.compile(r"[A-Za-z0-9_+/=\-]{32,}")
_HEX_ONLY = re.compile(r"^[0-9a-fA-F\-]+$")
MIN_TOKEN_ENTROPY = 4.0  # bits per character; random base62 of 32+ chars is about 4.7
MIN_CLASS_SWITCHES = 0.4


_MARKER = re.compile(r"\[(?:secret(?::[^\]\s]+)?|credential: [^\]\n]{1,40})\]")


def without_markers(text: str) -> str:
    """`text` with each redaction marker blanked to "[xxx…]" of the same length: positions
    hold, and "password: [secret:db] yesterday" reads as a placeholder assigned, not as
    the password "yesterday"."""
    blanked: str = _MARKER.sub(
        lambda m: "[" + "x" * (len(m.group(0)) - 2) + "]", text, concurrent=True
    )
    return blanked


def find_credentials(text: str) -> list[CredentialHit]:
    """Return every credential-looking span in ``text``, by position.

    Where spans overlap, the most specific kind wins ("OpenAI-style API key" over
    "password" for ``api_key=sk-…``), then the earliest and widest.
    """
    kept: list[CredentialHit] = []
    for hit in _iter_hits(without_markers(text)):  # yielded from most to least specific
        if not any(hit.start < other.end and other.start < hit.end for other in kept):
            kept.append(hit)
    return sorted(kept, key=lambda hit: hit.start)


def looks_like_credential(text: str) -> str | None:
    """Return the kind of the first credential-looking span in ``text``, or None."""
    hits = find_credentials(text)
    return hits[0].kind if hits else None


def _iter_hits(text: str) -> Iterator[CredentialHit]:
    # concurrent: the scan lets go of the GIL, so a megabyte being checked on one thread
    # does not stall the others (the host's event loop, another agent's append).
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text, concurrent=True):
            yield CredentialHit(kind, match.start(), match.end())
    for pattern, strict in ((_ASSIGNED, False), (_STATED, True)):
        for match in pattern.finditer(text, concurrent=True):
            value = match.group(1).rstrip(".,;:!?)]}'\"")
            if _plausible_password(value, strict=strict):
                # The value only: "password=[credential: password]" keeps its label.
                yield CredentialHit("password", match.start(1), match.start(1) + len(value))
    for match in _TOKEN.finditer(text, concurrent=True):
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


def redact_credentials(text: str, keep: Sequence[str] = ()) -> tuple[str, tuple[str, ...]]:
    """`text` with every credential-looking span (of a kind not in `keep`) replaced by
    ``[credential: KIND]``, and the kinds replaced, in order (the text of a span is never
    kept or returned)."""
    hits = [hit for hit in find_credentials(text) if hit.kind not in keep]
    if not hits:
        return text, ()
    parts: list[str] = []
    last = 0
    for hit in hits:
        parts.append(text[last : hit.start])
        parts.append(f"[credential: {hit.kind}]")
        last = hit.end
    parts.append(text[last:])
    return "".join(parts), tuple(hit.kind for hit in hits)
