"""Verdicts for a session's injections from the commands it ran (``lessons.usage``): the pure step
between the injection record, the memories it names and a session's shell calls, whoever read
them (the hooks from a transcript at session end, ``hindsight eval replay`` from a trajectory).

After a repeat recall, the commands after the failing call it answered are read (the first
``usage.WINDOW``), and the same kind of error coming back makes the memory misleading; after a
session-start injection, every command of the session is read and only used or ignored is said.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ..lessons import signatures, usage
from ..models import Memory
from .injections import Injection

# the injections whose use is judged
JUDGED = ("repeat-error", "session-start")


class Call(NamedTuple):
    """One shell call of a session: its command, exit code, output and the client's call id."""

    command: str
    code: int
    output: str
    call: str = ""


def _kind(call: Call) -> str | None:
    if not call.code:
        return None
    family = signatures.family(call.command)
    return signatures.kind(family, signatures.signature(call.output) if family else None)


def _split(entry: Injection, calls: Sequence[Call]) -> tuple[str, list[Call]]:
    """The failing command the injection answered ("" after a session start), and the commands
    after it that are read."""
    if entry.event != "repeat-error":
        return "", list(calls)
    at = next((n for n, c in enumerate(calls) if entry.call and c.call == entry.call), None)
    if at is None:
        return "", []
    return calls[at].command, list(calls[at + 1 : at + 1 + usage.WINDOW])


def judge(
    entries: Sequence[Injection], memories: Mapping[str, Memory], calls: Sequence[Call]
) -> list[tuple[Injection, str, str]]:
    """(injection, memory id, verdict) for each memory with a fix in ``entries`` whose calls could
    be placed."""
    out = []
    for entry in entries:
        failed, after = _split(entry, calls)
        if not after:
            continue
        for memory_id in entry.ids:
            memory = memories.get(memory_id)
            if memory is None or not memory.resolution:
                continue
            wanted = signatures.kind(
                str(memory.metadata.get("family") or ""),
                str(memory.metadata.get("signature") or ""),
            )
            repeat = entry.event == "repeat-error" and wanted is not None
            later = [(c.command, repeat and _kind(c) == wanted) for c in after]
            verdict = usage.judge([memory.resolution], later, failed)
            out.append((entry, memory_id, verdict))
    return out
