"""Options shared by several commands, as Annotated aliases."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

StoreOption = Annotated[
    Optional[Path],
    typer.Option("--store", help="Store directory (default: $HINDSIGHT_STORE, nearest .hindsight/, global store).",
                 show_default=False),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Output JSON.")]
NlFlag = Annotated[bool, typer.Option("--nl", help="Output newline-delimited JSON, one object per line.")]
YesFlag = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
AgentOption = Annotated[Optional[str], typer.Option("--agent", help="Only memories of this agent_id.", show_default=False)]
TaskOption = Annotated[Optional[str], typer.Option("--task", help="Only memories of this task_id.", show_default=False)]


def parse_pairs(pairs: list[str] | None, option: str) -> dict[str, str]:
    """``KEY=VALUE`` strings (from ``--meta``/``--env``) as a dict."""
    from ..errors import InvalidInput

    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidInput(f"{option} expects KEY=VALUE, got {pair!r}.")
        out[key.strip()] = value.strip()
    return out
