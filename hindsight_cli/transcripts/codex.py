"""Codex CLI rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``
(``~/.codex``).

Current format (``RolloutLine``): ``{"timestamp", "type", "payload"}`` with ``type``
``session_meta`` (``id``, ``cwd``, ``cli_version``, ``git.branch``), ``turn_context`` (``cwd``,
``model``), ``response_item`` (``message`` with ``role`` and ``input_text``/``output_text`` content,
``function_call`` {name, arguments (a JSON string), call_id}, ``function_call_output`` {call_id,
output}, ``local_shell_call``, ``custom_tool_call``/``_output``, ``web_search_call``,
``reasoning``), ``event_msg`` and ``compacted``. Early rollouts (mid 2025) had a bare header line
``{"id", "timestamp", "instructions", "git"}`` followed by bare response items and ``{"record_type":
"state"}`` lines. User messages that only carry context Codex injected (``<environment_context>``,
``<user_instructions>``, ``# AGENTS.md instructions …``) are not prompts; ``event_msg`` lines repeat
the response items and are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from ..models import JSONObject, JSONValue
from ..safefs.parsing import json_loads
from .base import (
    Context,
    Reading,
    Resume,
    ShellCall,
    ShellCalls,
    Unit,
    env_path,
    epoch,
    exit_code,
    file_units,
    home,
    obj,
    objects,
    set_cwd,
    start,
    take,
    texts,
)
from .exchange import Assembler, Exchange, output_failed, prompt_text
from .lines import head_values, read_lines

NAME = "codex"
TITLE = "Codex CLI"
INCREMENTAL = True
HINT = "rollout JSON lines: session_meta, response_item, event_msg"
_ITEMS = {
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "local_shell_call",
    "custom_tool_call",
    "custom_tool_call_output",
    "web_search_call",
    "ghost_snapshot",
    "compaction",
    "compaction_summary",
    "tool_search_call",
    "tool_search_output",
    "image_generation_call",
}
_CWD = re.compile(r"<cwd>([^<]+)</cwd>")
_ENVELOPES = {
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "world_state",
}


def default_roots() -> list[Path]:
    return [(env_path("CODEX_HOME") or home() / ".codex") / "sessions"]


def units(root: Path) -> Iterator[Unit]:
    return file_units(NAME, root, "rollout-*.jsonl")


def sniff(path: Path) -> bool:
    head = [v for v in head_values(path) if isinstance(v, dict)]
    return bool(head) and (
        head[0].get("type") in _ENVELOPES
        or _legacy_header(head[0])
        or any(v.get("type") in _ENVELOPES and "payload" in v for v in head)
    )


def _legacy_header(value: JSONObject) -> bool:
    return "type" not in value and "id" in value and "timestamp" in value


def read(unit: Unit, resume: Resume, reading: Reading) -> Iterator[Exchange]:
    # the uuid ending the file name
    ctx = start(unit, resume, "-".join(unit.path.stem.split("-")[-5:]))
    assembler = Assembler(resume.position)
    for line, value in objects(unit, resume, reading):
        kind, payload, at = _envelope(value)
        if kind is None:
            reading.unknown += 1
            continue
        if kind == "session_meta":
            _meta(ctx, payload)
        elif kind == "turn_context":
            if payload.get("cwd"):
                set_cwd(ctx, str(payload["cwd"]))
            if payload.get("model"):
                ctx["model"] = str(payload["model"])
        elif kind == "response_item":
            done = _item(assembler, payload, at or ctx.get("started"), line.begin, ctx)
            if done is not None:
                yield done
    yield from assembler.close(reading, ctx)


def _envelope(value: JSONObject) -> tuple[str | None, JSONObject, JSONValue]:
    """(kind, payload, time) of a current line or of an early-format one."""
    kind, payload = value.get("type"), value.get("payload")
    if kind in _ENVELOPES and isinstance(payload, dict):
        return str(kind), payload, value.get("timestamp")
    if kind is None and _legacy_header(value):
        return "session_meta", value, value.get("timestamp")
    if kind in _ITEMS:
        return "response_item", value, None
    if value.get("record_type") == "state" or kind in _ENVELOPES:
        return "ignored", {}, None
    return None, {}, None


def _meta(ctx: Context, payload: JSONObject) -> None:
    take(ctx, payload, {"session": "id", "started": "timestamp", "version": "cli_version"})
    take(ctx, obj(payload.get("git")), {"branch": "branch"})
    if payload.get("cwd"):
        set_cwd(ctx, str(payload["cwd"]))


def _item(
    assembler: Assembler, item: JSONObject, at: JSONValue, begin: int, ctx: Context
) -> Exchange | None:
    kind, current = item.get("type"), assembler.current
    if kind == "message":
        role = item.get("role")
        if role == "user":
            given = texts(item.get("content"), ("input_text", "text"))
            _environment(ctx, given)
            parts = [prompt_text(t) for t in given]
            text = "\n".join(p for p in parts if p)
            if text:
                return assembler.prompt(
                    text, session=str(ctx["session"]), at=at, anchor=None, begin=begin, ctx=ctx
                )
        elif role == "assistant" and current is not None:
            for text in texts(item.get("content"), ("output_text", "text")):
                current.say(text)
        return None
    if current is None:
        return None
    ref = str(item.get("call_id") or item.get("id") or "")
    if kind == "function_call":
        current.call(ref, str(item.get("name") or "function"), _arguments(item.get("arguments")))
    elif kind == "local_shell_call":
        current.call(ref, "local_shell", (item.get("action") or {}))
    elif kind == "custom_tool_call":
        current.call(ref, str(item.get("name") or "tool"), {"input": item.get("input")})
    elif kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        current.result(ref, not _failed(output), _output_text(output))
    elif kind == "web_search_call":
        action = obj(item.get("action"))
        made = current.call(f"web{len(current.calls)}", "web_search", action)
        made.ok = item.get("status") in (None, "completed")
    return None


def _environment(ctx: Context, given: list[str]) -> None:
    """Early rollouts name the working directory only in the ``<environment_context>`` Codex
    injects."""
    for text in given:
        found = _CWD.search(text) if "<environment_context>" in text else None
        if found and not ctx.get("cwd"):
            set_cwd(ctx, found.group(1).strip())


def _arguments(raw: object) -> object:
    """A call's arguments (a JSON string), with a shell command's ``bash -lc`` wrapper taken off."""
    if isinstance(raw, str):
        try:
            raw = json_loads(raw)
        except ValueError:
            return raw
    command = raw.get("command") if isinstance(raw, dict) else None
    if (
        isinstance(raw, dict)
        and isinstance(command, list)
        and len(command) == 3
        and str(command[1]) in ("-c", "-lc")
        and Path(str(command[0])).name in ("bash", "sh", "zsh", "dash")
    ):
        return {**raw, "command": command[2]}
    return raw


def _output_text(output: object) -> str:
    """What a tool printed: early shell outputs are JSON ``{"output", "metadata"}``; MCP ones
    content items."""
    if isinstance(output, str) and output.startswith("{"):
        try:
            value = json_loads(output)
        except ValueError:
            return output
        return str(value.get("output")) if isinstance(value, dict) and "output" in value else output
    return (
        output
        if isinstance(output, str)
        else "\n".join(texts(output, ("input_text", "output_text", "text")))
    )


def _failed(output: object) -> bool:
    if isinstance(output, dict) and output.get("success") is False:
        return True
    text = output if isinstance(output, str) else ""
    if text.lstrip().lower().startswith(("error:", "apply_patch verification failed", "failed to")):
        return True
    return output_failed(output)


_SHELL_TOOLS = {"shell", "container.exec", "shell_command", "exec_command", "local_shell"}


def shell_calls(path: Path) -> ShellCalls:
    """Each shell call of a rollout answered by its output (``hindsight eval replay``): a
    ``function_call`` of a shell tool or a ``local_shell_call``, its command without the ``bash -lc``
    wrapper. The exit code is the one the output gives (early rollouts: ``metadata.exit_code``) or
    states (``Exit code: N``, ``Process exited with code N``), else 1 when it reports a failure; the
    time is the call line's (early rollouts: the session's start)."""
    # the uuid ending the file name, until the session says
    found = ShellCalls("-".join(path.stem.split("-")[-5:]))
    asked: dict[str, tuple[str, float]] = {}
    now = 0.0
    for line in read_lines(path):
        if not isinstance(line.value, dict):
            continue
        kind, payload, at = _envelope(line.value)
        now = epoch(at) or now
        if kind == "session_meta":
            found.session = str(payload.get("id") or found.session)
            found.cwd = found.cwd or str(payload.get("cwd") or "")
        elif kind == "turn_context":
            found.cwd = found.cwd or str(payload.get("cwd") or "")
        elif kind == "response_item":
            _shell_item(found, asked, payload, now)
    return found


def _shell_item(
    found: ShellCalls, asked: dict[str, tuple[str, float]], item: JSONObject, at: float
) -> None:
    kind, ref = item.get("type"), str(item.get("call_id") or item.get("id") or "")
    if kind == "message" and item.get("role") == "user":
        given = texts(item.get("content"), ("input_text", "text"))
        for text in given:
            cwd = _CWD.search(text) if "<environment_context>" in text else None
            if cwd and not found.cwd:
                found.cwd = cwd.group(1).strip()
        if not found.prompt:
            found.prompt = "\n".join(p for p in (prompt_text(t) for t in given) if p)
    elif kind == "function_call" and item.get("name") in _SHELL_TOOLS:
        command = _command(_arguments(item.get("arguments")))
        if command:
            asked[ref] = (command, at)
    elif kind == "local_shell_call":
        command = _command(_arguments(item.get("action")))
        if command:
            asked[ref] = (command, at)
    elif kind == "function_call_output" and ref in asked:
        command, when = asked.pop(ref)
        output = item.get("output")
        text = _output_text(output)
        code = exit_code(text, _failed(output), _given_code(output))
        found.calls.append(ShellCall(command, code, text.strip(), when, ref))


def _command(arguments: object) -> str:
    """A shell call's command as a string (``cmd`` for ``exec_command``; an argv list joined)."""
    if not isinstance(arguments, dict):
        return ""
    value = arguments.get("command") or arguments.get("cmd")
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    return value.strip() if isinstance(value, str) else ""


def _given_code(output: object) -> object:
    """The exit code an early rollout's JSON output gives in its ``metadata``."""
    if isinstance(output, str) and output.startswith("{"):
        try:
            output = json_loads(output)
        except ValueError:
            return None
    meta = obj(output.get("metadata")) if isinstance(output, dict) else {}
    return meta.get("exit_code")
