"""The machine a benchmark ran on, printed next to its figures."""

from __future__ import annotations

import os
import platform
import resource
import sqlite3
import sys
from typing import Any


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """cpu, cores, python, sqlite and the platform."""
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count() or 1,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(terse=True),
    }


def rss_mb() -> float:
    """Resident set size of this process now, in MiB (Linux /proc; else the peak)."""
    try:
        with open("/proc/self/status", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def machine_line(info: dict[str, Any]) -> str:
    return (
        f"machine: {info['cpu']} · {info['cores']} cores · python {info['python']} · "
        f"sqlite {info['sqlite']}"
    )
