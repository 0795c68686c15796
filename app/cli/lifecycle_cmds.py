"""`tapemind conflicts …`, `maintain`, `archive list`, `restore`, `keep`, `health`, `distill`,
`decisions` and `agent config`: the memory's lifecycle."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from app import ArchiveCandidate, Conflict, HealthSnapshot
from app.cli.base import State, json_option, pass_state
from app.cli.output import clip, counted, emit_json, fields, printable, short_time, table
from app.cli.tape_cmds import parse_time


def _age(days: float | None) -> str:
    if days is None:
        return "-"
    if days < 1:
        return f"{days * 24:.1f} h"
    return f"{days:.1f} d"


# -- conflicts ----------------------------------------------------------------------


@click.group()
def conflicts() -> None:
    """Conflicts between a memory and a challenger, for the owner to settle."""


def _print_conflict(c: Conflict) -> None:
    status = c.status if c.resolution is None else f"{c.status} ({c.resolution})"
    click.echo(f"Conflict {c.id}  agent {c.agent}  {status}  age {_age(c.age_days)}")
    click.echo(f"  reason: {c.reason} (arbiter: {c.arbiter})")
    for label, side in (("old", c.existing), ("new", c.challenger)):
        m = side.memory
        text = printable(m.text) or "(forgotten)"
        click.echo(f"  {label}: memory {m.id} [{m.category}, {m.status}] {text}")
        for e in side.sources:
            text = "(erased)" if e.erased else clip(e.text, 70)
            click.echo(f"       entry {e.id} {short_time(e.created_at)} {e.thread}: {text}")
    if c.merged_id is not None:
        click.echo(f"  merged into memory {c.merged_id}")


@conflicts.command("list")
@click.option("--agent", help="Only this agent's conflicts (default: every agent's).")
@click.option(
    "--status", type=click.Choice(["open", "resolved", "all"]), default="open", show_default=True
)
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@json_option
@pass_state
def conflicts_list(state: State, agent: str | None, status: str, limit: int) -> None:
    """Conflicts with both texts, the reason, the age and the sources: open ones oldest
    first (the queue to settle), resolved ones most recently settled first (the ones a
    misclick would be among; `conflicts reopen ID` undoes one)."""
    engine = state.engine()
    if status == "resolved":
        items = engine.settled_conflicts(agent, limit=limit)
    else:
        items = engine.conflicts(agent, None if status == "all" else status, limit=limit)
    if state.as_json:
        emit_json(items)
        return
    if not items:
        click.echo(f"No {'' if status == 'all' else status + ' '}conflicts.")
    for i, c in enumerate(items):
        if i:
            click.echo()
        _print_conflict(c)


@conflicts.command("resolve")
@click.argument("conflict_id", type=int)
@click.option(
    "--keep",
    required=True,
    type=click.Choice(["old", "new", "both", "merge"]),
    help="old: the existing memory wins; new: the challenger wins; both: keep both "
    "active; merge: replace both with --text.",
)
@click.option("--text", "body", help="The merged memory's text (with --keep merge).")
@json_option
@pass_state
def conflicts_resolve(state: State, conflict_id: int, keep: str, body: str | None) -> None:
    """Settle conflict CONFLICT_ID (audited; statuses and lineage follow)."""
    c = state.engine(vault="text" if keep == "merge" else None).resolve_conflict(
        conflict_id, keep, body
    )
    if state.as_json:
        emit_json(c)
        return
    _print_conflict(c)


@conflicts.command("reopen")
@click.argument("conflict_id", type=int)
@json_option
@pass_state
def conflicts_reopen(state: State, conflict_id: int) -> None:
    """Undo the resolution of CONFLICT_ID (a misclick): the memory it superseded is
    active again, a merged memory is archived, and the conflict is open to settle again."""
    c = state.engine().reopen_conflict(conflict_id)
    if state.as_json:
        emit_json(c)
        return
    _print_conflict(c)
    click.echo(
        f"Reopened: settle it again with `tapemind conflicts resolve {c.id} "
        "--keep old|new|both|merge`."
    )


@conflicts.command("dispute")
@click.argument("memory_id", type=int)
@json_option
@pass_state
def conflicts_dispute(state: State, memory_id: int) -> None:
    """Dispute that superseded memory MEMORY_ID was replaced: it is active again and a
    conflict with its successor opens, to settle like any other."""
    c = state.engine().dispute_supersede(memory_id)
    if state.as_json:
        emit_json(c)
        return
    _print_conflict(c)
    click.echo(f"Settle it with `tapemind conflicts resolve {c.id} --keep old|new|both|merge`.")


# -- forgetting ---------------------------------------------------------------------


@click.command()
@click.option("--agent", required=True)
@click.option("--as-of", "as_of", help="Evaluate decay at this date (ISO 8601) instead of now.")
@click.option("--dry-run", is_flag=True, help="Only list what would be archived.")
@json_option
@pass_state
def maintain(state: State, agent: str, as_of: str | None, dry_run: bool) -> None:
    """Soft-archive memories whose strength fell below the agent's archive_below (default
    0.1) and that went archive_idle_days (default 30) without a recall or use."""
    report = state.engine().maintain(agent, parse_time(as_of, "--as-of"), dry_run)
    if state.as_json:
        emit_json(report)
        return
    verb = "would archive" if dry_run else "archived"
    click.echo(
        f"{agent}: {len(report.candidates)} faded at {short_time(report.as_of)} "
        f"(strength < {report.threshold:g}, idle >= {report.idle_days:g} days); "
        f"{verb} {len(report.candidates) if dry_run else len(report.archived_ids)}."
    )
    _candidates_table(report.candidates, keep_hint=dry_run)


def _candidates_table(candidates: Sequence[ArchiveCandidate], *, keep_hint: bool) -> None:
    """Archive candidates, soonest first; DUE is when each became (or becomes) one."""
    table(
        ["ID", "CATEGORY", "IMP", "STRENGTH", "DUE", "LAST ACTIVE", "TEXT"],
        [
            [c.memory_id, c.category, f"{c.importance:.2f}", f"{c.strength:.3f}",
             short_time(c.fade_at), short_time(c.last_active_at), c.text]
            for c in candidates
        ],
    )  # fmt: skip
    if keep_hint and candidates:
        click.echo("Keep one from the archive with `tapemind keep ID`.")


@click.group()
def archive() -> None:
    """Archived memories: out of injection, searchable with --status archived."""


@archive.command("list")
@click.option("--agent", help="Only this agent's memories (default: every agent's).")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@json_option
@pass_state
def archive_list(state: State, agent: str | None, limit: int, offset: int) -> None:
    """Archived memories, most recently archived first."""
    engine = state.engine()
    names = [agent] if agent is not None else [a.name for a in engine.agents()]
    # Each agent's first offset+limit, merged: the page of the whole list.
    found = [m for name in names for m in engine.archived(name, offset + limit, 0)]
    found.sort(key=lambda m: (m.archived_at or m.updated_at, m.id), reverse=True)
    items = found[offset : offset + limit]
    if state.as_json:
        emit_json(items)
        return
    if not items:
        click.echo("Nothing archived." if offset == 0 else "No more archived memories.")
        return
    table(
        ["ID", "AGENT", "CATEGORY", "IMP", "STRENGTH", "ARCHIVED", "LAST RECALLED", "TEXT"],
        [
            [m.id, m.agent, m.category, f"{m.importance:.2f}", f"{m.strength or 0:.2f}",
             short_time(m.archived_at), short_time(m.last_recalled_at), m.text]
            for m in items
        ],
    )  # fmt: skip


@archive.command("fading")
@click.option("--agent", help="Only this agent's memories (default: every agent's).")
@click.option(
    "--days",
    type=click.FloatRange(0, 3650),
    default=7.0,
    show_default=True,
    help="How far ahead to look.",
)
@json_option
@pass_state
def archive_fading(state: State, agent: str | None, days: float) -> None:
    """Active memories that maintenance archives within --days unless they are recalled,
    used or kept (`tapemind keep ID`); soonest first, with today's strength. DUE is when
    each became or becomes an archive candidate: one already due goes at the next run."""
    engine = state.engine()
    names = [agent] if agent is not None else [a.name for a in engine.agents()]
    items = sorted(
        (c for name in names for c in engine.fading(name, days)),
        key=lambda c: (c.fade_at, c.memory_id),
    )
    if state.as_json:
        emit_json(items)
        return
    _candidates_table(items, keep_hint=True)


@click.command()
@click.argument("memory_ids", nargs=-1, required=True, type=int)
@json_option
@pass_state
def restore(state: State, memory_ids: tuple[int, ...]) -> None:
    """Bring archived memories back (active, reinforced; history kept)."""
    items = state.engine().restore(memory_ids)
    if state.as_json:
        emit_json(items)
        return
    for m in items:
        click.echo(f"restored memory {m.id} [{m.category}] {clip(m.text, 70)}")


@click.command()
@click.argument("memory_ids", nargs=-1, required=True, type=int)
@json_option
@pass_state
def keep(state: State, memory_ids: tuple[int, ...]) -> None:
    """Keep active memories from fading into the archive (reinforced now), e.g. the
    ones `archive fading` lists."""
    items = state.engine().keep(memory_ids)
    if state.as_json:
        emit_json(items)
        return
    for m in items:
        click.echo(f"kept memory {m.id} [{m.category}] {clip(m.text, 70)}")


# -- health -------------------------------------------------------------------------

_ROWS = (
    ("Memories", "total"),
    ("  active", "active"),
    ("  archived", "archived"),
    ("  superseded", "superseded"),
    ("  forgotten", "forgotten"),
    ("Never recalled", "never_recalled"),
    ("Injected, never used", "injected_never_used"),
    ("Archive candidates", "archive_candidates"),
    ("Tape entries", "tape_entries"),
)


def _print_health(h: HealthSnapshot) -> None:
    pairs: list[tuple[str, Any]] = [("Agent", h.agent or "(all agents)"), ("At", short_time(h.at))]
    pairs += [(label, getattr(h, key)) for label, key in _ROWS]
    pairs += [
        ("Open conflicts", f"{h.open_conflicts} (oldest {_age(h.oldest_conflict_age_days)})"),
        ("Unembedded", f"{h.unembedded} (oldest {_age(h.oldest_unembedded_age_days)})"),
        (
            f"Recalls, {h.recent_days} days",
            f"{h.recalls} ({h.recall_overflows} over the token budget)",
        ),
        ("Vector index", h.index_note("en") or "keeping up"),
    ]
    fields(pairs)


@click.command()
@click.option("--agent", help="One agent (default: all agents, then each one).")
@click.option("--save", is_flag=True, help="Store the snapshot(s) in the history.")
@click.option("--history", is_flag=True, help="Print the stored series instead.")
@click.option("--since", help="With --history: from this date (ISO 8601).")
@json_option
@pass_state
def health(state: State, agent: str | None, save: bool, history: bool, since: str | None) -> None:
    """Health snapshot: totals by status, never recalled, open conflicts, unembedded rows,
    archive candidates, tape size, recall budget overflows, injected but never used."""
    engine = state.engine()
    if history:
        series = engine.health_history(agent, parse_time(since, "--since"))
        if state.as_json:
            emit_json([s.to_dict() for s in series])
            return
        table(
            ["AT", "TOTAL", "ACTIVE", "ARCHIVED", "NEVER RECALLED", "CONFLICTS", "UNEMBEDDED",
             "CANDIDATES", "TAPE"],
            [
                [short_time(s.at), s.total, s.active, s.archived, s.never_recalled,
                 s.open_conflicts, s.unembedded, s.archive_candidates, s.tape_entries]
                for s in series
            ],
        )  # fmt: skip
        return
    snaps = [engine.health(agent, save)]
    if agent is None:
        snaps += [engine.health(a.name, save) for a in engine.agents()]
    if state.as_json:
        emit_json(snaps[0].to_dict() if agent else [s.to_dict() for s in snaps])
        return
    for i, snap in enumerate(snaps):
        if i:
            click.echo()
        _print_health(snap)


# -- distiller, decisions, settings -------------------------------------------------


@click.command()
@click.option("--agent", required=True)
@click.option("--max-entries", type=click.IntRange(1), help="Read at most this many entries.")
@json_option
@pass_state
def distill(state: State, agent: str, max_entries: int | None) -> None:
    """Read the agent's new turns, ask its LLM for memories, confront each one."""
    report = state.engine(vault="text").distill(agent, max_entries=max_entries)
    if state.as_json:
        emit_json(report)
    else:
        click.echo(
            f"{agent}: read {counted(report.entries_read, 'entry', 'entries')} in "
            f"{counted(report.batches, 'batch', 'batches')}; "
            f"{counted(report.candidates, 'candidate')}, {report.refused} refused by the gate, "
            f"{report.skipped} skipped; watermark at entry #{report.watermark}."
        )
        if report.pending:
            click.echo(
                f"  {report.pending} newer entries wait for a later run (a turn still in "
                "progress, the --max-entries budget, or an error)."
            )
        for r in report.results:
            m = r.memory
            text = clip(m.text, 60) if m else ""
            click.echo(f"  {r.decision}: memory {m.id if m else '-'} {text}")
    if report.error:
        raise click.ClickException(report.error + " (the watermark stays; run again later)")


