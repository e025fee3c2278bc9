"""A match's line as the redaction rules' checks read it: a bounded stretch either side."""

from __future__ import annotations

# characters of a match's line a check reads either side of the match: a check that read the whole
# line again for each match on it grew with the square of a long line's matches (a megabyte of
# "alfa bravo charlie delta echo golf. " on one line, 12 minutes; review BM)
LINE_REACH = 256


def line_around(
    text: str, start: int, end: int | None = None, reach: int = LINE_REACH, after: bool = True
) -> str:
    """The line holding ``text[start:end]``, at most ``reach`` characters of it either side (none
    after ``end`` unless ``after``)."""
    low = max(0, start - reach)
    first = text.rfind("\n", low, start) + 1 or low
    stop = start if end is None else end
    if not after:
        return text[first:stop]
    last = text.find("\n", stop, stop + reach)
    return text[first : last if last >= 0 else min(len(text), stop + reach)]


def before_blanks(text: str, start: int) -> str:
    """The character before ``start`` past the spaces and tabs right before it ("" at the text's
    start), read back over those blanks only: the text before each match copied to strip its end
    made a long text of literal pairs quadratic (1 MiB of "'password', 'abc' " 4 s; review BP)."""
    while start and text[start - 1] in " \t":
        start -= 1
    return text[start - 1 : start]


def alone_on_line(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is all its line holds but blanks, read over those blanks only
    (the line copied and stripped for each match made a long line of tokens quadratic: review BP)."""
    import re

    while start and text[start - 1] != "\n" and text[start - 1].isspace():
        start -= 1
    if start and text[start - 1] != "\n":
        return False
    return re.compile(r"[^\S\n]*+(?:\n|\Z)").match(text, end) is not None


# each thread's last text the checks asked of and what was found of it (``holds``' answers,
# ``marks_before``'s places), by thread: one entry for all threads made two texts redacted at once (a
# server's writes of two agents, in two threads) find each other's answers gone at every switch and
# find them again over the whole text, match after match, in the square of the text (review BT2:
# two 256 KB texts of 'heslo" ' 46 s of CPU against 25 s one after the other, 6,846 finds). An
# entry is a tuple a thread reads whole; past ``_THREADS`` entries (threads gone) all are dropped.
_KNOWN: dict[int, tuple[object, dict[tuple[str, str], object]]] = {}
_THREADS = 256


def _known(text: str) -> dict[tuple[str, str], object]:
    """What this thread found of ``text`` so far (nothing for a text other than its last one)."""
    from _thread import get_ident

    me = get_ident()
    held = _KNOWN.get(me)
    if held is None or held[0] is not text:
        if len(_KNOWN) >= _THREADS:
            _KNOWN.clear()
        held = _KNOWN[me] = (text, {})
    return held[1]


def release() -> None:
    """Drop what this thread found of its last text (its redaction is done)."""
    from _thread import get_ident

    _KNOWN.pop(get_ident(), None)


def holds(text: str, part: str) -> bool:
    """``part in text``, read once for a text every match of a rule asks of (the same object)."""
    known = _known(text)
    found = known.get(("holds", part))
    if found is None:
        found = known[("holds", part)] = part in text
    return bool(found)


def lines_after(text: str, end: int, count: int = 3, reach: int = LINE_REACH) -> list[str]:
    """The rest of the line ``end`` is on and the lines after it, ``count`` lines in all, read
    ``count * reach`` characters on at most: the rest of the text copied and split for each match
    made a long line of matches quadratic (review BT)."""
    return text[end : end + count * reach].split("\n", count)[:count]


def _places(text: str, char: str) -> list[int]:
    """Where ``char`` stands in ``text``, in order, found once a text (in a thread)."""
    known = _known(text)
    found = known.get(("places", char))
    if found is None:
        found = known[("places", char)] = _find(text, char)
    assert isinstance(found, list)
    return found


def _find(text: str, char: str) -> list[int]:
    """Where ``char`` stands in ``text``, in order."""
    import re

    return [m.start() for m in re.finditer(re.escape(char), text)]


def marks_before(text: str, char: str, start: int) -> int:
    """How many ``char`` stand on ``start``'s line before it, counted on places found once a text:
    the line read back to its start and counted for each match made a long line of matches
    quadratic (review BT: a quote after each password word of 1 MiB on one line)."""
    from bisect import bisect_left

    breaks = _places(text, "\n")
    line = bisect_left(breaks, start)
    line_start = breaks[line - 1] + 1 if line else 0
    marks = _places(text, char)
    return bisect_left(marks, start) - bisect_left(marks, line_start)
