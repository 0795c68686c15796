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


@bench.command("decisions")
@click.option(
    "--data",
    "path",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help='JSON Lines: {"existing": [...], "candidate": {...}, "expected": ..., "target": ..., '
    '"lang": ...} per line.',
)
@click.option(
    "--arbiter",
    default="offline",
    show_default=True,
    help="offline, or llm:MODEL@BASE_URL (key in $TAPEMIND_LLM_API_KEY).",
)
@click.option("--no-embedder", is_flag=True, help="No cosines, as if nothing were embedded.")
@json_option
@pass_state
def decisions(state: State, path: str, arbiter: str, no_embedder: bool) -> None:
    """Score an arbiter on labelled cases: accuracy overall and per language, the
    confusion matrix, and the destructive error rate (issue 4)."""
    import os

    from ..arbiter import LLMArbiter, OfflineArbiter
    from ..arbiter.evaluate import evaluate, load_cases
    from ..confront import LLM_API_KEY_ENV, parse_llm
    from ..errors import InvalidInput

    try:
        cases = load_cases(path)
    except (ValueError, KeyError) as exc:
        raise InvalidInput(f"{path} is not a decisions file: {exc}") from None
    if arbiter == "offline":
        judge: OfflineArbiter | LLMArbiter = OfflineArbiter()
    elif arbiter.startswith("llm:"):
        model, base_url = parse_llm(arbiter[4:])
        judge = LLMArbiter(base_url, model, api_key=os.environ.get(LLM_API_KEY_ENV) or None)
    else:
        raise InvalidInput(f"Unknown arbiter {arbiter!r}: use offline or llm:MODEL@BASE_URL.")
    similarity = None
    if not no_embedder:
        from ..arbiter.similarity import USESimilarity

        similarity = USESimilarity()
    report = evaluate(cases, judge, similarity)
    if state.as_json:
        emit_json(report.to_json())
    else:
        click.echo(f"{path}: {report.total} cases")
        click.echo(report.format())


@bench.command("lifecycle")
@click.option("--memories", type=click.IntRange(1000), default=100_000, show_default=True)
@click.option("--quick", is_flag=True, help="10,000 memories and fewer samples: a smoke run.")
@json_option
@pass_state
def lifecycle(state: State, memories: int, quick: bool) -> None:
    """remember with confrontation (p95) and a health snapshot at 100,000 memories."""
    from ..benchmarks.lifecycle import format_report, run

    report = run(
        memories=10_000 if quick else memories,
        samples=40 if quick else 200,
        progress=lambda msg: click.echo(msg, err=True),
    )
    if state.as_json:
        emit_json(report)  # a dataclass: figures and decision counts
    else:
        click.echo(format_report(report))


def register(cli: click.Group) -> None:
    cli.add_command(bench)