@click.command()
@click.option("--agent", required=True)
@click.option(
    "--action", type=click.Choice(["add", "update", "supersede", "duplicate", "conflict"])
)
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@json_option
@pass_state
def decisions(state: State, agent: str, action: str | None, limit: int) -> None:
    """The arbiter's stored decisions, newest first."""
    items = state.engine().decisions(agent, action=action, limit=limit)
    if state.as_json:
        emit_json(items)
        return
    table(
        ["ID", "AT", "ACTION", "TARGET", "MEMORY", "ARBITER", "REASON"],
        [[d.id, short_time(d.at), d.action, d.target_id or "-", d.memory_id or "-", d.arbiter,
          d.reason] for d in items],
    )  # fmt: skip


@click.command("config")
@click.argument("name")
@click.option("--half-life", "half_life_days", type=click.FloatRange(min=0, min_open=True))
@click.option("--budget", "recall_budget", type=click.IntRange(1))
@click.option("--arbiter", type=click.Choice(["offline", "learned", "llm"]))
@click.option("--llm", help="OpenAI-compatible model for arbiter/distiller: MODEL@BASE_URL.")
@click.option("--archive-below", "archive_below", type=float, help="Strength threshold (0.1).")
@click.option("--archive-idle-days", "archive_idle_days", type=float, help="Idle days (30).")
@click.option(
    "--credentials",
    "redact_credentials",
    type=click.Choice(["redact", "keep"]),
    help="Credential-looking text on the tape: redacted as it is written (default), or kept.",
)
@json_option
@pass_state
def config(state: State, /, name: str, **settings: Any) -> None:
    """Change an agent's settings (only the options given)."""
    changes = {k: v for k, v in settings.items() if v is not None}
    if "redact_credentials" in changes:
        changes["redact_credentials"] = changes["redact_credentials"] == "redact"
    engine = state.engine()
    agent = engine.configure_agent(name, **changes) if changes else engine.agent(name)
    if state.as_json:
        emit_json(agent)
    else:
        fields([(k, v) for k, v in agent.settings.to_dict().items()])


def register(cli: click.Group) -> None:
    from app.cli.agent_cmds import agent

    for command in (conflicts, maintain, archive, restore, keep, health, distill, decisions):
        cli.add_command(command)
    agent.add_command(config)
