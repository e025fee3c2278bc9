"""Text handling shared by writing and searching: cleaning, keyword terms, token estimates."""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter

# Han, Hiragana, Katakana, Hangul and their compatibility/extension blocks: scripts written without spaces.
_CJK = (
    "\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]+")
_CJK_CHAR = re.compile(rf"[{_CJK}]")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves""".split()
)


def clean(text: str) -> str:
    """Strip control characters (keeping newline and tab), normalise to NFC, trim."""
    text = unicodedata.normalize("NFC", text)
    text = "".join(
        ch for ch in text if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cs", "Co", "Cn")
        or ch == "\u200d"
    )
    return text.replace("\r\n", "\n").strip()


_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(value: object) -> object:
    """A JSON-like value with lone surrogates removed from every string, keys included.

    They cannot be encoded as UTF-8 (JSON's ``"\\ud800"`` escape, undecodable command-line bytes),
    so, as ``clean`` does for text, they are dropped; every other character is kept exactly.
    """
    if isinstance(value, str):
        return _SURROGATE.sub("", value)
    if isinstance(value, list):
        return [without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {without_surrogates(key): without_surrogates(item) for key, item in value.items()}
    return value


def stem(word: str) -> str:
    """A light English stemmer: plural, -ing, -ed, -ly and final -e, so word forms meet."""
    if len(word) <= 3 or not word.isalpha() or not word.isascii():
        return word
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("sses", "ss")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)] + repl
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ingly", "edly", "ing", "ed", "ly"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) == 2 and suffix in ("ing", "ed"):
            word = base + "e"  # used/using -> use
            break
        if word.endswith(suffix) and len(base) >= 3 and re.search("[aeiouy]", base):
            word = base
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def terms(text: str) -> list[str]:
    """Keyword terms: stemmed lower-case words without stopwords; CJK runs as overlapping bigrams."""
    out: list[str] = []
    for token in _TOKEN_RE.findall(text.lower()):
        if _CJK_RUN.fullmatch(token):
            if len(token) == 1:
                out.append(token)
            else:
                out.extend(token[i : i + 2] for i in range(len(token) - 1))
        elif token not in STOPWORDS:
            out.append(stem(token))
    return out


def term_counts(text: str) -> Counter[str]:
    return Counter(terms(text))


def estimate_tokens(text: str) -> int:
    """Approximate LLM tokens: one per CJK character, one per four other characters."""
    cjk = len(_CJK_CHAR.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)
