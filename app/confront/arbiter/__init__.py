"""Write-time arbiters: decide what a new memory candidate does to its nearest neighbours."""

from app.confront.arbiter.base import Action, Arbiter, Candidate, Decision, Neighbour
from app.confront.arbiter.learned import LearnedArbiter
from app.confront.arbiter.llm import LLMArbiter
from app.confront.arbiter.offline import OfflineArbiter

__all__ = [
    "Action",
    "Arbiter",
    "Candidate",
    "Decision",
    "LLMArbiter",
    "LearnedArbiter",
    "Neighbour",
    "OfflineArbiter",
]
