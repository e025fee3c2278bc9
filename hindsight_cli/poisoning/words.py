"""The language tables' words as regular expressions: each alternative folded like the text and
anchored at word starts (or anywhere, in a language written without spaces), the strings one of
which every match holds (a substring test cheaper than the pattern), and which scripts a text
holds (a language's patterns are read only where its script occurs)."""

from __future__ import annotations

import re
from functools import cache

from .spelling import fold

# Scripts a language's families need in a text before they are read (compiling every language's
# patterns costs more than reading a short memory, so a process compiles only what its texts need).
_SCRIPTS = {
    "zh": "\u3400-\u9fff\uf900-\ufaff",
    "ja": "\u3040-\u30ff\u3400-\u9fff",
    "ko": "\uac00-\ud7af\u1100-\u11ff",
    "ru": "\u0400-\u04ff",
    "uk": "\u0400-\u04ff",
    "bg": "\u0400-\u04ff",
    "mk": "\u0400-\u04ff",
    "kk": "\u0400-\u04ff",
    "ka": "\u10a0-\u10ff",
    "ta": "\u0b80-\u0bff",
    "el": "\u0370-\u03ff\u1f00-\u1fff",
    "ar": "\u0600-\u06ff",
    "fa": "\u0600-\u06ff",
    "ur": "\u0600-\u06ff",
    "he": "\u0590-\u05ff",
    "hi": "\u0900-\u097f",
    "bn": "\u0980-\u09ff",
    "th": "\u0e00-\u0e7f",
}
_SCRIPT_RX = {lang: re.compile(f"[{ranges}]") for lang, ranges in _SCRIPTS.items()}
_LATIN = re.compile("[a-z]")


# the longest last word of an alternative that must end where the text's word ends
_SHORT_WORD = 2


def alternation_source(words: str, chars: bool) -> str:
    """Regex source for ``a|b|c``, folded like the text, word-start anchored unless ``chars``;
    ``A >> B`` is an A directly followed by a B (punctuation and space between)."""
    if " >> " in words:
        return r"\W+".join(f"(?:{alternation_source(part, chars)})" for part in words.split(" >> "))
    groups = _groups(words, chars)
    return "|".join(
        (r"\b" if start else "")
        + "(?:"
        + "|".join(
            sorted(
                (r"\W+".join(re.escape(piece) for piece in folded.split()) for folded in parts),
                key=len,
                reverse=True,
            )
        )
        + ")"
        + _SUFFIX[end]
        for (start, end), parts in sorted(groups.items())
    )


_SUFFIX = {"exact": r"(?!\w)", "stem": r"\w*", "none": ""}


def _groups(words: str, chars: bool) -> dict[tuple[bool, str], set[str]]:
    """``a|b|c`` folded and grouped by their boundaries (whether each starts at a word start, and
    whether it ends where a word ends, anywhere in a word or wherever), so that each group is one
    alternation behind one assertion: a lookbehind in front of every alternative defeats the
    engine's prefix scan (10x slower)."""
    groups: dict[tuple[bool, str], set[str]] = {}
    for word in words.split("|"):
        exact = word.endswith("=")
        folded = fold(word.rstrip("=")).strip()
        if not folded:
            continue
        bounded = not chars or folded.isascii()
        start = bounded and folded[0].isalnum()
        # A last word of one or two letters is a whole word: "do ai" is an address to an AI, "do
        # all" (folded "do aii") and "do Aidy" are ordinary chat.
        exact = exact or len(folded.split()[-1]) <= _SHORT_WORD
        end = ("exact" if exact else "stem") if bounded and folded[-1].isalnum() else "none"
        groups.setdefault((start, end), set()).add(" ".join(folded.split()))
    return groups


def trie_source(tables: list[tuple[str, bool]]) -> str:
    """The same matches as ``alternation_source`` of each ``(words, chars)``, as one pattern whose
    alternatives share their prefixes (a trie): the engine tries a few branches at each character
    instead of every alternative at every word, which matters for thousands of them."""
    groups: dict[tuple[bool, str], set[str]] = {}
    for words, chars in tables:
        for key, parts in _groups(words, chars).items():
            groups.setdefault(key, set()).update(parts)
    return "|".join(
        (r"\b" if start else "") + "(?:" + _trie(parts) + ")" + _SUFFIX[end]
        for (start, end), parts in sorted(groups.items())
    )


# a trie of characters, "" marking where an alternative ends
_Trie = dict[str, "_Trie"]


def _trie(parts: set[str]) -> str:
    root: _Trie = {}
    for part in parts:
        node = root
        for char in part:
            node = node.setdefault(char, {})
        node[""] = {}
    return _branches(root)


def _branches(node: _Trie) -> str:
    """A trie's node as a pattern: its longer continuations tried before its end (as the longest
    alternative is tried first in ``alternation_source``)."""
    branches = [
        (r"\W+" if char == " " else re.escape(char)) + _branches(child)
        for char, child in sorted(node.items())
        if char
    ]
    if not branches:
        return ""
    body = "(?:" + "|".join(branches) + ")" if len(branches) > 1 else branches[0]
    if "" in node:
        return f"(?:{body})?"
    return body


@cache
def word_needles(words: str) -> tuple[str, ...]:
    """Strings one of which every match of ``words`` contains (the longest word of each
    alternative): a substring test on them is much cheaper than the pattern, so most families are
    never run."""
    found = {
        max(fold(word.rstrip("=")).split(), key=len, default="")
        for word in words.split(" >> ")[0].split("|")
    }
    return tuple(sorted(found - {""}, key=len, reverse=True))


def readable(lang: str, original: str, folded: str) -> bool:
    """Whether ``lang`` can occur in the text: its script in the original, Latin in the folded text
    (so English in look-alike letters, fullwidth or mathematical alphanumerics counts)."""
    return (
        bool(_SCRIPT_RX[lang].search(original))
        if lang in _SCRIPT_RX
        else bool(_LATIN.search(folded))
    )
