"""The intake gate: what may become a memory, and the reason when not.

A memory is a small durable conclusion. The gate refuses what is not one:
empty text, essays, chit-chat, raw tool output, and anything that looks like a
credential (those belong in the vault). Each refusal carries a stable code and
a message written for the agent that asked.
"""

from __future__ import annotations

import re

from app.errors import InvalidInput, Refused
from app.limits import MAX_MEMORY_CHARS
from app.models import CATEGORIES
from app.text import normalise
from app.vault import looks_like_credential

_CHIT_CHAT = {
    # English
    "hi",
    "hello",
    "hey",
    "thanks",
    "thank you",
    "thx",
    "ok",
    "okay",
    "cool",
    "great",
    "nice",
    "good morning",
    "good night",
    "bye",
    "goodbye",
    "lol",
    "haha",
    "yes",
    "no",
    "sure",
    "got it",
    "sounds good",
    "you're welcome",
    "no problem",
    "np",
    "k",
    # Chinese
    "你好",
    "您好",
    "嗨",
    "谢谢",
    "多谢",
    "谢啦",
    "好的",
    "好",
    "嗯",
    "嗯嗯",
    "哈哈",
    "哈哈哈",
    "早上好",
    "晚安",
    "再见",
    "拜拜",
    "收到",
    "没问题",
    "不客气",
    "可以",
    "行",
    "对",
    "是的",
    "好吧",
    "明白",
    "了解",
    "辛苦了",
    "知道了",
    "太好了",
    "感谢",
    "谢了",
    "好嘞",
    "awesome",
    "perfect",
    "alright",
    "all right",
    "see you",
    "thanks a lot",
    "thank you so much",
    "谢谢你",
    "谢谢您",
}

# A message is chit-chat when its words and Chinese characters are nothing but chit-chat
# phrases, one after another ("好的，谢谢！", "好的好的", "ok thanks, sounds good");
# punctuation, emoji and spacing between them do not count.
_UNIT = re.compile(r"[a-z0-9']+|[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


def _units(text: str) -> tuple[str, ...]:
    return tuple(_UNIT.findall(normalise(text).replace("\u2019", "'")))


_CHIT_CHAT_UNITS = frozenset(_units(phrase) for phrase in _CHIT_CHAT)
_LONGEST_PHRASE = max(len(units) for units in _CHIT_CHAT_UNITS)


def is_chit_chat(text: str) -> bool:
    """Whether `text` is only greetings, thanks and acknowledgements."""
    units = _units(text)
    if not units or len(units) > 4 * _LONGEST_PHRASE:
        return False
    # Can the units be read as a run of phrases? reach[i]: the first i units can.
    reach = [True] + [False] * len(units)
    for start in range(len(units)):
        if reach[start]:
            for n in range(1, min(_LONGEST_PHRASE, len(units) - start) + 1):
                if units[start : start + n] in _CHIT_CHAT_UNITS:
                    reach[start + n] = True
    return reach[-1]


_TOOL_OUTPUT = (
    re.compile(r"Traceback \(most recent call last\)"),
    re.compile(r"^\s*[\[{].*[\]}]\s*$", re.DOTALL),  # a JSON dump
    re.compile(r"^(\$|>>>|PS [A-Z]:\\)\s", re.MULTILINE),  # a shell or REPL transcript
    re.compile(r"^\s*(\d+ (passed|failed)|=+ .* =+)$", re.MULTILINE),  # test runner output
)

# The vault's placeholder for a redacted value: naming a secret is not leaking it.
_PLACEHOLDER = re.compile(r"\[secret:[^\]\s]+\]")


def credential_kind(text: str) -> str | None:
    """What kind of credential `text` seems to contain, or None (see app.vault.redact)."""
    return looks_like_credential(_PLACEHOLDER.sub(" ", text))


def check_category(category: str) -> None:
    if category not in CATEGORIES:
        raise InvalidInput(f"Unknown category: use one of {', '.join(CATEGORIES)}.")


def check_importance(importance: float) -> None:
    if not (0.0 <= importance <= 1.0):
        raise InvalidInput("Importance must be a number between 0 and 1.")


def check_shape(text: str) -> str:
    """Return the text stripped, or raise InvalidInput for text that is no memory at all
    (empty, too long, not Unicode). It needs nothing from the home, so a command checks
    it before it opens or unlocks anything: bad input is said first, as bad input."""
    stripped = text.strip()
    try:
        stripped.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(
            "The text is not valid Unicode (it holds a lone surrogate); send UTF-8 text."
        ) from None
    if not stripped:
        raise InvalidInput(
            "The memory text is empty: say the conclusion in a sentence.", code="empty"
        )
    if len(stripped) > MAX_MEMORY_CHARS:
        raise InvalidInput(
            f"The memory is {len(stripped)} characters; a memory is a short durable "
            f"conclusion (at most {MAX_MEMORY_CHARS}). Keep the detail on the tape and "
            "remember the conclusion, citing the entry as its source.",
            code="too_long",
        )
    return stripped


def check_text(text: str) -> str:
    """Return the text to store (stripped). Raises InvalidInput for text that is no memory
    at all (`check_shape`) and Refused, with the reason, for what the gate keeps out
    (chit-chat, a credential, raw tool output)."""
    stripped = check_shape(text)
    if is_chit_chat(stripped):
        raise Refused(
            "This is chit-chat, not a durable conclusion (a preference, project fact, "
            "task outcome or lesson); it was not stored.",
            code="chit_chat",
        )
    kind = credential_kind(stripped)
    if kind is not None:
        raise Refused(
            f"The text looks like it contains a credential ({kind}); it was not stored. "
            "Credentials never go into memory: keep it in the vault (`tapemind vault set "
            "NAME`), from where an agent asks for it (`tapemind secret get NAME`).",
            code="credential",
            for_agents=f"The text looks like it contains a credential ({kind}). Credentials "
            "never go into memory: ask the user to keep it in Tapemind's vault, and ask for it "
            "with request_secret when you need it. Remember the conclusion without it.",
        )
    if any(p.search(stripped) for p in _TOOL_OUTPUT):
        raise Refused(
            "This looks like raw tool output. Append it to the tape, and remember only "
            "the conclusion drawn from it, citing the tape entry as its source.",
            code="tool_output",
        )
    return stripped
