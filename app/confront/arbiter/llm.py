"""An arbiter that asks a cheap model behind any OpenAI-compatible chat endpoint.

Ollama, DeepSeek, OpenAI and friends all speak `POST {base_url}/chat/completions`. The model sees
the candidate and its numbered neighbours and answers JSON {action, target, reason}. Anything
unusable — a timeout, an HTTP error, bad JSON, an unknown action or target — falls back safely:
`conflict` with the nearest neighbour when the offline arbiter sees one close, otherwise `add`.
A fallback never updates, supersedes or drops anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.chat import complete, json_in
from app.confront.arbiter.base import ACTIONS, Action, Candidate, Decision, Neighbour
from app.confront.arbiter.offline import OfflineArbiter
from app.confront.arbiter.reasons import decision, nested

_SYSTEM = (
    "You maintain an AI agent's long-term memory. A new memory (the candidate) arrives; compare it "
    "with the numbered existing memories and choose one action:\n"
    "add: new information, nothing replaced.\n"
    "update: same fact as one memory, the candidate adds detail.\n"
    "supersede: the candidate replaces one memory (a changed preference, a corrected fact, "
    "'now uses X instead of Y').\n"
    "duplicate: same meaning as one memory, nothing new.\n"
    "conflict: contradicts one memory and it is unclear which is right.\n"
    "When unsure, answer add or conflict. Texts may be Chinese or English.\n"
    'Reply with JSON only: {"action": "...", "target": <memory number or null>, '
    '"reason": "one short sentence"}'
)


class LLMArbiter:
    """Arbiter backed by a chat model (name "llm:<model>")."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 20.0,
        *,
        fallback: OfflineArbiter | None = None,
    ) -> None:
        """base_url ends before /chat/completions (e.g. http://127.0.0.1:11434/v1)."""
        self.name = f"llm:{model}"
        self.model = model
        self._base_url = base_url
        self._api_key = api_key
        self._timeout = timeout
        self._offline = fallback or OfflineArbiter()

    def decide(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
        """Ask the model; on any failure return a non-destructive fallback naming the cause."""
        import httpx  # here, not at import: only LLM arbiters need it

        if not neighbours:
            return decision("add", None, self.name, "no_neighbours")
        try:
            answer = self._ask(self._prompt(candidate, neighbours))
        except httpx.TimeoutException:
            return self._fallback(candidate, neighbours, "timeout")
        except httpx.HTTPStatusError as exc:
            status = exc.response.status_code
            return self._fallback(candidate, neighbours, "http", status)
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:
            return self._fallback(candidate, neighbours, "error", type(exc).__name__)
        return self._parse(answer, candidate, neighbours)

    def _prompt(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> str:
        lines = [f"Candidate ({candidate.category}): {candidate.text}", "Existing memories:"]
        for i, n in enumerate(neighbours, start=1):
            lines.append(f"{i}. ({n.category}) {n.text}")
        return "\n".join(lines)

    def _ask(self, prompt: str) -> str:
        return complete(
            self._base_url,
            self.model,
            _SYSTEM,
            prompt,
            api_key=self._api_key,
            timeout=self._timeout,
        )

    def _parse(
        self, answer: str, candidate: Candidate, neighbours: Sequence[Neighbour]
    ) -> Decision:
        try:
            data: Any = json_in(answer)
        except ValueError:
            return self._fallback(candidate, neighbours, "not_json")
        if not isinstance(data, dict):
            return self._fallback(candidate, neighbours, "not_object")
        action = str(data.get("action", "")).strip().lower()
        if action not in ACTIONS:
            return self._fallback(candidate, neighbours, "unknown_action", action[:20])
        # the model's own sentence: free text, kept as it said it
        reason = str(data.get("reason") or "no reason given")[:500]
        if action == "add":
            return decision("add", None, self.name, "llm_judgement", text=reason)
        target = self._target(data.get("target"), neighbours)
        if target is None:
            return self._fallback(candidate, neighbours, "unknown_target", action)
        act: Action = action
        return decision(act, target.id, self.name, "llm_judgement", text=reason)

    @staticmethod
    def _target(raw: Any, neighbours: Sequence[Neighbour]) -> Neighbour | None:
        """Accept the memory's number in the prompt (1-based) or, failing that, its id."""
        text = str(raw).strip().strip("#").strip() if raw is not None else ""
        if text.isdigit() and 1 <= int(text) <= len(neighbours):
            return neighbours[int(text) - 1]
        for n in neighbours:
            if text and text == str(n.id):
                return n
        return None

    def _fallback(
        self,
        candidate: Candidate,
        neighbours: Sequence[Neighbour],
        failure: str,
        detail: str | int | None = None,
    ) -> Decision:
        """The rules' view, never an overwrite; `failure` is a code of reasons.FAILURES."""
        view = self._offline.decide(candidate, neighbours)
        why: dict[str, object] = {"failure": failure}
        if detail is not None:
            why["detail"] = detail
        if view.action != "add" and view.target_id is not None:
            return decision(
                "conflict", view.target_id, self.name, "llm_fallback_conflict",
                target=view.target_id, offline=nested(view), **why,
            )  # fmt: skip
        return decision("add", None, self.name, "llm_fallback_add", **why)
