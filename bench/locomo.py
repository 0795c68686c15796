"""Run `tapemind bench locomo` (see bench/__main__.py): python bench/locomo.py [options]."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.__main__ import main

if __name__ == "__main__":
    main(["locomo", *sys.argv[1:]])
