"""`python -m app …` runs the `tapemind` CLI."""

from .cli.main import main

main()
