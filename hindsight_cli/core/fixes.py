"""A failed tool call and the later call that fixed it, in the same session: the one rule that the
hooks (``core/events.py``) and transcript mining (``transcripts/``) both apply, and the lesson
memory both write for it.

A failure whose call has a family (``lessons.signatures``: a shell command's program, else the
tool) is fixed by the first success of the same family within ``FIX_WINDOW`` calls: its fix is
the commands from the call after it to that success. A failure without one is fixed by a later
call of the same tool whose arguments share enough keyword terms with it (Jaccard overlap of
``text.terms`` at least ``FIXED_BY``): a retried ``pytest -q tests/test_api.py`` fixes the failed
``pytest tests/test_api.py``, an unrelated ``ls`` does not. Pure functions and a small tracker;
nothing here reads or writes a store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from ..lessons.signatures import kind, step_trail, tag
from ..text import terms
from .prepare import derived_key

if TYPE_CHECKING:
    from ..models import JSONObject, JSONValue, Memory, WriteResult
    from ..store import Store

# term overlap between a failed call's arguments and a later success that counts as its fix
FIXED_BY = 0.3
# open failures kept per session; the oldest go first (a fix that late is a coincidence)
MAX_OPEN = 64


def related(a: str, b: str) -> bool:
    """Whether two calls' arguments are about the same thing (term overlap at least
    ``FIXED_BY``)."""
    return related_terms(_terms(a), _terms(b))


def related_terms(x: frozenset[str], y: frozenset[str]) -> bool:
    """``related`` of two calls' arguments' terms (``args_terms``)."""
    if x.isdisjoint(y):
        return False
    return len(x & y) / len(x | y) >= FIXED_BY


def args_terms(args: str) -> frozenset[str]:
    """The terms ``related`` compares of a call's arguments."""
    return _terms(args)


@lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    # a session repeats its commands: each is stemmed once
    return frozenset(terms(text))


def fixes(failed_tool: str | None, failed_args: str, tool: str | None, args: str) -> bool:
    """Whether a successful call of ``tool`` with ``args`` fixes a failed call of
    ``failed_tool``."""
    return bool(tool) and failed_tool == tool and related(failed_args or "", args or "")


def resolution(tool: str, args: str | None, trail: Iterable[str] = ()) -> str:
    """The resolution text a fixed failure gets: the commands that led to the success (a failure
    with a family), else what succeeded afterwards."""
    steps = [" ".join(str(step).split()) for step in trail if str(step).strip()]
    if steps:
        return " ; ".join(steps)
    return f"then {tool} succeeded with: {args or '(no arguments)'}"


# the error text a lesson keeps beside its signature line
LESSON_ERROR = 1200


def failure_key(session: str | None, call: str | None, fallback: str) -> str:
    """The idempotency key of a failure memory: from the session and the client's call id when
    both are known (so the hooks and a later ``mine`` of the same session store it once), else
    from ``fallback`` (the spool line's id)."""
    if session and call:
        return derived_key("hook", "error", session, call)
    return derived_key("hook", "error", fallback)


def failure_record(
    *,
    tool: str,
    args: str,
    error: str,
    key: str,
    session: str | None,
    event_at: JSONValue,
    client: str,
    project: str | None,
    call: str | None = None,
    family: str | None = None,
    signature: str | None = None,
    error_line: str | None = None,
) -> JSONObject:
    """The episodic memory of one failed call, as ``Store.import_records`` takes it: what the hooks
    spool and what mining a transcript writes for the same call. A failure of a known kind
    (``family | signature``) carries it in its metadata and as a tag (``sig:…``), its exact lookup
    key in every engine."""
    failure_kind = kind(family, signature)
    head = " ".join((error_line or "").split())
    body = error if not head or head in error else f"{head}\n{error}"
    metadata: JSONObject = {
        "client": client,
        "session": session,
        "project": project,
        "tool": tool,
        "args": args,
    }
    if call:
        metadata["call"] = call
    if family:
        metadata["family"] = family
    if failure_kind:
        metadata.update(signature=signature, error_line=head or None)
    return {
        "type": "episodic",
        "task_id": session or None,
        "event_at": event_at,
        "tags": ["hook", client or "agent"] + ([tag(failure_kind)] if failure_kind else []),
        "metadata": metadata,
        "content": f"{tool} failed: {args or '(no arguments)'}\nError: {body}",
        "trigger": "tool_error",
        "outcome": "failure",
        "source": "tool",
        "importance": 0.8,
        "key": key,
    }


def record_fix(
    store: Store,
    failure: Memory,
    tool: str,
    args: str | None,
    key: str,
    trail: Iterable[str] = (),
) -> WriteResult:
    """Give a stored failure its fix: a new version with the resolution, superseding it. ``key``
    makes the write idempotent (the same fix recorded twice is stored once)."""
    fixed_by = args or "(no arguments)"
    return store.record(
        failure.content,
        supersedes=failure.id,
        type=failure.type,
        agent_id=failure.agent_id,
        task_id=failure.task_id,
        step=failure.step,
        trigger=failure.trigger or "tool_error",
        outcome="failure",
        resolution=resolution(tool, args, trail),
        importance=0.9,
        source=failure.source,
        tags=failure.tags,
        event_at=failure.event_at,
        metadata={**failure.metadata, "fixed_by": fixed_by},
        key=key,
    )


@dataclass(frozen=True)
class Failure:
    """A failed call that no later call has fixed yet; ``ref`` names what it belongs to (a memory
    id); ``family`` its call's family, ``trail`` the calls made since (a fix's commands)."""

    ref: str
    tool: str
    args: str
    family: str = ""
    trail: tuple[str, ...] = ()


def closes(failure: Failure, tool: str, args: str, family: str | None) -> bool:
    """Whether a success fixes ``failure``: the same family, else (no family) the same tool on
    related arguments."""
    if failure.family:
        return failure.family == family
    return fixes(failure.tool, failure.args, tool, args)


class Tracker:
    """The open failures of one session, in order. Feed it every call as it happened: ``failed`` for
    a failure, ``succeeded`` for a success, which returns (and closes) the failures it fixes, each
    with its trail (the calls from the one after it to the fixing one)."""

    def __init__(self, open_failures: Iterable[Failure] = ()) -> None:
        self.open: list[Failure] = list(open_failures)[-MAX_OPEN:]

    def _step(self, args: str) -> None:
        stepped = [(f, step_trail(f.family, f.trail, args)) for f in self.open]
        self.open = [replace(f, trail=t) for f, t in stepped if t is not None]

    def failed(self, ref: str, tool: str, args: str, family: str | None = None) -> None:
        self._step(args)
        self.open.append(Failure(ref, tool, args, family or ""))
        del self.open[:-MAX_OPEN]

    def succeeded(self, tool: str, args: str, family: str | None = None) -> list[Failure]:
        self._step(args)
        fixed = [f for f in self.open if closes(f, tool, args, family)]
        if fixed:
            self.open = [f for f in self.open if f not in fixed]
        return fixed

    def copy(self) -> Tracker:
        return Tracker(self.open)

    def to_list(self) -> list[dict[str, str]]:
        return [asdict(f) for f in self.open]

    @classmethod
    def from_list(cls, items: Iterable[object]) -> Tracker:
        return cls(
            Failure(
                str(i.get("ref") or ""),
                str(i.get("tool") or ""),
                str(i.get("args") or ""),
                str(i.get("family") or ""),
                tuple(str(t) for t in i.get("trail") or () if isinstance(i.get("trail"), list)),
            )
            for i in items
            if isinstance(i, Mapping)
        )
