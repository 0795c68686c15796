"""Keep the vault's values out of text: every form of a known value becomes a marker.

``Redactor`` replaces every occurrence of a vault secret's value with a marker:
the value as stored, in any letter case, split by whitespace (a wrapped line, "dbpass
1234"), and in its simple encodings (base64, URL-encoding, JSON string escaping). The
tape and memory writes pass through it, so an agent that echoes a value it was granted
stores only the marker.

Which marker is the caller's choice (`scan(text, name_shown=…)`): ``[secret:NAME]``
where the reader may know which secret it was (the owner; an agent that was given it),
``[secret]`` where naming it would tell the reader what a value it wrote is.

Values shorter than ``MIN_VALUE_CHARS`` are not redacted: replacing every "abc" in every
text would mangle it and still protect nothing. ``Redactor.unprotected`` lists them so
the vault can warn the owner.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import quote, quote_plus

import regex

MIN_VALUE_CHARS = 4
UNNAMED = "[secret]"


def marker(name: str) -> str:
    """The marker that names the secret it replaced."""
    return f"[secret:{name}]"


@dataclass(frozen=True)
class Redaction:
    """A redacted text, the names of the secrets found in it and how many times."""

    text: str
    names: frozenset[str]
    count: int = 0


class Redactor:
    """Replace known secret values (any case, split by whitespace, simply encoded).

    Args:
        known: secret name -> value (str, or bytes decoded as UTF-8).
    """

    def __init__(self, known: Mapping[str, str | bytes]) -> None:
        values: dict[str, str] = {}
        unprotected: list[str] = []
        for name in sorted(known):
            raw = known[name]
            value = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
            if len("".join(value.split())) < MIN_VALUE_CHARS:
                unprotected.append(name)
            elif value not in values.values():  # one value, two names: the first (sorted)
                values[name] = value
        self.unprotected: tuple[str, ...] = tuple(unprotected)
        # Longest value first, so a value that contains another is replaced whole.
        ordered = sorted(values, key=lambda n: (-len(values[n]), n))
        self._groups = {f"s{i}": name for i, name in enumerate(ordered)}
        alternatives = [f"(?P<s{i}>{_pattern(values[n])})" for i, n in enumerate(ordered)]
        # The regex module: its scans let go of the GIL (`concurrent`), so redacting a
        # megabyte does not stall the process's other threads.
        self._pattern = (
            regex.compile("|".join(alternatives), regex.IGNORECASE) if alternatives else None
        )

    def redact(self, text: str) -> str:
        """Return ``text`` with every known value replaced by ``[secret:NAME]``."""
        return self.scan(text).text

    def scan(self, text: str, name_shown: Callable[[str], bool] | None = None) -> Redaction:
        """Redact ``text`` and say which secrets were in it. `name_shown(name)`: whether
        the marker may name the secret (default: always); else it is ``[secret]``."""
        if self._pattern is None:
            return Redaction(text, frozenset())
        found: set[str] = set()
        count = 0

        def replace(match: regex.Match[str]) -> str:
            nonlocal count
            name = self._groups[str(match.lastgroup)]
            found.add(name)
            count += 1
            return marker(name) if name_shown is None or name_shown(name) else UNNAMED

        redacted = self._pattern.sub(replace, text, concurrent=True)
        return Redaction(redacted, frozenset(found), count)


def _pattern(value: str) -> str:
    """A regex for every form of `value`: its encodings as written, longest first, then
    the value itself with any whitespace between its characters."""
    forms = sorted(_encodings(value) - {value}, key=len, reverse=True)
    letters = [re.escape(c) for c in "".join(value.split())]
    return "|".join([*map(re.escape, forms), r"\s*".join(letters)])


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
