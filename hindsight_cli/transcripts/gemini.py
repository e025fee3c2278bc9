"""Gemini CLI chats: ``~/.gemini/tmp/<project>/chats/session-*.jsonl``
(``$GEMINI_CLI_HOME/.gemini``), and the chats saved with ``/chat save <tag>``:
``~/.gemini/tmp/<project>/checkpoint-<tag>.json``.

Since 0.39 a session is JSON lines: a first line of metadata (``sessionId``, ``projectHash``,
``startTime``), then message records ``{id, timestamp, type, content, toolCalls, thoughts, model}``
(a record written again with the same ``id`` replaces it, as the answer and its tool calls
complete), ``{"$set": {...}}`` metadata updates and ``{"$rewindTo": id}``. Before 0.39 a session was
one JSON object with the same fields and a ``messages`` array. ``type`` is ``user``, ``gemini``,
``info``, ``error`` or ``warning``; a tool call is ``{id, name, args, result, status,
resultDisplay}`` with ``status`` ``success``, ``error`` or ``cancelled``. A saved chat is the
model's history: a list of ``{role: user|model, parts: [{text} | {functionCall} |
{functionResponse}]}`` without times. The project directory is ``<project>/.project_root`` (0.29 and
later: a short slug) or, for the older ``sha256(project root)`` directories, found through
``~/.gemini/projects.json``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from itertools import chain, islice
from pathlib import Path

from ..models import JSONObject, JSONValue
from ..safefs.reading import MAX_SMALL, parse_json, read_regular
from .base import (
    Context,
    Cursor,
    Reading,
    Resume,
    ShellCall,
    ShellCalls,
    Unit,
    array,
    env_path,
    epoch,
    exit_code,
    file_unit,
    home,
    iso_ms,
    obj,
    objects,
    project_of,
    start,
    texts,
)
from .exchange import Assembler, Exchange, output_failed, prompt_text
from .lines import head_values, iter_json_array, read_lines

NAME = "gemini"
TITLE = "Gemini CLI"
INCREMENTAL = True
HINT = "a chats/session-*.jsonl or .json recording, or a checkpoint-<tag>.json saved chat"
# a tuple, not a set: a transcript's field may be a list or an object, which a set cannot look up
_SHELLS = (
    "run_shell_command",
    "shell",
)
_STATUS = {"success": True, "error": False}


def default_roots() -> list[Path]:
    return [(env_path("GEMINI_CLI_HOME") or home()) / ".gemini" / "tmp"]


def units(root: Path) -> Iterator[Unit]:
    if root.is_file():
        yield _unit(
            root, _project(root.parent.parent if root.parent.name == "chats" else root.parent)
        )
        return
    for directory in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        project = _project(directory)
        chats = directory / "chats"
        files = sorted(chats.glob("session-*.json*")) if chats.is_dir() else []
        for path in [*files, *sorted(directory.glob("checkpoint-*.json"))]:
            if path.suffix in (".json", ".jsonl"):
                yield _unit(path, project)


def _unit(path: Path, project: str | None) -> Unit:
    unit = file_unit(NAME, path)
    unit.meta = {"project": project, "whole": path.suffix == ".json"}
    return unit


def _project(directory: Path) -> str | None:
    """The project a Gemini temp directory belongs to: its ``.project_root``, else the registry."""
    marker = directory / ".project_root"
    try:
        return (
            project_of(read_regular(marker, MAX_SMALL).decode("utf-8", "replace").strip())
            if marker.is_file()
            else _registered(directory)
        )
    except OSError:
        return None


def _registered(directory: Path) -> str | None:
    registry = directory.parent.parent / "projects.json"
    try:
        projects = parse_json(read_regular(registry, MAX_SMALL)).get("projects") or {}
    except (OSError, ValueError, RecursionError, AttributeError):
        return None
    for root, slug in projects.items():
        if directory.name in (slug, hashlib.sha256(str(root).encode()).hexdigest()):
            return project_of(root)
    return None


def sniff(path: Path) -> bool:
    if path.suffix == ".jsonl":
        head = [v for v in head_values(path, 3) if isinstance(v, dict)]
        return bool(head) and "sessionId" in head[0] and "projectHash" in head[0]
    try:
        value = next(iter_json_array(path))
    except (ValueError, StopIteration, OSError):
        return False
    return (isinstance(value, dict) and "sessionId" in value and "messages" in value) or (
        isinstance(value, dict) and "role" in value and "parts" in value
    )


def read(unit: Unit, resume: Resume, reading: Reading) -> Iterator[Exchange]:
    ctx = start(unit, resume if not unit.meta.get("whole") else Resume(), unit.path.stem)
    if unit.meta.get("project"):
        ctx.setdefault("project", unit.meta["project"])
    turns = _Turns(Assembler(0 if unit.meta.get("whole") else resume.position), ctx)
    if unit.path.suffix == ".jsonl":
        yield from _lines(unit, resume, reading, turns)
    else:
        yield from _whole(unit, reading, turns)
    reading.ctx = ctx
    last = turns.finish(reading.end)
    if last is not None:
        yield last


def _lines(unit: Unit, resume: Resume, reading: Reading, turns: _Turns) -> Iterator[Exchange]:
    for line, value in objects(unit, resume, reading):
        if "$set" in value:
            update = obj(value["$set"])
            records = _list(update.get("messages"))
        elif "$rewindTo" in value:
            # what was said before the rewind still happened
            records = []
        elif "type" in value and "id" in value:
            records = [value]
        elif "sessionId" in value:
            turns.ctx["session"] = str(value["sessionId"])
            records = _list(value.get("messages"))
        else:
            reading.unknown += 1
            continue
        for record in records:
            done = turns.message(record, line.begin)
            if done is not None:
                yield done


def _list(value: object) -> list[JSONValue]:
    return value if isinstance(value, list) else []


def _whole(unit: Unit, reading: Reading, turns: _Turns) -> Iterator[Exchange]:
    reading.end = unit.size
    # a saved chat is read entry by entry, never held whole: its entries are bounded one by one,
    # not together (a file of millions of small ones is gigabytes of values)
    elements = _elements(unit.path, reading)
    value = list(islice(elements, 2))
    if len(value) == 1 and isinstance(value[0], dict) and "messages" in value[0]:
        turns.ctx["session"] = str(value[0].get("sessionId") or turns.ctx["session"])
        for record in array(value[0].get("messages")):
            done = turns.message(record, 0)
            if done is not None:
                yield done
        return
    modified = unit.stamp[1] if len(unit.stamp) > 1 else None
    at = iso_ms(modified / 1e9) if isinstance(modified, (int, float)) else None
    # a tag is only unique in its project
    turns.ctx["session"] = f"{unit.path.parent.name}/{unit.path.stem}"
    for content in chain(value, elements):
        done = turns.content(content, at) if isinstance(content, dict) else None
        if done is not None:
            yield done


def _elements(path: Path, reading: Reading) -> Iterator[JSONValue]:
    """The elements of the JSON array at ``path`` (a document's one value), until one is bad: the
    file is then counted broken."""
    try:
        yield from iter_json_array(path)
    except ValueError:
        reading.bad_line(1)


class _Turns:
    """Gemini records an answer as it completes, rewriting it under its id: the latest version of
    each answer counts, so an exchange's answers are collected by id and read when the exchange
    closes."""

    def __init__(self, assembler: Assembler, ctx: Context) -> None:
        self.assembler, self.ctx = assembler, ctx
        self.answers: dict[str, JSONObject] = {}

    def message(self, record: object, begin: Cursor) -> Exchange | None:
        if not isinstance(record, dict):
            return None
        kind, current = record.get("type"), self.assembler.current
        if kind == "gemini":
            self.answers[str(record.get("id"))] = record
            return None
        if kind != "user" or (current is not None and current.anchor == str(record.get("id"))):
            # notices (info, error, warning), or the prompt written again
            return None
        text = prompt_text("\n".join(texts(record.get("content"))))
        if not text:
            return None
        self._flush()
        return self.assembler.prompt(
            text,
            session=str(self.ctx["session"]),
            at=record.get("timestamp"),
            anchor=str(record.get("id") or "") or None,
            begin=begin,
            ctx=self.ctx,
        )

    def content(self, content: JSONObject, at: str | None) -> Exchange | None:
        """One entry of a saved chat (``{role, parts}``)."""
        parts = [p for p in array(content.get("parts")) if isinstance(p, dict)]
        current = self.assembler.current
        if content.get("role") == "model" and current is not None:
            for part in parts:
                said = part.get("text")
                if isinstance(said, str) and not part.get("thought"):
                    current.say(said)
                call = part.get("functionCall")
                if isinstance(call, dict):
                    current.call(
                        str(call.get("id") or call.get("name")),
                        str(call.get("name") or "tool"),
                        call.get("args"),
                    )
            return None
        responses = [r for p in parts if isinstance(r := p.get("functionResponse"), dict)]
        for response in responses:
            if current is not None:
                body = obj(response.get("response"))
                current.result(
                    str(response.get("id") or response.get("name")),
                    "error" not in body,
                    body.get("error") or body.get("output") or body,
                )
        text = prompt_text(
            "\n".join(str(p["text"]) for p in parts if isinstance(p.get("text"), str))
        )
        if responses or not text:
            return None
        return self.assembler.prompt(
            text, session=str(self.ctx["session"]), at=at, anchor=None, begin=0, ctx=self.ctx
        )

    def _flush(self) -> None:
        current, answers, self.answers = self.assembler.current, self.answers, {}
        if current is None:
            return
        for record in answers.values():
            for text in texts(record.get("content")):
                current.say(text)
            for call in array(record.get("toolCalls")):
                if isinstance(call, dict):
                    self._call(current, call)
            if record.get("model"):
                current.ctx.setdefault("model", str(record["model"]))

    @staticmethod
    def _call(current: Exchange, call: JSONObject) -> None:
        ref, name = str(call.get("id") or ""), str(call.get("name") or "tool")
        current.call(ref, name, call.get("args"))
        output = _output(call)
        ok = _STATUS.get(str(call.get("status")))
        if ok and name in _SHELLS and output_failed(output):
            ok = False
        current.result(ref, ok, output)

    def finish(self, end: Cursor | None) -> Exchange | None:
        self._flush()
        return self.assembler.finish(end)


def _output(call: JSONObject) -> str:
    """A tool call's result as text: the function response's output or error, else what was
    displayed."""
    result = call.get("result")
    for part in result if isinstance(result, list) else [result]:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            value = body.get("error") or body.get("output") or body
            return (
                value
                if isinstance(value, str)
                else json.dumps(value, ensure_ascii=False, default=str)
            )
    shown = call.get("resultDisplay")
    return shown if isinstance(shown, str) else "\n".join(texts(result))


def shell_calls(path: Path) -> ShellCalls:
    """Each finished shell call of a session recording (``hindsight eval replay``), in order, from
    the latest version of each record: the exit code is the one the output states (``Exit Code:
    N``), else 1 for a call whose status is ``error`` and 0 for ``success``; a cancelled call is
    left out. The working directory is the project the chats folder belongs to."""
    found = ShellCalls(path.stem)
    records: dict[str, JSONObject] = {}
    if path.suffix == ".jsonl":
        for line in read_lines(path):
            value = line.value
            if not isinstance(value, dict):
                continue
            if "$set" in value:
                _keep(records, _list(obj(value["$set"]).get("messages")))
            elif "type" in value and "id" in value:
                _keep(records, [value])
            elif "sessionId" in value:
                found.session = str(value["sessionId"])
                _keep(records, _list(value.get("messages")))
    else:
        try:
            value = next(iter_json_array(path))
        except (ValueError, StopIteration, OSError):
            return found
        if isinstance(value, dict):
            found.session = str(value.get("sessionId") or found.session)
            _keep(records, array(value.get("messages")))
    directory = path.parent.parent if path.parent.name == "chats" else path.parent
    found.cwd = _project(directory) or ""
    for record in records.values():
        if record.get("type") == "user" and not found.prompt:
            found.prompt = prompt_text("\n".join(texts(record.get("content"))))
        elif record.get("type") == "gemini":
            for call in array(record.get("toolCalls")):
                made = _shell_call(call, record.get("timestamp"))
                if made is not None:
                    found.calls.append(made)
    return found


def _keep(records: dict[str, JSONObject], given: list[JSONValue]) -> None:
    """The records so far, each at its first place with its latest version."""
    for record in given:
        if isinstance(record, dict) and record.get("id") is not None:
            records[str(record["id"])] = record


def _shell_call(call: object, at: JSONValue) -> ShellCall | None:
    if not isinstance(call, dict) or str(call.get("name")) not in _SHELLS:
        return None
    ok = _STATUS.get(str(call.get("status")))
    command = obj(call.get("args")).get("command")
    if ok is None or not isinstance(command, str) or not command.strip():
        return None
    output = _output(call)
    return ShellCall(
        command,
        exit_code(output, not ok),
        output.strip(),
        epoch(call.get("timestamp")) or epoch(at),
        str(call.get("id") or ""),
    )
