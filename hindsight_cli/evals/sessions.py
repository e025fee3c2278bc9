"""The sessions ``hindsight eval replay`` reads, as ``probes.Session`` objects (steps: shell commands),
in every format ``hindsight mine`` reads, recognised by their content: mini-swe-agent trajectories
(``*.traj.json``; the project is the instance id without its last ``-NUMBER``), Claude Code
transcripts (``*.jsonl``: the ``Bash`` calls), Codex rollouts (``rollout-*.jsonl``: the shell
calls), Gemini CLI chats (``chats/session-*.jsonl`` or ``.json``: the ``run_shell_command`` calls)
and OpenCode sessions (``opencode.db`` or the older ``storage/`` folder: the ``bash`` calls). The
project of the last four is the session's working directory."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..errors import InvalidInput
from ..transcripts import claude_code, codex, gemini, mini_swe_agent as mini, opencode
from ..transcripts.base import ShellCalls, project_of
from .probes import Session, Step

Warn = Callable[[str], None]
FORMATS = (
    "a mini-swe-agent trajectory, a Claude Code transcript, a Codex rollout, a Gemini CLI chat or "
    "an OpenCode database or storage folder"
)


def read_mini(path: Path) -> Session | None:
    """A mini-swe-agent trajectory as a session (None when the file is not one)."""
    data = mini.load(path)
    if data is None:
        return None
    instance = mini.instance(data, path)
    messages = data["messages"]
    # a call is named <session>#<step index>, as mining names it
    steps = [
        Step(s.command, s.code, s.output, s.at, f"{instance}#{number}")
        for number, s in enumerate(mini.steps(messages))
    ]
    return Session(
        instance,
        mini.project(instance),
        steps,
        path,
        mini.task(messages),
        mini.NAME,
    )


def _session(found: ShellCalls, fallback: Path, source: Path, client: str) -> Session:
    return Session(
        found.session,
        project_of(found.cwd) or str(fallback),
        [Step(*call) for call in found.calls],
        source,
        found.prompt,
        client,
    )


def read_claude_code(path: Path) -> Session | None:
    """A Claude Code transcript as a session (None when the file is not one)."""
    if not claude_code.sniff(path):
        return None
    return _session(claude_code.shell_calls(path), path.parent, path, claude_code.NAME)


def read_codex(path: Path) -> Session | None:
    """A Codex rollout as a session (None when the file is not one)."""
    if not codex.sniff(path):
        return None
    return _session(codex.shell_calls(path), path.parent, path, codex.NAME)


def read_gemini(path: Path) -> Session | None:
    """A Gemini CLI chat recording as a session (None when the file is not one; a chat saved with
    ``/chat save`` repeats a session without times, and is not one)."""
    if not gemini.sniff(path) or path.name.startswith("checkpoint-"):
        return None
    folder = path.parent.parent if path.parent.name == "chats" else path.parent
    return _session(gemini.shell_calls(path), folder, path, gemini.NAME)


def read_opencode(path: Path) -> list[Session] | None:
    """The sessions of an OpenCode database, data folder or ``storage`` folder (None when
    ``path`` is none of them); sub-agent sessions are left out, as ``hindsight mine`` leaves
    them."""
    if not opencode.sniff(path):
        return None
    return [
        _session(opencode.shell_calls(unit), unit.path, unit.path, opencode.NAME)
        for unit in opencode.units(path)
    ]


def read(path: Path) -> Session | None:
    """The session in the file ``path``, in whichever format its content is (None when it is in
    none of them, or holds several: an OpenCode database)."""
    for reader in (read_claude_code, read_codex, read_gemini, read_mini):
        session = reader(path)
        if session is not None:
            return session
    return None


def read_all(path: Path) -> list[Session] | None:
    """The sessions in ``path`` (a session file, or an OpenCode database or folder); None when it
    is in none of the formats."""
    if path.is_dir() or _sqlite(path):
        return read_opencode(path)
    session = read(path)
    return [session] if session is not None else None


def _sqlite(path: Path) -> bool:
    """Whether a file is a SQLite database (an OpenCode one is never read as text)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def load(paths: Iterable[Path], warn: Warn | None = None) -> list[Session]:
    """Every session in ``paths``: files, and directories searched for them."""
    sessions: list[Session] = []
    for path in paths:
        if not path.exists():
            raise InvalidInput(f"No such file or directory: {path}")
        for source in _files(path):
            found = read_all(source)
            if found is None:
                if warn is not None:
                    warn(f"{source}: not {FORMATS}.")
                continue
            sessions.extend(found)
    return sessions


def _files(path: Path) -> Iterator[Path]:
    """``path`` if it is a file or an OpenCode folder, else the session files and OpenCode folders
    under it, in name order."""
    if path.is_file() or opencode.sniff(path):
        yield path
        return
    found: list[Path] = []
    for folder, names, files in os.walk(path):
        here = Path(folder)
        # Claude Code's sub-agent transcripts reach their session as a tool result
        names[:] = [n for n in names if n != "subagents"]
        for name in list(names):
            if opencode.sniff(here / name):
                # one source: its database and storage hold many JSON files that are not sessions
                found.append(here / name)
                names.remove(name)
        found.extend(here / name for name in files if _session_file(here, name))
    yield from sorted(found)


def _session_file(folder: Path, name: str) -> bool:
    """Whether a file in a searched folder is named as a session is: a trajectory, JSON lines
    (Claude Code, Codex, Gemini CLI) but for Claude Code's sub-agents, or a Gemini CLI chat."""
    if name.endswith(".traj.json"):
        return True
    if name.endswith(".jsonl"):
        return not name.startswith("agent-")
    return folder.name == "chats" and name.startswith("session-") and name.endswith(".json")
