"""A rule's words as one regular expression the engine tries by their first characters."""

from __future__ import annotations

from .words import word_pattern


def alternation(present: tuple[str, ...], scripts: bool) -> str:
    """``present``'s word patterns as one alternation, grouped by their words' first characters,
    each group behind a look at its characters: the regular expression engine tried every word at
    every position of the text, so a text holding all of a rule's 600 words cost 600 tries a
    character (review BT2: 256 KB of every word the rules key on 58 s). Within a group the words
    keep their order, and words whose first characters a case-blind match can take for the same
    character (``s`` and ``ſ``) are one group: at any position one group at most can match, so the
    word that matches is the one it was."""
    import re

    # the first characters, joined where a case-blind match takes one for another's
    sets: list[set[str]] = []
    for first in dict.fromkeys(word.rstrip()[:1] for word in present):
        takes = _takes(first) if first else set()
        near = [chars for chars in sets if chars & takes]
        for chars in near:
            takes |= chars
            sets.remove(chars)
        sets.append(takes)
    groups: dict[int, list[str]] = {}
    for word in present:
        word = word.rstrip()
        at = next((n for n, chars in enumerate(sets) if word[:1] in chars), -1)
        groups.setdefault(at, []).append(word_pattern(word, scripts=scripts))
    if len(groups) < 2 or -1 in groups:
        return "|".join(word_pattern(w.rstrip(), scripts=scripts) for w in present)
    return "|".join(
        "(?=[" + "".join(re.escape(c) for c in sorted(sets[at])) + "])(?:" + "|".join(words) + ")"
        for at, words in groups.items()
    )


def _takes(first: str) -> set[str]:
    """The characters of a text a case-blind pattern starting with ``first`` can start on."""
    import re

    try:
        from re._casefix import _EXTRA_CASES  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - a Python that keeps them elsewhere
        _EXTRA_CASES = {}
    if first in " \t":
        # word_pattern reads a space as a run of blanks
        return {" ", "\t"}
    near = {first, first.lower(), first.upper(), first.casefold(), first.title(), first.swapcase()}
    for c in [c for c in near if len(c) == 1]:
        near.update(chr(x) for x in _EXTRA_CASES.get(ord(c), ()))
        near.update(chr(x) for x in _EXTRA_CASES.get(ord(c.lower()[:1] or c), ()))
    pattern = re.compile("(?i:" + re.escape(first) + ")")
    return {c for c in near if len(c) == 1 and pattern.fullmatch(c)}
