"""A failed tool call and the later call that fixed it, in the same session: the one rule that the
hooks (``core/events.py``) and transcript mining (``transcripts/``) both apply.

A success fixes an earlier failure when it is a call of the same tool whose arguments share enough
keyword terms with the failed call's (Jaccard overlap of ``text.terms`` at least ``FIXED_BY``): a
retried ``pytest -q tests/test_api.py`` fixes the failed ``pytest tests/test_api.py``, an unrelated
``ls`` does not. Pure functions and a small tracker; nothing here reads or writes a store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from ..text import terms

if TYPE_CHECKING:
    from ..models import Memory, WriteResult
    from ..store import Store

# term overlap between a failed call's arguments and a later success that counts as its fix
FIXED_BY = 0.3
# open failures kept per session; the oldest go first (a fix that late is a coincidence)
MAX_OPEN = 64


def related(a: str, b: str) -> bool:
    """Whether two calls' arguments are about the same thing (term overlap at least
    ``FIXED_BY``)."""
    x, y = _terms(a), _terms(b)
    return bool(x | y) and len(x & y) / len(x | y) >= FIXED_BY


@lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    # a session repeats its commands: each is stemmed once
    return frozenset(terms(text))


def fixes(failed_tool: str | None, failed_args: str, tool: str | None, args: str) -> bool:
    """Whether a successful call of ``tool`` with ``args`` fixes a failed call of
    ``failed_tool``."""
    return bool(tool) and failed_tool == tool and related(failed_args or "", args or "")


def resolution(tool: str, args: str | None) -> str:
    """The resolution text a fixed failure gets: what succeeded afterwards."""
    return f"then {tool} succeeded with: {args or '(no arguments)'}"


def record_fix(store: Store, failure: Memory, tool: str, args: str | None, key: str) -> WriteResult:
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
        resolution=resolution(tool, args),
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
    id)."""

    ref: str
    tool: str
    args: str


class Tracker:
    """The open failures of one session, in order. Feed it every call as it happened: ``failed`` for
    a failure, ``succeeded`` for a success, which returns (and closes) the failures it fixes."""

    def __init__(self, open_failures: Iterable[Failure] = ()) -> None:
        self.open: list[Failure] = list(open_failures)[-MAX_OPEN:]

    def failed(self, ref: str, tool: str, args: str) -> None:
        self.open.append(Failure(ref, tool, args))
        del self.open[:-MAX_OPEN]

    def succeeded(self, tool: str, args: str) -> list[Failure]:
        fixed = [f for f in self.open if fixes(f.tool, f.args, tool, args)]
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
            Failure(str(i.get("ref") or ""), str(i.get("tool") or ""), str(i.get("args") or ""))
            for i in items
            if isinstance(i, Mapping)
        )
