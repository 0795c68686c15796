"""Run `tapemind bench retrieval` (see bench/__main__.py): python bench/retrieval.py [options]."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.__main__ import main

if __name__ == "__main__":
    main(["retrieval", *sys.argv[1:]])
