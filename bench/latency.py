"""Run `tapemind bench latency` (see bench/__main__.py): python bench/latency.py [options]."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.__main__ import main

if __name__ == "__main__":
    main(["latency", *sys.argv[1:]])
