"""An embedder over any OpenAI-compatible ``/v1/embeddings`` endpoint (Ollama, vLLM, LM Studio…).

The dimension is whatever the server returns; it is learned from the first answer (or given
up front) and every later answer must match it, since mixing lengths would corrupt the index.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from app.index.embedders.base import EmbedderError, Vectors, normalise

if TYPE_CHECKING:
    import httpx

# Servers cap the inputs of one request (OpenAI: 2,048); small batches also keep one slow
# request from holding the indexer for long.
_BATCH = 64


def embeddings_url(base_url: str) -> str:
    """The embeddings URL for a base URL given with or without its ``/v1`` suffix."""
    base = base_url.rstrip("/")
    if base.endswith("/embeddings"):
        return base
    if not base.endswith("/v1"):
        base += "/v1"
    return base + "/embeddings"


class OpenAIEmbedder:
    """Embeds through ``POST {base_url}/v1/embeddings`` with ``{"model", "input"}``.

    Args:
        base_url: e.g. ``http://127.0.0.1:11434`` or ``http://127.0.0.1:11434/v1``.
        model: the model name the server knows.
        api_key: sent as a bearer token when given; never included in errors.
        timeout: seconds for each request.
        dim: the expected dimension; when omitted, one probe request learns it.
    """

    queries_are_documents = True  # one endpoint call for both, no prefixes

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        dim: int | None = None,
    ) -> None:
        self.name = f"openai:{model}"
        self.model = model
        self.url = embeddings_url(base_url)
        self._dim = dim
        self._lock = threading.Lock()
        import httpx  # here, not at import: only this embedder needs it

        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)

    @property
    def dim(self) -> int:
        """The vector length; asks the server once when it was not given."""
        if self._dim is None:
            self._embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed stored texts: (n, dim) float32, unit length."""
        batch = list(texts)
        if not batch:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._embed(batch[i : i + _BATCH]) for i in range(0, len(batch), _BATCH)]
        return np.vstack(parts)

    def embed_query(self, text: str) -> Vectors:
        """Embed a query: (dim,) float32, unit length."""
        row: Vectors = self._embed([text])[0]
        return row

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def _embed(self, texts: list[str]) -> Vectors:
        import httpx

        try:
            response = self._client.post(self.url, json={"model": self.model, "input": texts})
        except httpx.TimeoutException as exc:
            raise EmbedderError(
                f"The embeddings endpoint {self.url} did not answer in time; check that the "
                "server is running and not overloaded, or raise the timeout"
            ) from exc
        except httpx.HTTPError as exc:
            raise EmbedderError(
                f"Cannot reach the embeddings endpoint {self.url} ({type(exc).__name__}); "
                "start the server or fix the base URL in the embedder setting"
            ) from exc
        if response.status_code != 200:
            hint = (
                "check the API key (TAPEMIND_EMBED_API_KEY)"
                if response.status_code in (401, 403)
                else f"check that the server serves model {self.model!r}"
            )
            raise EmbedderError(
                f"The embeddings endpoint {self.url} answered HTTP {response.status_code}; {hint}"
            )
        vectors = self._parse(response, len(texts))
        with self._lock:
            if self._dim is None:
                self._dim = vectors.shape[1]
            expected = self._dim
        if vectors.shape[1] != expected:
            raise EmbedderError(
                f"Model {self.model!r} at {self.url} returned {vectors.shape[1]}-dimensional "
                f"vectors, but the index holds {expected}-dimensional ones; the model behind "
                "the endpoint changed: choose a new embedder name so the index is rebuilt"
            )
        return normalise(vectors)

    def _parse(self, response: httpx.Response, n: int) -> Vectors:
        try:
            body: Any = response.json()
            items = sorted(body["data"], key=lambda item: item.get("index", 0))
            rows = [item["embedding"] for item in items]
            vectors = np.asarray(rows, dtype=np.float32)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise EmbedderError(
                f"The embeddings endpoint {self.url} did not answer in the OpenAI format "
                '({"data": [{"embedding": [...]}, ...]}); check that the base URL points at an '
                "OpenAI-compatible server"
            ) from exc
        if vectors.ndim != 2 or vectors.shape[0] != n or vectors.shape[1] == 0:
            got = vectors.shape[0] if vectors.ndim else 0
            raise EmbedderError(
                f"The embeddings endpoint {self.url} returned {got} vectors of the wrong shape "
                f"for {n} inputs; check that the server is OpenAI-compatible"
            )
        return vectors
