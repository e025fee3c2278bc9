"""Claude Code transcripts: ``~/.claude/projects/<encoded cwd>/<session id>.jsonl``
(``$CLAUDE_CONFIG_DIR/projects``).

Each line is one entry: ``type`` ``user`` / ``assistant`` with ``message.content`` (a string or
blocks: ``text``, ``thinking``, ``tool_use`` {id, name, input}, ``tool_result`` {tool_use_id,
content, is_error}), ``sessionId``, ``uuid``, ``cwd``, ``gitBranch``, ``version``, ``timestamp``,
``isSidechain``, ``isMeta``; and entries that are not conversation (``summary``, ``system``,
``progress``, ``file-history-snapshot``, ``queue-operation``). One API answer can span several lines
with the same ``message.id``. Sub-agent transcripts (``agent-*.jsonl``, ``<session>/subagents/``)
are left out: their result reaches the main session as the tool result of the call that started
them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..models import JSONObject, JSONValue
from .base import (
    Context,
    Reading,
    Resume,
    ShellCall,
    ShellCalls,
    Unit,
    env_path,
    epoch,
    file_units,
    home,
    obj,
    objects,
    set_cwd,
    start,
    take,
    texts,
)
from .exchange import Assembler, Call, Exchange, output_failed, prompt_text
from .lines import head_values, read_lines

NAME = "claude-code"
TITLE = "Claude Code"
INCREMENTAL = True
HINT = "JSON lines with type user/assistant, sessionId and message"
# a tuple, not a set: a transcript's field may be a list or an object, which a set cannot look up
_IGNORED = (
    "summary",
    "system",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "custom-title",
    "tag",
    "agent-name",
    "pr-link",
    "mode",
    "worktree-state",
    "last-prompt",
)
_SHELLS = (
    "bash",
    "powershell",
)
_INTERRUPTED = "[Request interrupted by user"


def default_roots() -> list[Path]:
    return [(env_path("CLAUDE_CONFIG_DIR") or home() / ".claude") / "projects"]


def units(root: Path) -> Iterator[Unit]:
    for unit in file_units(NAME, root, "*.jsonl"):
        if root.is_dir() and (
            unit.path.name.startswith("agent-") or "subagents" in unit.path.parts[len(root.parts) :]
        ):
            continue
        if root.is_dir():
            # the working directory with every / (and .) as -
            unit.meta["hint"] = unit.path.parent.name
        yield unit


def sniff(path: Path) -> bool:
    return any(
        isinstance(v, dict) and v.get("type") in ("user", "assistant") and "sessionId" in v
        for v in head_values(path)
    )


def read(unit: Unit, resume: Resume, reading: Reading) -> Iterator[Exchange]:
    ctx = start(unit, resume, unit.path.stem)
    assembler = Assembler(resume.position)
    for line, value in objects(unit, resume, reading):
        kind = value.get("type")
        if kind not in ("user", "assistant"):
            if kind not in _IGNORED:
                reading.unknown += 1
            continue
        if value.get("isSidechain"):
            continue
        _context(ctx, value)
        message = obj(value.get("message"))
        content = message.get("content")
        if kind == "assistant":
            _answer(assembler.current, content)
            continue
        if value.get("isMeta") or value.get("isCompactSummary"):
            continue
        done = _user(assembler, content, value, line.begin, ctx)
        if done is not None:
            yield done
    yield from assembler.close(reading, ctx)


def _context(ctx: Context, value: JSONObject) -> None:
    take(ctx, value, {"session": "sessionId", "branch": "gitBranch", "version": "version"})
    if value.get("cwd"):
        set_cwd(ctx, str(value["cwd"]))


def _user(
    assembler: Assembler, content: JSONValue, value: JSONObject, begin: int, ctx: Context
) -> Exchange | None:
    blocks: list[JSONValue] = (
        content if isinstance(content, list) else [{"type": "text", "text": content}]
    )
    results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
    current = assembler.current
    for block in results:
        if current is not None:
            ref, body = str(block.get("tool_use_id")), "\n".join(texts(block.get("content")))
            current.result(
                ref, _status(block, body, value.get("toolUseResult"), current.refs.get(ref)), body
            )
    if results:
        return None
    text = prompt_text("\n".join(texts(content)))
    if not text:
        return None
    return assembler.prompt(
        text,
        session=str(ctx["session"]),
        at=value.get("timestamp"),
        anchor=str(value.get("uuid") or "") or None,
        begin=begin,
        ctx=ctx,
    )


def _status(block: JSONObject, body: str, result: object, made: Call | None) -> bool | None:
    if body.startswith(_INTERRUPTED) or (isinstance(result, dict) and result.get("interrupted")):
        # the user stopped it: neither a failure nor a fix
        return None
    if block.get("is_error"):
        return False
    if made is not None and made.tool.lower() in _SHELLS and output_failed(body):
        return False
    return True


def _answer(current: Exchange | None, content: JSONValue) -> None:
    if current is None:
        return
    for block in content if isinstance(content, list) else [{"type": "text", "text": content}]:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            current.say(str(block.get("text") or ""))
        elif block.get("type") == "tool_use" and str(block.get("id")) not in current.refs:
            current.call(
                str(block.get("id") or ""), str(block.get("name") or "tool"), block.get("input")
            )


_EXIT_CODE = re.compile(r"(?im)^\W*(?:exit code|exit status)\W*(-?\d+)")


def shell_calls(path: Path) -> ShellCalls:
    """Each ``Bash`` tool call of the main thread answered by its result: the exit code is the one
    the result states (an ``Exit code N`` line near its start or end), else 1 for an error and 0
    otherwise; an interrupted call is left out."""
    found = ShellCalls(path.stem)
    asked: dict[str, tuple[str, float]] = {}
    for line in read_lines(path):
        value = line.value
        if not isinstance(value, dict) or value.get("isSidechain"):
            continue
        if value.get("sessionId"):
            found.session = str(value["sessionId"])
        found.cwd = found.cwd or str(value.get("cwd") or "")
        content = obj(value.get("message")).get("content")
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        if value.get("type") == "assistant":
            for block in blocks:
                command = obj(block.get("input")).get("command")
                if block.get("type") == "tool_use" and block.get("name") in ("Bash", "bash"):
                    if isinstance(command, str):
                        asked[str(block.get("id"))] = (command, epoch(value.get("timestamp")))
        elif value.get("type") == "user":
            results = [b for b in blocks if b.get("type") == "tool_result"]
            if not results and not found.prompt and not value.get("isMeta"):
                found.prompt = prompt_text("\n".join(texts(content)))
            for block in results:
                ref = str(block.get("tool_use_id"))
                call = asked.pop(ref, None)
                if call is not None:
                    _result(found, (*call, ref), block, value.get("toolUseResult"))
    return found


def _result(
    found: ShellCalls, call: tuple[str, float, str], block: dict[str, Any], result: Any
) -> None:
    body = "\n".join(texts(block.get("content")))
    if body.startswith(_INTERRUPTED) or (isinstance(result, dict) and result.get("interrupted")):
        return
    stated = _EXIT_CODE.search(body[:400]) or _EXIT_CODE.search(body[-600:])
    code = int(stated.group(1)) if stated else 0
    if block.get("is_error") and not code:
        code = 1
    found.calls.append(ShellCall(call[0], code, body.strip(), call[1], call[2]))
