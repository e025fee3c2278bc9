"""Acts that steer an agent beyond its task, read as an act and what makes it hostile, in any
language with a table (``steering.toml``), not as phrases.

An instruction that plants something, weakens a defence, keeps something from the user, shapes the
reply, stores a claim as a fact or makes itself last is ordinary in a developer's chat ("add a cron
job that rotates the logs", "disable the flaky e2e check", "don't mention the pricing yet", "always
use UTC"). What makes it an injection is a second thing in the same sentence or the next: it is
told to an AI or about what the AI produces ("the code you generate"), it carries privilege (root,
an empty password, any account), it is to be hidden from the user or kept for every future session,
it fetches and runs something, it is stored as the user's preference. Each act here names the
categories that complete it (``_ACTS``); the words of each category are the table's slots, one
pattern for every language (a sentence rarely mixes them), so a paraphrase in any of them is read
by what it does rather than by how it is worded. An act after a "don't" word ("never skip the
signature check") is forbidden, not asked, and a sentence that names an attack or a finding
("an attacker can make the agent add an SSH key") describes an act rather than asking one."""

from __future__ import annotations

import re
import tomllib
from bisect import bisect_right
from functools import lru_cache
from pathlib import Path

from .reports import _REPORT
from .words import alternation_source

_TABLES = Path(__file__).with_name("steering.toml")
# Matched in this order where two start at the same place: a "don't" inside a concealment ("don't
# mention") is the concealment's, not a negation.
_ORDER = (
    "conceal",
    "steer",
    "record",
    "unconfirmed",
    "bypass",
    "run",
    "plant",
    "privilege",
    "persist",
    "memory",
    "secret",
    "send",
    "dest",
    "off",
    "defence",
    "reader",
    "user",
    "report",
    "no",
)
# categories a "don't" before them forbids
_NEGATABLE = frozenset(
    {
        "steer",
        "record",
        "bypass",
        "run",
        "plant",
        "privilege",
        "send",
        "off",
        "unconfirmed",
        "secret",
        "memory",
    }
)
# characters after a "don't" word in which an act is forbidden
_NEGATION = {False: 25, True: 8}
# (kind, the categories the act needs, the categories one of which completes it)
_ACTS: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = (
    (
        "secret sent out",
        frozenset({"secret", "send", "dest"}),
        frozenset({"reader", "conceal", "persist", "memory", "record"}),
    ),
    (
        "backdoor planted",
        frozenset({"plant"}),
        frozenset({"privilege", "reader", "conceal", "persist", "memory", "run", "bypass"}),
    ),
    (
        "backdoor planted",
        frozenset({"privilege"}),
        frozenset({"reader", "conceal", "persist", "memory"}),
    ),
    (
        "check bypassed",
        frozenset({"bypass"}),
        frozenset({"reader", "conceal", "persist", "memory", "record", "plant"}),
    ),
    (
        "defence weakened",
        frozenset({"off", "defence"}),
        frozenset({"reader", "conceal", "persist", "memory", "record"}),
    ),
    ("output steered", frozenset({"conceal", "steer"}), frozenset()),
    ("output steered", frozenset({"conceal", "user"}), frozenset({"reader", "persist", "memory"})),
    ("output steered", frozenset({"steer", "user"}), frozenset({"persist", "memory"})),
    (
        "memory poisoned",
        frozenset({"record"}),
        frozenset({"secret", "bypass", "plant", "privilege", "unconfirmed", "conceal", "dest"}),
    ),
    ("memory poisoned", frozenset({"record", "off", "defence"}), frozenset()),
    ("persistent instruction", frozenset({"persist", "unconfirmed"}), frozenset()),
    ("memory poisoned", frozenset({"memory", "secret"}), frozenset()),
    ("memory poisoned", frozenset({"memory", "unconfirmed"}), frozenset()),
)
_SENTENCE = re.compile(r"[.!?](?=\s|$)|[。！？\n؟]")


@lru_cache(maxsize=1)
def _tables() -> dict[str, dict[str, str | bool]]:
    with _TABLES.open("rb") as file:
        return tomllib.load(file)


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    """One pattern, a named group per category, every language's words in it; compiled when a
    text first needs it."""
    groups = []
    for category in _ORDER:
        sources = [
            alternation_source(str(table[category]), bool(table.get("chars")))
            for table in _tables().values()
            if category in table
        ]
        groups.append(f"(?P<{category}>{'|'.join(sources)})")
    return re.compile("|".join(groups))


def _found(folded: str) -> list[tuple[int, str]]:
    """(position, category) of every category's words in ``folded``, an act after a "don't"
    left out."""
    out: list[tuple[int, str]] = []
    negated_until = -1
    for match in _pattern().finditer(folded):
        category = str(match.lastgroup)
        if category == "no":
            wide = match.group().isascii()
            negated_until = match.end() + _NEGATION[not wide]
            continue
        if category in _NEGATABLE and match.start() <= negated_until:
            continue
        out.append((match.start(), category))
    return out


def steering_kinds(folded: str) -> dict[str, int]:
    """``{kind: 2}`` for the first act of ``_ACTS`` completed in a sentence and the next of
    ``folded`` (the normalised text)."""
    found = _found(folded)
    if len({category for _, category in found}) < 2:
        return {}
    bounds = [0, *(m.end() for m in _SENTENCE.finditer(folded)), len(folded)]
    per: dict[int, set[str]] = {}
    for at, category in found:
        per.setdefault(bisect_right(bounds, at) - 1, set()).add(category)
    for index in sorted(per):
        held = per[index] | per.get(index + 1, set())
        if "report" in per[index] or _REPORT.search(folded, bounds[index], bounds[index + 1]):
            # a sentence that names an attack describes the act, it asks for none
            continue
        for kind, needs, completes in _ACTS:
            if needs <= held and (not completes or completes & held):
                return {kind: 2}
    return {}
