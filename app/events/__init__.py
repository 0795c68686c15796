"""Content-free events after each commit, and the audit trail fed from the same place."""
