"""Times a text speaks of, in English and Chinese: the one resolver of "yesterday", "last week", "on
Friday", "in March", "16 January", "2023-05-07", 昨天, 上周, 三月, 五月七日 … against the moment
the text was said.

A memory's text is read once, when it is written (``spoken``: its event times, kept in its metadata
under ``EVENT_TIME``); a query is read once per search (``asked``: the window it names, and whether
it asks when). Both give ``Span`` values: whole calendar days, as the speaker's calendar counts them
(an ``event_at`` with a time zone is read in that zone).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

from .spans import (
    HAN_WEEKDAYS,
    MONTHS,
    NUMBERS,
    WEEKDAYS,
    Span,
    ago_span,
    day,
    han,
    han_day,
    in_year,
    local_day,
    month,
    month_span,
    months_back,
    part_of_month,
    relative_unit,
    week,
    weekday_date,
    weekend,
    year,
)

# the metadata key of a memory's event times: a list of {"from", "to", "said"} (dates, inclusive)
EVENT_TIME = "event_time"
# at most this many spans per memory (a long text names many dates; the first few place it)
MAX_SPANS = 3


def spans_of(metadata: Mapping[str, Any] | None) -> tuple[Span, ...]:
    """A memory's event times as ``spoken`` stored them (anything else under the key is ignored)."""
    value = (metadata or {}).get(EVENT_TIME)
    if not isinstance(value, list):
        return ()
    out = []
    for item in value[:MAX_SPANS]:
        if not isinstance(item, Mapping):
            continue
        try:
            start = date.fromisoformat(str(item.get("from")))
            # the calendar's last day has no day after it (a store written before review BR kept
            # a writer's own times: every search naming a time ended in OverflowError)
            end = date.fromisoformat(str(item.get("to"))) + timedelta(days=1)
        except (ValueError, OverflowError):
            continue
        if end > start:
            out.append(Span(start, end, str(item.get("said") or "")))
    return tuple(out)


_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAY_NAMES = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
# a month named without a day or year: full names, and "May" only with its capital ("this may be")
_MONTH_WORDS = "|".join(n for n in MONTHS if len(n) > 4 or n in ("june", "july")) + "|(?-i:May)"
_COUNT = (
    r"\d{1,2}|" + "|".join(sorted((n for n in NUMBERS if n != "a"), key=len, reverse=True)) + "|a"
)
_HAN_NUMBER = r"[0-9]{1,2}|十[一二]?|[一二两三四五六七八九]"
_ORDINAL = r"(?:st|nd|rd|th)?"
# a year a person would speak of
_YEAR = r"(?:19|20)\d\d"


