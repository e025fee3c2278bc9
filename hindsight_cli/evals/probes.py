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

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..lessons.signatures import FIX_WINDOW, family, signature

QUERY_COMMAND = 300
QUERY_OUTPUT = 600


@dataclass(frozen=True)
class Step:
    """One shell command of a session: its exit code, its output, when it was asked for (epoch
    seconds; 0 when unknown) and the client's id of the call ("" when unknown)."""

    command: str
    code: int
    output: str
    at: float = 0.0
    call: str = ""


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


def repeats(sessions: Iterable[Session]) -> list[tuple[Session, Failure, list[Failure]]]:
    """Every failure of one project's sessions (replayed in start order) whose kind was fixed
    before it, with those earlier fixed failures, latest first: one earlier in the same session
    whose fix ended before it, or one of an earlier session. The fix a memory would hand back at
    that failure is one the agent could really apply again."""
    fixed: dict[str, list[Failure]] = {}
    out: list[tuple[Session, Failure, list[Failure]]] = []
    for session in ordered(sessions):
        here: dict[str, list[Failure]] = {}
        for failure in failures(session):
            done = [f for f in here.get(failure.kind, []) if f.index + len(f.fix) < failure.index]
            earlier = done[::-1] + fixed.get(failure.kind, [])[::-1]
            if earlier:
                out.append((session, failure, earlier))
            if failure.fixed:
                here.setdefault(failure.kind, []).append(failure)
        for kind, found in here.items():
            fixed.setdefault(kind, []).extend(found)
    return out


def ordered(sessions: Iterable[Session]) -> list[Session]:
    """Sessions in the order they started (ties by id)."""
    return sorted(sessions, key=lambda s: (s.start, s.id))


def query_text(step: Step) -> str:
    """What the agent sees at a failure, as every system is asked: the command's first 300
    characters, then the output's first ~150 and last ~440."""
    from ..transcripts.calls import clip

    return f"{step.command[:QUERY_COMMAND]}\n{clip(step.output, QUERY_OUTPUT)}".strip()
