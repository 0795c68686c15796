"""Memories: the stored records, the intake gate, reading, the owner's edits, strength and use."""
