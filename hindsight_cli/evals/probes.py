"""When a memory owes an agent an earlier fix: the probes of ``hindsight eval replay``, exactly as
``bench/replay/PROBES.md`` defines them. Pure functions on sessions; nothing here reads a file or a
store.

A session is a list of steps (a shell command, its exit code, its output). A step's command has a
*family* (the program that decided it, ``python -m pytest``, ``grep``), its output an *error
signature* (the last exception line, normalised). A *failure* is a step that exited non-zero with
both; its *kind* is ``family | signature``. It is *fixed* when a step of the same family exits 0
within the next 10 steps. In each session the first failure of each kind is a *probe*: positive when
an earlier session of the project fixed a failure of that kind, negative otherwise.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

FIX_WINDOW = 10
QUERY_COMMAND = 300
QUERY_OUTPUT = 600
SIGNATURE_WORDS = 12

_TRIVIAL = frozenset("cd echo export source set true mkdir rm touch cp mv chmod pip".split())
_PREFIXES = frozenset({"timeout", "sudo", "env"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DURATION = re.compile(r"^\d+(?:\.\d+)?[smhd]?$")
_PYTHON = re.compile(r"^python(?:\d+(?:\.\d+)*)?$")
# python options that take a value
_PYTHON_VALUED = frozenset({"-W", "-X", "-Q"})
_HEREDOC = re.compile(r"(?<!<)<<(?!<)(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")
_SUFFIXES = (
    "Error Exception Configured DoesNotExist NotReady NotSupported Failure Exit Interrupt Warning "
    "Invalid NotFound Found Denied Refused"
).split()
_EXCEPTION = re.compile(
    r"^\s*(?:E\s+)?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:"
    + "|".join(_SUFFIXES)
    + r"))(?::\s*(.*?))?\s*$"
)
_MESSAGE = re.compile(
    r"error|not found|no such file|cannot|can't|unrecognized|invalid|unknown option"
    r"|permission denied|failed|unterminated|unexpected",
    re.I,
)
_SHORT_QUOTE = re.compile(r"'[^'\s]{1,40}'|\"[^\"\s]{1,40}\"")
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
_PATH = re.compile(r"(?:/[\w.-]+)+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_CAPS = re.compile(r"(?<![\w])[A-Z][A-Z0-9_]{2,}(?![\w])")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Step:
    """One shell command of a session: its exit code, its output and when it was asked for (epoch
    seconds; 0 when unknown)."""

    command: str
    code: int
    output: str
    at: float = 0.0


@dataclass
class Session:
    """A session's steps in order, the project it belongs to, and where it was read from."""

    id: str
    project: str
    steps: list[Step]
    source: Path | None = None
    prompt: str = ""
    # the reader (mini-swe-agent, claude-code, …) that mines it
    client: str = ""

    @property
    def start(self) -> float:
        """Its earliest step time (a session without one sorts last)."""
        times = [s.at for s in self.steps if s.at]
        return min(times) if times else float("inf")


@dataclass(frozen=True)
class Failure:
    """A step that failed with a family and a signature; ``fix`` holds the commands from the next
    step to the success of the same family (empty when it was not fixed)."""

    session: str
    index: int
    family: str
    signature: str
    fix: tuple[str, ...] = ()
    fixed: bool = False

    @property
    def id(self) -> str:
        return f"{self.session}#{self.index}"

    @property
    def kind(self) -> str:
        return f"{self.family} | {self.signature}"


@dataclass
class Probe:
    """The first failure of its kind in a session, with the earlier fixed failures of that kind
    (none: a negative probe)."""

    failure: Failure
    step: Step
    earlier: list[Failure] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.failure.id

    @property
    def positive(self) -> bool:
        return bool(self.earlier)

    @property
    def query(self) -> str:
        return query_text(self.step)


def strip_heredocs(command: str) -> str:
    """The command without its heredoc bodies; the operators (``<<EOF``) stay."""
    kept: list[str] = []
    waiting: list[tuple[str, bool]] = []
    for line in command.split("\n"):
        if waiting:
            delimiter, tabs = waiting[0]
            if (line.lstrip("\t") if tabs else line).strip() == delimiter:
                waiting.pop(0)
            continue
        kept.append(line)
        waiting = [(m.group(3), bool(m.group(1))) for m in _HEREDOC.finditer(line)]
    return "\n".join(kept)


def _split(text: str, separators: tuple[str, ...]) -> list[str]:
    """``text`` cut at every separator, quoted or not (the definition does not read quotes)."""
    return re.split("|".join(re.escape(s) for s in separators), text)


def _words(part: str) -> list[str]:
    try:
        return shlex.split(part, comments=False)
    except ValueError:
        return part.split()


def _program(part: str) -> list[str]:
    """The words of a part's first pipeline element, without leading assignments, ``timeout``,
    ``sudo``, ``env`` and bare durations."""
    words = _words(part.split("|", 1)[0])
    while words and (
        _ASSIGNMENT.match(words[0]) or words[0] in _PREFIXES or _DURATION.match(words[0])
    ):
        words.pop(0)
    return words


