"""OpenCode sessions: ``$XDG_DATA_HOME/opencode`` (``~/.local/share/opencode`` on every OS).

Since 1.2.0 everything is in the SQLite database ``opencode.db`` (``opencode-<channel>.db`` off the
latest/beta channels): tables ``session`` (``id``, ``directory``, ``title``, ``parent_id``,
``time_updated``), ``message`` (``id``, ``session_id``, ``time_created``, ``data``: JSON with
``role``, ``time``, ``modelID``, ``path.cwd``) and ``part`` (``id``, ``message_id``, ``data``: JSON
``type`` ``text`` {text, synthetic, ignored}, ``tool`` {callID, tool, state: {status
pending|running|completed|error, input, output, error, metadata}}, ``reasoning``, ``step-start``,
``file`` …). Up to 1.1 the same records were JSON files: ``storage/session/<project>/<id>.json``,
``storage/message/<session>/<id>.json`` and ``storage/part/<message>/<id>.json``. Each session is
mined on its own; child sessions (sub-agents, ``parent_id`` set) are left out, as their result
reaches the parent as a tool result.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from ..safefs.reading import MAX_LINE, parse_json, read_regular
from ..storage import opencode_db
from .base import (
    Reading,
    Resume,
    ShellCall,
    ShellCalls,
    Unit,
    env_path,
    epoch,
    exit_code,
    home,
    iso_ms,
    obj,
    project_of,
    texts,
)
from .exchange import Assembler, Exchange, output_failed, prompt_text
from .lines import scrub

if TYPE_CHECKING:
    import sqlite3

    from ..models import JSONObject, JSONValue
    from .base import Context, Cursor

NAME = "opencode"
TITLE = "OpenCode"
INCREMENTAL = True
HINT = "an OpenCode data directory with opencode.db or storage/, or the opencode.db file"


def default_roots() -> list[Path]:
    return [(env_path("XDG_DATA_HOME") or home() / ".local" / "share") / "opencode"]


def sniff(path: Path) -> bool:
    if path.is_dir():
        return bool(_databases(path)) or (_storage(path) / "session").is_dir()
    return opencode_db.is_opencode(path)


def _databases(root: Path) -> list[Path]:
    return sorted(root.glob("opencode*.db")) if root.is_dir() else []


def _storage(root: Path) -> Path:
    return root if root.name == "storage" else root / "storage"


def units(root: Path) -> Iterator[Unit]:
    databases = [root] if root.is_file() else _databases(root)
    seen: set[str] = set()
    for database in databases:
        rows, counts = opencode_db.sessions(database)
        for sid, directory, title, parent, updated in rows:
            seen.add(sid)
            if not parent:
                yield Unit(
                    f"opencode:{database.resolve()}#{sid}",
                    NAME,
                    database,
                    counts.get(sid, 0),
                    [updated, counts.get(sid, 0)],
                    str(title or sid),
                    {"session": sid, "directory": directory, "database": True},
                )
    if root.is_dir():
        yield from _stored(_storage(root), seen)


def _stored(storage: Path, seen: set[str]) -> Iterator[Unit]:
    """The sessions of the JSON storage of OpenCode up to 1.1 (those not already in a database)."""
    for path in (
        sorted((storage / "session").glob("*/*.json")) if (storage / "session").is_dir() else []
    ):
        info = _json(path)
        sid = str(info.get("id") or path.stem)
        if sid in seen or info.get("parentID"):
            continue
        messages = storage / "message" / sid
        count = len(list(messages.glob("*.json"))) if messages.is_dir() else 0
        stamp = [obj(info.get("time")).get("updated"), count]
        yield Unit(
            f"opencode:{storage.resolve()}#{sid}",
            NAME,
            storage,
            count,
            stamp,
            str(info.get("title") or sid),
            {"session": sid, "directory": info.get("directory"), "database": False},
        )


# a record that is not a JSON object: counted, left out
_BROKEN: JSONObject = {"type": "\0broken"}


def _json(path: Path) -> JSONObject:
    try:
        return _loads(read_regular(path, MAX_LINE).decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return _BROKEN


def _messages(unit: Unit) -> list[tuple[str, JSONObject]]:
    """The session's messages in order, as (id, info)."""
    sid = str(unit.meta["session"])
    if unit.meta.get("database"):
        return [(mid, _loads(data)) for mid, data in opencode_db.messages(unit.path, sid)]
    found = [(p.stem, _json(p)) for p in (unit.path / "message" / sid).glob("*.json")]
    return sorted(found, key=lambda m: (_number(obj(m[1].get("time")).get("created")), m[0]))


def _number(value: JSONValue) -> float:
    return value if isinstance(value, (int, float)) else 0


def _loads(data: object) -> JSONObject:
    try:
        value = scrub(parse_json(data), data) if isinstance(data, (str, bytes)) else data
    except (ValueError, RecursionError):
        return _BROKEN
    return value if isinstance(value, dict) else _BROKEN


def _parts(unit: Unit, conn: sqlite3.Connection | None, message: str) -> list[JSONObject]:
    if conn is not None:
        return [_loads(data) for data in opencode_db.parts(conn, message, unit.path)]
    return [_json(p) for p in sorted((unit.path / "part" / message).glob("*.json"))]


def check(unit: Unit, cursor: Cursor) -> str:
    """The id of the message before the cursor, if it is still there (a reverted session starts
    over)."""
    if not isinstance(cursor, dict) or not cursor.get("index"):
        return ""
    ids = [m for m, _ in _messages(unit)]
    index = cursor["index"]
    if not isinstance(index, int):
        return ""
    return ids[index - 1] if 0 < index <= len(ids) and ids[index - 1] == cursor.get("prev") else ""


