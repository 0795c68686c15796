"""MCP overhead of a `context` call over loopback HTTP (see bench/mcp/overhead.py).

python bench/mcp_overhead.py [--calls 200] [--memories 100] [--agents 8] [--cache DIR]
                             [--engine real|instant]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.mcp.overhead import main

if __name__ == "__main__":
    main()
