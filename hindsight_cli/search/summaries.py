"""Summaries in a block (issue 30, point 5): a summary and the memories it covers say the same
thing twice, so a block holds one or the other, whichever ranks higher; and a summary of a time
range, a digest of whatever happened then, never ranks above a precise memory.

A summary is a memory ``summarize`` derived (``core.derive``): ``metadata.summary_of`` is its task
or its range (``<since>..<until>``), ``source_ids`` the memories it covers (a chain's top summary:
its part summaries, which cover the memories)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from ..poisoning import QUARANTINE_TAG, less_trusted
from ..storage.rows import MemoryRow

T = TypeVar("T")
_COVERED_TYPES = ("episodic", "working")


def summary_of(row: MemoryRow) -> str | None:
    value = (row.metadata or {}).get("summary_of")
    return value if isinstance(value, str) and value else None


def is_range_summary(row: MemoryRow) -> bool:
    """A summary of a time range, not of a task."""
    scope = summary_of(row)
    return scope is not None and row.task_id is None and ".." in scope


def _range(scope: str) -> tuple[datetime | None, datetime | None]:
    def read(text: str) -> datetime | None:
        try:
            return datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)
        except ValueError:
            return None

    since, _, until = scope.partition("..")
    return read(since), read(until)


def covers(summary: MemoryRow, row: MemoryRow, rows: dict[str, MemoryRow]) -> bool:
    """Whether ``summary`` covers ``row``: it names it (or names a part summary that does), or
    ``row`` is an episode of its task or range."""
    if row.id in summary.source_ids:
        return True
    for part in summary.source_ids:
        found = rows.get(part)
        if found is not None and summary_of(found) is not None and row.id in found.source_ids:
            return True
    scope = summary_of(summary)
    if scope is None or summary_of(row) is not None or row.type not in _COVERED_TYPES:
        return False
    if summary.task_id is not None:
        return row.task_id == summary.task_id and row.agent_id == summary.agent_id
    since, until = _range(scope)
    at = row.event_at.replace(tzinfo=None)
    return (since is None or at >= since) and (until is None or at <= until)


def _named(summary: MemoryRow, rows: dict[str, MemoryRow]) -> set[str]:
    """The memories a summary names, through its parts when they are among ``rows``."""
    out = set(summary.source_ids)
    for part in summary.source_ids:
        found = rows.get(part)
        if found is not None and summary_of(found) is not None:
            out |= set(found.source_ids)
    return out


def _repeats(this: MemoryRow, other: MemoryRow, rows: dict[str, MemoryRow]) -> bool:
    """Whether ``this`` says again what ``other``, ranked above it, says. An untrusted memory never
    stands for a trusted one (``less_trusted``): a summary an import, a page or a tool's output
    claims to be would keep what the user wrote out of the block. Nor does one agent's memory
    stand for another's: a summary is of one agent's memories (``derive``), and a token principal
    may write any metadata, so one claiming to be a summary of ``x`` (no task, no range: every
    episode) kept another principal's memories, and the owner's from a page or a tool, out of the
    owner's block (review BQ)."""
    if this.agent_id != other.agent_id or less_trusted(other, this):
        return False
    if summary_of(other) is not None and covers(other, this, rows):
        return True
    if summary_of(this) is None:
        return False
    if covers(this, other, rows):
        return True
    # two summaries of the same memories (a task's and a range's)
    return summary_of(other) is not None and bool(_named(this, rows) & _named(other, rows))


def one_of_each(items: Sequence[T], row: Callable[[T], MemoryRow]) -> list[T]:
    """``items`` in rank order without a summary below a memory it covers, nor a memory below a
    summary that covers it (a top summary and its parts alike), nor a summary below another of the
    same memories: the higher one stays."""
    rows = {row(item).id: row(item) for item in items}
    kept: list[T] = []
    # only a summary repeats another memory or is repeated (``_repeats``): a memory that is none
    # is checked against the summaries kept, not every hit above it (a search of many hits grew
    # with their square)
    summaries: list[MemoryRow] = []
    for item in items:
        this = row(item)
        above = map(row, kept) if summary_of(this) is not None else summaries
        if any(_repeats(this, other, rows) for other in above):
            continue
        kept.append(item)
        if summary_of(this) is not None:
            summaries.append(this)
    return kept


def ranges_after_facts(items: Sequence[T], row: Callable[[T], MemoryRow]) -> list[T]:
    """``items`` with each time-range summary moved after every other trusted hit (before the
    quarantined ones, which come last)."""
    held_back = [i for i in items if QUARANTINE_TAG in (row(i).tags or [])]
    ranges = [i for i in items if is_range_summary(row(i)) and i not in held_back]
    rest = [i for i in items if i not in ranges and i not in held_back]
    return [*rest, *ranges, *held_back]
