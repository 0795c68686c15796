"""Entry point of `tapemind`: global options, error handling, command groups."""

from __future__ import annotations

import errno
import sys
from typing import Any

import click

from app import DiskFull, TapemindError
from app.cli.base import State
from app.cli.output import error


class TapemindGroup(click.Group):
    """Turns engine errors into one clear line on stderr and a non-zero exit."""

    def invoke(self, ctx: click.Context) -> Any:
        # A subcommand's own --json is not parsed yet when its usage is wrong: look for it
        # among the arguments the subcommand will get, before click consumes them.
        sub_json = "--json" in ctx.args
        try:
            return super().invoke(ctx)
        except TapemindError as exc:
            state = ctx.find_object(State)
            error(exc.message, exc.code, bool(state and state.as_json))
            ctx.exit(exc.exit_code)
        except click.UsageError as exc:
            if not (sub_json or ctx.params.get("as_json")):
                raise  # people get click's usage text and hint
            # Scripts asked for JSON: a bad option is an error object like any other.
            hint = f" Try '{exc.ctx.command_path} --help'." if exc.ctx else ""
            error(exc.format_message() + hint, "usage", True)
            ctx.exit(exc.exit_code)
        except BrokenPipeError:
            sys.stderr.close()
            ctx.exit(0)
        except OSError as exc:
            # The last net for a full disk the engine did not name (a file a command
            # writes): the README's exit status 9 and its words, not a traceback.
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            full = DiskFull(
                f"The disk is full ({exc.filename or exc.strerror}): nothing more was "
                "written, and everything written before is intact. Free some disk space "
                "and try again."
            )
            state = ctx.find_object(State)
            error(full.message, full.code, bool(state and state.as_json))
            ctx.exit(full.exit_code)


@click.group(cls=TapemindGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=str),
    envvar="TAPEMIND_HOME",
    help="The home directory (default: $TAPEMIND_HOME, else the user data dir).",
)
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.version_option(package_name="tapemind", prog_name="tapemind")
@click.pass_context
def cli(ctx: click.Context, home: str | None, as_json: bool) -> None:
    """Tapemind: local-first long-term memory for AI agents.

    Agents append what happens to a tape; durable conclusions become memories,
    each traceable to the tape entries it came from.
    """
    ctx.obj = State(home, as_json)
    ctx.call_on_close(ctx.obj.close)


def register() -> None:
    from app.cli import (
        agent_cmds,
        bench_cmds,
        home_cmds,
        host_cmds,
        import_cmds,
        index_cmds,
        memory_cmds,
        recall_cmds,
        tape_cmds,
        vault_cmds,
    )

    for module in (
        home_cmds,
        agent_cmds,
        tape_cmds,
        memory_cmds,
        recall_cmds,
        vault_cmds,
        bench_cmds,
        index_cmds,
        host_cmds,
        import_cmds,
    ):
        module.register(cli)
    from app.cli import lifecycle_cmds

    lifecycle_cmds.register(cli)
    from app.cli import insight_cmds  # after host_cmds: it adds to the skill group

    insight_cmds.register(cli)


register()


def main() -> None:
    import multiprocessing

    # The indexer embeds a large backlog in a spawned child (app/index/offload.py): in a
    # frozen build that child is this executable again, and this call runs it instead.
    multiprocessing.freeze_support()
    cli(prog_name="tapemind")


if __name__ == "__main__":
    main()
