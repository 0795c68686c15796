"""One client for OpenAI-compatible chat endpoints (Ollama, vLLM, DeepSeek, OpenAI, …).

The LLM arbiter, the distiller and the secret reviewer each ask a cheap model one
question and read one JSON object back. They share this client: the same request
(temperature 0, a system and a user message), the same errors, and the same way of
finding the JSON in an answer that wraps it in prose or a code fence.
"""

from __future__ import annotations

import json
import re
from typing import Any

from app.errors import InvalidInput

LLM_API_KEY_ENV = "TAPEMIND_LLM_API_KEY"
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_llm(spec: str) -> tuple[str, str]:
    """("model", "base_url") from an `llm` setting "model@base_url"."""
    model, _, base_url = spec.partition("@")
    if not model or not base_url:
        raise InvalidInput(
            f"llm setting {spec!r} must be 'model@base_url', e.g. "
            "qwen2.5:3b@http://127.0.0.1:11434/v1"
        )
    return model.strip(), base_url.strip()


def complete(
    base_url: str,
    model: str,
    system: str,
    user: str,
    *,
    api_key: str | None = None,
    timeout: float = 20.0,
) -> str:
    """The model's answer to `user` under `system`, at temperature 0.

    `base_url` ends before `/chat/completions` (e.g. http://127.0.0.1:11434/v1).
    Raises httpx's errors (timeouts, HTTP statuses, connection failures) and
    KeyError, IndexError or TypeError when the endpoint's answer has not the shape of
    a chat completion. Callers fall back to something non-destructive on any of them.
    """
    import httpx  # here, not at import: only features configured with an LLM need it

    body = {
        "model": model,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ],
    }
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    response = httpx.post(
        base_url.rstrip("/") + "/chat/completions", json=body, headers=headers, timeout=timeout
    )
    response.raise_for_status()
    content = response.json()["choices"][0]["message"]["content"]
    if not isinstance(content, str):
        raise TypeError("message content is not text")
    return content


def json_in(answer: str) -> Any:
    """The JSON object in a model's answer (the first `{` to the last `}`), or the whole
    answer as JSON. Raises ValueError when there is none."""
    match = _JSON_OBJECT.search(answer)
    return json.loads(match.group(0) if match else answer)
