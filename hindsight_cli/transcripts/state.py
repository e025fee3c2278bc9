"""Where each transcript was mined to, kept beside the store: ``<store>/mined/<hash>.json``, one
small file per transcript (or OpenCode session), replaced atomically after every committed batch.

A state says: the file's size and mtime at the last run (unchanged means nothing to do, without
opening the store), the cursor where reading resumes (a byte offset: the start of the last exchange,
which may still grow), a fingerprint of the bytes before it (a rewritten file is read again from the
start), the exchange count so far, the reader's context there, the session's failures still waiting
for a fix, and the id and hash of the last exchange written.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..safefs.reading import load_own

if TYPE_CHECKING:
    from ..models import JSONValue
    from .base import Context, Cursor

STATE_DIR = "mined"


@dataclass
class State:
    unit: str
    client: str
    # [size, mtime_ns] (files) or the session's update time
    stamp: list[JSONValue] = field(default_factory=list)
    cursor: Cursor | None = 0
    check: str = ""
    position: int = 0
    ctx: Context = field(default_factory=dict)
    # the session's failures still waiting for a fix (``fixes.Tracker.to_list``)
    open: list[dict[str, str]] = field(default_factory=list)
    # the last exchange written: its key, memory id and hash
    tail: dict[str, str] | None = None
    exchanges: int = 0
    # bytes of the transcript when it was last mined to its end (doctor's "how much")
    size: int = 0
    done: bool = False
    # the project a run was limited to ("" for none): another scope reads it again
    scope: str = ""

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def state_dir(store: Path) -> Path:
    return Path(store) / STATE_DIR


def _file(store: Path, unit: str) -> Path:
    return state_dir(store) / (
        hashlib.sha256(unit.encode("utf-8", "surrogatepass")).hexdigest()[:24] + ".json"
    )


def load(store: Path, unit: str, client: str) -> State:
    """The state of ``unit`` (a fresh one if it was never mined, or if its file is unreadable)."""
    try:
        data = load_own(_file(store, unit))
        if isinstance(data, dict) and data.get("unit") == unit and data.get("client") == client:
            return State(**{k: v for k, v in data.items() if k in State.__dataclass_fields__})
    except (OSError, ValueError, TypeError):
        pass
    return State(unit, client)


def save(store: Path, state: State) -> None:
    """Write the state atomically (a killed run leaves the previous one whole, and a temp file a
    hard forget sweeps: ``safefs.temps.remove_stale_temps``)."""
    from ..safefs import write_private

    state_dir(store).mkdir(mode=0o700, parents=True, exist_ok=True)
    write_private(_file(store, state.unit), json.dumps(state.to_dict(), ensure_ascii=False))


# the sessions whose summary is owed: written before their exchanges are, dropped once summarised,
# so a run killed in between summarises them when it is run again
_SUMMARIES = "summaries.pending"


def owed_summaries(store: Path) -> list[str]:
    try:
        data = load_own(state_dir(store) / _SUMMARIES)
    except (OSError, ValueError):
        return []
    return sorted({s for s in data if isinstance(s, str)}) if isinstance(data, list) else []


def owe_summaries(store: Path, sessions: set[str], done: set[str] | None = None) -> None:
    """Add ``sessions`` to the owed summaries and drop ``done`` (one atomic write, and none when
    nothing changes)."""
    from ..safefs import write_private

    before = set(owed_summaries(store))
    after = (before | sessions) - (done or set())
    if after != before:
        state_dir(store).mkdir(mode=0o700, parents=True, exist_ok=True)
        write_private(state_dir(store) / _SUMMARIES, json.dumps(sorted(after)))


def all_states(store: Path) -> list[State]:
    """Every state kept for ``store`` (for ``doctor mine``)."""
    found: list[State] = []
    directory = state_dir(store)
    if not directory.is_dir():
        return found
    for path in directory.glob("*.json"):
        try:
            data = load_own(path)
            if not isinstance(data, dict):
                continue
            found.append(
                State(**{k: v for k, v in data.items() if k in State.__dataclass_fields__})
            )
        except (OSError, ValueError, TypeError):
            continue
    return found
