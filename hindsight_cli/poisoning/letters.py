"""What the poisoning rules need to read a short line or label: the characters a reader does not
see, and each letter's skeleton (marks stripped, case folded, look-alike letters read as the ASCII
letters they imitate). ``spelling`` builds the full reading on them; a search, which only cleans the
lines it shows (``safe_line``), loads this alone, not spelling's thirty patterns and decoders."""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

# Characters a reader does not see: Unicode format characters (zero-width space and joiners, bidi
# embeddings, overrides and isolates, soft hyphen, word joiner, BOM, tag characters) plus the blank
# "letters" used as invisible padding (Hangul fillers, braille blank).
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")

# Every format character (category Cf, Unicode 15; a test checks it against the running Python's
# data).
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
INVISIBLE = re.compile(f"[{_FORMAT}{''.join(sorted(_BLANK_LETTERS))}]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_MARKS = frozenset({"Mn", "Me"})

_TABLE = Path(__file__).with_name("confusables.json")


@lru_cache(maxsize=1)
def _confusables() -> dict[int, str]:
    """Each character that looks like an ASCII letter or digit, mapped to it
    (``derive_confusables``, shipped as data: deriving it costs 0.15 s, more than a cold ``record``
    can spare)."""
    return {
        ord(ch): ascii_ for ch, ascii_ in json.loads(_TABLE.read_text(encoding="utf-8")).items()
    }


def _without_marks(match: re.Match[str]) -> str:
    return "".join(ch for ch in match.group() if unicodedata.category(ch) not in _MARKS)


def skeleton(text: str) -> str:
    """Marks stripped, case folded, look-alike letters replaced by the ASCII letters they
    imitate."""
    if text.isascii():
        return text.lower()
    text = _NON_ASCII.sub(_without_marks, unicodedata.normalize("NFKD", text))
    return unicodedata.normalize("NFC", text).casefold().translate(_confusables())
