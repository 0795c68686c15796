"""One chunk of the indexer's work: the rows read from the queue, and the vectors a model
needs for them.

Shared by the in-process drain and the drain that embeds in a child process
(`offload.py`), so both embed exactly the same batches: memories first, then tape rows,
`EMBED_BATCH` texts per `embed_documents` call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from app.index import rows
from app.index.embedders import Embedder, Vectors
from app.index.rows import Item
from app.index.vectors import KINDS, Kind
from app.runtime import Runtime

EMBED_BATCH = 64


class Upserts(Protocol):
    """Where a plan's vectors go: the store's index of one model (`store.RemoteIndex`)."""

    def upsert(
        self, kind: str, ids: Sequence[int], vectors: Vectors, agent_ids: Sequence[int]
    ) -> None: ...


@dataclass(frozen=True)
class Chunk:
    """Queue rows read together: `keys` as queued, `live` to embed, `gone` to delete."""

    keys: list[tuple[str, int]]
    live: list[Item]
    gone: list[tuple[str, int]]


def read(rt: Runtime, n: int, skip: set[tuple[str, int]]) -> Chunk | None:
    """The next `n` queue rows (oldest first) but those in `skip` (still in flight):
    None when nothing else is queued."""
    with rt.read() as s:
        keys = [k for k in rows.queue_batch(s, n + len(skip)) if k not in skip][:n]
        found: dict[tuple[str, int], Item] = {}
        for kind in KINDS:
            ids = [i for k, i in keys if k == kind]
            found.update({(kind, i): it for i, it in rows.load_items(s, kind, ids).items()})
    if not keys:
        return None
    live = [found[k] for k in keys if k in found and found[k].live]
    gone = [k for k in keys if k not in found or not found[k].live]
    return Chunk(keys, live, gone)


class Plan:
    """The vectors of `items` for one model.

    Vectors this process already computed (a remembered memory's neighbour query:
    `known(model, text)`) are filled in at once; the rest are `batches` of texts whose
    vectors, in order, go to `fill`.
    """

    def __init__(
        self,
        model: Embedder,
        items: Sequence[Item],
        known: Callable[[Embedder, str], Vectors | None] | None = None,
    ) -> None:
        self.model = model
        self.groups: list[tuple[Kind, list[Item], Vectors, list[int]]] = []
        self.batches: list[list[str]] = []
        for kind in KINDS:
            batch = [i for i in items if i.kind == kind]
            if not batch:
                continue
            matrix = np.zeros((len(batch), int(model.dim)), dtype=np.float32)
            todo: list[int] = []
            for n, item in enumerate(batch):
                vector = known(model, item.text) if known is not None else None
                if vector is None:
                    todo.append(n)
                else:
                    matrix[n] = vector
            for a in range(0, len(todo), EMBED_BATCH):
                self.batches.append([batch[n].text for n in todo[a : a + EMBED_BATCH]])
            self.groups.append((kind, batch, matrix, todo))

    def fill(self, vectors: Vectors) -> None:
        """Put the vectors of every batch (concatenated, in order) in their rows."""
        at = 0
        for _, _, matrix, todo in self.groups:
            if todo:
                matrix[todo] = vectors[at : at + len(todo)]
                at += len(todo)

    def embed_here(self) -> None:
        """Embed the batches in this process."""
        if self.batches:
            self.fill(np.concatenate([self.model.embed_documents(b) for b in self.batches]))

    def upsert(self, index: Upserts) -> None:
        """Write the vectors into the model's collections (one upsert per kind)."""
        for kind, batch, matrix, _ in self.groups:
            index.upsert(kind, [i.id for i in batch], matrix, [i.agent_id for i in batch])
