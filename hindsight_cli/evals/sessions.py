"""The sessions ``hindsight eval replay`` reads, as ``probes.Session`` objects (steps: shell commands):
mini-swe-agent trajectories (``*.traj.json``; the project is the instance id without its last
``-NUMBER``) and Claude Code transcripts (``*.jsonl``: the ``Bash`` calls; the project is the
session's working directory)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..errors import InvalidInput
from ..transcripts import claude_code, mini_swe_agent as mini
from ..transcripts.base import project_of
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


def read_claude_code(path: Path) -> Session | None:
    """A Claude Code transcript as a session (None when the file is not one)."""
    if not claude_code.sniff(path):
        return None
    found = claude_code.shell_calls(path)
    return Session(
        found.session,
        project_of(found.cwd) or str(path.parent),
        [Step(*call) for call in found.calls],
        path,
        found.prompt,
        claude_code.NAME,
    )


def read(path: Path) -> Session | None:
    """The session in ``path``, in whichever format it is (None when it is in none of them)."""
    if path.name.endswith(".traj.json"):
        return read_mini(path)
    if path.suffix == ".jsonl":
        return read_claude_code(path)
    return None


def load(paths: Iterable[Path], warn: Warn | None = None) -> list[Session]:
    """Every session in ``paths``: files, and directories searched for them."""
    sessions: list[Session] = []
    for path in paths:
        if not path.exists():
            raise InvalidInput(f"No such file or directory: {path}")
        for file in _files(path):
            session = read(file)
            if session is None:
                if warn is not None:
                    warn(f"{file}: not a mini-swe-agent trajectory or a Claude Code transcript.")
                continue
            sessions.append(session)
    return sessions


def _files(path: Path) -> Iterator[Path]:
    if path.is_file():
        yield path
        return
    for file in sorted(path.rglob("*")):
        # Claude Code's sub-agent transcripts reach their session as a tool result
        if file.name.endswith(".traj.json") or (
            file.suffix == ".jsonl"
            and not file.name.startswith("agent-")
            and "subagents" not in file.parts
        ):
            yield file
