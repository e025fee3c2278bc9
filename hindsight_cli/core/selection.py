"""Which memories an operation selects: the one definition of every face's selection options.

``hindsight forget --task T --expired``, ``memory_forget(task_id=T, expired=true)`` and
``Store.forget_where(...)`` all become the same ``Filters`` here (and then one ``ForgetPlan``, in
``Store.plan_forget``), so the faces cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from ..errors import BadUsage
from ..models import Filters
from ..timeutil import parse_duration, parse_time

# how a face spells an option in its messages: "older_than" or "--older-than"
Spelling = Callable[[str], str]


def plain(name: str) -> str:
    return name


def cli_option(name: str) -> str:
    return "--" + name.replace("_", "-")


def forget_filters(
    ids: Sequence[str],
    *,
    task_id: str | None = None,
    agent_id: str | None = None,
    older_than: str | None = None,
    expired: bool = False,
    hard: bool = False,
    archive: bool = False,
    now: datetime,
    spell: Spelling = plain,
) -> tuple[Filters | None, bool]:
    """What a forget by ids and/or filter selects: the filter (None: ids only), and whether it
    purges for good.

    An expired memory is never shown again, so forgetting expired memories purges them (``hard``)
    unless they are archived. A filter on its own selects active and archived memories
    (soft-forgotten ones are already forgotten); a hard forget selects every status, so nothing it
    matches keeps its text.
    """
    by_filter = bool(task_id or agent_id or older_than or expired)
    if not ids and not by_filter:
        raise BadUsage(
            "Say what to forget: one or more ids, or a filter (task, agent, older than, expired)."
        )
    if hard and archive:
        raise BadUsage(
            "Choose one: --hard deletes for good, --archive keeps memories in cold storage."
        )
    hard = hard or (expired and not archive)
    if not by_filter:
        return None, hard
    filters = Filters(
        agent_ids=(agent_id,) if agent_id else None,
        task_id=task_id,
        include_expired=True,
        expired_only=expired,
        statuses=None if hard else ("active", "archived"),
        created_before=now - parse_duration(older_than, spell("older_than"))
        if older_than
        else None,
    )
    return filters, hard


def browse_filters(
    *,
    agent_id: str | None = None,
    task_id: str | None = None,
    types: Sequence[str] | None = None,
    outcomes: Sequence[str] | None = None,
    tags: Sequence[str] = (),
    since: str | datetime | None = None,
    until: str | datetime | None = None,
    statuses: Sequence[str] | None = None,
    sources: Sequence[str] | None = None,
    search: bool = False,
    include_archived: bool = False,
    spell: Spelling = plain,
) -> Filters:
    """The filters of ``list`` (every status and expired memories, unless narrowed) and of
    ``search`` (active, unexpired; archived too with ``include_archived``), built alike by every
    face."""
    if statuses:
        chosen: tuple[str, ...] | None = tuple(statuses)
    elif search:
        chosen = ("active", "archived") if include_archived else ("active",)
    else:
        chosen = None
    return Filters(
        agent_ids=(agent_id,) if agent_id else None,
        task_id=task_id,
        types=tuple(types) if types else None,
        outcomes=tuple(outcomes) if outcomes else None,
        tags=tuple(tags or ()),
        since=when(since, spell("since")),
        until=when(until, spell("until")),
        statuses=chosen,
        include_expired=not search,
        sources=tuple(sources) if sources else None,
    )


def check_limit(limit: int | None, name: str = "limit") -> None:
    """A count of results: a whole number from 1 to ``MAX_COUNT`` (as every listing takes), or None
    for all. Past it, the database's own integer would refuse it as a failed ledger."""
    from ..search.query import MAX_COUNT

    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_COUNT
    ):
        raise BadUsage(
            f"{name} must be a whole number from 1 to {MAX_COUNT:,} (or none for all), not "
            f"{limit!r}."
        )


def shown(limit: int) -> int | None:
    """A command line's ``-n``: 0 for all (None), else a count ``check_limit`` takes."""
    from ..search.query import MAX_COUNT

    if not 0 <= limit <= MAX_COUNT:
        raise BadUsage(
            f"The limit must be a whole number from 0 (all) to {MAX_COUNT:,}, not {limit!r}."
        )
    return limit or None


def when(value: str | datetime | None, name: str) -> datetime | None:
    """A time option (ISO time or an age like ``7d``), or None."""
    if isinstance(value, datetime):
        return value
    return parse_time(value, name) if value else None
