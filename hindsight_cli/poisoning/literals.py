"""Strings one of which every match of a regular expression contains, read off the pattern itself: a
few substring tests (in C) are much cheaper than a search that tries an alternation of commands at
every word of a text, so most texts are decided without one (``detect``'s language-free signals).

Only what the pattern forces counts: literal runs, and what groups, alternations and repeats of at
least one force; anything else (classes, assertions, optional parts) may match in many ways and is
passed over. So a text that holds none of ``needles(p)`` is one where ``p.search`` finds nothing.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any


@cache
def needles(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Strings one of which every match of ``pattern`` contains; None when the pattern forces none
    (or is case-blind), or when each of its matches starts with a given character: the engine scans
    for that itself, as fast as the test."""
    # the standard library's own parser of patterns; without it, every text is searched
    try:
        from re import _constants, _parser  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - another Python's re
        return None
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    if pattern.flags & re.IGNORECASE or _scanned(parsed, _constants):
        return None
    return _sequence(parsed, _constants)


def may_match(pattern: re.Pattern[str], text: str) -> bool:
    """False only when ``pattern`` cannot match anywhere in ``text``."""
    found = needles(pattern)
    return found is None or any(map(text.__contains__, found))


def _scanned(items: Any, c: Any) -> bool:
    """Whether every match starts with a literal or a character class (in every alternative)."""
    if not items:
        return False
    op, arg = items[0]
    if op is c.SUBPATTERN:
        return _scanned(arg[3], c)
    if op is c.BRANCH:
        return all(_scanned(branch, c) for branch in arg[1])
    return op is c.LITERAL or op is c.IN


def _sequence(items: Any, c: Any) -> tuple[str, ...] | None:
    """The needles of a run of pattern items: every match holds all that its parts force, so the
    best one part's (the longest shortest needle: the rarest) will do."""
    options: list[tuple[str, ...]] = []
    run: list[str] = []
    for op, arg in items:
        if op is c.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            options.append(("".join(run),))
            run = []
        inner: tuple[str, ...] | None = None
        if op is c.SUBPATTERN and not arg[1] & c.SRE_FLAG_IGNORECASE:
            inner = _sequence(arg[3], c)
        # one of the branches matches: any of their needles
        elif op is c.BRANCH:
            choices = [_sequence(branch, c) for branch in arg[1]]
            if all(choices):
                inner = tuple(dict.fromkeys(n for choice in choices if choice for n in choice))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[0] >= 1:
            inner = _sequence(arg[2], c)
        if inner:
            options.append(inner)
    if run:
        options.append(("".join(run),))
    return max(options, key=lambda found: (min(map(len, found)), -len(found)), default=None)
