"""`tapemind bench …`: benchmarks printed next to their targets (a group others extend)."""

from __future__ import annotations

import click

from .base import State, json_option, pass_state
from .output import emit_json


@click.group()
def bench() -> None:
    """Measure this machine: each figure is printed next to its target."""


@bench.command("foundation")
@click.option("--quick", is_flag=True, help="Small sizes: a smoke run, not comparable figures.")
@json_option
@pass_state
def foundation(state: State, quick: bool) -> None:
    """Tape appends, remember, and memory list with 100,000 memories (issue 2)."""
    from ..benchmarks.foundation import format_report, run

    report = run(quick=quick, progress=lambda msg: click.echo(msg, err=True))
    if state.as_json:
        emit_json(report.to_dict())
    else:
        click.echo(format_report(report))


def register(cli: click.Group) -> None:
    cli.add_command(bench)
