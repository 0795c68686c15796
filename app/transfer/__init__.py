"""A home's data in and out.

- `jsonl`: export a whole home as JSON Lines, import such a file into an empty home.
- `importers`: existing agent histories (Claude Code, Codex, ChatGPT, generic JSONL).
- `mirror`: a read-only file view of one agent's tape and memories.
- `move`: a whole home copied into another database (`tapemind migrate`).
"""

from app.transfer import jsonl, move
from app.transfer.importers import FORMATS, file_patterns, parse_history
from app.transfer.mirror import MirrorReport, sync

__all__ = [
    "FORMATS",
    "MirrorReport",
    "file_patterns",
    "jsonl",
    "move",
    "parse_history",
    "sync",
]
