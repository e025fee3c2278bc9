"""The four systems ``hindsight eval replay`` asks at a probe, each holding only what came before.

``Hooks``: every step sent through the hooks as Claude Code sends them; its answer at a probe is
what the hook printed for that failure. ``Mined``: each earlier session mined after it ended, asked
through ``Store.search(troubleshoot=True)``. ``Lessons``: the earlier sessions' fixed failures as
plain texts, for the two baselines, BM25 and the most recent fix of the same command family.
Every memory shown names its source: the failure it was written from (``<session>#<step>``), or
the session for a memory of a whole session (an exchange, a summary).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.verdicts import Call
from ..lessons import signatures
from ..models import Memory
from ..search.budget import context_line
from ..store import Store
from ..text import estimate_tokens
from ..transcripts import reader
from ..transcripts.calls import clip
from ..transcripts.miner import Miner
from . import probes
from .bm25 import BM25
from .probes import Failure, Probe, Session

# (hook event, Claude Code's payload, store) -> (what the hook printed, whether it worked)
Send = Callable[[str, dict[str, Any], Path], tuple[str, bool]]
# the baselines' hits considered, and how long a lesson's line may grow
_TOP = 10
_COMMAND_CHARS, _ERROR_CHARS, _FIX_CHARS = 200, 200, 400
# characters of a command's output a client hands its hooks (Claude Code cuts at 30,000)
_CLIENT_OUTPUT = 30_000
_TIMES = re.compile(r"^- fixed \d+ times: ")
# characters a cut block line must share with a memory's line to be that memory
_MIN_SHARED = 40


@dataclass
class Answer:
    """A system's answer at a probe: the memories it returned in rank order, each as the sources it
    may have been written from (one, unless several memories read exactly alike), which of them
    the block the agent would read shows, the block, its tokens and the time taken."""

    ranked: list[tuple[str, ...]] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)
    block: str = ""
    tokens: int = 0
    ms: float = 0.0

    @property
    def sources(self) -> list[str]:
        """The source of each memory in the block, in order."""
        return [self.ranked[i][0] if self.ranked[i] else "?" for i in self.shown]


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def memory_source(memory: Memory) -> str:
    """``<session>#<step>`` for a memory of one failure, else the session it belongs to."""
    meta = memory.metadata
    return str(meta.get("call") or meta.get("session") or memory.task_id or memory.id)


class Hooks:
    """One project's store fed by the hooks, as Claude Code would call them."""

    def __init__(self, root: Path, send: Send, reinforce: bool = False) -> None:
        self.cwd = root
        self.path = root / ".hindsight"
        self.send = send
        # judge each session's injections when it ends (what reinforcement ranks by)
        self.reinforce = reinforce
        self.errors = 0
        # each memory's line in a block, and the sources of the memories that read so
        self._lines: dict[str, list[str]] = {}
        self._seen: set[str] = set()

    def _call(self, event: str, session: Session, **fields: Any) -> tuple[str, float]:
        payload = {
            "session_id": session.id,
            "cwd": str(self.cwd),
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }
        # a Claude Code session's own transcript, which the hooks mine when it ends
        if session.client == "claude-code" and session.source is not None:
            payload["transcript_path"] = str(session.source)
        start = time.perf_counter()
        out, ok = self.send(event, payload, self.path)
        elapsed = _ms(start)
        self.errors += not ok
        return out, elapsed

    def replay(self, session: Session, at: dict[int, Probe]) -> dict[str, Answer]:
        """Send the session's events; the answers at its probes."""
        answers: dict[str, Answer] = {}
        self._call("SessionStart", session, source="startup")
        if session.prompt:
            self._call("UserPromptSubmit", session, prompt=session.prompt)
        for index, step in enumerate(session.steps):
            call: dict[str, Any] = {
                "tool_name": "Bash",
                "tool_use_id": f"{session.id}#{index}",
                "tool_input": {"command": step.command},
            }
            if step.code:
                out, ms = self._call(
                    "PostToolUseFailure",
                    session,
                    **call,
                    error=f"Exit code {step.code}\n{clip(step.output, _CLIENT_OUTPUT)}",
                    is_interrupt=False,
                )
            else:
                response = {"stdout": step.output, "stderr": "", "interrupted": False}
                out, ms = self._call("PostToolUse", session, **call, tool_response=response)
            if index in at:
                answers[at[index].id] = self._answer(out, ms)
        self._call("SessionEnd", session, reason="other")
        if self.reinforce:
            steps = enumerate(session.steps)
            calls = [Call(s.command, s.code, s.output, f"{session.id}#{i}") for i, s in steps]
            Store(self.path).judge_session(session.id, calls)
        return answers

    def _answer(self, out: str, ms: float) -> Answer:
        try:
            block = str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""
        except (ValueError, KeyError, TypeError):
            block = ""
        if not block:
            return Answer(ms=ms)
        ranked = [self._sources(line) for line in block.split("\n")[1:]]
        return Answer(ranked, list(range(len(ranked))), block, estimate_tokens(block), ms)

    def _sources(self, line: str) -> tuple[str, ...]:
        """The memories a block line shows: those whose line it is (several when written alike),
        else, for a line cut to fit, those it shares the longest start with."""
        self._refresh()
        # several sessions' lessons of one kind, as one line: its fix is the first one's
        line = _TIMES.sub("- ", line)
        if line in self._lines:
            return tuple(self._lines[line])
        best, found = 0, []
        for text, sources in self._lines.items():
            shared = _shared(text, line)
            if shared > best:
                best, found = shared, list(sources)
            elif shared == best and shared:
                found.extend(sources)
        return tuple(dict.fromkeys(found)) if best >= _MIN_SHARED else ()

    def _refresh(self) -> None:
        # every version of every memory: a block may show one that a later fix superseded
        for memory in Store(self.path).list(limit=None):
            if memory.id not in self._seen:
                self._seen.add(memory.id)
                sources = self._lines.setdefault(context_line(memory), [])
                if memory_source(memory) not in sources:
                    sources.append(memory_source(memory))


