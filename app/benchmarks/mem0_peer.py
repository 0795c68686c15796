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


def available() -> bool:
    return importlib.util.find_spec("mem0") is not None


class _Adapter:
    """mem0's EmbeddingBase interface over a tapemind Embedder."""

    def __init__(self, config: Any = None) -> None:
        self.config = config
        self._embedder = _EMBEDDERS[getattr(config, "model", None) or "default"]

    def embed(self, text: str, memory_action: Any = None) -> list[float]:
        return [float(x) for x in self._embedder.embed_query(text)]

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
