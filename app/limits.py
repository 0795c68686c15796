"""The limits of what one call may ask or carry, in one place.

Every layer checks its inputs against these, and what agents are told (the MCP tools'
schemas, error messages) is written from the same numbers: a schema never promises more
than the engine accepts.
"""

from __future__ import annotations

# -- ids and counts ------------------------------------------------------------------
# SQLite's INTEGER is a signed 64-bit number: a larger id names nothing that can exist.
MAX_ID = 2**63 - 1

# -- recall --------------------------------------------------------------------------
MAX_BUDGET = 32_000  # tokens a `context` call (or an agent's recall_budget) may ask for
MAX_QUERY_CHARS = 2000  # a `context` or `search` query
MAX_REGEX_CHARS = 500  # a regex `search` pattern
MAX_SEARCH_LIMIT = 200  # hits in one page of `search`
MAX_SEARCH_OFFSET = 100_000  # hits a page of `search` may skip

# -- the tape ------------------------------------------------------------------------
# One entry's text, in characters (what JSON Schema's maxLength counts, and what a model
# can check): 1 Mi, so a 1 MiB log of plain ASCII fits in one entry.
MAX_ENTRY_CHARS = 1024 * 1024
MAX_LABEL_CHARS = 256  # a thread, turn, user or source key
MAX_APPEND_ENTRIES = 1000  # entries in one agent's `append`
MAX_READ = 1000  # entries one `tape` read returns
# Full-text work: an entry is indexed by its first MAX_ENTRY_TERMS terms (a pasted 1 MiB
# log is kept whole, and found whole by regex search; its embedding already covers only
# its start), and one agent call may index at most MAX_APPEND_TERMS terms, so no single
# write holds the home's write lock for long (FTS5 insertion is the bulk of it, and it
# grows faster than the terms it inserts).
MAX_ENTRY_TERMS = 20_000
MAX_APPEND_TERMS = 40_000
# A word longer than this is indexed (and searched) by its first MAX_TERM_CHARS
# characters, and only words up to MAX_STEM_CHARS are stemmed: the English stemmer's time
# grows with the square of a word's length on some inputs ("ay" * 500,000).
MAX_TERM_CHARS = 64
MAX_STEM_CHARS = 48

# -- memories ------------------------------------------------------------------------
MAX_MEMORY_CHARS = 1000  # a memory's text: a short durable conclusion
MAX_SOURCES = 100  # source entries (and, separately, parents) of one `remember`
MAX_USED = 200  # memory ids one `used` report may carry
MAX_LIST = 1000  # memories one list call returns

# -- secrets -------------------------------------------------------------------------
MAX_SECRET_NAME_CHARS = 128
MAX_REASON_CHARS = 1000  # the reason an agent gives for a secret request
MAX_WAIT_SECONDS = 600  # how long a `request_secret` may wait for the owner
# Writes an agent makes holding a value of the vault it was never given, before its
# writes are refused until the owner lets it write again (see app.vault.echoes).
MAX_SECRET_ECHOES = 3

# -- messages ------------------------------------------------------------------------
# One JSON-RPC message, over HTTP (a request body) and stdio (a line): a full entry of
# Chinese text, JSON-escaped, fits with room to spare.
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
# What an error message may carry: errors never echo what was sent, and stay small.
MAX_ERROR_CHARS = 2000
