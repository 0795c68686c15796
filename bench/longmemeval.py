"""`tapemind bench longmemeval` as a script: python bench/longmemeval.py [options] (see --help)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._tapemind import run


def main() -> None:
    run("longmemeval", sys.argv[1:])


if __name__ == "__main__":
    main()
