"""`tapemind vault …`, `secret get`, `approvals …` and `grants …`.

Values are read from stdin or a hidden prompt, never from the command line (argv
is visible to every process on the machine and lands in shell history). A value
is printed only by `vault show --reveal` (the owner, after a confirmation) and by
`secret get` when the request is allowed.
"""

from __future__ import annotations

import sys

import click

from ..engine import Engine
from ..vault.passphrase import PASSPHRASE_ENV
from .base import State, json_option, pass_state
from .output import clip, emit_json, fields, short_time, table

EXIT_DENIED = 7  # denied or expired: do not retry without a new reason
EXIT_PENDING = 8  # waiting for the owner: ask again later, or --wait


def vault_engine(state: State) -> Engine:
    """The engine, able to ask for the vault passphrase in a terminal."""
    engine = state.engine()

    def prompt(purpose: str) -> str | None:
        if not sys.stdin.isatty():
            return None  # the error then says to set TAPEMIND_VAULT_PASSPHRASE
        if purpose == "create":
            click.echo(
                "No OS keyring here: the vault key will be protected by a passphrase "
                f"(or set {PASSPHRASE_ENV}).",
                err=True,
            )
        value: str = click.prompt(
            "Vault passphrase",
            hide_input=True,
            confirmation_prompt=purpose == "create",
            err=True,
        )
        return value

    engine.use_passphrase_prompt(prompt)
    return engine


# -- vault (owner) ---------------------------------------------------------------


@click.group()
def vault() -> None:
    """The secret vault (owner only): values encrypted at rest, read with approval."""


@vault.command("set")
@click.argument("name")
@click.option("--tag", "tags", multiple=True, help="A tag (repeat for several).")
@json_option
@pass_state
def set_(state: State, name: str, tags: tuple[str, ...]) -> None:
    """Store secret NAME; the value comes from stdin or a hidden prompt.

    \b
      printf %s "$TOKEN" | tapemind vault set GITHUB_TOKEN --tag github
      tapemind vault set GITHUB_TOKEN        (asks, without echo)
    """
    engine = vault_engine(state)
    if sys.stdin.isatty():
        value: str = click.prompt(
            f"Value of {name}", hide_input=True, confirmation_prompt=True, err=True
        )
    else:
        value = sys.stdin.read()
        # One trailing newline is the shell's (echo, a file), not the value's.
        if value.endswith("\r\n"):
            value = value[:-2]
        elif value.endswith("\n"):
            value = value[:-1]
    info = engine.set_secret(name, value, tags)
    if state.as_json:
        emit_json(info)
    else:
        click.echo(f"Stored secret {info.name} (key {info.key_id}).")


@vault.command("list")
@json_option
@pass_state
def list_(state: State) -> None:
    """Names, tags and dates of the secrets (never values)."""
    items = state.engine().secrets()
    if state.as_json:
        emit_json(items)
        return
    table(
        ["NAME", "TAGS", "MODE", "CREATED", "UPDATED"],
        [
            [
                s.name,
                ", ".join(s.tags),
                s.mode or "agent's",
                short_time(s.created_at),
                short_time(s.updated_at),
            ]
            for s in items
        ],
    )


@vault.command("show")
@click.argument("name")
@click.option("--reveal", is_flag=True, help="Print the value (asks first).")
@click.option("--yes", is_flag=True, help="With --reveal: do not ask for confirmation.")
@json_option
@pass_state
def show(state: State, name: str, reveal: bool, yes: bool) -> None:
    """Show a secret's details; with --reveal, its value."""
    engine = vault_engine(state)
    info = engine.secret(name)
    value = None
    if reveal:
        if not yes and not click.confirm(
            f"Print the value of {name} on this terminal?", default=False, err=True
        ):
            raise click.exceptions.Exit(1)
        value = engine.reveal_secret(name)
    if state.as_json:
        emit_json({"secret": info, **({"value": value} if reveal else {})})
        return
    fields(
        [
            ("Secret", info.name),
            ("Tags", ", ".join(info.tags)),
            ("Mode", info.mode or "the asking agent's"),
            ("Created", short_time(info.created_at)),
            ("Updated", short_time(info.updated_at)),
            ("Key", info.key_id),
        ]
    )
    if value is not None:
        click.echo(value)


