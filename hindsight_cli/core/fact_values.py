"""The value-bearing tokens of a memory's text, normalised so that two spellings of one value
compare equal.

A token is a number with its unit, a version, a date, a time of day, a weekday, a port, a size, a
duration, a rate, a percentage, an amount of money, a host, an IP, a path, a URL, an e-mail address,
an identifier (snake_case, camelCase, CONSTANTS, flags, error codes, hashes, KEY=value), an on/off
setting, a comparison ("above", "before"), a quoted string or a proper name. ``512MB`` = ``512 MB``;
``2026-12-31`` = ``31 December 2026`` = ``2026年12月31日``; ``2:30 PM`` = ``14:30`` = ``下午2点30分``; ``30
minutes`` = ``1800 s``; ``60 per minute`` = ``1 per second``; ``v2.1.0`` = ``2.1``; ``三个`` = ``3
个``. Sizes use binary prefixes (``1 GB`` = ``1024 MB``), as configuration files do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..text.spans import ZH_DIGIT
from .fact_lexicon import (
    ABBREVIATIONS,
    AFTERNOON,
    FILE_EXTENSIONS,
    MONTHS,
    NUMBER_WORDS,
    ON_OFF,
    RELATIONS,
    SECONDS,
    TLDS,
    UNITS,
    WEEKDAYS,
    ZH_NUMERAL,
    ZH_UNIT,
)

# Kinds whose change may be a change of subject ("db1.internal listens on 5432" vs "db2.internal
# ..."); numbers, versions, dates and the like are always values.
NAME_KINDS = frozenset({"host", "ip", "path", "url", "email", "identifier", "quoted", "name"})


@dataclass(frozen=True)
class Value:
    """One value-bearing token: its kind, its normal form (what is compared), as written, and
    where."""

    kind: str
    norm: str
    text: str
    start: int
    end: int


# (kind, norm, start, end): what a rule emits for one match
Found = list[tuple[str, str, int, int]]
Handler = Callable[[re.Match[str]], "Found | None"]
Rule = tuple[re.Pattern[str], Handler]


def _number(text: str) -> float | None:
    """An Arabic or Chinese numeral (``10,000``, ``1.5``, ``三百五十``, ``二〇二六``) or an English number
    word."""
    text = text.replace(",", "")
    if text.lower() in NUMBER_WORDS:
        return NUMBER_WORDS[text.lower()]
    try:
        return float(text)
    except ValueError:
        pass
    if all(ch in ZH_DIGIT for ch in text):
        return float("".join(str(ZH_DIGIT[ch]) for ch in text))
    total, section, digit = 0, 0, 0
    for ch in text:
        if ch in ZH_DIGIT:
            digit = ZH_DIGIT[ch]
        elif ch in ZH_UNIT:
            section, digit = section + (digit or 1) * ZH_UNIT[ch], 0
        elif ch == "万":
            total, section, digit = (total + section + digit) * 10000, 0, 0
        else:
            return None
    return float(total + section + digit)


def _fmt(number: float) -> str:
    return str(int(number)) if number == int(number) and abs(number) < 1e15 else f"{number:.6g}"


def _dotted_number(text: str) -> str:
    """Without separators or trailing ``.0`` parts, else as written: ``3.10`` stays (a version may
    be meant)."""
    return re.sub(r"(?<=\d)(?:\.0+)+$", "", text.replace(",", ""))


def _whole(kind: str, norm: Callable[[re.Match[str]], str | None]) -> Handler:
    """A rule that emits its whole match as one value, or nothing when ``norm`` gives None."""

    def handle(match: re.Match[str]) -> Found | None:
        value = norm(match)
        return None if value is None else [(kind, value, match.start(), match.end())]

    return handle


def _lower(kind: str) -> Handler:
    return _whole(kind, lambda m: m.group(0).lower())


def _table(table: dict[str, str], kind: str) -> Handler:
    """A rule whose first matching group, lower-cased with spaces folded, is looked up in
    ``table``."""
    return _whole(kind, lambda m: table[" ".join(next(g for g in m.groups() if g).lower().split())])


def _trimmed(kind: str, clean: Callable[[str], str]) -> Handler:
    """A rule for URLs and paths: trailing sentence punctuation is not part of them."""

    def handle(match: re.Match[str]) -> Found | None:
        text = match.group(0).rstrip(".,;:!?)'\"")
        return (
            [(kind, clean(text), match.start(), match.start() + len(text))]
            if len(text) > 1
            else None
        )

    return handle


def _url(text: str) -> str:
    scheme, _, rest = text.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}{slash}{path}".rstrip("/")


def _with_port(kind: str) -> Handler:
    def handle(match: re.Match[str]) -> Found | None:
        found: Found = [(kind, match.group("name").lower(), match.start("name"), match.end("name"))]
        if match.group("port"):
            found.append(("port", match.group("port"), match.start("port"), match.end("port")))
        return found

    return handle


def _dotted(match: re.Match[str]) -> Found | None:
    """A dotted name: a file (settings.py), a host (db1.internal, Fly.io) or a module path
    (os.path)."""
    name = match.group("name")
    last = name.rsplit(".", 1)[-1].lower()
    if last in FILE_EXTENSIONS:
        return [("path", name, match.start(), match.start() + len(name))]
    if last in TLDS:
        return _with_port("host")(match)
    if max(len(part) for part in name.split(".")) < 2 or match.group("port"):
        # "e.g."
        return None
    return [("identifier", name.lower(), match.start(), match.start() + len(name))]


def _date(match: re.Match[str]) -> Found | None:
    groups = match.groupdict()
    month = (
        MONTHS[groups["mon"][:3].lower()] if groups.get("mon") else int(_number(groups["m"]) or 0)
    )
    day = int(_number(groups["d"]) or 0) if groups.get("d") else None
    if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return None
    year = f"{int(_number(groups['y']) or 0):04d}" if groups.get("y") else "-"
    norm = f"{year}-{month:02d}" + (f"-{day:02d}" if day else "")
    return [("date", norm, match.start(), match.end())]


def _slashed(match: re.Match[str]) -> Found | None:
    first, second, year = (int(g) for g in match.groups())
    year += 2000 if year < 100 else 0
    if first > 12 >= second:
        # day/month/year: 31/12/2026
        first, second = second, first
    if first > 12 or second > 31:
        return None
    ambiguous = "?" if first <= 12 and second <= 12 and first != second else ""
    return [("date", f"{year:04d}-{first:02d}-{second:02d}{ambiguous}", match.start(), match.end())]


def _clock(match: re.Match[str]) -> Found | None:
    groups = match.groupdict()
    hour = int(_number(groups["h"]) or 0)
    minute = {"半": 30, "一刻": 15, "三刻": 45}.get(groups.get("half") or "") or int(
        _number(groups.get("mi") or "0") or 0
    )
    mark, period = (groups.get("ampm") or "").lower().replace(".", ""), groups.get("period")
    if hour < 12 and (mark == "pm" or period in AFTERNOON or (period == "中午" and hour < 11)):
        hour += 12
    elif mark == "am" and hour == 12:
        hour = 0
    if hour > 24 or minute > 59:
        return None
    return [("time", f"{hour:02d}:{minute:02d}", match.start(), match.end())]


def _quantity(match: re.Match[str]) -> Found | None:
    number, unit = _number(match.group("n")), match.group("u")
    # 1.5M is a million, not minutes
    key = "" if unit == "M" else unit.lower()
    if (
        number is None
        or key not in UNITS
        or (key == "m" and match.group("gap"))
        or (key == "年" and number >= 1000)
    ):
        return None
    kind, factor, suffix = UNITS[key]
    return [(kind, f"{_fmt(number * factor)}{suffix}", match.start(), match.end())]


def _rate(match: re.Match[str]) -> Found | None:
    number, per = _number(match.group("n")), _RATE_SECONDS.get(match.group("per").lower())
    words = match.group(0)[len(match.group("n")) :].lower().split()
    if number is None or per is None or any(word in UNITS for word in words[:2]):
        # "0.1 percent per month", "2 GB per day": a quantity, then a period
        return None
    return [("rate", f"{_fmt(number / per)}/s", match.start(), match.end())]


def _plain_number(match: re.Match[str]) -> Found | None:
    start, end, core = match.start(), match.end(), match.group("core")
    before, after = match.string[max(0, start - 14) : start].lower(), match.string[end : end + 6]
    if re.search(
        r"(?:\bports?|端口号?)\s*(?:is|=|:|：|of|number|是|为|号)?\s*$", before
    ) or re.match(r"\s*端口", after):
        return [("port", _dotted_number(core), start, end)]
    multiplier = {"k": 1e3, "K": 1e3, "M": 1e6, "万": 1e4, "亿": 1e8}.get(match.group("mult") or "")
    if multiplier:
        return [("number", _fmt((_number(core) or 0) * multiplier), start, end)]
    return [("number", _dotted_number(core) + (match.group("suffix") or "").lower(), start, end)]


def _weekday(match: re.Match[str]) -> Found | None:
    key = next(g for g in match.groups() if g).lower()
    return [
        ("weekday", f"day{WEEKDAYS[key if len(key) == 1 else key[:3]]}", match.start(), match.end())
    ]


def _version(match: re.Match[str]) -> Found | None:
    norm = _dotted_number(match.group(1)) + (match.group(2) or "").lower()
    return [("version", norm, match.start(), match.end())]


def _quoted(match: re.Match[str]) -> Found | None:
    # A quoted command or path is compared by what it holds (`pytest -n 2` vs `pytest -n 4`); a
    # quoted word or phrase ('main', “new-checkout”) is a value of its own.
    inner = next(g for g in match.groups() if g is not None)
    offset = match.start() + 1
    nested = [
        (v.kind, v.norm, v.start + offset, v.end + offset)
        for v in values(inner)
        if v.kind != "name"
    ]
    return nested or [("quoted", " ".join(inner.lower().split()), match.start(), match.end())]


def _name(match: re.Match[str]) -> Found | None:
    # A capital at the start of a clause says nothing; in mid-sentence it marks a name (Redis,
    # Vercel, Alice).
    before = match.string[max(0, match.start() - 8) : match.start()].rstrip(" \t")
    if not before or before[-1] in ".!?:;\n(\"'“「-*#>|,、，。：；！？":
        return None
    return [("name", match.group(0).lower(), match.start(), match.end())]


def _units(names: Iterable[str]) -> str:
    return "|".join(re.escape(unit) for unit in sorted(names, key=len, reverse=True))


_RATE_SECONDS = {**SECONDS, "月": 2592000.0, "日": 86400.0}
_TIME_UNITS = _units(unit for unit in SECONDS if unit.isascii())
# "a day", not "a s"
_TIME_WORDS = _units(unit for unit in SECONDS if unit.isascii() and len(unit) > 2)
_ZH_TIME_UNITS = "秒钟|秒|分钟|小时|钟头|天|日|周|星期|月|年"
_ZH_CLASSIFIER = "个|次|台|条|位|名|项|种|块|张|份|批|只|件|倍|核|层|行|节点|副本|线程"
# what a Chinese numeral is made of: a number starts where a run of these (or of digits) starts
# (tried at every start of a run, 16,000 "一" took 71 s to read for values)
_ZH_DIGITS = "零〇一二两三四五六七八九十百千万"
_NUM = rf"(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?|{ZH_NUMERAL}"
_PERIOD = "(?:(?P<period>凌晨|早上|早晨|清晨|上午|中午|午后|下午|傍晚|晚上|夜里|夜间|半夜|晚)\\s*)?"
_MON = (
    r"(?P<mon>Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
# CJK characters are not word characters: 端口是5432 has a boundary before 5432
_A = re.ASCII
_AI = re.ASCII | re.IGNORECASE


def _network_rules() -> list[Rule]:
    path = _trimmed("path", lambda p: p.rstrip("/"))
    return [
        (
            re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s<>\"'`，。；、）)\]】]+", _A),
            _trimmed("url", _url),
        ),
        # a match starts only where its run starts (a later start in the run can only find what the first
        # did): tried at every start, a run of 16,000 word characters was read to its end 16,000 times
        (
            re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+", _A),
            _lower("email"),
        ),
        (
            re.compile(
                r"\"([^\"\n]{1,80})\"|“([^”\n]{1,80})”|「([^」\n]{1,80})」|『([^』\n]{1,80})』"
                r"|`([^`\n]{1,80})`|‘([^’\n]{1,80})’|(?<![\w'])'([^'\n]{1,80}?)'(?!\w)",
                _A,
            ),
            _quoted,
        ),
        (
            re.compile(
                r"(?<![\w/])[A-Za-z]:\\[^\s\"'<>|]*|(?<![\w/.~])(?:~|\.{1,2})?/[\w.@%+~-]+(?:/[\w.@%+~-]*)*"
                r"|(?<![\w/.])\.[A-Za-z][\w.-]*(?:/[\w.-]+)*",
                _A,
            ),
            path,
        ),
        # a letter: 28/02/2027 is a date
        (
            re.compile(
                r"(?<![\w/.-])(?=[\w./-]*[A-Za-z])[\w.-]+(?:/[\w.-]+){2,}/?"
                r"|(?<![\w/.-])[\w-]+(?:/[\w-]+)*/[\w-]+\.[A-Za-z]\w{0,5}\b",
                _A,
            ),
            path,
        ),
        (
            re.compile(
                r"(?<![\w.])(?P<name>(?:\d{1,3}\.){3}\d{1,3}(?:/\d{1,2})?)(?::(?P<port>\d{2,5}))?(?![\w.]\w)",
                _A,
            ),
            _with_port("ip"),
        ),
        (
            re.compile(
                r"(?<![\w.@/-])(?P<name>localhost|[a-z][a-z0-9-]*(?=:\d))(?::(?P<port>\d{2,5}))?\b",
                _AI,
            ),
            _with_port("host"),
        ),
        (
            re.compile(
                r"(?<![\w.@/-])(?P<name>[A-Za-z0-9_](?:[\w-]*\w)?(?:\.[A-Za-z_](?:[\w-]*\w)?)+)"
                r"(?::(?P<port>\d{2,5}))?(?![\w-])",
                _A,
            ),
            _dotted,
        ),
    ]


def _calendar_rules() -> list[Rule]:
    zh_day = (
        rf"(?P<m>\d{{1,2}}|{ZH_NUMERAL})\s*月(?:份)?(?:\s*(?P<d>\d{{1,2}}|{ZH_NUMERAL})\s*[日号])?"
    )
    year = r"(?:,?\s+(?P<y>\d{4})\b)?"
    return [
        (
            re.compile(r"(?<![\d.])(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)", _A),
            _date,
        ),
        (re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})(?![\d/])", _A), _slashed),
        # 31.12.2026
        (
            re.compile(r"(?<![\d.])(?P<d>\d{1,2})\.\s?(?P<m>\d{1,2})\.\s?(?P<y>\d{4})(?!\d)", _A),
            _date,
        ),
        (
            re.compile(
                rf"(?<![\d{_ZH_DIGITS}])(?:(?P<y>\d{{4}}|[〇零一二三四五六七八九]{{4}})\s*年\s*)?{zh_day}",
                _A,
            ),
            _date,
        ),
        (re.compile(r"(?<![\d.])(\d{4})\s*年(?!\s*\d)", _A), _whole("date", lambda m: m.group(1))),
        # 每月5号: a day of every month
        (
            re.compile(rf"(?<=月)\s*(?P<d>\d{{1,2}}|{ZH_NUMERAL})\s*[日号]", _A),
            _whole("date", lambda m: f"--{int(_number(m['d']) or 0):02d}"),
        ),
        (re.compile(rf"\b{_MON}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b{year}", _A), _date),
        (re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON}{year}", _A), _date),
        (re.compile(rf"\b{_MON},?\s+(?P<y>\d{{4}})\b", _A), _date),
        (
            re.compile(
                r"\b(?P<mon>January|February|March|April|June|July|August|September|October|November"
                r"|December)\b",
                _A,
            ),
            _date,
        ),
        (
            re.compile(
                rf"{_PERIOD}(?<![\d:.])(?P<h>\d{{1,2}}):(?P<mi>\d{{2}})(?::\d{{2}})?(?![\d:])"
                r"(?:\s*(?P<ampm>[AaPp]\.?[Mm]\.?)(?![A-Za-z]))?",
                _A,
            ),
            _clock,
        ),
        (
            re.compile(r"(?<![\w.])(?P<h>\d{1,2})\s*(?P<ampm>[AaPp]\.?[Mm]\.?)(?![A-Za-z])", _A),
            _clock,
        ),
        (
            re.compile(
                rf"{_PERIOD}(?<![\d{_ZH_DIGITS}])(?P<h>\d{{1,2}}|{ZH_NUMERAL})\s*[点點时時](?:\s*(?P<half>半|一刻|三刻)"
                rf"|\s*(?P<mi>\d{{1,2}}|{ZH_NUMERAL})\s*分)?",
                _A,
            ),
            _clock,
        ),
        (
            re.compile(r"\b(noon|midnight)\b", _AI),
            _table({"noon": "12:00", "midnight": "00:00"}, "time"),
        ),
        (
            re.compile(
                r"\b(?:Africa|America|Asia|Atlantic|Australia|Europe|Pacific)/[A-Z][A-Za-z_]+\b", _A
            ),
            # IANA names: Europe/Berlin
            _whole("timezone", lambda m: m.group(0).lower()),
        ),
        (
            re.compile(
                r"\b(?:UTC|GMT|CET|CEST|EET|EEST|PST|PDT|EST|EDT|CST|BST|JST|IST|AEST)"
                r"(?:\s?[+-]\s?\d{1,2}(?::?\d{2})?)?\b|北京时间",
                _A,
            ),
            _whole("timezone", lambda m: "".join(m.group(0).upper().split())),
        ),
        (
            re.compile(
                r"(?i:\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b)|\b(Mon|Tue|Tues|Wed|Thu|Thur|Thurs"
                r"|Fri|Sat|Sun)\b\.?|(?:周|星期|礼拜)([一二三四五六日天七])(?!\s*(?:个|次))",
                _A,
            ),
            _weekday,
        ),
        (
            re.compile(r"(?i:\b(week ?days|work ?days)\b)|(工作日)", _A),
            _whole("weekday", lambda m: "day1-5"),
        ),
        (re.compile(r"(?i:\b(week ?ends)\b)|(周末)", _A), _whole("weekday", lambda m: "day6-7")),
    ]


def _quantity_rules() -> list[Rule]:
    # "half a minute"
    counts = "|".join(word for word in NUMBER_WORDS if word not in ("a", "an", "half"))
    num = rf"(?P<n>{_NUM}|\b(?:{counts})\b)"
    return [
        # A commit hash before sizes: 8b7e4d0 is not 8 bytes.
        (
            re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b", _A),
            _lower("identifier"),
        ),
        (
            re.compile(
                rf"(?<![\w.{_ZH_DIGITS}]){num}\s*(?:times?\s+|[A-Za-z]+\s*){{0,2}}?(?:/\s*|\bper\s+|\ban?\s+|\bevery\s+"
                rf"|\beach\s+)(?P<per>{_TIME_UNITS})(?![A-Za-z])",
                _AI,
            ),
            _rate,
        ),
        (
            re.compile(
                rf"每\s*(?P<per>{_ZH_TIME_UNITS})\s*[^\d\s，。,.；;]{{0,4}}?\s*(?P<n>{_NUM})(?!\s*[日号])"
                rf"\s*(?:{_ZH_CLASSIFIER})?",
                _A,
            ),
            _rate,
        ),
        (
            re.compile(
                rf"(?<![\d{_ZH_DIGITS}])(?P<n>{_NUM})\s*(?:{_ZH_CLASSIFIER})?\s*(?:/|每)\s*"
                rf"(?P<per>{_ZH_TIME_UNITS})",
                _A,
            ),
            _rate,
        ),
        (
            re.compile(rf"百分之(?P<n>{_NUM})", _A),
            _whole("percent", lambda m: f"{_fmt(_number(m['n']) or 0)}%"),
        ),
        (re.compile(r"(?P<u>[$€£¥])\s?(?P<n>\d[\d,]*(?:\.\d+)?)(?P<gap>)", _A), _quantity),
        (
            re.compile(r"\bhalf\s+an?\s+(hour|minute|day)\b", _AI),
            _whole("duration", lambda m: f"{_fmt(SECONDS[m.group(1).lower()] / 2)}s"),
        ),
        (
            re.compile(
                rf"(?<![\w.{_ZH_DIGITS}])(?P<n>{_NUM})(?P<gap>\s?)(?P<u>{_units(UNITS)})(?![A-Za-z])",
                _AI,
            ),
            _quantity,
        ),
        (
            re.compile(rf"\b(?P<n>{'|'.join(NUMBER_WORDS)})(?P<gap>\s)(?P<u>{_TIME_WORDS})\b", _AI),
            _quantity,
        ),
        (re.compile(r"(?<![\w.])[vV](\d+(?:\.\d+)*)([-+.]?[A-Za-z][\w.]*)?(?![\w])", _A), _version),
        (
            re.compile(r"(?<![\w.])(\d+\.\d+\.\d+(?:\.\d+)*)([-+]?[A-Za-z][\w.]*)?(?![\w])", _A),
            _version,
        ),
    ]


def _token_rules() -> list[Rule]:
    return [
        (
            re.compile(r"(?<![\w.-])(?P<key>[A-Za-z_][\w.-]*)=(?P<val>[^\s,;=]+)", _A),
            lambda m: [
                ("identifier", m["key"].lower(), *m.span("key")),
                ("quoted", m["val"].lower(), *m.span("val")),
            ],
        ),
        (
            re.compile(
                r"(?<![\w.-])[a-z][a-z0-9]*(?:-[a-z0-9]+)*-[0-9][a-z0-9]*(?:-[a-z0-9]+)*(?![\w-])"
                # us-east-1, #ops-alerts
                r"|(?<![\w#])#[A-Za-z][\w-]*",
                _A,
            ),
            _lower("identifier"),
        ),
        (
            re.compile(r"\bCVE-\d{4}-\d{4,}\b|\b[A-Z]{2,}-\d+\b|\b[A-Z]+\d+[A-Z0-9]*\b", _A),
            _whole("identifier", lambda m: m.group(0)),
        ),
        (
            # a call's name read at most 256 characters on: "a.a.a…" without "()" was read to its
            # end from each "a" (a start after a "." can be the first that may match)
            re.compile(
                r"\$\{?([A-Za-z_]\w*)\}?|(?<![\w-])(--?[A-Za-z][\w-]*)|\b([A-Za-z_][\w.]{0,255})\(\)",
                _A,
            ),
            _whole("identifier", lambda m: next(g for g in m.groups() if g).lower()),
        ),
        (
            re.compile(
                r"\b_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b"
                r"|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b",
                _A,
            ),
            _lower("identifier"),
        ),
        (
            re.compile(
                r"\b(enabled|enables?|disabled|disables?|true|false|(?:turned|switched)\s+(?:on|off))\b"
                r"|(开启|打开|启用|开着|关闭|禁用|停用|关掉|关着)",
                _AI,
            ),
            _table(ON_OFF, "flag"),
        ),
        (
            re.compile(rf"(?<![{_ZH_DIGITS}])(?P<core>{ZH_NUMERAL})\s*(?:{_ZH_CLASSIFIER})", _A),
            _whole("number", lambda m: _fmt(_number(m["core"]) or 0)),
        ),
        (
            re.compile(
                r"(?<![\w.])(?P<core>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?:(?P<mult>[kKM万亿])"
                r"|(?P<suffix>[A-Za-z]+))?(?![\w])",
                _A,
            ),
            _plain_number,
        ),
        (
            re.compile(
                r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|fifty|hundred)"
                r"\b(?=\s+[a-z]+s\b)",
                _AI,
            ),
            _whole("number", lambda m: _fmt(NUMBER_WORDS[m.group(0).lower()])),
        ),
        (re.compile(r"\b[A-Z][a-z][a-zA-Z0-9]*\b", _A), _name),
        (
            re.compile(r"\b[A-Z]{2,6}s?\b", _A),
            _whole(
                "name",
                lambda m: None if m.group(0).rstrip("s") in ABBREVIATIONS else m.group(0).lower(),
            ),
        ),
        (
            re.compile(
                r"\b(?:(before|after|earlier than|later "
                r"than)\b|(above|below|over|under|exceeds?|more than"
                r"|less than|fewer than|greater than|higher than|lower than|at least|at most|up to)"
                r"(?=\s+\S{0,3}\d))|(之前|之后|以上|以下|超过|高于|低于|大于|小于|多于|少于|至少|最多|最少|早于|晚于)",
                _AI,
            ),
            _table(RELATIONS, "relation"),
        ),
    ]


@lru_cache(maxsize=1)
def _rules() -> list[Rule]:
    """The patterns, most specific first: each claims its characters, and later ones skip claimed
    text."""
    return _network_rules() + _calendar_rules() + _quantity_rules() + _token_rules()


def values(text: str) -> tuple[Value, ...]:
    """The value-bearing tokens of ``text`` in order of appearance, each with its kind and normal
    form."""
    claimed = bytearray(len(text))
    found: list[Value] = []
    for pattern, handle in _rules():
        for match in pattern.finditer(text):
            if any(claimed[match.start() : match.end()]):
                continue
            emitted = handle(match)
            if not emitted:
                continue
            start, end = min(e[2] for e in emitted), max(e[3] for e in emitted)
            claimed[start:end] = b"\x01" * (end - start)
            found.extend(Value(kind, norm, text[a:b], a, b) for kind, norm, a, b in emitted)
    return tuple(sorted(found, key=lambda value: value.start))
