"""The sessions ``hindsight eval replay`` reads, as ``probes.Session`` objects: mini-swe-agent
trajectories (``*.traj.json``; the project is the instance id without its last ``-NUMBER``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..errors import InvalidInput
from ..transcripts import mini_swe_agent as mini
from .probes import Session, Step

Warn = Callable[[str], None]


def read_mini(path: Path) -> Session | None:
    """A mini-swe-agent trajectory as a session (None when the file is not one)."""
    data = mini.load(path)
    if data is None:
        return None
    instance = mini.instance(data, path)
    messages = data["messages"]
    return Session(
        instance,
        mini.project(instance),
        [Step(s.command, s.code, s.output, s.at) for s in mini.steps(messages)],
        path,
        mini.task(messages),
        mini.NAME,
    )


def load(paths: Iterable[Path], warn: Warn | None = None) -> list[Session]:
    """Every session in ``paths``: trajectory files, and directories searched for them."""
    sessions: list[Session] = []
    for path in paths:
        if not path.exists():
            raise InvalidInput(f"No such file or directory: {path}")
        for file in _files(path):
            session = read_mini(file)
            if session is None:
                if warn is not None:
                    warn(f"{file}: not a mini-swe-agent trajectory; skipped.")
                continue
            sessions.append(session)
    return sessions


def _files(path: Path) -> Iterator[Path]:
    if path.is_file():
        yield path
        return
    yield from sorted(path.rglob("*.traj.json"))
