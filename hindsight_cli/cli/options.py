"""Options shared by several commands, as Annotated aliases, and the value types whose choices
`--help` lists and shell completion offers."""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, TypeAlias

import typer

from ..clients import CLIENTS
from ..models import AUDIT_ACTIONS, MEMORY_TYPES, OUTCOMES, STATUSES
from ..search.query import MODES
from ..storage.registry import BACKENDS
from ..transcripts import IMPORTS

FORMATS = ("table", "json", "nl", "context")
TRANSPORTS = ("stdio", "http")
CLIENT_SCOPES = ("user", "project")

# The choices are the core's own tuples, so the parser refuses (exit 2) exactly what the core would.
# They are string enums (Typer takes no list of Literal), whose members are the strings themselves;
# the type checker sees them as plain strings, since it cannot read an enum made from a tuple.
if TYPE_CHECKING:
    from ..store import Store

    MemoryType: TypeAlias = str
    Outcome: TypeAlias = str
    Status: TypeAlias = str
    Mode: TypeAlias = str
    Format: TypeAlias = str
    Action: TypeAlias = str
    Backend: TypeAlias = str
    ImportKind: TypeAlias = str
    McpClient: TypeAlias = str
    Transport: TypeAlias = str
    ClientScope: TypeAlias = str
else:

    def _choices(name: str, values: tuple[str, ...]) -> type[StrEnum]:
        return StrEnum(name, {value: value for value in values})

    MemoryType, Outcome, Status = (
        _choices("MemoryType", MEMORY_TYPES),
        _choices("Outcome", OUTCOMES),
        _choices("Status", STATUSES),
    )
    Mode, Format, Action = (
        _choices("Mode", MODES),
        _choices("Format", FORMATS),
        _choices("Action", AUDIT_ACTIONS),
    )
    Backend = _choices("Backend", tuple(BACKENDS))
    ImportKind = _choices("ImportKind", ("jsonl", *(k for k in IMPORTS if k != "jsonl")))
    McpClient, Transport = _choices("McpClient", CLIENTS), _choices("Transport", TRANSPORTS)
    ClientScope = _choices("ClientScope", CLIENT_SCOPES)


# -q/--quiet and --fields, which every command takes (cli/__init__.py adds them): set while the
# command line is parsed, read by render; here, so that parsing imports no Rich
QUIET: list[bool] = [False]
FIELDS: list[list[str]] = [[]]


def _store_path(text: str) -> Path:
    """``--store``'s value as typed: a URL is refused before it becomes a path (a ``Path`` would
    have made ``mysql://x`` a directory ``mysql:/x``)."""
    from .. import paths

    paths.refuse_url(text, "--store")
    return Path(text)


StoreOption = Annotated[
    Optional[Path],
    typer.Option(
        "--store",
        parser=_store_path,
        metavar="<path>",
        help="Store directory (default: $HINDSIGHT_STORE, nearest .hindsight/, global store).",
        show_default=False,
    ),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Output JSON.")]
NlFlag = Annotated[
    bool, typer.Option("--nl", help="Output newline-delimited JSON, one object per line.")
]
YesFlag = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
AgentOption = Annotated[
    Optional[str],
    typer.Option("--agent", help="Only memories of this agent_id.", show_default=False),
]
TaskOption = Annotated[
    Optional[str], typer.Option("--task", help="Only memories of this task_id.", show_default=False)
]


def known_triggers(incomplete: str) -> Iterator[str]:
    """Shell completion for ``--trigger``: the triggers that set a default importance (any other is
    allowed)."""
    from ..core.prepare import TRIGGERS

    return (t for t in TRIGGERS if t.startswith(incomplete))


def known_sources(incomplete: str) -> Iterator[str]:
    """Shell completion for ``--source``: the sources with a default confidence (any other is
    allowed)."""
    from ..core.prepare import SOURCES

    return (s for s in SOURCES if s.startswith(incomplete))


def output_format(
    json_: bool = False, nl: bool = False, format_: str | None = None, default: str = "table"
) -> str:
    """The one output format that ``--json``, ``--nl`` and ``--format`` ask for together; asking for
    two different ones is a usage error, not a silent choice."""
    from ..errors import BadUsage

    asked = {
        name: flag
        for name, flag in (
            ("--json", json_ and "json"),
            ("--nl", nl and "nl"),
            (f"--format {format_}", format_),
        )
        if flag
    }
    if len(set(asked.values())) > 1:
        raise BadUsage(f"Choose one output format: {' and '.join(asked)} ask for different ones.")
    return next(iter(asked.values()), default)


def parse_pairs(pairs: list[str] | None, option: str) -> dict[str, str]:
    """``KEY=VALUE`` strings (from ``--meta``/``--env``) as a dict."""
    from ..errors import BadUsage

    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise BadUsage(f"{option} expects KEY=VALUE, got {pair!r}.")
        out[key.strip()] = value.strip()
    return out


# the HTTP servers' (`mcp --transport http`, `ui`) extra names; hostguard checks Host and Origin
AllowedHostOption: TypeAlias = Annotated[
    Optional[list[str]],
    typer.Option(
        "--allowed-host",
        help="Over HTTP: another name clients reach this server by (NAME or NAME:PORT; "
        "repeatable). Loopback names, the --host address and this machine's host name are always "
        "accepted; see also [mcp] allowed_hosts.",
        show_default=False,
    ),
]


def open_at(path: Optional[Path], warm: bool = False) -> Store:
    """The store a command works on: ``--store``, else the one ``hindsight where`` names (the
    store module is imported only when a command runs, not to build the command tree)."""
    from ..store import open_store

    return open_store(path, warm=warm)