@lru_cache(maxsize=1)
def _patterns() -> re.Pattern[str]:
    """One alternation of every form, each a named group, tried left to right in the text."""
    forms = [
        rf"(?P<iso>\b(?P<iso_y>{_YEAR})[-/](?P<iso_m>1[0-2]|0?[1-9])[-/](?P<iso_d>3[01]|[12]\d|0?[1-9])\b)",
        rf"(?P<dmy>\b(?P<dmy_d>3[01]|[12]\d|0?[1-9]){_ORDINAL}(?:\s+of)?\s*(?P<dmy_m>{_MONTH_NAMES})\b\.?,?(?:\s*(?P<dmy_y>{_YEAR})\b)?)",
        rf"(?P<mdy>\b(?P<mdy_m>{_MONTH_NAMES})\.?\s+(?P<mdy_d>3[01]|[12]\d|0?[1-9]){_ORDINAL}\b(?:,?\s*(?P<mdy_y>{_YEAR})\b)?)",
        rf"(?P<part>\b(?P<part_w>early|mid|late|the\s+(?:beginning|start|middle|end)\s+of|(?:beginning|start|end)\s+of)[\s-]+(?P<part_m>{_MONTH_NAMES})\b(?:,?\s*(?P<part_y>{_YEAR})\b)?)",
        rf"(?P<my>\b(?P<my_m>{_MONTH_NAMES})\b,?\s*(?P<my_y>{_YEAR})\b)",
        rf"(?P<inm>\b(?P<inm_p>in|during|since|until|till|by|through|last|this|next|early|late|mid)\s+(?P<inm_m>{_MONTH_WORDS})\b(?:,?\s*(?P<inm_y>{_YEAR})\b)?)",
        rf"(?P<iny>\b(?:in|during|since|until|by)\s+(?P<iny_y>{_YEAR})\b)",
        r"(?P<dby>\bthe\s+day\s+before\s+yesterday\b)",
        r"(?P<dat>\bthe\s+day\s+after\s+tomorrow\b)",
        r"(?P<rel>\b(?P<rel_w>today|tonight|yesterday|tomorrow|last\s+night|this\s+(?:morning|afternoon|evening))\b)",
        rf"(?P<ago>\b(?P<ago_n>{_COUNT})\s+(?P<ago_u>day|week|month|year)s?\s+ago\b)",
        r"(?P<unit>\b(?P<unit_w>last|this|next|past|coming|this\s+past|this\s+coming)\s+(?P<unit_u>week|weekend|month|year)\b)",
        rf"(?P<wd>\b(?:(?P<wd_w>last|this|next|on|this\s+past|this\s+coming|past|coming)\s+)?(?P<wd_d>{_WEEKDAY_NAMES})\b)",
        # Chinese: dates, then relative days, weeks, months, years
        rf"(?P<zd>(?:(?P<zd_y>{_YEAR})年)?(?P<zd_m>{_HAN_NUMBER})月(?:(?P<zd_d>[0-9]{{1,2}}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])[日号])?)",
        rf"(?P<zy>(?P<zy_y>{_YEAR})年)",
        r"(?P<zr>(?P<zr_w>大前天|前天|昨天|昨晚|昨日|今天|今早|今晚|今日|明天|后天))",
        rf"(?P<zago>(?P<zago_n>{_HAN_NUMBER}|几)(?:个)?(?P<zago_u>天|日|周|星期|礼拜|月|年)(?:之?前|以前))",
        r"(?P<zw>(?P<zw_w>上上|上个?|这个?|本|下个?)?(?P<zw_u>周末|周|星期|礼拜)(?P<zw_d>[一二三四五六日天])?)",
        r"(?P<zu>(?P<zu_w>上个?|这个?|本|下个?)月|(?P<zu_y>去|今|明|前)年)",
    ]
    return re.compile("|".join(forms), re.IGNORECASE)


@lru_cache(maxsize=1)
def _future() -> re.Pattern[str]:
    return re.compile(
        r"(?i)\b(?:will|won't|shall|going\s+to|gonna|plan(?:ning)?\s+to|hope\s+to|can't\s+wait|"
        r"look(?:ing)?\s+forward|upcoming|next)\b|'ll\b|将|打算|准备|计划|要去"
    )


@lru_cache(maxsize=1)
def _any_time() -> re.Pattern[str]:
    """A cheap first test: a text with none of these has no time in it (most texts)."""
    return re.compile(
        rf"(?i)\d|\b(?:{_MONTH_NAMES}|{_WEEKDAY_NAMES}|today|tonight|yesterday|tomorrow|night|"
        r"morning|afternoon|evening|ago|week|weekend|month|year)\b|[天日周星拜月年晚早]"
    )


def _dates(g: Mapping[str, str | None], kind: str, said: date, future: bool) -> Span | None:
    """Named dates and months: 2023-05-07, 7 May, May 7th, early March, May 2022, in March."""
    words = g[kind] or ""
    if kind == "iso":
        d = in_year(int(g["iso_y"] or 0), int(g["iso_m"] or 0), int(g["iso_d"] or 0), said, future)
        return day(d, words) if d else None
    if kind in ("dmy", "mdy"):
        y = g[f"{kind}_y"]
        d = in_year(
            int(y) if y else None,
            MONTHS[(g[f"{kind}_m"] or "").lower()],
            int(g[f"{kind}_d"] or 0),
            said,
            future,
        )
        return day(d, words) if d else None
    if kind == "part":
        y = g["part_y"]
        span = month_span(
            int(y) if y else None, MONTHS[(g["part_m"] or "").lower()], said, future, words
        )
        return part_of_month(span, g["part_w"] or "")
    if kind == "my":
        return month(int(g["my_y"] or 0), MONTHS[(g["my_m"] or "").lower()], words)
    if kind == "inm":
        which = (g["inm_p"] or "").lower()
        m = MONTHS[(g["inm_m"] or "").lower()]
        if g["inm_y"]:
            span = month(int(g["inm_y"]), m, words)
            return part_of_month(span, which) if which in ("early", "late", "mid") else span
        if which in ("last", "next"):
            return month(said.year + (-1 if which == "last" else 1), m, words)
        if which == "this":
            return month(said.year, m, words)
        span = month_span(None, m, said, future, words)
        return part_of_month(span, which) if which in ("early", "late", "mid") else span
    if kind == "iny":
        return year(int(g["iny_y"] or 0), words)
    return None


