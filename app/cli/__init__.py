"""The `tapemind` command line: every engine verb, `--json` for scripts."""
