"""Calendar arithmetic for ``text.when``: a ``Span`` of whole days, the day, week, weekend, month
and year spans, and the rules that place a day or month said without its year, a weekday, "last"
and "next", and "N units ago"."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        1,
    )
    for name in names
}
WEEKDAYS = {
    name: number
    for number, names in enumerate(
        [
            # full names only: "sat", "sun" and "wed" are words too
            ("monday",),
            ("tuesday", "tues"),
            ("wednesday",),
            ("thursday", "thurs"),
            ("friday",),
            ("saturday",),
            ("sunday",),
        ]
    )
    for name in names
}
NUMBERS = {
    **{w: n for n, w in enumerate("one two three four five six seven eight nine ten".split(), 1)},
    "eleven": 11,
    "twelve": 12,
    "a": 1,
    "an": 1,
    "couple": 2,
    "a couple": 2,
    "a couple of": 2,
    "few": 3,
    "a few": 3,
}
# Chinese digits (``core.fact_lexicon`` reads numbers with them too)
ZH_DIGIT = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
HAN_DIGITS = {k: v for k, v in ZH_DIGIT.items() if v}
HAN_WEEKDAYS = {**{k: v - 1 for k, v in HAN_DIGITS.items() if k != "两"}, "日": 6, "天": 6}


@dataclass(frozen=True)
class Span:
    """Whole days ``start`` (inclusive) to ``end`` (exclusive), and the words that named them."""

    start: date
    end: date
    said: str = ""

    @property
    def days(self) -> int:
        return max(1, (self.end - self.start).days)

    def gap(self, other: Span) -> int:
        """Days between the two spans: 0 when they overlap, 1 when one ends the day before the
        other starts."""
        if self.start < other.end and other.start < self.end:
            return 0
        if other.start >= self.end:
            return (other.start - self.end).days + 1
        return (self.start - other.end).days + 1

    def label(self) -> str:
        last = self.end - timedelta(days=1)
        return str(self.start) if last <= self.start else f"{self.start}..{last}"

    def to_json(self) -> dict[str, str]:
        return {"from": str(self.start), "to": str(self.end - timedelta(days=1)), "said": self.said}


def day(d: date, said: str = "") -> Span:
    return Span(d, d + timedelta(days=1), said)


def week(d: date, said: str = "") -> Span:
    monday = d - timedelta(days=d.weekday())
    return Span(monday, monday + timedelta(days=7), said)


def weekend(saturday: date, said: str = "") -> Span:
    return Span(saturday, saturday + timedelta(days=2), said)


def month(year: int, number: int, said: str = "") -> Span:
    first = date(year, number, 1)
    following = date(year + number // 12, number % 12 + 1, 1)
    return Span(first, following, said)


def year(number: int, said: str = "") -> Span:
    return Span(date(number, 1, 1), date(number + 1, 1, 1), said)


def months_back(d: date, count: int) -> tuple[int, int]:
    index = d.year * 12 + d.month - 1 - count
    return index // 12, index % 12 + 1


def local_day(moment: datetime) -> date:
    """The calendar day of a moment as its speaker counts it: an aware moment in its own zone, a
    naive one (UTC, as the store keeps them) as it is."""
    return moment.date()


# --- the patterns, compiled on first use -------------------------------------------------------


def han(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text.startswith("十"):
        return 10 + HAN_DIGITS.get(text[1:], 0)
    return HAN_DIGITS[text]


def han_day(text: str) -> int:
    if text.isdigit():
        return int(text)
    if "十" not in text:
        return HAN_DIGITS[text]
    tens, _, ones = text.partition("十")
    return (HAN_DIGITS[tens] if tens else 1) * 10 + (HAN_DIGITS[ones] if ones else 0)


def nearest(candidates: list[date], said: date, future: bool) -> date:
    """Of a date in several years (a day or month without its year), the one nearest before (or
    at) ``said``, or at or after it when the text speaks of the future."""
    if future:
        return min((c for c in candidates if c >= said), default=candidates[-1])
    return max((c for c in candidates if c <= said), default=candidates[0])


def in_year(y: int | None, m: int, d: int, said: date, future: bool) -> date | None:
    try:
        if y is not None:
            return date(y, m, d)
        years = [said.year - 1, said.year, said.year + 1]
        dates = [date(n, m, d) for n in years if is_date(n, m, d)]
        return nearest(dates, said, future) if dates else None
    except ValueError:
        return None


def is_date(y: int, m: int, d: int) -> bool:
    try:
        date(y, m, d)
    except ValueError:
        return False
    return True


def month_span(y: int | None, m: int, said: date, future: bool, words: str) -> Span:
    if y is None:
        start = nearest(
            [date(n, m, 1) for n in (said.year - 1, said.year, said.year + 1)],
            said.replace(day=1),
            future,
        )
        y = start.year
    return month(y, m, words)


def part_of_month(span: Span, which: str) -> Span:
    """Early (days 1-10), mid (11-20) or late (21-end) in a month."""
    which = " ".join(which.lower().split())
    first = span.start
    if "early" in which or "beginning" in which or "start" in which:
        return Span(first, first + timedelta(days=10), span.said)
    if "mid" in which or "middle" in which:
        return Span(first + timedelta(days=10), first + timedelta(days=20), span.said)
    return Span(first + timedelta(days=20), span.end, span.said)


def weekday_date(said: date, weekday: int, which: str, future: bool) -> date:
    which = " ".join((which or "").lower().split())
    monday = said - timedelta(days=said.weekday())
    if which == "next":
        return monday + timedelta(days=7 + weekday)
    if which in ("this",):
        return monday + timedelta(days=weekday)
    if which in ("coming", "this coming") or (future and which in ("", "on")):
        ahead = (weekday - said.weekday()) % 7 or 7
        return said + timedelta(days=ahead)
    back = (said.weekday() - weekday) % 7 or 7
    return said - timedelta(days=back)


def relative_unit(said: date, unit: str, which: str, words: str) -> Span:
    which = " ".join(which.lower().split())
    step = (
        -1
        if which in ("last", "past", "this past")
        else 1
        if which in ("next", "coming", "this coming")
        else 0
    )
    if unit == "week":
        if which == "past":
            return Span(said - timedelta(days=7), said, words)
        return week(said + timedelta(days=7 * step), words)
    if unit == "weekend":
        saturday = said - timedelta(days=said.weekday()) + timedelta(days=5 + 7 * step)
        return weekend(saturday, words)
    if unit == "month":
        y, m = months_back(said, -step)
        return month(y, m, words)
    return year(said.year + step, words)


def ago_span(said: date, count: int, unit: str, words: str) -> Span:
    if unit in ("day", "天", "日"):
        return day(said - timedelta(days=count), words)
    if unit in ("week", "周", "星期", "礼拜"):
        return week(said - timedelta(days=7 * count), words)
    if unit in ("month", "月"):
        y, m = months_back(said, count)
        return month(y, m, words)
    return year(said.year - count, words)
