"""`tapemind vault …`, `secret get`, `approvals …` and `grants …`.

Values are read from stdin or a hidden prompt, never from the command line (argv
is visible to every process on the machine and lands in shell history). A value
is printed only by `vault show --reveal` (the owner, after a confirmation) and by
`secret get` when the request is allowed.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import click

from app import PASSPHRASE_ENV, PERMISSION_MODES, Engine, HomeBusy, InvalidInput, SecretResult
from app.cli.base import State, ask_first, has_terminal, json_option, pass_state
from app.cli.output import counted, emit_json, fields, short_time, table

EXIT_DENIED = 7  # denied or expired: do not retry without a new reason
EXIT_PENDING = 8  # waiting for the owner: ask again later, or --wait
POLL_S = 0.5  # `secret get --wait`: how often it looks for the owner's answer


def vault_engine(state: State) -> Engine:
    """The engine, able to ask for the vault passphrase at the terminal."""
    return state.engine()


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
        if (
            info.redacted_entries
            or info.redacted_memories
            or info.redacted_other
            or info.redacted_skills
        ):
            click.echo(
                "Its value was already written before: replaced in "
                f"{counted(info.redacted_entries, 'tape entry', 'tape entries')}, "
                f"{counted(info.redacted_memories, 'memory', 'memories')}, "
                f"{counted(info.redacted_skills, 'grown skill text')} and "
                f"{counted(info.redacted_other, 'other record')} "
                "(recall queries, requests, reasons)."
            )


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
    ask_first(f"Remove secret {name}? This cannot be undone", yes=yes)
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
            f"{counted(result.secrets, 'secret')} re-encrypted."
        )


@vault.command("export-key")
@click.option(
    "--to",
    "to",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The file to write (0600).",
)
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@json_option
@pass_state
def export_key(state: State, to: Path, force: bool) -> None:
    """Write the vault key to a file, wrapped under a passphrase, for another host.

    The passphrase is asked twice (or read from TAPEMIND_VAULT_PASSPHRASE); the file
    alone never reveals the key. Copy it to the other host and run `tapemind vault
    import-key FILE` there, then delete it.
    """
    target = to.expanduser().absolute()
    if target.exists() and not force:  # before any passphrase is asked
        raise InvalidInput(
            f"{target} already exists; nothing was written. Choose another file, or add "
            "--force to replace it."
        )
    engine = vault_engine(state)
    engine.unlock_vault()  # this host's own passphrase (if any) comes before the new one
    passphrase = _handover_passphrase(
        "Passphrase for the exported key (the other host asks for it)", twice=True
    )
    done = engine.export_vault_key(str(target), passphrase, force=force)
    if state.as_json:
        emit_json(done)
    else:
        click.echo(
            f"Wrote vault key {done.key_id} to {done.file}, wrapped under the passphrase. "
            "On the other host: `tapemind vault import-key FILE`; then delete the file."
        )


@vault.command("import-key")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@json_option
@pass_state
def import_key(state: State, file: Path) -> None:
    """Keep the vault key exported to FILE on this host, for its vault to open here.

    The key goes to this host's OS keyring, else to its own passphrase key file (asking
    this host's passphrase). Asks for the passphrase FILE was exported with (or reads
    TAPEMIND_VAULT_PASSPHRASE). Only this home's current key is taken: a key of another
    home, or one `vault rotate-key` has replaced, is refused and nothing changes.
    """
    source = file.expanduser().absolute()
    engine = vault_engine(state)
    passphrase = _handover_passphrase(f"Passphrase of {source.name}", twice=False)
    done = engine.import_vault_key(str(source), passphrase)
    if state.as_json:
        emit_json(done)
    elif done.stored:
        click.echo(f"This host now keeps vault key {done.key_id} in {done.where}.")
    else:
        click.echo(f"This host already had vault key {done.key_id} ({done.where}).")


def _handover_passphrase(prompt: str, *, twice: bool) -> str:
    """The handover passphrase: from TAPEMIND_VAULT_PASSPHRASE, else asked (no echo)."""
    value = os.environ.get(PASSPHRASE_ENV)
    if value:
        return value
    if not has_terminal():
        raise InvalidInput(
            f"The key file's passphrase is needed: set {PASSPHRASE_ENV}, or run the command "
            "at a terminal to be asked for it. Nothing was changed."
        )
    typed: str = click.prompt(prompt, hide_input=True, confirmation_prompt=twice, err=True)
    return typed


@vault.command("mode")
@click.argument("name")
@click.argument("mode", type=click.Choice([*PERMISSION_MODES, "agent"]))
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
    if wait < 0:
        raise InvalidInput("--wait must be 0 or more seconds.")
    result = state.engine(vault="secret").request_secret(
        agent, name, reason, wait_seconds=0, session=session
    )
    if result.status == "pending" and wait > 0 and result.request_id is not None:
        result = _wait_for_answer(state, agent, result.request_id, wait)
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
        click.echo(_not_allowed(state, name, result), err=True)
    if not result.allowed:
        raise click.exceptions.Exit(EXIT_PENDING if result.status == "pending" else EXIT_DENIED)


def _wait_for_answer(state: State, agent: str, request_id: int, wait: float) -> SecretResult:
    """Wait up to `wait` seconds for the owner's answer, looking every POLL_S seconds, with
    the home closed in between: another terminal (`tapemind approvals approve`) or the app
    answers meanwhile, with no host running. No answer in time expires the request."""
    deadline = time.monotonic() + wait
    while True:
        state.close()  # the home is free while we wait
        left = deadline - time.monotonic()
        time.sleep(max(0.0, min(POLL_S, left)))
        over = time.monotonic() >= deadline
        try:
            engine = state.engine()
        except HomeBusy:
            if not over:  # the other terminal has the home for a moment: look again later
                continue
            raise
        result = engine.collect_secret(agent, request_id, waited=wait if over else None)
        if result.status != "pending" or over:
            return result


def _not_allowed(state: State, name: str, result: SecretResult) -> str:
    """What `secret get` says when it prints no value, in the CLI's words (the engine's
    reason is written for agents, who call `request_secret` with `wait_seconds`)."""
    rid = result.request_id
    if result.status == "pending":
        return (
            f"Request {rid} for {name} is waiting for the owner: `tapemind approvals approve "
            f"{rid}` (or deny) in another terminal, or the desktop app. Ask again later, or "
            "with --wait SECONDS to wait for the answer."
        )
    why = state.engine().access_request(rid).decision_reason if rid is not None else None
    if result.status == "expired":
        return (
            f"Request {rid} for {name} expired without an answer"
            + (f" ({why})" if why else "")
            + ". Ask again with a longer --wait, or --wait 0 to leave it pending and ask later."
        )
    return (
        f"Request {rid} for {name} was denied"
        + (f": {why}" if why else "")
        + ". Asking again with the same reason gets the same answer for a day; give a new "
        "reason to ask the owner again."
    )


def register(cli: click.Group) -> None:
    from app.cli import approval_cmds  # the owner's side: approvals and grants

    for group in (vault, secret):
        cli.add_command(group)
    approval_cmds.register(cli)
