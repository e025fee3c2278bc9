"""An earlier instruction taken back in chat, not set aside for the reader.

"Forget the previous instructions, the meeting was cancelled", "Önceki talimatları unut, toplantı
iptal oldu", "さっきの指示は忘れてください。…直ったので": the words of a set-aside (``override``),
said by someone taking back their own instruction because a plan changed. Such a set-aside weighs
1, once, whichever languages read it, and counts only beside something else; it is never a
retraction when a clause that names the instructions makes them all of them, the reader's or the
system's. The words are the tables' ``retract`` (a plan that changed) and ``whole`` slots and
``phrases.ENGLISH_RETRACT`` / ``ENGLISH_WHOLE``."""

from __future__ import annotations

import re
from functools import lru_cache

from . import languages, phrases
from .words import alternation_source


@lru_cache(maxsize=1)
def _retraction() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """A plan that changed (``retract``), the words that make a set-aside whole or the reader's
    (``whole``), and the instructions themselves (``rules``), in every table that has them."""
    tables = [(t, bool(t.get("chars"))) for t in languages.tables().values() if "retract" in t]

    def pattern(english: str, slot: str) -> re.Pattern[str]:
        sources = [alternation_source(english, False)] + [
            alternation_source(t[slot], chars) for t, chars in tables if slot in t
        ]
        return re.compile("|".join(f"(?:{s})" for s in sources))

    return (
        pattern(phrases.ENGLISH_RETRACT, "retract"),
        pattern(phrases.ENGLISH_WHOLE, "whole"),
        pattern(phrases.RULES + "|" + phrases.INSTRUCTIONS, "rules"),
    )


_CLAUSE = re.compile(r"[.!?;,:。！？；，、：\n]")


def retracted(found: dict[str, int], text: str) -> bool:
    """Whether an earlier instruction is taken back in chat rather than set aside for the reader:
    nothing but a set-aside is found, a plan that changed is given as the reason ("Önceki
    talimatları unut, toplantı iptal oldu", "さっきの指示は忘れてください。…直ったので"), and no
    clause that names the instructions makes them all of them, the reader's or the system's
    ("ignore all previous instructions, the policy has changed" is no retraction)."""
    if not found or any(kind.partition(" (")[0] != "override" for kind in found):
        return False
    retract, whole, rules = _retraction()
    if not retract.search(text):
        return False
    return not any(rules.search(part) and whole.search(part) for part in _CLAUSE.split(text))


def taken_back(found: dict[str, int]) -> dict[str, int]:
    """A retracted set-aside as one kind of weight 1, whichever languages read it."""
    return {min(found): 1}
