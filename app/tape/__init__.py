"""The tape: the append-only ledger of what happened, per agent."""
