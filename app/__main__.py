"""`python -m app …` runs the `tapemind` CLI."""

from app.cli.main import main

main()
