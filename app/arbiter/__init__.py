"""Write-time arbiters: decide what a new memory candidate does to its nearest neighbours."""

from app.arbiter.base import Action, Arbiter, Candidate, Decision, Neighbour
from app.arbiter.llm import LLMArbiter
from app.arbiter.offline import OfflineArbiter

__all__ = [
    "Action",
    "Arbiter",
    "Candidate",
    "Decision",
    "LLMArbiter",
    "Neighbour",
    "OfflineArbiter",
]
