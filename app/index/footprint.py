"""How much memory this process holds: one reading for the host, the embedding child and
the vector store's process alike. Standard library only, so the vector store's process
can read it without loading the embedders or numpy."""

from __future__ import annotations

import sys


def rss_mb() -> float:
    """This process's resident set in MiB (0.0 where it cannot be read)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)
    except Exception:  # Windows: no resource module
        return 0.0
