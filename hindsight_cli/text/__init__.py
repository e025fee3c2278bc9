"""Text handling shared by writing and searching: cleaning, keyword terms, token estimates."""

from __future__ import annotations

import bisect
import math
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import lru_cache, partial

# characters: the most an agent, task, trigger or tag may hold (core/prepare refuses more)
MAX_LABEL = 200


def fits_label(text: str) -> bool:
    """Whether a cleaned label (an agent, a task, a tag) is one line of at most ``MAX_LABEL``
    characters: the rule ``core.prepare.label`` and the default agent's check share."""
    return len(text) <= MAX_LABEL and "\n" not in text


# Han, Hiragana, Katakana, Hangul and their compatibility/extension blocks: scripts written without
# spaces.
CJK = (
    "\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
)


def compiled_when_used(source: str) -> Callable[[], re.Pattern[str]]:
    """A pattern compiled the first time it is asked for. A set of CJK ranges takes Python's
    ``re`` 1-2 ms to compile (it marks every code point of them one by one), which a process that
    reads no CJK text (most commands, most searches) then never pays: the callers below read a
    text without CJK characters (``has_cjk``) with a pattern without the ranges, which finds exactly
    the same in it."""
    return lru_cache(maxsize=1)(partial(re.compile, source))


_TOKEN_RE = compiled_when_used(rf"[{CJK}]+|[^\W_{CJK}]+")
# what _TOKEN_RE finds in a text without CJK characters
_PLAIN_TOKEN = re.compile(r"[^\W_]+")
_CJK_RUN = compiled_when_used(rf"[{CJK}]+")
CJK_CHAR = compiled_when_used(rf"[{CJK}]")
# CJK's ranges as code points: (first, last), ascending
_CJK_RANGES = [(ord(CJK[i]), ord(CJK[i + 2])) for i in range(0, len(CJK), 3)]
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+")
# past this many characters that are not ASCII, a text is read with the pattern, not one by one
_ONE_BY_ONE = 256


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a character of ``CJK``: most texts are ASCII, or hold a few other
    characters (an arrow, a dash, an accent) read one by one."""
    if text.isascii():
        return False
    rest = _ASCII_RUNS.sub("", text)
    if len(rest) > _ONE_BY_ONE:
        return CJK_CHAR().search(rest) is not None
    for ch in rest:
        code = ord(ch)
        at = bisect.bisect_right(_CJK_RANGES, (code, sys.maxunicode + 1)) - 1
        if at >= 0 and code <= _CJK_RANGES[at][1]:
            return True
    return False


STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves""".split()
)


# control characters (but newline and tab) and the bidirectional overrides: what a message quotes
# from a file (a checkout's config.toml, whose values `hindsight allow` shows) could move the
# cursor, erase or reorder what the user reads before approving it (review AE); and a lone
# surrogate (JSON's `"\ud800"` in a checkout's `.mcp.json`), which no terminal's encoder takes: its
# name in doctor's checklist ended `hindsight doctor` with a traceback (review BS)
_UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def visible(text: str) -> str:
    """``text`` with its control characters (but newline and tab), bidirectional overrides and lone
    surrogates shown as escapes (``\\x1b``, ``\\u202e``, ``\\ud800``): what every message to the
    terminal, and doctor's checklist, goes through (``cli.render``)."""
    return _UNSHOWN.sub(lambda m: ascii(m.group())[1:-1], text)


