"""`hindsight mine <client>|--all`: coding agents' transcripts as memories; and `import --from` for
the exports of other memory tools (docs/import.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from .. import paths
from ..errors import InvalidInput
from .options import JsonFlag, StoreOption

if TYPE_CHECKING:
    from ..transcripts.miner import Tally
    from ..transcripts.survey import Found

mine_app = typer.Typer(
    name="mine", invoke_without_command=True, no_args_is_help=False, rich_markup_mode=None
)

PathArgument = Annotated[
    Optional[Path],
    typer.Argument(
        metavar="[PATH]",
        help="A transcript, or a directory of them (default: where the client keeps them).",
        show_default=False,
    ),
]
ProjectOption = Annotated[
    Optional[Path],
    typer.Option(
        "--project",
        metavar="DIR",
        show_default=False,
        help="Only sessions whose working directory is inside DIR, into that project's store "
        "(the default inside a project).",
    ),
]
SinceOption = Annotated[
    Optional[str],
    typer.Option(
        "--since",
        metavar="DATE",
        show_default=False,
        help="Only exchanges from this date (2026-03-01) or age (30d) on.",
    ),
]
DryRunFlag = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Read and count what would be written (sessions, memories, redactions, skipped); "
        "write nothing.",
    ),
]
AgentOption = Annotated[
    Optional[str],
    typer.Option(
        "--agent",
        show_default=False,
        help="agent_id of the mined memories (default: the store's default agent).",
    ),
]
NoSummaries = Annotated[
    bool, typer.Option("--no-summaries", help="Do not build the summary chain of each session.")
]


@dataclass
class _Options:
    project: Optional[Path]
    since: Optional[str]
    dry_run: bool
    agent: Optional[str]
    summaries: bool
    store: Optional[Path]
    json_: bool


@mine_app.callback(invoke_without_command=True)
def mine(
    ctx: typer.Context,
    all_: Annotated[
        bool,
        typer.Option(
            "--all", help="Every client found on this machine, after a summary of what was found."
        ),
    ] = False,
    project: ProjectOption = None,
    since: SinceOption = None,
    dry_run: DryRunFlag = False,
    agent: AgentOption = None,
    no_summaries: NoSummaries = False,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Mine coding agents' transcripts into memories: Claude Code, Codex, Gemini CLI, OpenCode,
    mini-swe-agent.

    One episodic memory per exchange (a prompt and its answer, tool calls as `tool: args → status`):
    task = the session, step = its position, event_at = the message time, project = the session's
    working directory. A failed call gets the later fix in the session as its resolution; secrets
    are redacted, tool output and web content are kept only as digests and marked untrusted; each
    session gets a summary chain. Idempotent and incremental: a rerun reads only what was appended
    since the last one, and a killed run resumes where it stopped.

    \b
    Example:
        hindsight mine --all --dry-run
        hindsight mine claude-code
        hindsight mine codex ~/.codex/archived_sessions
        hindsight mine gemini --since 30d --json
    """
    given = _Options(project, since, dry_run, agent, not no_summaries, store, json_)
    if ctx.invoked_subcommand is not None:
        if all_:
            raise InvalidInput("--all mines every client: drop the client name, or drop --all.")
        # `hindsight mine --dry-run codex` means what `hindsight mine codex --dry-run` does
        ctx.obj = given
        return
    if not all_:
        ctx.fail(
            "Name a client (claude-code, codex, gemini, opencode, mini-swe-agent), or pass --all."
        )
    _run(None, None, given)


def _merged(mine: _Options, group: object) -> _Options:
    """A client's options, with those given before its name (to ``hindsight mine``) filled in."""
    if not isinstance(group, _Options):
        return mine
    return _Options(
        mine.project or group.project,
        mine.since or group.since,
        mine.dry_run or group.dry_run,
        mine.agent or group.agent,
        mine.summaries and group.summaries,
        mine.store or group.store,
        mine.json_ or group.json_,
    )