@vault.command("rm")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
@pass_state
def rm(state: State, name: str, yes: bool) -> None:
    """Remove secret NAME with its grants (pending requests for it are denied)."""
    engine = state.engine()
    engine.secret(name)  # NotFound before asking
    if (
        not yes
        and sys.stdin.isatty()
        and not click.confirm(f"Remove secret {name}? This cannot be undone", err=True)
    ):
        raise click.exceptions.Exit(1)
    info = engine.remove_secret(name)
    if state.as_json:
        emit_json({"removed": info})
    else:
        click.echo(f"Removed secret {info.name}.")


@vault.command("rotate-key")
@json_option
@pass_state
def rotate_key(state: State) -> None:
    """Re-encrypt every secret under a new vault key (atomic; resumable after a crash)."""
    result = vault_engine(state).rotate_vault_key()
    if state.as_json:
        emit_json(result)
    else:
        click.echo(
            f"Rotated the vault key {result.old_key_id} -> {result.new_key_id}; "
            f"{result.secrets} secrets re-encrypted."
        )


@vault.command("mode")
@click.argument("name")
@click.argument("mode", type=click.Choice(["ask", "auto", "review", "agent"]))
@json_option
@pass_state
def mode(state: State, name: str, mode: str) -> None:
    """Decide requests for NAME with MODE for every agent ("agent": each agent's own)."""
    info = state.engine().set_secret_mode(name, None if mode == "agent" else mode)
    if state.as_json:
        emit_json(info)
    else:
        click.echo(f"Requests for {info.name} are decided by: {info.mode or 'the agent mode'}.")


@vault.command("status")
@json_option
@pass_state
def status(state: State) -> None:
    """Where the vault key lives, and counts of secrets, pending requests and grants."""
    st = state.engine().vault_status()
    if state.as_json:
        emit_json(st)
        return
    fields(
        [
            ("Key store", f"{st.keystore}: {st.where}"),
            ("Key id", st.key_id),
            ("Secrets", st.secrets),
            ("Pending requests", st.pending_requests),
            ("Active grants", st.active_grants),
            ("Rotation pending", "yes" if st.rotation_pending else "no"),
        ]
    )


# -- secret get (agents) -----------------------------------------------------------


@click.group()
def secret() -> None:
    """What an agent runs to read a secret (asks; the owner or a reviewer decides)."""


@secret.command("get")
@click.argument("name")
@click.option("--agent", required=True, help="The agent asking.")
@click.option("--reason", required=True, help="Why the agent needs it (shown to the owner).")
@click.option("--wait", "wait", type=float, default=0, help="Seconds to wait for an answer.")
@click.option("--session", default=None, help="The agent's session id (for session grants).")
@json_option
@pass_state
def get(state: State, name: str, agent: str, reason: str, wait: float, session: str | None) -> None:
    """Ask for secret NAME; prints the value only when allowed.

    Exit status: 0 allowed, 7 denied or expired, 8 still pending.
    """
    result = vault_engine(state).request_secret(
        agent, name, reason, wait_seconds=wait, session=session
    )
    if state.as_json:
        emit_json(
            {
                "status": result.status,
                "request_id": result.request_id,
                "grant_id": result.grant_id,
                "decided_by": result.decided_by,
                "reason": result.reason,
                "scope": result.scope,
                "value": result.value,
            }
        )
    elif result.allowed:
        click.echo(result.value)
    else:
        if result.status == "pending":
            message = result.reason or f"Request {result.request_id} is waiting for the owner."
        else:
            verb = "expired without an answer" if result.status == "expired" else "was denied"
            message = f"Request {result.request_id} for {name} {verb}" + (
                f": {result.reason}" if result.reason else "."
            )
        click.echo(message, err=True)
    if not result.allowed:
        raise click.exceptions.Exit(EXIT_PENDING if result.status == "pending" else EXIT_DENIED)


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
    type=click.Choice(["once", "session", "always"]),
    default="once",
    show_default=True,
    help="One read, this session's reads, or every read until revoked.",
)
@json_option
@pass_state
def approve(state: State, request_id: int, scope: str) -> None:
    """Allow request ID."""
    req = state.engine().answer_request(request_id, True, scope)
    if state.as_json:
        emit_json(req)
    else:
        click.echo(f"Allowed request {req.id}: {req.agent} may read {req.secret} ({scope}).")


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
                "active" if g.active else ("revoked" if g.revoked_at else "used"),
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
    for group in (vault, secret, approvals, grants):
        cli.add_command(group)
