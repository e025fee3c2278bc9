"""A message's other secrets: once a rule has redacted one value in a line, the line's other values
of a secret's shape within 300 characters of it go too, whatever language stands around them.
Part of ``redact``; its rules run last, when the other rules' markers are in the text.

A chat that gives one secret often gives the next one in the same breath, in words no table holds:
"Тато, код від домофону 0210, а пароль … — [REDACTED]", "… [REDACTED] והקוד של השער למטה 5148",
"… [REDACTED] است و رمز دوم کارت بانک ملت 746156", "… và mật khẩu máy tính tiền là 541176 nha", "E a
do aplicativo do banco eu mudei pra <password>". The cue is the marker, not the words: on such a
line,

- four to eight digits that stand as a word after a word and end in a door lock's ``*`` or ``#``
  or end their clause (a full stop, a comma, the line's end, or one short particle before
  them: "… 108894 ค่ะ", "… 541176 nha."), unless the word before them counts or places something
  (a port, a room, a year: "on port 5432", "since 2019") or the word after them is a unit (a
  measure: "took 1234 ms.");
- a made-up password standing as a word: ASCII, eight to 64 characters, both cases and a digit,
  no name's, version's, path's or address's shape.

A text with no secret in it holds no marker, so no look-alike is ever read by this rule.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_MARKER = "[REDACTED:"
# how far from a marker, on its line, a value is read as its sibling
_NEAR = 300
# words before a number that say it counts, orders or places something, not that it opens it
_COUNTERS = frozenset(
    (
        "port ports room floor level line lines page pages step steps version release build issue"
        " ticket pr order invoice case year years since until till from to by of in at on after"
        " before about around than over under nearly almost approx bus flight train gate-no no nr"
        " nº num number seit bis ab im am um vor nach jahr seite zeile raum etage depuis dès"
        " jusqu'à année page ligne desde hasta año página línea puerto porta anno pagina"
    ).split()
)
# words after a number that say it measures something (a duration, a size, a rate, a share): "took
# 1234 ms.", "4500 sec", "2048 MB", "8080 rpm"
_UNITS = frozenset(
    (
        "ms s sec secs second seconds min mins minute minutes h hr hrs hour hours d day days ns µs us"
        " b kb mb gb tb kib mib gib tib bytes byte px pt em dpi fps hz khz mhz ghz rpm rps qps req"
        " reqs rows ops km m cm mm mi ft kg g lb lbs % °c °f c f w kw mah v"
    ).split()
)
# a clause's end after the value: a mark, the line's end, or one short word (a particle) before one
_END = r"(?=[ \t]*(?:[.,;!?。、，！？)]|$)|[ \t]+[^\s\d.,;!?。、，！？]{1,4}[ \t]*(?:[.,;!?。、，！？]|$))"


def _sibling(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    text = match.string
    start, end = match.span("secret")
    # the line's part within _NEAR characters either side: read whole for each value, a long line
    # of numbers would be read again for each
    line_start = text.rfind("\n", max(0, start - _NEAR), start) + 1 or max(0, start - _NEAR)
    line_end = text.find("\n", end, end + _NEAR)
    line = text[line_start : min(len(text), end + _NEAR) if line_end < 0 else line_end]
    if label or _MARKER not in line:
        return None
    before = text[max(line_start, start - 40) : start].rstrip(" \t").rsplit(None, 1)
    if not before:
        # a value that opens the line says nothing of what it is
        return None
    word = before[-1].lower().strip("\"'“”„«»()[]")
    if not word or word[-1].isdigit() or word.endswith(("#", "+", "$", "€", "£", "=", "/")):
        return None
    if text.startswith(("...", "…"), end):
        # shown cut ("Q29wcGVy..."): a doc's example, not the value
        return None
    value = match.group("secret")
    if value[0].isdigit():
        after = text[end : end + 12].split(None, 1)
        unit = after[0].lower().rstrip(".,;!?)") if after else ""
        return None if word in _COUNTERS or unit in _UNITS else (start, end)
    return (start, end) if _made_up(value) else None


def _made_up(value: str) -> bool:
    """A made-up password's shape: both cases and a digit, no name's, version's, path's, address's
    or code's shape."""
    from .words import credential_like, version_string, wordish

    if not value.isascii() or any(c in value for c in "./\\@:=<>()[]{}`'\"$%"):
        return False
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value)):
        return False
    if not any(c.isdigit() for c in value) or wordish(value) or version_string(value):
        return False
    return credential_like(value, strict=True)


RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    # digits that end their clause, or end in a door lock's "*" or "#"
    (
        "pin",
        r"(?m)(?<![^ \t])(?P<secret>\d{4,8}(?:[*#](?![^\s.,;!?])|" + _END + "))",
        (),
        _sibling,
        lambda text: _MARKER in text,
    ),
    # a made-up password wherever it stands in the sentence
    (
        "password",
        r"(?m)(?<![^ \t])(?=\S{0,63}?[A-Z])(?=\S{0,63}?[a-z])(?=\S{0,63}?\d)"
        r"(?P<secret>[A-Za-z][^\s.,;!?]{7,63}+)(?![^\s.,;!?])",
        (),
        _sibling,
        lambda text: _MARKER in text,
    ),
]
