"""The `tapemind` program's entry point, which imports nothing at its top.

Each vector store process on Linux comes from a fork server that imports the program's
main module first (`app.index.vector_process`), and an embedding child imports it too.
Pointed at `app.cli.main`, the installed `tapemind` script made every one of them load
the whole command line (1.8 s) before chromadb, on the way to a CLI write's first
vector. The command line is imported here, when the program runs.
"""

from __future__ import annotations


def main() -> None:
    from app.cli.main import main as run

    run()
