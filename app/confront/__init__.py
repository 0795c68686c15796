"""Confrontation at write time: a candidate meets its nearest memories, an arbiter decides, conflicts wait for the owner."""
