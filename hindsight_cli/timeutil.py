"""Timestamps (UTC, ISO 8601) and durations such as ``30d`` or ``2h``."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from .errors import BadUsage

# blanks read once (split every way before an end that does not come, 64 KB of blanks in an
# MCP caller's ttl held the server for minutes; review AQ)
_DURATION = re.compile(r"^\s*+(\d+(?:\.\d+)?)\s*+(s|sec|m|min|h|d|w|y)?\s*+$", re.I)
_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}


def given(text: str) -> str:
    """``text`` as an error names it: its first 40 characters, so a 64 KB value (an MCP caller's
    ``ttl``, a memory id) is not printed back whole."""
    return repr(text) if len(text) <= 40 else f"{text[:40]!r}… ({len(text):,} characters)"


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def as_utc(value: datetime, what: str = "time") -> datetime:
    """A moment as the store keeps moments, naive UTC: an aware one converted (``now=`` with any
    time zone), a naive one taken as UTC already. ``BadUsage`` for a moment whose UTC falls outside
    the calendar Python counts (``9999-12-31T23:00-14:00`` is in year 10000)."""
    if value.tzinfo is None:
        return value
    try:
        return value.astimezone(UTC).replace(tzinfo=None)
    except OverflowError:
        raise BadUsage(
            f"Invalid {what} {value.isoformat()!r}: in UTC it falls outside the years 1 to 9999."
        ) from None


def as_utc_or_none(value: datetime | None) -> datetime | None:
    return None if value is None else as_utc(value)


# seconds: the longest duration accepted
_LONGEST = 1000 * 365.25 * 86400


def parse_duration(text: str, what: str = "duration") -> timedelta:
    """``90s``, ``15m``, ``2h``, ``30d``, ``1w``, ``1y`` (a bare number means days)."""
    match = _DURATION.match(text or "")
    if not match:
        raise BadUsage(
            f"Invalid {what} {given(text)}: use a number and a unit, e.g. 30m, 2h, 7d or 1w."
        )
    value, unit = float(match.group(1)), (match.group(2) or "d").lower()
    seconds = value * _UNITS[unit]
    # a date that far away is no date (and past year 9999, no datetime at all)
    if not seconds <= _LONGEST:
        raise BadUsage(f"Invalid {what} {given(text)}: at most 1000 years (1000y).")
    return timedelta(seconds=seconds)


# seconds: the longest a command waits for one answer
MAX_WAIT = 3600.0


def check_wait(seconds: float, what: str = "--timeout") -> float:
    """A wait in seconds: more than 0 and at most ``MAX_WAIT`` (NaN passes every comparison, so a
    range check alone lets it through; ``inf`` never ends)."""
    if isinstance(seconds, bool) or not 0 < seconds <= MAX_WAIT:
        raise BadUsage(
            f"{what} must be a number of seconds above 0 and at most {MAX_WAIT:g}, not {seconds!r}."
        )
    return seconds


def parse_time(text: str, what: str = "time") -> datetime:
    """An ISO 8601 date or datetime (UTC if no offset), or a duration meaning that long ago
    (``7d``)."""
    text = (text or "").strip()
    if _DURATION.match(text) and not re.fullmatch(r"\d{4}", text):
        return now() - parse_duration(text, what)
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadUsage(
            f"Invalid {what} {given(text)}: use an ISO date such as 2026-03-15 or "
            f"2026-03-15T09:30:00Z, or an age such as 7d."
        ) from None
    return as_utc(value, what)


# how far ahead of this clock another machine's may run (a transcript or an export made there)
CLOCK_SKEW = timedelta(days=1)


def check_past(value: datetime, what: str, at: datetime) -> datetime:
    """``value`` when it is not later than ``at`` (plus another clock's skew): the time something
    happened or was recorded. A later one would rank and inject first for as long as it is kept (a
    file that dates its memories in 2099 stays the newest), so it is refused."""
    if as_utc(value) > as_utc(at) + CLOCK_SKEW:
        raise BadUsage(
            f"{what} {iso(as_utc(value))} is in the future: it says when the memory happened or "
            "was recorded; give a past time, or leave it out for now."
        )
    return value


def parse_future(text: str, what: str = "time") -> datetime:
    """An ISO datetime, or a duration from now (``2h`` means two hours from now)."""
    text = (text or "").strip()
    if _DURATION.match(text) and not re.fullmatch(r"\d{4}", text):
        return now() + parse_duration(text, what)
    return parse_time(text, what)


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    # isoformat, not strftime: glibc's %Y does not pad a year before 1000 ("1-01-02"), a text no
    # reader of it (fromisoformat, the table's age) takes back
    return value.isoformat(timespec="microseconds") + "Z"


def age(value: datetime, at: datetime | None = None) -> str:
    """A short human age: ``45s``, ``12m``, ``3h``, ``5d``, ``2mo``, ``1y``."""
    seconds = max(0.0, ((at or now()) - value).total_seconds())
    for limit, unit, size in (
        (60, "s", 1),
        (3600, "m", 60),
        (86400, "h", 3600),
        (86400 * 60, "d", 86400),
        (86400 * 365, "mo", 86400 * 30),
    ):
        if seconds < limit:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds // (86400 * 365))}y"
