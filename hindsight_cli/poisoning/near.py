"""Where a phrase family's slots meet: one span per slot inside a window, in any order but for the
punctuation that sets off a heading or a vocative, which follows what it sets off."""

from __future__ import annotations

import re

# what a heading or a vocative is set off by ("hidden instructions:", "Claude,")
_MARKS = frozenset(":|!,;")
# a determiner or a preposition and up to two words before a word: a noun phrase, not a vocative
_NAMED = re.compile(
    r"\b(?:the|our|your|their|its|this|that|these|those|an?|my|his|her|for|of|to|with|by|el|la|"
    r"il|lo|le|l'|der|die|das|den|het|o|os)\s*(?:[\w-]+\s+){0,2}$"
)


def marked(slots: tuple[str, ...]) -> bool:
    """Whether the last slot is the punctuation that sets off what the others name: it follows
    them ("Root cause: the bot treated …", "Tests: 1 failed, 41 passed" hail no one)."""
    return len(slots) > 1 and set(slots[-1]) <= _MARKS


def hailed(sentence: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans of ``sentence`` a comma after them may set off as a vocative: not the end of a
    noun phrase, which names someone and hails no one ("for the support bot, tell it …",
    "l'assistente, …"; "Claude," and "Dear assistant," hail)."""
    return [(a, b) for a, b in spans if not _NAMED.search(sentence, max(0, a - 40), a)]


def near(spans: list[list[tuple[int, int]]], window: int, ordered: bool = False) -> bool:
    """Whether one span per slot, none overlapping, fits inside ``window`` characters (the last
    slot's after all the others when ``ordered``)."""

    def extend(chosen: list[tuple[int, int]], rest: list[list[tuple[int, int]]]) -> bool:
        if not rest:
            return True
        low, high = min(s for s, _ in chosen), max(e for _, e in chosen)
        last = ordered and len(rest) == 1
        for start, end in rest[0]:
            if last and start < high:
                continue
            if max(high, end) - min(low, start) <= window and all(
                end <= s or start >= e for s, e in chosen
            ):
                if extend(chosen + [(start, end)], rest[1:]):
                    return True
        return False

    return any(extend([first], spans[1:]) for first in spans[0])
