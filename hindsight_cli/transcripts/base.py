"""What every reader shares: the unit it mines (a file, or an OpenCode session), where a read
resumes, and what a read counted on the way (broken and unknown lines)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

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
    return os.path.realpath(os.path.expanduser(cwd)) if cwd else None


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
        return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
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
