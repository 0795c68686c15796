"""`python -m app …` runs the `tapemind` CLI."""

from app.cli.launch import main

main()
