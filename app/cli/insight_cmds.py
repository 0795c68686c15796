"""`tapemind insights …` and `tapemind skill list|show`: skills grown from an agent's
memories, proposed, reviewed by the owner, and kept in the home."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from app import GrownSkill, InvalidInput, Proposal
from app.cli.base import State, json_option, pass_state
from app.cli.output import clip, counted, emit_json, printable, short_time, table

WHAT_CHANGED = {
    "forgotten": "was forgotten",
    "superseded": "was superseded",
    "contradicted": "is contradicted",
    "edited": "was edited since",
}


def _summary(p: Proposal) -> None:
    kind = "new skill" if p.kind == "new" else f"revision of version {p.base_version}"
    memories = ", ".join(str(i) for i in p.evidence)
    click.echo(f"Proposal {p.id}  {p.status}  {kind}  {p.name}  ({p.reason})")
    click.echo(f"  {clip(p.description, 110)}")
    click.echo(f"  {len(p.steps)} steps from memories {memories}; written by {p.writer}")
    if p.note:
        click.echo(f"  note: {printable(p.note)}")


@click.group(invoke_without_command=True)
@click.option("--agent", help="Propose skills from this agent's memories.")
@json_option
@click.pass_context
def insights(ctx: click.Context, agent: str | None) -> None:
    """Grow skills from an agent's memories; review, accept or reject them.

    With --agent: group the agent's related lessons, task outcomes and preferences (by
    meaning, shared words, lineage and use) and draft each group as a SKILL.md whose
    steps cite the memories they rest on, written by the agent's LLM when one is set
    (`tapemind agent config NAME --llm MODEL@URL`), else from the memories' own words.
    Each draft waits as a proposal; one that changes a grown skill comes as a diff.
    """
    if ctx.invoked_subcommand is not None:
        return
    if agent is None:
        raise click.UsageError(
            "Give --agent NAME to propose skills from that agent's memories, or a command: "
            "list, show, accept, reject."
        )
    state = ctx.find_object(State)
    assert state is not None
    report = state.engine().insights(agent)
    if state.as_json:
        emit_json(report)
        return
    click.echo(
        f"Agent {agent}: {counted(report.considered, 'memory', 'memories')} read, "
        f"{counted(report.groups, 'group')} found; "
        f"{counted(report.created, 'new proposal')}, {report.unchanged} unchanged, "
        f"{report.rejected} rejected before."
    )
    for p in report.proposals:
        click.echo()
        _summary(p)
    if report.proposals:
        first = report.proposals[0].id
        click.echo(
            f"\nRead one with `tapemind insights show {first}`; then `tapemind insights "
            f"accept {first}` (or with --text-file, edited) or `tapemind insights reject {first}`."
        )


@insights.command("list")
@click.option("--agent", help="Only this agent's proposals (default: every agent's).")
@click.option(
    "--status",
    type=click.Choice(["pending", "accepted", "rejected", "withdrawn", "all"]),
    default="pending",
    show_default=True,
)
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@json_option
@pass_state
def insights_list(state: State, agent: str | None, status: str, limit: int) -> None:
    """Proposals, oldest first: pending ones wait for your review."""
    items = state.engine().proposals(agent, None if status == "all" else status, limit=limit)
    if state.as_json:
        emit_json(items)
        return
    table(
        ["id", "agent", "status", "kind", "name", "steps", "memories", "proposed"],
        [
            (p.id, p.agent, p.status, p.kind, p.name, len(p.steps), len(p.evidence),
             short_time(p.created_at))
            for p in items
        ],
    )  # fmt: skip


@insights.command("show")
@click.argument("proposal_id", type=int)
@json_option
@pass_state
def insights_show(state: State, proposal_id: int) -> None:
    """A proposal in full: its SKILL.md draft (or its diff), and each memory it rests on
    with the tape entries that memory came from."""
    engine = state.engine()
    p = engine.proposal(proposal_id)
    evidence = [engine.memory(i, agent=p.agent) for i in p.evidence]
    if state.as_json:
        emit_json({"proposal": p, "evidence": evidence})
        return
    _summary(p)
    click.echo()
    click.echo(printable(p.diff or p.text or "(no text left)", keep_newlines=True))
    click.echo("\nEvidence:")
    for d in evidence:
        m = d.memory
        click.echo(f"  memory {m.id} [{m.category}, {m.status}] {printable(m.text) or '-'}")
        for e in d.sources:
            text = "(erased)" if e.erased else clip(e.text, 70)
            click.echo(f"       entry {e.id} {short_time(e.created_at)} {e.thread}: {text}")


def _read_text(path: str) -> str:
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInput(f"Cannot read {path}: {exc.strerror or exc}.") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path} is not UTF-8 text; save it as UTF-8 and try again.") from None


@insights.command("accept")
@click.argument("proposal_id", type=int)
@click.option(
    "--text-file",
    help="Accept this edited SKILL.md instead of the draft ('-': read it from stdin). "
    "Start from `tapemind insights show ID`'s text; cite memories as [m12].",
)
@json_option
@pass_state
def insights_accept(state: State, proposal_id: int, text_file: str | None) -> None:
    """Accept proposal PROPOSAL_ID (as drafted, or edited): a new grown skill, or the
    next version of the skill it revises."""
    text = _read_text(text_file) if text_file is not None else None
    skill = state.engine().accept_proposal(proposal_id, text)
    if state.as_json:
        emit_json(skill)
        return
    click.echo(
        f"Accepted: skill {skill.name} version {skill.version} of agent {skill.agent}, "
        f"resting on memories {', '.join(str(i) for i in skill.evidence)}."
    )
    click.echo(
        f"Install it with `tapemind skill install {skill.name} --agent {skill.agent} "
        "--target ~/.claude/skills` (Codex: ~/.agents/skills); agents also get it over MCP."
    )


@insights.command("reject")
@click.argument("proposal_id", type=int)
@json_option
@pass_state
def insights_reject(state: State, proposal_id: int) -> None:
    """Reject proposal PROPOSAL_ID: the same memories are not proposed again."""
    p = state.engine().reject_proposal(proposal_id)
    if state.as_json:
        emit_json(p)
        return
    click.echo(f"Rejected proposal {p.id} ({p.name}); it will not be proposed again.")


# -- grown skills (`tapemind skill list|show`) -------------------------------------------


def _state_line(skill: GrownSkill) -> str:
    if not skill.issues:
        return skill.state
    why = "; ".join(
        f"memory {i.memory_id} {WHAT_CHANGED.get(i.what, i.what)}"
        + (f" by memory {i.other_id}" if i.what in ("contradicted", "superseded") else "")
        for i in skill.issues
    )
    held = " (withheld from agents until you accept a version without it)" if skill.withheld else ""
    return f"{skill.state}: {why}{held}"


@click.command("list")
@click.option("--agent", required=True, help="The agent whose grown skills to list.")
@json_option
@pass_state
def skill_list(state: State, agent: str) -> None:
    """The agent's grown skills: version, state (current, review, stale) and memories."""
    items = state.engine().skills(agent)
    if state.as_json:
        emit_json(items)
        return
    table(
        ["name", "version", "state", "memories", "updated"],
        [(s.name, s.version, _state_line(s), len(s.evidence), short_time(s.updated_at))
         for s in items],
        max_cell=80,
    )  # fmt: skip


