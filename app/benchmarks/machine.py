"""What a benchmark ran on: CPU model, cores, Python and SQLite versions."""

from __future__ import annotations

import os
import platform
import sqlite3
from pathlib import Path
from typing import Any


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe() -> dict[str, str | int]:
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count() or 1,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
    }


def load() -> str:
    """The 1/5/15-minute load averages, when the OS reports them."""
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except (AttributeError, OSError):
        return ""


# -- used by the retrieval benchmarks (locomo, retrieval, latency) ----------------


def machine() -> dict[str, Any]:
    """describe() plus the load average when the run started."""
    return {**describe(), "load": load()}


def machine_line(info: dict[str, Any]) -> str:
    load_avg = f" · load {info['load']}" if info.get("load") else ""
    return (
        f"machine: {info['cpu']} · {info['cores']} cores · python {info['python']} · "
        f"sqlite {info['sqlite']}{load_avg}"
    )