def _shared(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class Mined:
    """One project's store fed by ``hindsight mine``, session by session."""

    def __init__(self, root: Path) -> None:
        self.store = Store(root / ".hindsight")
        # (session, the client's id of a call) -> the step it is, <session>#<index>
        self.steps: dict[tuple[str, str], str] = {}

    def add(self, session: Session) -> None:
        if session.source is None:
            return
        module = reader(session.client)
        # the session's own unit: a file's, or one of the sessions of an OpenCode database
        units = [
            unit
            for unit in module.units(session.source)
            if unit.meta.get("session", session.id) == session.id
        ]
        Miner(self.store).mine(module, units)
        for index, step in enumerate(session.steps):
            if step.call:
                self.steps[(session.id, step.call)] = f"{session.id}#{index}"

    def ask(self, probe: Probe, budget: int) -> Answer:
        start = time.perf_counter()
        if not self.store.exists:
            return Answer(ms=_ms(start))
        now = (
            datetime.fromtimestamp(probe.step.at, UTC).replace(tzinfo=None)
            if probe.step.at
            else None
        )
        result = self.store.search(probe.query, troubleshoot=True, budget=budget, now=now)
        ms = _ms(start)
        if not result.hits:
            return Answer(ms=ms)
        ranked: list[tuple[str, ...]] = [(self._source(h.memory),) for h in result.hits]
        return Answer(
            ranked,
            list(range(len(ranked))),
            result.context,
            estimate_tokens(result.context),
            ms,
        )

    def _source(self, memory: Memory) -> str:
        """A mined failure's step, ``<session>#<index>``, for the client's id of its call."""
        meta = memory.metadata
        found = self.steps.get((str(meta.get("session") or ""), str(meta.get("call") or "")))
        return found or memory_source(memory)


@dataclass(frozen=True)
class Lesson:
    """A fixed failure of an earlier session, as a text to search and a line to show."""

    failure: Failure
    text: str
    line: str


class Lessons:
    """The fixed failures of the sessions replayed so far, for the two baselines."""

    def __init__(self) -> None:
        self.lessons: list[Lesson] = []
        self.index = BM25()

    def add(self, session: Session) -> None:
        for failure in probes.failures(session):
            if failure.fixed:
                step = session.steps[failure.index]
                text = probes.query_text(step) + "\n" + "\n".join(failure.fix)
                self.lessons.append(Lesson(failure, text, lesson_line(step, failure)))
                self.index.add(text)

    def bm25(self, probe: Probe, budget: int) -> Answer:
        start = time.perf_counter()
        ranked = [self.lessons[position] for position, _ in self.index.top(probe.query, _TOP)]
        return _plain(ranked, budget, start)

    def recent(self, probe: Probe, budget: int) -> Answer:
        start = time.perf_counter()
        same = [x for x in self.lessons if x.failure.family == probe.failure.family]
        return _plain(same[-1:], budget, start)


def _one_line(text: str, limit: int) -> str:
    return clip(" ".join(text.split()), limit)


def lesson_line(step: probes.Step, failure: Failure) -> str:
    """``- command → error line — fix: commands``, each part cut to a length."""
    error = signatures.error_line(step.output) or ""
    fix = " ; ".join(failure.fix)
    return (
        f"- {_one_line(step.command, _COMMAND_CHARS)} → {_one_line(error, _ERROR_CHARS)}"
        f" — fix: {_one_line(fix, _FIX_CHARS)}"
    )


def _plain(ranked: list[Lesson], budget: int, start: float) -> Answer:
    """The lessons' lines in rank order while they fit ``budget`` tokens (the first one cut to fit
    rather than dropped)."""
    lines: list[str] = []
    shown: list[int] = []
    for position, lesson in enumerate(ranked):
        line = lesson.line
        if estimate_tokens("\n".join([*lines, line])) > budget:
            if lines:
                continue
            line = line[: max(0, budget * 4 - 2)] + " …"
        lines.append(line)
        shown.append(position)
    block = "\n".join(lines)
    return Answer(
        [(x.failure.id,) for x in ranked],
        shown,
        block,
        estimate_tokens(block) if block else 0,
        _ms(start),
    )
