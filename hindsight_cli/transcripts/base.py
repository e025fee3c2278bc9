"""What every reader shares: the unit it mines (a file, or an OpenCode session), where a read
resumes, and what a read counted on the way (broken and unknown lines)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from ..errors import InvalidInput
from ..models import JSONObject, JSONValue

if TYPE_CHECKING:
    from .lines import Line

# Where a read resumes, as the mining state keeps it: a byte offset into a file, or a reader's own
# position (OpenCode's: the message index and the id of the message before it).
Cursor: TypeAlias = int | JSONObject
# What a reader knows at a point of a transcript (session, cwd, project, branch, model …), as the
# lines so far said it; kept in the mining state, so a resumed read starts from it.
Context: TypeAlias = dict[str, JSONValue]


@dataclass
class Unit:
    """One transcript: ``id`` keys its mining state; ``size`` is bytes (or messages) for
    progress."""

    id: str
    client: str
    path: Path
    size: int
    # what tells an unchanged transcript: [size, mtime_ns] of a file, an OpenCode session's update
    # time and message count
    stamp: list[JSONValue]
    label: str
    meta: JSONObject = field(default_factory=dict)


@dataclass
class Resume:
    """Where a read starts: the cursor, the number of exchanges before it, and the reader's
    context."""

    # None: where a read that stopped before its first line was
    cursor: Cursor | None = 0
    position: int = 0
    ctx: Context = field(default_factory=dict)


@dataclass
class Reading:
    """What one read saw besides exchanges. ``end`` and ``ctx`` are where it stopped."""

    broken: int = 0
    unknown: int = 0
    broken_lines: list[int] = field(default_factory=list)
    end: Cursor | None = None
    ctx: Context = field(default_factory=dict)
    done: int = 0

    def bad_line(self, number: int) -> None:
        self.broken += 1
        if len(self.broken_lines) < 5:
            self.broken_lines.append(number)


def home() -> Path:
    return Path(os.path.expanduser("~"))


def env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(os.path.expanduser(value)) if value else None


def file_unit(client: str, path: Path) -> Unit:
    info = path.stat()
    return Unit(
        str(path.resolve()), client, path, info.st_size, [info.st_size, info.st_mtime_ns], path.name
    )


def file_units(client: str, root: Path, pattern: str) -> Iterator[Unit]:
    """``root`` itself if it is a file, else every file under it matching ``pattern``, in name
    order."""
    for path in [root] if root.is_file() else sorted(root.rglob(pattern)):
        yield file_unit(client, path)


def start(unit: Unit, resume: Resume, session: str) -> Context:
    """The reader's context where a read resumes (``session``: the name to use until the file
    says)."""
    ctx = dict(resume.ctx)
    ctx.setdefault("file", str(unit.path))
    ctx.setdefault("session", session)
    return ctx


def objects(unit: Unit, resume: Resume, reading: Reading) -> Iterator[tuple[Line, JSONObject]]:
    """The JSON-object lines of a transcript from the cursor, as (line, object); a line that is not
    one is counted as broken and left out. ``reading.end`` follows the last line read."""
    from .lines import BROKEN, read_lines

    reading.end = resume.cursor
    for line in read_lines(unit.path, resume.cursor if isinstance(resume.cursor, int) else 0):
        reading.end = reading.done = line.end
        if line.value is BROKEN or not isinstance(line.value, dict):
            reading.bad_line(line.number)
            continue
        yield line, line.value


def project_of(cwd: str | None) -> str | None:
    """The project a session belongs to: its working directory, resolved as the hooks resolve it."""
    from ..paths import project_dir

    return project_dir(cwd) if cwd else None


def take(ctx: Context, value: JSONObject, names: dict[str, str]) -> None:
    """Copy into ``ctx`` the non-empty fields of ``value`` that ``names`` maps (our name:
    theirs)."""
    for ours, theirs in names.items():
        if value.get(theirs):
            ctx[ours] = str(value[theirs])


def set_cwd(ctx: Context, cwd: str) -> None:
    """The working directory where a session is now; its project is the first one, resolved once
    (resolving a path costs system calls, and a transcript repeats it on every line)."""
    ctx["cwd"] = cwd
    if "project" not in ctx:
        ctx["project"] = project_of(cwd)


def iso_ms(value: object) -> str | None:
    """An epoch time (seconds or milliseconds) as ISO 8601 UTC."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value if isinstance(value, str) and value else None
    seconds = value / 1000 if value > 1e11 else value
    try:
        # isoformat pads a year before 1000, which strftime's %Y does not
        moment = datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)
        return moment.isoformat(timespec="microseconds") + "Z"
    except (OverflowError, OSError, ValueError):
        return None


def obj(value: object) -> JSONObject:
    """``value`` if it is a JSON object, else an empty one: formats change, and a reader never
    trusts a shape."""
    return value if isinstance(value, dict) else {}


def array(value: object) -> list[JSONValue]:
    """``value`` if it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def texts(content: object, kinds: tuple[str, ...] = ("text",)) -> list[str]:
    """The text of a message's content: a string, or the ``text`` of blocks of the given types."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, dict):
        content = [content]
    out: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, str):
            out.append(block)
        elif (
            isinstance(block, dict)
            and block.get("type", "text") in kinds
            and isinstance(block.get("text"), str)
        ):
            out.append(block["text"])
    return out


def not_format(path: Path, what: str, hint: str) -> InvalidInput:
    return InvalidInput(
        f"{path} is not {what} ({hint}); check the path, or name its format with the right command."
    )


class ShellCall(NamedTuple):
    """One shell command a session ran, as ``hindsight eval replay`` reads it: its exit code, its
    output, when it was asked for (epoch seconds, 0 when unknown) and the client's id of the
    call."""

    command: str
    code: int
    output: str
    at: float
    call: str = ""


@dataclass
class ShellCalls:
    """A session's shell calls in order, with its id, working directory and first prompt."""

    session: str
    cwd: str = ""
    prompt: str = ""
    calls: list[ShellCall] = field(default_factory=list)


_EXIT_CODE = re.compile(r"(?im)^\W*(?:exit code|exit status|process exited with code)\W*(-?\d+)")


def stated_code(output: str) -> int | None:
    """The exit code a shell result states (an ``Exit code N`` line near its start or end), if
    any."""
    found = _EXIT_CODE.search(output[:400]) or _EXIT_CODE.search(output[-600:])
    return int(found.group(1)) if found else None


def exit_code(output: str, failed: bool, given: object = None) -> int:
    """A shell call's exit code: the one its result gives (``given``), else the one its output
    states, else 1 when it failed and 0 otherwise."""
    if isinstance(given, int) and not isinstance(given, bool):
        return given
    stated = stated_code(output)
    if stated is not None:
        return stated
    return 1 if failed else 0


def epoch(stamp: object) -> float:
    """A time (ISO 8601, or epoch seconds or milliseconds) as epoch seconds; 0 when unknown."""
    if isinstance(stamp, bool):
        return 0.0
    if isinstance(stamp, (int, float)):
        return float(stamp) / 1000 if stamp > 1e11 else float(stamp)
    if not isinstance(stamp, str) or not stamp:
        return 0.0
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    # a time without its zone is UTC
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def path_inside(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or under it (both real paths)."""
    return bool(path) and (path == root or path.startswith(root.rstrip(os.sep) + os.sep))


def dashed(text: str) -> str:
    """``text`` with every character but letters and digits a dash: how Claude Code names a
    project's folder after its working directory."""
    return "".join(c if c.isalnum() else "-" for c in str(text))