def clean(text: str) -> str:
    """Strip control characters (keeping newline and tab), normalise to NFC, trim."""
    text = unicodedata.normalize("NFC", text)
    # A printable character is never Cc, Cs, Co or Cn (same Unicode data): most texts are read once,
    # in C.
    if not text.replace("\n", "").replace("\t", "").isprintable():
        text = "".join(
            ch
            for ch in text
            if ch in "\n\t"
            or unicodedata.category(ch) not in ("Cc", "Cs", "Co", "Cn")
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


def json_text(value: object, indent: int | None = None) -> str:
    """``value`` as JSON (``ensure_ascii=False``) that every reader takes: a NaN or an infinity,
    which a store written before hindsight refused them may hold in metadata, is written ``null``
    (the MCP server's answer already says so), never as ``NaN``, which no strict reader (jq,
    Postgres, hindsight's own import) parses."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(value), ensure_ascii=False, indent=indent, allow_nan=False)
    # half a character (JSON's `"\ud800"` in a checkout's `.claude/settings.json`, which `hooks
    # status --json` names) is written as the escape it was read as: as it was, no encoder wrote
    # it, and the command ended with a traceback (review BS2)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    return value


# words repeat: an import stems the same few thousand again and again
@lru_cache(maxsize=65_536)
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
            # used/using -> use
            word = base + "e"
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
    """Keyword terms: stemmed lower-case words without stopwords; CJK runs as overlapping
    bigrams."""
    out: list[str] = []
    lowered = text.lower()
    if not has_cjk(lowered):
        return [stem(token) for token in _PLAIN_TOKEN.findall(lowered) if token not in STOPWORDS]
    for token in _TOKEN_RE().findall(lowered):
        if _CJK_RUN().fullmatch(token):
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
    cjk = len(CJK_CHAR().findall(text)) if has_cjk(text) else 0
    return cjk + math.ceil((len(text) - cjk) / 4)


# Identifiers: what a person types exactly and means exactly (error codes, ports, hosts, versions,
# paths, file and function names). ``terms`` splits them into words like any text, so the stored
# postings stay as they are; search weighs the whole token on the query side (``search.signals``).
_ID_TOKEN = compiled_when_used(rf"[^\s'\"`()\[\]{{}}<>,;!?{CJK}\u3000-\u303f\uff00-\uff65]+")
# what _ID_TOKEN finds in a text without CJK characters
_PLAIN_ID_TOKEN = re.compile(r"[^\s'\"`()\[\]{}<>,;!?\u3000-\u303f\uff00-\uff65]+")
_ID_INNER = re.compile(r"[0-9A-Za-z][._:/\\@#=+-]+[0-9A-Za-z]")
# host:port, dir/file, user@host, name==version
_ID_SPLIT = re.compile(r"[:/\\@=]+|\+")
_CAMEL = re.compile(r"[a-z][A-Z]")
_VERSION_V = re.compile(r"(?<![0-9a-z_])v(?=\d)")


def _id_tokens(text: str) -> list[str]:
    return (_ID_TOKEN() if has_cjk(text) else _PLAIN_ID_TOKEN).findall(text)


def _is_identifier(token: str, shouting: bool) -> bool:
    if len(token) < 3 or not any(ch.isalnum() for ch in token):
        return False
    if any(ch.isdigit() for ch in token):
        # a port, a status or error code, a version, an address
        return True
    if _ID_INNER.search(token):
        if max(len(s) for s in re.split(r"[._:/\\@#=+-]+", token)) <= 1:
            # e.g., U.S.
            return False
        # A hyphen alone joins ordinary words (self-care); with a capital or other punctuation it is
        # a name.
        return bool(re.search(r"[._:/\\@#=+]", token)) or token != token.lower()
    if _CAMEL.search(token):
        # getUserById, NullPointerException
        return True
    # ECONNREFUSED, ENOENT, SIGKILL
    return not shouting and token.isupper() and token.isalpha()


def identifiers(text: str, limit: int | None = None) -> tuple[str, ...]:
    """The identifier-like tokens of a query, lower-cased, each once (its first ``limit``):
    ``ECONNREFUSED 127.0.0.1:5432`` → ``econnrefused``, ``127.0.0.1:5432``. Plain words are not
    identifiers; in a query typed in capitals nothing is one for being in capitals."""
    words = re.findall(r"\b[^\W\d_]{2,}\b", text)
    shouting = len(words) >= 3 and sum(w.isupper() for w in words) > 0.8 * len(words)
    # kept unique in a dict, in order: a list's ``in`` grew with the square of a query's identifiers
    out: dict[str, None] = {}
    for raw in _id_tokens(text):
        if limit is not None and len(out) >= limit:
            break
        token = raw.strip(".:=-+/\\#@")
        if _is_identifier(token, shouting):
            out[_normal(token)] = None
    return tuple(out)


def _normal(token: str) -> str:
    # v2.1.0 and 2.1.0 are one version
    return _VERSION_V.sub("", token.lower())


def identifier_parts(identifier: str) -> list[str]:
    """A compound identifier's parts, context first: ``127.0.0.1:5432`` → ``127.0.0.1``,
    ``5432``."""
    return [p for p in _ID_SPLIT.split(identifier) if p]


def identifier_tokens(text: str) -> set[str]:
    """Every identifier-shaped token of a memory's text, normalised as ``identifiers`` does, whole
    and by parts (so a memory saying ``port 5432`` holds ``5432``)."""
    out: set[str] = set()
    for raw in _id_tokens(text):
        token = _normal(raw.strip(".:=-+/\\#@"))
        if token:
            out.add(token)
            out.update(identifier_parts(token))
    return out
