"""mem0 (open-source, local mode) as the peer in the latency benchmark.

Configured so it needs no network, no API key and no LLM: `infer=False` adds
store the text as given; its embedder is an adapter over *our* embedder (the
same model both sides); its vector store is local Chroma (telemetry off) and
its history a local SQLite file. mem0 is a bench-only dependency
(`pip install 'tapemind[bench]'`); without it the benchmark says so and goes on.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

# mem0 reads MEM0_TELEMETRY when it is first imported, and chromadb (its vector
# store) reads ANONYMIZED_TELEMETRY: both off before anything imports them.
os.environ["MEM0_TELEMETRY"] = "False"
os.environ["ANONYMIZED_TELEMETRY"] = "False"

INSTALL_HINT = "mem0 is not installed: pip install 'tapemind[bench]' (or pip install mem0ai)"

_EMBEDDERS: dict[str, Any] = {}  # embedder objects handed to the adapter by key
# Document vectors computed ahead in batches (text -> vector), taken by the adapter's
# embed(..., "add"): see `prefetch`.
_PREFETCHED: dict[str, Any] = {}
PREFETCH_BATCH = 64


def available() -> bool:
    return importlib.util.find_spec("mem0") is not None


def prefetch(texts: list[str]) -> None:
    """Embed `texts` now, in batches, for the adds that follow.

    mem0's `add(infer=False)` embeds each message on its own (it has no batch path for
    it), so 100k adds took hours on two cores; our indexer embeds in batches. Handing
    mem0 the same batched vectors makes the two comparable and the 100k run feasible:
    mem0's own storage path (one vector insert and one history row per memory) is
    unchanged and still timed."""
    embedder = _EMBEDDERS["default"]
    for start in range(0, len(texts), PREFETCH_BATCH):
        chunk = texts[start : start + PREFETCH_BATCH]
        for text, vector in zip(chunk, embedder.embed_documents(chunk), strict=True):
            _PREFETCHED[text] = vector


class _Adapter:
    """mem0's EmbeddingBase interface over a tapemind Embedder."""

    def __init__(self, config: Any = None) -> None:
        self.config = config
        self._embedder = _EMBEDDERS[getattr(config, "model", None) or "default"]

    def embed(self, text: str, memory_action: Any = None) -> list[float]:
        if memory_action in ("add", "update"):
            vector = _PREFETCHED.pop(text, None)
            if vector is None:
                vector = self._embedder.embed_documents([text])[0]
        else:
            vector = self._embedder.embed_query(text)
        return [float(x) for x in vector]

    def embed_batch(self, texts: list[str], memory_action: Any = "add") -> list[list[float]]:
        return [[float(x) for x in row] for row in self._embedder.embed_documents(texts)]


class _NoLLM:
    """mem0 wants an LLM object; with infer=False it is never called."""

    def __init__(self, config: Any = None) -> None:
        self.config = config

    def generate_response(self, *args: Any, **kwargs: Any) -> str:
        raise RuntimeError("the benchmark runs mem0 with infer=False: no LLM calls")


def make_memory(folder: Path, embedder: Any) -> Any:
    """A mem0 Memory in `folder`, embedding with `embedder` (a tapemind Embedder)."""
    os.environ.setdefault("MEM0_DIR", str(folder / "mem0-dir"))
    from mem0 import Memory
    from mem0.utils.factory import EmbedderFactory, LlmFactory

    _EMBEDDERS["default"] = embedder
    # mem0 validates provider names against a fixed list, then builds them through
    # its factories: name a listed provider ("langchain") and point the factories at
    # our adapter and a no-op LLM while the Memory is built.
    saved_embedder = EmbedderFactory.provider_to_class["langchain"]
    saved_llm = LlmFactory.provider_to_class["langchain"]
    EmbedderFactory.provider_to_class["langchain"] = f"{__name__}._Adapter"
    LlmFactory.provider_to_class["langchain"] = (f"{__name__}._NoLLM", saved_llm[1])
    config = {
        "embedder": {"provider": "langchain", "config": {"embedding_dims": embedder.dim}},
        "llm": {"provider": "langchain", "config": {}},
        "vector_store": {
            "provider": "chroma",
            "config": {"collection_name": "bench", "path": str(folder / "chroma")},
        },
        "history_db_path": str(folder / "history.db"),
    }
    try:
        return Memory.from_config(config)
    finally:
        EmbedderFactory.provider_to_class["langchain"] = saved_embedder
        LlmFactory.provider_to_class["langchain"] = saved_llm


def bulk_add(
    memory: Any, texts: list[str], user_id: str, made: dict[str, Any], batch: int = 1000
) -> None:
    """Store `texts` in mem0's own vector store in batches, with the payload its
    `add(infer=False)` writes for a user message (data, hash, times, lemmas, user, role).

    Only to reach a size where timing mem0's search matters (100k) without hours of
    one-at-a-time adds; its add rate is measured on the public path. No history rows
    are written (search does not read them). `made`: vectors of these texts the same
    embedder already computed (text -> vector); the others are embedded here."""
    import hashlib
    import uuid
    from datetime import UTC, datetime

    from mem0.utils.lemmatization import lemmatize_for_bm25

    embedder = _EMBEDDERS["default"]
    for start in range(0, len(texts), batch):
        chunk = texts[start : start + batch]
        missing = [t for t in chunk if t not in made]
        fresh = (
            dict(zip(missing, embedder.embed_documents(missing), strict=True)) if missing else {}
        )
        vectors = [made[t] if t in made else fresh[t] for t in chunk]
        now = datetime.now(UTC).isoformat()
        payloads = [
            {
                "user_id": user_id,
                "role": "user",
                "data": text,
                "hash": hashlib.md5(text.encode()).hexdigest(),
                "created_at": now,
                "updated_at": now,
                "text_lemmatized": lemmatize_for_bm25(text),
            }
            for text in chunk
        ]
        memory.vector_store.insert(
            vectors=[[float(x) for x in row] for row in vectors],
            ids=[str(uuid.uuid4()) for _ in chunk],
            payloads=payloads,
        )
