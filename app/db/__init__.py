"""Persistence: SQLModel tables, numbered migrations, and transactions."""
