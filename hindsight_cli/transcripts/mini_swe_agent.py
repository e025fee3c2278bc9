"""mini-swe-agent trajectories (1.x, ``trajectory_format`` ``mini-swe-agent-1``): one JSON object per
run, ``<output dir>/<instance>/<instance>.traj.json`` for batch runs and
``last_mini_run.traj.json`` in its config directory (``$MSWEA_GLOBAL_CONFIG_DIR``, else
``~/.config/mini-swe-agent``) for ``mini``.

``{"instance_id", "info", "messages": [{role, content, extra}]}``: a system message, the task as the
first user message, then turns: an assistant message whose one fenced ```` ```bash ```` block is
the command (its ``extra.response.created`` the time), answered by a user message
``<returncode>N</returncode>`` followed by the output (in ``<output>``, or ``<output_head>``,
``<elided_chars>`` and ``<output_tail>`` after a ``<warning>`` when it was long). An answer with no
block or several is a format error, answered without a return code, and is not a command. A run is
one task: one exchange, with every command as a ``bash`` call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..safefs.reading import MAX_DOCUMENT, parse_json, read_regular
from .base import Reading, Resume, Unit, env_path, file_units, iso_ms, start
from .exchange import Assembler, Exchange, clean_text
from .lines import scrub

NAME = "mini-swe-agent"
TITLE = "mini-swe-agent"
INCREMENTAL = False
HINT = "a .traj.json trajectory: an object with instance_id and messages (role, content)"
TOOL = "bash"
_BASH = re.compile(r"```bash\s*\n(.*?)\n```", re.S)
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_TAGS = re.compile(r"</?(?:output|output_head|output_tail|warning|elided_chars)>")
_INSTANCE_NUMBER = re.compile(r"-\d+$")
# a trajectory is read whole; bigger files are not trajectories


@dataclass(frozen=True)
class Step:
    """One command: the assistant message's position, its bash block, the exit code, the output
    without its tags and the time it was asked for (epoch seconds, 0 when unknown)."""

    position: int
    command: str
    code: int
    output: str
    at: float


def default_roots() -> list[Path]:
    """``$MSWEA_GLOBAL_CONFIG_DIR``, else its platform config directory (newer releases use
    ``~/.config/mini-swe-agent`` on macOS too)."""
    import sys

    from platformdirs import user_config_dir

    given = env_path("MSWEA_GLOBAL_CONFIG_DIR")
    if given is not None:
        return [given]
    roots = [Path(user_config_dir("mini-swe-agent"))]
    if sys.platform == "darwin":
        roots.append(Path.home() / ".config" / "mini-swe-agent")
    return roots


def units(root: Path) -> Iterator[Unit]:
    for unit in file_units(NAME, root, "*.traj.json"):
        unit.meta["whole"] = True
        yield unit


def sniff(path: Path) -> bool:
    data = load(path)
    return data is not None


def load(path: Path) -> dict[str, Any] | None:
    """The trajectory object, or None when the file is not one."""
    try:
        text = read_regular(path, MAX_DOCUMENT).decode("utf-8", errors="replace")
        data = scrub(parse_json(text), text)
    except (OSError, ValueError, RecursionError):
        return None
    messages = data.get("messages") if isinstance(data, dict) else None
    if not isinstance(messages, list) or not any(
        isinstance(m, dict) and m.get("role") == "assistant" for m in messages
    ):
        return None
    return data


def instance(data: dict[str, Any], path: Path) -> str:
    return str(data.get("instance_id") or path.name.removesuffix(".traj.json"))


def project(instance_id: str) -> str:
    """The repository an instance belongs to: ``sympy__sympy-20590`` → ``sympy__sympy``."""
    return _INSTANCE_NUMBER.sub("", instance_id)


def text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text") or "") if isinstance(b, dict) else str(b) for b in content
        )
    return ""


def created(message: dict[str, Any]) -> float:
    extra = message.get("extra")
    response = extra.get("response") if isinstance(extra, dict) else None
    value = response.get("created") if isinstance(response, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def task(messages: list[Any]) -> str:
    """The task: the first user message."""
    return next(
        (
            text(m.get("content"))
            for m in messages
            if isinstance(m, dict) and m.get("role") == "user"
        ),
        "",
    )


def steps(messages: list[Any]) -> list[Step]:
    """The commands of a run: an assistant message with exactly one bash block, answered by the
    next message, a user message with a return code."""
    found: list[Step] = []
    for position, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        blocks = _BASH.findall(text(message.get("content")))
        answer = messages[position + 1] if position + 1 < len(messages) else None
        if len(blocks) != 1 or not isinstance(answer, dict) or answer.get("role") != "user":
            continue
        said = text(answer.get("content"))
        code = _RETURNCODE.search(said)
        if code is None:
            continue
        output = _TAGS.sub("", said[code.end() :]).strip()
        found.append(Step(position, blocks[0], int(code.group(1)), output, created(message)))
    return found


def read(unit: Unit, resume: Resume, reading: Reading) -> Iterator[Exchange]:
    reading.end = reading.done = unit.size
    data = load(unit.path)
    if data is None:
        reading.bad_line(1)
        return
    messages = data["messages"]
    ctx = start(unit, Resume(), instance(data, unit.path))
    # a call is named <session>#<step index>, as the hooks' replay names it (bench PROBES.md)
    commands = {s.position: (index, s) for index, s in enumerate(steps(messages))}
    times = [s.at for _, s in commands.values() if s.at]
    assembler = Assembler(0)
    assembler.prompt(
        clean_text(task(messages)) or str(ctx["session"]),
        session=str(ctx["session"]),
        at=iso_ms(min(times)) if times else None,
        anchor=None,
        begin=0,
        ctx=ctx,
    )
    current = assembler.current
    assert current is not None
    for position, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        said = text(message.get("content"))
        current.say(_BASH.sub("", said).strip())
        found = commands.get(position)
        if found is not None:
            index, step = found
            ref = f"{ctx['session']}#{index}"
            current.call(ref, TOOL, {"command": step.command})
            current.result(ref, step.code == 0, step.output)
    yield from assembler.close(reading, ctx)