def _command(client: str, title: str, where: str, example: str) -> Callable[..., None]:
    def command(
        ctx: typer.Context,
        path: PathArgument = None,
        project: ProjectOption = None,
        since: SinceOption = None,
        dry_run: DryRunFlag = False,
        agent: AgentOption = None,
        no_summaries: NoSummaries = False,
        store: StoreOption = None,
        json_: JsonFlag = False,
    ) -> None:
        options = _Options(project, since, dry_run, agent, not no_summaries, store, json_)
        _run(client, path, _merged(options, ctx.parent.obj if ctx.parent else None))

    command.__doc__ = (
        f"Mine {title} transcripts (default {where}).\n\nIdempotent and incremental; see "
        f"`hindsight mine --help` for what becomes a memory.\n\n\b\nExample:\n    {example}\n"
    )
    return command


for _name, _title, _place, _example in (
    (
        "claude-code",
        "Claude Code",
        "~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects",
        "hindsight mine claude-code ~/.claude/projects/-home-me-app --dry-run",
    ),
    (
        "codex",
        "Codex CLI",
        "$CODEX_HOME/sessions, or ~/.codex/sessions",
        "hindsight mine codex --since 2026-01-01",
    ),
    (
        "gemini",
        "Gemini CLI chat",
        "~/.gemini/tmp: recorded sessions and /chat save checkpoints",
        "hindsight mine gemini --project .",
    ),
    (
        "opencode",
        "OpenCode session",
        "~/.local/share/opencode: opencode.db, or storage/ before 1.2",
        "hindsight mine opencode --json",
    ),
    (
        "mini-swe-agent",
        "mini-swe-agent trajectory",
        "~/.config/mini-swe-agent, or $MSWEA_GLOBAL_CONFIG_DIR",
        "hindsight mine mini-swe-agent ~/runs/swebench/trajs --dry-run",
    ),
):
    mine_app.command(name=_name)(_command(_name, _title, _place, _example))


def _where(options: _Options) -> tuple[Path, Optional[Path]]:
    """The store to write to and the project to keep to (None: every session)."""
    if options.project is not None:
        project = paths.checked_store_dir(options.project, "--project")
        if not project.is_dir():
            raise InvalidInput(
                f"--project {project} is not a directory; give the project's root directory."
            )
        if options.store is not None:
            return paths.resolve_store(options.store).path, project
        found = paths.find_project_store(project)
        return (found if found is not None else project / paths.STORE_DIRNAME), project
    location = paths.resolve_store(options.store)
    return location.path, (location.path.parent if location.reason == "project" else None)


def _since(text: Optional[str]) -> Optional[datetime]:
    from ..timeutil import parse_time

    return parse_time(text, "--since") if text else None


def _found(client: Optional[str], path: Optional[Path], store: Path) -> list[Found]:
    from .. import transcripts
    from ..transcripts import survey
    from ..transcripts.base import not_format

    if client is None:
        return survey.survey(store)
    if path is None:
        return [survey.covered(survey.find(client), store)]
    path = path.expanduser()
    if not path.exists():
        raise InvalidInput(f"No such file or directory: {path}")
    module = transcripts.reader(client)
    if (path.is_file() or client == "opencode") and not module.sniff(path):
        raise not_format(path, f"a {module.TITLE} transcript", module.HINT)
    return [survey.covered(survey.find(client, path), store)]


def _run(client: Optional[str], path: Optional[Path], options: _Options) -> None:
    from ..store import Store
    from ..transcripts import reader
    from ..transcripts.miner import Miner
    from . import render

    store_path, project = _where(options)
    since = _since(options.since)
    found = _found(client, path, store_path)
    if client is None and not options.json_:
        _announce(found)
    for item in found:
        if client is None and item.error:
            render.warning(f"{item.title}: skipped, its history could not be read ({item.error}).")
    if client is not None and not found[0].units and not options.json_:
        _none_found(client, path, found[0])
        return
    store = Store(store_path)
    tallies = []
    with render.file_progress(sum(len(f.units) for f in found)) as update:
        for item in found:
            miner = Miner(
                store,
                agent=options.agent,
                project=project,
                since=since,
                dry_run=options.dry_run,
                summaries=options.summaries,
                progress=update,
                warn=render.warning,
            )
            tallies.append(miner.mine(reader(item.client), item.units))
    _show(tallies, found, store_path, project, options)


def _announce(found: list[Found]) -> None:
    from . import render, report_tables

    if not found:
        render.message(
            "No coding-agent history found on this machine (Claude Code, Codex, Gemini CLI, "
            "OpenCode, mini-swe-agent)."
        )
        return
    report_tables.rows_table(
        ["client", "where", "transcripts", "size", "mined"],
        [
            [f.title, ", ".join(map(str, f.roots)), len(f.units), _size(f), f"{f.share:.0%}"]
            for f in found
        ],
    )


