"""Insights: groups of related memories grown into skills the owner reviews.

`propose` groups an agent's lessons, task outcomes and preferences by meaning, lineage and
use, and drafts a SKILL.md per group whose steps cite the memories they rest on; the owner
accepts (possibly edited) or rejects each proposal; accepted skills are versioned, and read
as stale or in need of review when the memories under them change.
"""

from .grouping import DEFAULT, GroupingParams
from .proposals import accept, get, list_, reject
from .records import (
    GrownSkill,
    InsightsReport,
    InsightsWaiting,
    Proposal,
    SkillDraft,
    SkillIssue,
    SkillStep,
    SkillVersion,
)
from .run import propose
from .skills import get as skill
from .skills import list_ as skills
from .skills import versions, waiting
from .watch import attach

__all__ = [
    "DEFAULT",
    "GroupingParams",
    "GrownSkill",
    "InsightsReport",
    "InsightsWaiting",
    "Proposal",
    "SkillDraft",
    "SkillIssue",
    "SkillStep",
    "SkillVersion",
    "accept",
    "attach",
    "get",
    "list_",
    "propose",
    "reject",
    "skill",
    "skills",
    "versions",
    "waiting",
]
