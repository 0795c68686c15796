"""Why an access request was decided: a code with parameters, and its English text.

A decision's reason is stored twice on the request: as English text (`decision_reason`,
what the audit, the CLI and agents read) and as a code with parameters (`reason_code`,
`reason_params`), from which a client says it in the owner's language. The English is
made here from the code, so the two never disagree. A reason written by a person (the
owner's answer) or by the reviewer's model is free text: its code is `OWNER` or
`MODEL_SAID` and the text travels as the parameter `text`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

Param = str | int | float

# code -> English template ({name} parameters). A client translates by code.
TEXTS: Mapping[str, str] = {
    # the reviewer's rules
    "agent_not_reviewed": "the reviewer may not approve for agent '{agent}'",
    "secret_not_reviewed": "the reviewer may not approve secret '{secret}'",
    "reason_too_short": (
        "a reason of at least {min_chars} characters is required; ask again saying what "
        "the secret is for"
    ),
    "rate_limit": (
        "rate limit: the reviewer already allowed {allowed} reads for '{agent}' in the last "
        "{window_seconds} seconds"
    ),
    "within_rules": "within the reviewer's rules",
    # the reviewer's model
    "model_failed": "the reviewer model failed ({error})",
    "model_no_decision": "the reviewer model gave no decision",
    "model_not_json": "the reviewer model's answer was not JSON",
    "model_invalid": "the reviewer model gave no valid decision",
    "model_said": "{text}",
    # the request's own course
    "auto_mode": "auto mode",
    "covered_by_grant": "covered by grant {grant} (always)",
    "no_answer_within": "no answer within {seconds} seconds",
    "expired": "no answer before it expired",
    "secret_removed": "the secret was removed from the vault",
    "owner": "{text}",
}
MODEL_SAID = "model_said"
OWNER = "owner"
# How the reviewer's verdict is put on the request: it asked a person, or it decided.
ASKS_PERSON = "reviewer ({by}) asks a person: {why}"
DECIDED = "{by}: {why}"


@dataclass(frozen=True)
class Reason:
    """A reason as a code, its parameters and the English made from them."""

    code: str
    params: Mapping[str, Param] = field(default_factory=dict)

    @property
    def text(self) -> str:
        text = TEXTS[self.code].format(**self.params)
        if self.code == "no_answer_within" and self.params.get("seconds") == 1:
            text = text.removesuffix("s")
        return text

    def params_json(self) -> str:
        return json.dumps(dict(self.params), ensure_ascii=False, sort_keys=True)


def because(code: str, **params: Param) -> Reason:
    """The reason `code` with `params`. Raises KeyError for a code `TEXTS` lacks."""
    TEXTS[code].format(**params)  # every parameter the template names is given
    return Reason(code, params)


def seconds(value: float) -> Param:
    """A number of seconds as the English says it: 30, not 30.0."""
    return int(value) if float(value).is_integer() else round(float(value), 3)


def params_of(stored: str | None) -> dict[str, Param]:
    """The parameters a request stores (JSON), {} for none."""
    if not stored:
        return {}
    loaded = json.loads(stored)
    return dict(loaded) if isinstance(loaded, dict) else {}
