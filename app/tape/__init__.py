"""The tape: the append-only ledger of what happened, per agent.

`ledger` appends batches (all or nothing, gap-free sequence numbers), reads by thread,
turn, kind, time or around an entry, and erases an entry for privacy (a hash tombstone);
`threads` lists an agent's threads with their counts. `entries` checks what callers send;
`prepared` redacts and indexes a batch before the write lock is taken.
"""

from app.tape import ledger
from app.tape.entries import encodable, label
from app.tape.ledger import (
    EMBEDDED_KINDS,
    ENTRY_COLUMNS,
    append_in,
    entry_of,
    source_entries,
)
from app.tape.prepared import ready
from app.tape.threads import threads

__all__ = [
    "EMBEDDED_KINDS",
    "ENTRY_COLUMNS",
    "append_in",
    "encodable",
    "entry_of",
    "label",
    "ledger",
    "ready",
    "source_entries",
    "threads",
]
