"""The memory's lifecycle after it is stored.

- `forgetting`: strength decays; maintenance soft-archives weak, idle memories; restore
  and keep bring them back.
- `health`: snapshots of the memory's state, kept as history for trends.
- `distill`: new turns on the tape become candidates, confronted like any `remember`.
- `scrub`: a value newly stored in the vault taken out of everything written before.
"""

from app.lifecycle import distill, forgetting, health, scrub
from app.lifecycle.distill import DistillReport
from app.lifecycle.forgetting import ArchiveCandidate, ArchiveRun, MaintainReport, refresh
from app.lifecycle.health import HealthSnapshot
from app.lifecycle.scrub import Scrubbed

__all__ = [
    "ArchiveCandidate",
    "ArchiveRun",
    "DistillReport",
    "HealthSnapshot",
    "MaintainReport",
    "Scrubbed",
    "distill",
    "forgetting",
    "health",
    "refresh",
    "scrub",
]