def _base(program: str) -> str:
    return program.rstrip("/").rsplit("/", 1)[-1]


def _python(args: Sequence[str]) -> str:
    rest = iter(args)
    for arg in rest:
        if arg == "-m":
            module = next(rest, "")
            return f"python -m {module}".rstrip()
        if arg.startswith("-m") and len(arg) > 2:
            return f"python -m {arg[2:]}"
        if arg == "-c" or arg.startswith("-c"):
            return "python -c"
        if arg in _PYTHON_VALUED:
            next(rest, None)
            continue
        if arg.startswith("-"):
            continue
        return "runtests" if arg.endswith("runtests.py") else "python script"
    return "python script"


def family(command: str) -> str | None:
    """The command family of a step: the program of its last non-trivial part (``python -m
    pytest``, ``python -c``, ``python script``, ``runtests``, ``grep`` …), or None."""
    chosen: list[str] | None = None
    for raw in _split(strip_heredocs(command), ("&&", "||", ";", "\n")):
        part = raw.strip()
        if not part or "<<" in part.replace("<<<", "") or part[0] in "(#{}":
            continue
        words = _program(part)
        if not words or _base(words[0]) in _TRIVIAL:
            continue
        chosen = words
    if chosen is None:
        return None
    program = _base(chosen[0])
    if program == "runtests.py":
        return "runtests"
    if _PYTHON.match(program):
        return _python(chosen[1:])
    return program


def normalise(message: str) -> str:
    """An error message without what changes between runs: long quotes, paths, hex, constants,
    numbers; lower case, its first 12 words. A short quoted word (``'reproduce_app'``) is kept as
    it is but for its digits: it names what went wrong."""
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(_DIGITS.sub("N", match.group(0)))
        return "\0"

    text = _SHORT_QUOTE.sub(keep, message.replace("\0", ""))
    text = _QUOTED.sub("Q", text)
    text = _PATH.sub("P", text)
    text = _HEX.sub("H", text)
    text = _CAPS.sub("C", text)
    text = _DIGITS.sub("N", text)
    restored = iter(kept)
    text = re.sub("\0", lambda _: next(restored), text)
    return " ".join(text.lower().split()[:SIGNATURE_WORDS])


def error_line(output: str) -> str | None:
    """The line an output's error signature is read from: its last exception line, else its first
    line that says an error happened; None when it has neither."""
    lines = [line for line in output.splitlines() if line.strip()]
    last = None
    for line in lines:
        if not line.startswith("Traceback") and _EXCEPTION.match(line):
            last = line
    if last is not None:
        return last
    return next((line for line in lines if _MESSAGE.search(line)), None)


def signature(output: str) -> str | None:
    """The error signature of an output: ``Class: message`` from its last exception line (the
    class without its module), else the first line that says an error happened, normalised; None
    when it says neither."""
    line = error_line(output)
    if line is None:
        return None
    match = _EXCEPTION.match(line)
    if match is None:
        return normalise(line)
    return f"{match.group(1).rsplit('.', 1)[-1]}: {normalise(match.group(2) or '')}"


def failures(session: Session) -> list[Failure]:
    """The session's failures in order, each with its fix when one came within ``FIX_WINDOW``
    steps."""
    families = [family(step.command) for step in session.steps]
    found: list[Failure] = []
    for index, step in enumerate(session.steps):
        name = families[index]
        if step.code == 0 or name is None:
            continue
        sign = signature(step.output)
        if sign is None:
            continue
        fix: tuple[str, ...] = ()
        for later in range(index + 1, min(index + 1 + FIX_WINDOW, len(session.steps))):
            if families[later] == name and session.steps[later].code == 0:
                fix = tuple(s.command for s in session.steps[index + 1 : later + 1])
                break
        found.append(Failure(session.id, index, name, sign, fix, bool(fix)))
    return found


def probes(sessions: Iterable[Session]) -> list[Probe]:
    """The probes of one project's sessions, replayed in start order."""
    fixed: dict[str, list[Failure]] = {}
    out: list[Probe] = []
    for session in ordered(sessions):
        found = failures(session)
        seen: set[str] = set()
        for failure in found:
            if failure.kind in seen:
                continue
            seen.add(failure.kind)
            out.append(
                Probe(failure, session.steps[failure.index], list(fixed.get(failure.kind, [])))
            )
        for failure in found:
            if failure.fixed:
                fixed.setdefault(failure.kind, []).append(failure)
    return out


def ordered(sessions: Iterable[Session]) -> list[Session]:
    """Sessions in the order they started (ties by id)."""
    return sorted(sessions, key=lambda s: (s.start, s.id))


def query_text(step: Step) -> str:
    """What the agent sees at a failure, as every system is asked: the command's first 300
    characters, then the output's first ~150 and last ~440."""
    from ..transcripts.calls import clip

    return f"{step.command[:QUERY_COMMAND]}\n{clip(step.output, QUERY_OUTPUT)}".strip()