def _index(cursor: Cursor | None) -> int:
    """The index of the message a read resumes at."""
    index = cursor.get("index", 0) if isinstance(cursor, dict) else 0
    return int(index) if isinstance(index, (int, float, str)) else 0


def read(unit: Unit, resume: Resume, reading: Reading) -> Iterator[Exchange]:
    ctx = dict(resume.ctx)
    ctx.setdefault("session", str(unit.meta["session"]))
    ctx.setdefault("file", str(unit.path))
    if unit.meta.get("directory"):
        ctx.setdefault("project", project_of(str(unit.meta["directory"])))
    messages = _messages(unit)
    start = _index(resume.cursor)
    assembler = Assembler(resume.position)
    with opencode_db.opened(unit.path) if unit.meta.get("database") else nullcontext() as conn:
        for index in range(start, len(messages)):
            mid, info = messages[index]
            reading.done = index + 1
            cursor: JSONObject = {"index": index, "prev": messages[index - 1][0] if index else ""}
            parts = _parts(unit, conn, mid)
            for _ in range(sum(p is _BROKEN for p in [info, *parts])):
                # the message's position in the session
                reading.bad_line(index + 1)
            done = _message(
                assembler, info, [p for p in parts if p is not _BROKEN], mid, cursor, ctx, reading
            )
            if done is not None:
                yield done
    reading.end = {"index": len(messages), "prev": messages[-1][0] if messages else ""}
    yield from assembler.close(reading, ctx)


def _message(
    assembler: Assembler,
    info: JSONObject,
    parts: list[JSONObject],
    mid: str,
    cursor: JSONObject,
    ctx: Context,
    reading: Reading,
) -> Exchange | None:
    role, current = info.get("role"), assembler.current
    if role == "user":
        shown = [
            p
            for p in parts
            if p.get("type") == "text" and not p.get("synthetic") and not p.get("ignored")
        ]
        text = prompt_text("\n".join(texts(shown)))
        if not text:
            return None
        at = iso_ms(obj(info.get("time")).get("created"))
        return assembler.prompt(
            text, session=str(ctx["session"]), at=at, anchor=mid, begin=cursor, ctx=ctx
        )
    if role != "assistant":
        reading.unknown += info is not _BROKEN
        return None
    if info.get("modelID"):
        ctx["model"] = str(info["modelID"])
    if current is None:
        return None
    for part in parts:
        if part.get("type") == "text" and not part.get("synthetic"):
            current.say(str(part.get("text") or ""))
        elif part.get("type") == "tool":
            _tool(current, part)
    return None


def _tool(current: Exchange, part: JSONObject) -> None:
    state = obj(part.get("state"))
    ref = str(part.get("callID") or part.get("id") or "")
    current.call(ref, str(part.get("tool") or "tool"), state.get("input"))
    status = state.get("status")
    if status == "error":
        current.result(ref, False, state.get("error") or "error")
    elif status == "completed":
        meta = obj(state.get("metadata"))
        code = meta.get("exit")
        failed = (isinstance(code, int) and not isinstance(code, bool) and code != 0) or (
            str(part.get("tool")) == "bash" and output_failed(str(state.get("output") or ""))
        )
        current.result(ref, not failed, state.get("output") or "")


def shell_calls(unit: Unit) -> ShellCalls:
    """Each finished ``bash`` call of one session (a unit of ``units``), in order (``hindsight eval
    replay``): the exit code is the one its metadata gives (``exit``), else the one its output
    states, else 1 for a call in error and 0 for a completed one; the time is when it started. The
    working directory is the session's."""
    found = ShellCalls(str(unit.meta["session"]), str(unit.meta.get("directory") or ""))
    messages = _messages(unit)
    with opencode_db.opened(unit.path) if unit.meta.get("database") else nullcontext() as conn:
        for mid, info in messages:
            parts = [p for p in _parts(unit, conn, mid) if p is not _BROKEN]
            if info.get("role") == "user" and not found.prompt:
                shown = [
                    p
                    for p in parts
                    if p.get("type") == "text" and not p.get("synthetic") and not p.get("ignored")
                ]
                found.prompt = prompt_text("\n".join(texts(shown)))
            elif info.get("role") == "assistant":
                found.cwd = found.cwd or str(obj(info.get("path")).get("cwd") or "")
                for part in parts:
                    made = _shell_call(part, obj(info.get("time")).get("created"))
                    if made is not None:
                        found.calls.append(made)
    return found


def _shell_call(part: JSONObject, at: JSONValue) -> ShellCall | None:
    state = obj(part.get("state"))
    command = obj(state.get("input")).get("command")
    status = state.get("status")
    if (
        part.get("type") != "tool"
        or part.get("tool") != "bash"
        or status not in ("completed", "error")
        or not isinstance(command, str)
        or not command.strip()
    ):
        return None
    meta = obj(state.get("metadata"))
    output = str(state.get("output") or meta.get("output") or "")
    if status == "error":
        output = "\n".join(t for t in (output, str(state.get("error") or "")) if t)
    return ShellCall(
        command,
        exit_code(output, status == "error", meta.get("exit")),
        output.strip(),
        epoch(obj(state.get("time")).get("start")) or epoch(at),
        str(part.get("callID") or part.get("id") or ""),
    )