@click.command("show")
@click.argument("name")
@click.option("--agent", required=True, help="The agent the skill was grown for.")
@click.option("--version", "version", type=click.IntRange(1), help="An earlier version.")
@json_option
@pass_state
def skill_show(state: State, name: str, agent: str, version: int | None) -> None:
    """Grown skill NAME's SKILL.md (its current version, or --version N) and its state."""
    engine = state.engine()
    skill = engine.skill(agent, name)
    text = skill.text
    if version is not None:
        found = [v for v in engine.skill_versions(agent, name) if v.version == version]
        if not found:
            raise InvalidInput(f"Skill {name} has versions 1 to {skill.version}, not {version}.")
        text = found[0].text
    if state.as_json:
        emit_json(skill if version is None else {"skill": skill, "text": text})
        return
    click.echo(f"Skill {skill.name}  version {version or skill.version}  {_state_line(skill)}")
    click.echo(printable(text, keep_newlines=True))


# -- `tapemind bench insights` ----------------------------------------------------------

BENCH_DATA = Path("bench") / "data"


@click.command("insights")
@click.option(
    "--data",
    "paths",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Labelled scenarios (JSON Lines; default: bench/data/insights.jsonl, the dev set).",
)
@click.option(
    "--holdout",
    is_flag=True,
    help="Also score bench/data/insights_holdout.jsonl, the held-out set (once, at the end).",
)
@click.option("--meaning-only", is_flag=True, help="Leave out the data's use reports and lineage.")
@json_option
@pass_state
def bench_insights(
    state: State, paths: tuple[Path, ...], holdout: bool, meaning_only: bool
) -> None:
    """Insights on labelled memories: precision and recall of the groups and pairs found,
    and draft steps citing a memory that does not support them (target 0)."""
    from app.benchmarks.insights import format_report, run_file

    chosen = list(paths) or [BENCH_DATA / "insights.jsonl"]
    if holdout:
        chosen.append(BENCH_DATA / "insights_holdout.jsonl")
    for path in chosen:
        if not path.is_file():
            raise InvalidInput(
                f"{path} does not exist: run from the repository root, or give --data FILE."
            )
    results = {
        path.stem: run_file(path, lambda m: click.echo(m, err=True), structure=not meaning_only)
        for path in chosen
    }
    if state.as_json:
        emit_json({name: {**score.figures(), "proposals": score.proposals,
                          "labelled_groups": score.labelled_groups, "steps": score.steps}
                   for name, score in results.items()})  # fmt: skip
        return
    click.echo(format_report(results))


def register(cli: click.Group) -> None:
    from app.cli.bench_cmds import bench
    from app.cli.host_cmds import skill

    cli.add_command(insights)
    skill.add_command(skill_list)
    skill.add_command(skill_show)
    bench.add_command(bench_insights)