def _relative(g: Mapping[str, str | None], kind: str, said: date, future: bool) -> Span | None:
    """Times relative to the day said: yesterday, two days ago, last week, on Friday."""
    words = g[kind] or ""
    if kind == "dby":
        return day(said - timedelta(days=2), words)
    if kind == "dat":
        return day(said + timedelta(days=2), words)
    if kind == "rel":
        w = " ".join((g["rel_w"] or "").lower().split())
        shift = {"yesterday": -1, "last night": -1, "tomorrow": 1}.get(w, 0)
        return day(said + timedelta(days=shift), words)
    if kind == "ago":
        n = (g["ago_n"] or "").lower()
        count = int(n) if n.isdigit() else NUMBERS[" ".join(n.split())]
        return ago_span(said, count, (g["ago_u"] or "").lower(), words)
    if kind == "unit":
        return relative_unit(said, (g["unit_u"] or "").lower(), g["unit_w"] or "", words)
    if kind == "wd":
        weekday = WEEKDAYS[(g["wd_d"] or "").lower()]
        return day(weekday_date(said, weekday, g["wd_w"] or "", future), words)
    return None


def _chinese(g: Mapping[str, str | None], kind: str, said: date, future: bool) -> Span | None:
    words = g[kind] or ""
    if kind == "zd":
        m = han(g["zd_m"] or "")
        if not 1 <= m <= 12:
            return None
        y = int(g["zd_y"]) if g["zd_y"] else None
        if g["zd_d"]:
            d = in_year(y, m, han_day(g["zd_d"]), said, future)
            return day(d, words) if d else None
        return month_span(y, m, said, future, words)
    if kind == "zy":
        return year(int(g["zy_y"] or 0), words)
    if kind == "zr":
        shift = {"大前天": -3, "前天": -2, "昨天": -1, "昨晚": -1, "昨日": -1, "明天": 1, "后天": 2}
        return day(said + timedelta(days=shift.get(words, 0)), words)
    if kind == "zago":
        n = g["zago_n"] or ""
        count = 3 if n == "几" else han(n)
        return ago_span(said, count, g["zago_u"] or "", words)
    if kind == "zw":
        which = (g["zw_w"] or "")[:1]
        step = {"上": -1, "下": 1}.get(which, 0) * (2 if g["zw_w"] == "上上" else 1)
        monday = said - timedelta(days=said.weekday()) + timedelta(days=7 * step)
        if g["zw_u"] == "周末":
            return weekend(monday + timedelta(days=5), words)
        if g["zw_d"]:
            weekday = HAN_WEEKDAYS[g["zw_d"]]
            if not g["zw_w"]:
                return day(weekday_date(said, weekday, "", future), words)
            return day(monday + timedelta(days=weekday), words)
        # a bare 周 / 星期 names no time
        return week(monday, words) if g["zw_w"] else None
    if kind == "zu":
        if g["zu_y"]:
            years = {"去": -1, "今": 0, "明": 1, "前": -2}[g["zu_y"]]
            return year(said.year + years, words)
        step = {"上": -1, "下": 1}.get((g["zu_w"] or "")[:1], 0)
        y, m = months_back(said, -step)
        return month(y, m, words)
    return None


_READERS: tuple[Callable[[Mapping[str, str | None], str, date, bool], Span | None], ...] = (
    _dates,
    _relative,
    _chinese,
)


def found(text: str, said: date, future: bool | None = None) -> list[tuple[re.Match[str], Span]]:
    """Every time ``text`` names, in order, resolved against the day it was said."""
    if not _any_time().search(text):
        return []
    if future is None:
        future = bool(_future().search(text))
    out = []
    for match in _patterns().finditer(text):
        kind = match.lastgroup
        if kind is None:
            continue
        groups = match.groupdict()
        for read in _READERS:
            try:
                span = read(groups, kind, said, future)
            # "tomorrow" said on 9999-12-31, "last week" in year 1: no day of the calendar
            except (OverflowError, ValueError):
                break
            if span is not None:
                out.append((match, span))
                break
    return out


