"""The `hindsight` command: a thin face over Store. Exit codes: 0 ok, 1 hindsight error, 2 usage."""

from __future__ import annotations

import copy
import os
import sys
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup
from typer.main import get_command_name
from typer.models import CommandInfo, TyperInfo

from .. import __version__
from ..errors import HindsightError, Interrupted, from_os_error


class _Group(TyperGroup):
    """The one error boundary: a HindsightError, or an OSError from any file, becomes one line on
    stderr and exit code 1 (2 for a usage error); Ctrl-C says what was kept and exits 130."""

    def invoke(self, ctx: Any) -> Any:
        from .options import FIELDS, QUIET

        # each run starts with its own -q and --fields (a test runs many in one process)
        QUIET[0], FIELDS[0] = False, []
        try:
            return super().invoke(ctx)
        except HindsightError as error:
            _fail(error)
        # the reader went away (`| head`): nothing to say to it, or to anyone
        except BrokenPipeError:
            _drop_stdout()
            raise typer.Exit(1) from None
        except OSError as error:
            _fail(from_os_error(error))
        except KeyboardInterrupt:
            _fail(Interrupted("Interrupted."))

    def list_commands(self, ctx: Any) -> list[str]:
        # keep the order in which they are defined
        return list(self.commands)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _common_options(command)
        return command


def _common_options(command: Any) -> None:
    """Options every command of its kind takes, added in one place: ``-q/--quiet`` to every command
    (no messages on stderr; warnings and errors still), ``--fields a,b`` to every one with
    ``--json`` (only those keys of each object, as ``gh``'s ``--json`` takes fields)."""
    from typer.core import TyperOption

    for sub in getattr(command, "commands", {}).values():
        _common_options(sub)
    names = {opt for param in command.params for opt in getattr(param, "opts", ())}
    if "--quiet" not in names:
        command.params.append(
            TyperOption(
                param_decls=["-q", "--quiet"],
                is_flag=True,
                default=False,
                expose_value=False,
                callback=_quiet,
                help="No messages on stderr (warnings and errors still).",
            )
        )
    if "--json" in names and "--fields" not in names:
        command.params.append(
            TyperOption(
                param_decls=["--fields"],
                type=str,
                metavar="<a,b,…>",
                expose_value=False,
                callback=_fields,
                help="With --json or --nl: only these keys of each object.",
            )
        )


def _quiet(ctx: Any, param: Any, value: bool) -> None:
    from .options import QUIET

    QUIET[0] = QUIET[0] or bool(value)


def _fields(ctx: Any, param: Any, value: str | None) -> None:
    from .options import FIELDS

    if value:
        FIELDS[0] = [f.strip() for f in value.split(",") if f.strip()]


def _fail(error: HindsightError) -> NoReturn:
    from . import render

    if isinstance(error, Interrupted):
        # not an error: the user asked for it
        render.message(str(error))
    else:
        render.error(error)
    raise typer.Exit(error.exit_code) from None


def _drop_stdout() -> None:
    """Point stdout at /dev/null so the flush at exit cannot fail a second time."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


app: typer.Typer = typer.Typer(
    cls=_Group,
    name="hindsight",
    no_args_is_help=True,
    help="Local-first memory for LLM agents: record what happened, recall what matters, within a "
    "budget.",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_show_locals=False,
    # plain help: rendering it with Rich costs ~0.2 s of start-up
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"hindsight {__version__}\n")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version."
    ),
) -> None:
    """Local-first memory for LLM agents: record what happened, recall what matters, within a
    budget."""
    from ..paths import private_files

    private_files()


from . import forgetting, memory, store_admin  # noqa: E402  (commands register themselves on `app`)
from .config_cmd import config_app  # noqa: E402
from .doctor import doctor_app  # noqa: E402
from .evaluate import eval_app  # noqa: E402
from .hooks import hooks_app  # noqa: E402  (also registers `hindsight hook`)
from .mine import mine_app  # noqa: E402
from .plugin import plugin_app  # noqa: E402
from .quarantine import quarantine_app  # noqa: E402
from .serve import mcp_app  # noqa: E402
from .supersede_cmd import supersede  # noqa: E402
from .ui_cmd import ui  # noqa: E402

app.command()(supersede)
app.add_typer(mcp_app)
app.add_typer(doctor_app)
app.add_typer(eval_app)
app.add_typer(config_app)
app.add_typer(hooks_app)
app.add_typer(mine_app)
app.add_typer(plugin_app)
app.add_typer(quarantine_app)
app.command()(ui)
_ = (memory, forgetting, store_admin)


def for_command(argv: list[str]) -> typer.Typer:
    """``app`` with only the command ``argv`` names first: Typer builds the parameters of every
    command it holds, and the fifty-odd of the whole tree cost a cold start ~50 ms, most of it
    reading their annotations. The whole ``app`` for anything else (root options or help first,
    shell completion, a name that is no command's: its error suggests the near ones)."""
    if not argv or argv[0].startswith("-") or os.environ.get("_HINDSIGHT_COMPLETE"):
        return app
    commands = [c for c in app.registered_commands if _command_name(c) == argv[0]]
    # a group without a name of its own lends its commands to the root: kept whatever is run
    groups = [g for g in app.registered_groups if _group_name(g) in (argv[0], None)]
    if not commands and not any(_group_name(g) for g in groups):
        return app
    picked = copy.copy(app)
    picked.registered_commands, picked.registered_groups = commands, groups
    return picked


def _command_name(info: CommandInfo) -> str:
    return info.name or get_command_name(getattr(info.callback, "__name__", ""))


def _group_name(info: TyperInfo) -> str | None:
    for name in (info.name, info.typer_instance.info.name if info.typer_instance else None):
        if isinstance(name, str):
            return name
    return None


def main() -> None:
    """Console-script entry point."""
    # Vector work here is small and memory-bound (a top-k over 10k-100k rows, a 150x150 product): a
    # second BLAS thread gains nothing and, on a busy machine or beside the model's own threads,
    # makes each product wait for a core: 0.6 ms became 10-30 ms on two shared cores
    # (docs/architecture.md).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    code = 0
    try:
        for_command(sys.argv[1:])(prog_name="hindsight", standalone_mode=True)
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    # Interpreter teardown after lancedb/fastembed costs 0.1-0.3 s; every file and connection is
    # closed by now, so flush and leave.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        code = code or 1
    os._exit(code)
