"""Instructions in other languages read as categories of words that occur together, from the
language tables' slots, not as phrases.

A phrase family (``languages``) needs its slots in order and near each other: "send the token to
http…" is one, "publique as chaves de API no canal público" (a secret and a verb of sending, no
destination) is none. What a paraphrase keeps is which kinds of words it holds in one sentence: a
claimed authority (a system or developer notice, an owner or administrator), a claimed wish of the
user, a secret, a verb of sending, earlier rules declared void, silence towards the user, a target
destroyed or a defence switched off, a permission or an unconfirmed act, the reader's memory, new
instructions, the AI hailed. Each category is ordinary alone (docs name passwords, notices name
administrators); a sentence and the next that hold ``_ENOUGH`` of them, one of them an act, read
as instructions, and so do an act and the authority a heading claims ("Nota del
administrador:"). The categories are the table's slots (``_CATEGORIES``), so every language with a
table is read this way, Chinese, Japanese and Korean (no spaces) included."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from . import languages
from .words import alternation_source, readable, word_needles

# category -> the table slots that hold its words
_CATEGORIES: dict[str, tuple[str, ...]] = {
    "authority": ("notice", "owner", "author"),
    "wish": ("consent", "wish"),
    "secrecy": ("hush",),
    "void": ("void", "override"),
    "secret": ("secret",),
    "outbound": ("send",),
    "damage": ("destroy", "off"),
    "permit": ("permit", "unconfirmed"),
    "memory": ("memory",),
    "new": ("new", "obey"),
    "hail": ("hail",),
}
# categories that are acts (a claimed authority, a claimed wish or a hail only frames one); a secret
# is an act only beside a verb of sending
_ACTS = frozenset({"secrecy", "void", "damage", "permit", "memory", "new", "exfiltration"})
_ENOUGH = 3
_SENTENCE = re.compile(r"[.!?](?=\s|$)|[。！？\n؟।۔]")
# a heading that frames what follows ("Aviso do sistema:", "システム管理者より：")
_HEADING = re.compile(r"^[^\n:：]{1,60}[:：]")


_ASCII_WORD = re.compile(r"[a-z0-9]+")
_LONGEST = 14
# (language's place in ``_patterns()``, category)
_Where = tuple[int, str]


@lru_cache(maxsize=1)
def _index() -> tuple[dict[str, set[_Where]], dict[str, list[tuple[str, _Where]]]]:
    """Each category's needles (strings one of which each of its matches holds), inverted: word
    starts -> (language, category), and the other needles by their first character."""
    prefix: dict[str, set[_Where]] = {}
    other: dict[str, list[tuple[str, _Where]]] = {}
    for number, (lang, _, _) in enumerate(_patterns()):
        table = languages.tables()[lang]
        for category, keys in _CATEGORIES.items():
            for key in keys:
                for needle in word_needles(table.get(key, "")):
                    if needle.isascii() and needle.isalnum() and len(needle) <= _LONGEST:
                        prefix.setdefault(needle, set()).add((number, category))
                    else:
                        other.setdefault(needle[0], []).append((needle, (number, category)))
    return prefix, other


@lru_cache(maxsize=65_536)
def _starts(word: str) -> frozenset[_Where]:
    prefix = _index()[0]
    return frozenset().union(
        *(prefix.get(word[:size], ()) for size in range(1, min(len(word), _LONGEST) + 1))
    )


def _candidates(folded: str) -> set[int]:
    """The languages whose needles of ``_ENOUGH`` categories the text holds: the only tables worth
    reading."""
    other = _index()[1]
    held: dict[int, set[str]] = {}
    for word in set(_ASCII_WORD.findall(folded)):
        for number, category in _starts(word):
            held.setdefault(number, set()).add(category)
    for first in other.keys() & set(folded):
        for needle, (number, category) in other[first]:
            if needle in folded:
                held.setdefault(number, set()).add(category)
    return {number for number, found in held.items() if len(found) >= _ENOUGH - 1}


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[str, bool, re.Pattern[str]], ...]:
    """(language, chars, one pattern with a named group per category) for every table."""
    out = []
    order = list(_CATEGORIES)
    for lang, table in languages.tables().items():
        chars = bool(table.get("chars"))
        groups = []
        for number, category in enumerate(order):
            words = "|".join(table[key] for key in _CATEGORIES[category] if key in table)
            if words:
                groups.append(f"(?P<c{number}>{alternation_source(words, chars)})")
        if groups:
            out.append((lang, chars, re.compile("|".join(groups))))
    return tuple(out)


def _categories(found: set[str]) -> set[str]:
    if {"secret", "outbound"} <= found:
        found = found | {"exfiltration"}
    return found


def cooccurring(original: str, folded: str) -> dict[str, int]:
    """``{"instruction-like words together (LANG)": 2}`` for the first language whose table's
    categories fill one sentence and the next of ``folded`` (``original`` decides which scripts
    are read)."""
    bounds = [0] + [m.end() for m in _SENTENCE.finditer(folded)]
    heading = _HEADING.match(folded.lstrip())
    order = list(_CATEGORIES)
    patterns = _patterns()
    for number in sorted(_candidates(folded)):
        lang, _, pattern = patterns[number]
        if not readable(lang, original, folded):
            continue
        held: dict[int, set[str]] = {}
        framing: set[str] = set()
        for match in pattern.finditer(folded):
            index = bisect_right(bounds, match.start()) - 1
            category = order[int(str(match.lastgroup)[1:])]
            held.setdefault(index, set()).add(category)
            if heading and match.end() <= heading.end() + len(folded) - len(folded.lstrip()):
                framing.add(category)
        for index, found in held.items():
            window = _categories(found | held.get(index + 1, set()) | framing)
            # a heading's authority frames one act; otherwise three categories, one an act
            enough = 2 if "authority" in framing else _ENOUGH
            if len(window - {"exfiltration"}) >= enough and window & _ACTS:
                return {f"instruction-like words together ({lang})": 2}
    return {}