def _none_found(client: str, path: Optional[Path], found: Found) -> None:
    """A client with no transcripts where they were looked for: say where, and how to point at
    them."""
    from ..transcripts import reader
    from . import render

    places = [path] if path is not None else reader(client).default_roots()
    where = ", ".join(str(p) for p in places) or "its usual places"
    reason = f" ({found.error})" if found.error else ""
    render.message(
        f"No {found.title} transcripts in {where}{reason}: nothing to mine. If they are elsewhere, "
        f"name the folder: hindsight mine {client} PATH."
    )


def _size(found: Found) -> str:
    if found.client == "opencode":
        return f"{found.size} messages"
    return f"{found.size / 1e6:.1f} MB"


_COLUMNS = (
    "files",
    "sessions",
    "exchanges",
    "added",
    "skipped",
    "filtered",
    "broken",
    "unknown",
    "refused",
    "redactions",
    "fixes",
    "lessons",
    "summaries",
)
_LABELS = {"redactions": "redacted"}
# the rest when not all zero
_SHOWN = ("sessions", "exchanges", "added", "skipped", "fixes", "redactions")


def _show(
    tallies: list[Tally],
    found: list[Found],
    store: Path,
    project: Optional[Path],
    options: _Options,
) -> None:
    from . import render, report_tables

    data = [t.to_dict() for t in tallies]
    totals = {name: sum(int(d[name]) for d in data) for name in _COLUMNS}
    if options.json_:
        render.json_doc(
            {
                "store": str(store),
                "project": str(project) if project else None,
                "dry_run": options.dry_run,
                "clients": data,
                "total": totals,
                "found": [
                    {
                        "client": f.client,
                        "roots": [str(r) for r in f.roots],
                        "transcripts": len(f.units),
                        "size": f.size,
                        "mined_before": f.mined,
                    }
                    for f in found
                ],
            }
        )
        return
    if not data:
        return
    # lessons are told in the closing line: the table stays within a narrow terminal
    hidden = ("files", "summaries", "lessons")
    names = [n for n in _COLUMNS if n in _SHOWN or (totals[n] and n not in hidden)]
    rows = [[d["client"], *(d[n] for n in names)] for d in data]
    if len(rows) > 1:
        rows.append(["total", *(totals[n] for n in names)])
    report_tables.rows_table(
        ["client", *(_LABELS.get(n, n) for n in names)], rows, total=len(rows) > 2
    )
    verb = "would add" if options.dry_run else "added"
    render.message(
        f"{'Dry run: ' if options.dry_run else ''}{verb} {render.memories(totals['added'])} from "
        f"{totals['exchanges']} new exchange(s) in {totals['sessions']} session(s) to {store}"
        + (f" (sessions in {project})" if project else "")
        + (
            f", and {totals['lessons']} lesson(s): failed calls and their fixes"
            if totals["lessons"]
            else ""
        )
        + "."
    )


def import_from(source: str, kind: str, store: Optional[Path], json_: bool) -> None:
    """``hindsight import FILE --from KIND`` for the kinds other than hindsight's own JSONL."""
    from ..store import open_store
    from ..transcripts import IMPORTS
    from ..transcripts.importer import import_file
    from . import render

    if kind not in IMPORTS:
        raise InvalidInput(f"--from must be one of {', '.join(IMPORTS)}, not {kind!r}.")
    if source == "-":
        raise InvalidInput(
            f"--from {kind} reads a file (it may be a zip, a folder or very large): give its "
            f"path, not -."
        )
    opened = open_store(store)
    with render.progress(f"Importing {kind}") as update:
        result = import_file(opened, Path(source).expanduser(), kind, progress=update)
    if json_:
        render.json_doc(result)
        return
    note = f", redacted {result['redactions']} secret(s)" if result["redactions"] else ""
    bad = (
        f"; skipped {result['broken']} broken and {result['unknown']} unknown entries"
        if result["broken"] or result["unknown"]
        else ""
    )
    if result["refused"]:
        bad += (
            f"; refused {result['refused']} entries the store cannot take (the first: "
            f"{str(result.get('first_refused')).rstrip('.')})"
        )
    render.message(
        f"Imported {result['added']}, skipped {result['skipped']} already present{note}{bad}."
    )