def spoken(text: str, said_at: datetime) -> list[Span]:
    """The event times a memory's text speaks of (at most ``MAX_SPANS``), resolved against when it
    was said."""
    # the first MAX_SPANS distinct, kept unique in a dict: a list's ``in`` made a 16 KB part naming
    # 1,500 dates 20 times slower to record, growing with the square (review AC)
    out: dict[Span, None] = {}
    for _, span in found(text, local_day(said_at)):
        out[span] = None
        if len(out) == MAX_SPANS:
            break
    return list(out)


@dataclass(frozen=True)
class Asked:
    """What a query asks of time: the window it names (``the week before 16 November``, ``in
    March``, 上周), and whether it asks when something happened."""

    window: Span | None = None
    when: bool = False

    def label(self) -> str:
        parts = []
        if self.window is not None:
            parts.append(f"{self.window.label()} ({self.window.said})")
        if self.when:
            parts.append("asks when")
        return "; ".join(parts)


@lru_cache(maxsize=1)
def _query_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    relation = re.compile(
        rf"(?i)\b(?:the\s+(?P<unit>day|week|weekend|month|{_WEEKDAY_NAMES})\s+)?"
        r"(?P<dir>before|after|prior\s+to|since|until|till|by|as\s+of)\s+(?:the\s+)?(?:on\s+)?$"
    )
    chinese = re.compile(r"^(?:的)?(?P<dir>之前|以前|之后|以后)")
    # a question: "when did …", "since when", "what date …"; not "failed when connecting"
    when = re.compile(
        r"(?i)(?:^|[.?!;:]\s*|\bsince\s+)when\b|\bwhen\s+(?:did|do|does|is|was|were|are|will|would|"
        r"has|have|had|can|could|should)\b|\b(?:what|which)\s+(?:time|date|day|month|year)\b|"
        r"\bhow\s+long\s+ago\b|什么时候|何时|哪天|哪一天|几号|几月|哪年|哪一年|多久以前"
    )
    return relation, chinese, when


def _related(span: Span, unit: str | None, direction: str, words: str) -> Span:
    """``the week before X``, ``after X``, ``as of X``: the window the relation names (``words``)."""
    later = direction in ("after", "since", "之后", "以后")
    unit = (unit or "").lower()
    edge = span.start if direction == "since" or not later else span.end
    if unit == "day":
        return day(edge if later else edge - timedelta(days=1), words)
    if unit in WEEKDAYS:
        wanted = WEEKDAYS[unit]
        step = 1 if later else -1
        d = edge if later else edge - timedelta(days=1)
        while d.weekday() != wanted:
            d += timedelta(days=step)
        return day(d, words)
    if unit == "weekend":
        d = edge if later else edge - timedelta(days=2)
        while d.weekday() != 5:
            d += timedelta(days=1 if later else -1)
        return weekend(d, words)
    width = 7 if unit == "week" else 30 if unit == "month" else max(span.days, 7)
    if direction in ("until", "till", "by", "as of"):
        return Span(span.end - timedelta(days=max(width, 30)), span.end, words)
    if later:
        return Span(edge, edge + timedelta(days=width), words)
    return Span(edge - timedelta(days=width), edge, words)


def _anchored(rest: str) -> bool:
    return bool(re.match(r"(?i)\s+(?:before|after)\b", rest))


def asked(query: str, now: datetime) -> Asked | None:
    """What ``query`` asks of time, its dates resolved against ``now``; None when nothing."""
    relation, chinese, when_ = _query_patterns()
    window = None
    # "the Friday before 14 September": the time the relation is anchored on, not its unit
    times = [
        (m, span) for m, span in found(query, local_day(now)) if not _anchored(query[m.end() :])
    ]
    if times:
        match, window = times[0]
        before = relation.search(query[: match.start()])
        own = re.match(r"(?i)(since|until|till|by)\s", match.group(0))
        after = chinese.match(query[match.end() :])
        if before:
            direction = " ".join(before.group("dir").lower().split())
            words = query[before.start() : match.end()]
            window = _related(window, before.group("unit"), direction, words)
        elif own:
            window = _related(window, None, own.group(1).lower(), match.group(0))
        elif after:
            words = query[match.start() : match.end() + after.end()]
            window = _related(window, None, after.group("dir"), words)
    out = Asked(window, bool(when_.search(query)))
    return out if out.window or out.when else None
