"""`tapemind approvals …` and `tapemind grants …`: the owner decides who reads what."""

from __future__ import annotations

import click

from app import GRANT_SCOPES as SCOPES
from app import Grant
from app.cli.base import State, json_option, pass_state
from app.cli.output import clip, emit_json, fields, short_time, table

SCOPE_WORDS = {
    "once": "once",
    "session": "for this session",
    "hour": "for an hour",
    "always": "always, until the grant is revoked",
}

# -- approvals (owner) ------------------------------------------------------------


@click.group()
def approvals() -> None:
    """Access requests waiting for the owner, and how they were decided."""


@approvals.command("list")
@click.option(
    "--status",
    type=click.Choice(["pending", "allowed", "denied", "expired", "all"]),
    default="pending",
    show_default=True,
)
@click.option("--agent", default=None, help="Only this agent's requests.")
@click.option("--limit", type=int, default=50, show_default=True)
@json_option
@pass_state
def approvals_list(state: State, status: str, agent: str | None, limit: int) -> None:
    """List access requests (pending ones by default, oldest first)."""
    items = state.engine().access_requests(
        None if status == "all" else status, agent=agent, limit=limit
    )
    if state.as_json:
        emit_json(items)
        return
    table(
        ["ID", "AGENT", "SECRET", "MODE", "STATUS", "ASKED", "EXPIRES", "REASON"],
        [
            [
                r.id,
                r.agent,
                r.secret,
                r.mode,
                r.status + (f" ({r.decided_by})" if r.decided_by else ""),
                short_time(r.created_at),
                short_time(r.expires_at),
                clip(r.reason, 40),
            ]
            for r in items
        ],
    )


@approvals.command("approve")
@click.argument("request_id", type=int)
@click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="once",
    show_default=True,
    help="One read, this session's reads, the reads of the next hour, or every read until revoked.",
)
@json_option
@pass_state
def approve(state: State, request_id: int, scope: str) -> None:
    """Allow request ID."""
    req = state.engine().answer_request(request_id, True, scope)
    if state.as_json:
        emit_json(req)
    else:
        how = SCOPE_WORDS.get(scope, scope)
        click.echo(f"Allowed request {req.id}: {req.agent} may read {req.secret} {how}.")


@approvals.command("deny")
@click.argument("request_id", type=int)
@click.option("--reason", default=None, help="Why (the agent sees it).")
@json_option
@pass_state
def deny(state: State, request_id: int, reason: str | None) -> None:
    """Deny request ID."""
    req = state.engine().answer_request(request_id, False, reason=reason)
    if state.as_json:
        emit_json(req)
    else:
        click.echo(f"Denied request {req.id} ({req.agent}, {req.secret}).")


@approvals.command("reviewer")
@click.option(
    "--agents", default=None, help="Comma-separated agents it may approve for ('*': any)."
)
@click.option("--secrets", default=None, help="Comma-separated secret patterns ('*': any).")
@click.option("--require-reason/--no-require-reason", default=None)
@click.option("--min-reason", "min_reason_chars", type=int, default=None)
@click.option("--max-allowed", type=int, default=None, help="Approvals per agent per window.")
@click.option("--window", "window_seconds", type=int, default=None, help="Seconds.")
@click.option("--llm-url", default=None, help="OpenAI-compatible base URL ('' to remove).")
@click.option("--llm-model", default=None)
@click.option("--llm-key-secret", "llm_api_key_secret", default=None, help="Vault secret name.")
@json_option
@pass_state
def reviewer(state: State, /, **options: object) -> None:
    """Show, or change, what the review mode's reviewer may approve."""
    changes: dict[str, object] = {}
    for name in ("agents", "secrets"):
        value = options.pop(name)
        if value is not None:
            assert isinstance(value, str)
            parts = [p.strip() for p in value.split(",") if p.strip()]
            changes[name] = None if parts == ["*"] else parts
    for name, value in options.items():
        if value is not None:
            changes[name] = None if value == "" else value
    engine = state.engine()
    rules = engine.configure_reviewer(**changes) if changes else engine.reviewer_rules()
    if state.as_json:
        emit_json(rules)
        return
    fields(
        [
            ("Agents", ", ".join(rules.agents) if rules.agents is not None else "any"),
            ("Secrets", ", ".join(rules.secrets) if rules.secrets is not None else "any"),
            (
                "Reason",
                f"required, {rules.min_reason_chars}+ characters"
                if rules.require_reason
                else "optional",
            ),
            ("Rate limit", f"{rules.max_allowed} per {rules.window_seconds} s per agent"),
            ("LLM", f"{rules.llm_model} at {rules.llm_url}" if rules.llm_url else "none"),
        ]
    )


# -- grants (owner) ----------------------------------------------------------------


@click.group()
def grants() -> None:
    """Standing permissions of agents to read secrets."""


@grants.command("list")
@click.option("--all", "show_all", is_flag=True, help="Include used and revoked grants.")
@click.option("--agent", default=None)
@json_option
@pass_state
def grants_list(state: State, show_all: bool, agent: str | None) -> None:
    """List grants (active ones unless --all)."""
    items = state.engine().grants(agent=agent, active_only=not show_all)
    if state.as_json:
        emit_json(items)
        return
    table(
        ["ID", "AGENT", "SECRET", "SCOPE", "SESSION", "USED", "CREATED", "STATE"],
        [
            [
                g.id,
                g.agent,
                g.secret,
                g.scope,
                g.session or "-",
                g.used_count,
                short_time(g.created_at),
                grant_state(g),
            ]
            for g in items
        ],
    )


@grants.command("revoke")
@click.argument("grant_id", type=int)
@json_option
@pass_state
def revoke(state: State, grant_id: int) -> None:
    """Revoke grant ID now."""
    g = state.engine().revoke_grant(grant_id)
    if state.as_json:
        emit_json(g)
    else:
        click.echo(f"Revoked grant {g.id} ({g.agent}, {g.secret}).")


def register(cli: click.Group) -> None:
    for group in (approvals, grants):
        cli.add_command(group)


def grant_state(g: Grant) -> str:
    """active (an hour grant: until when), revoked, used, or lapsed."""
    if g.active:
        return f"active until {short_time(g.expires_at)}" if g.expires_at else "active"
    if g.revoked_at:
        return "revoked"
    return "lapsed" if g.expires_at else "used"
