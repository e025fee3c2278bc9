"""Text as a reader sees it, for the poisoning checks: one spelling for every way of writing the
same visible words (compatibility forms, look-alike letters from other scripts, invisible
characters, markup, leetspeak, letter spacing), plus the text hidden inside it (base64, hex, percent
and backslash escapes, Unicode tag characters, ROT13, reversed). Phrases are folded by the same
function, so a check matches what a model would read, whichever way it was written."""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from urllib.parse import unquote

from .letters import (
    _BLANK_LETTERS as _BLANK_LETTERS,
    _FORMAT as _FORMAT,
    _NON_ASCII as _NON_ASCII,
    _TABLE as _TABLE,
    INVISIBLE as INVISIBLE,
    _confusables as _confusables,
    skeleton as skeleton,
)

# U+E0020..E007E mirror ASCII: "ASCII smuggling" hides text in them
_TAGS = range(0xE0020, 0xE007F)
# Leetspeak digits, and l, 1 and | (which look alike) all read as i; typographic quotes and dashes
# as ASCII.
_LEET = str.maketrans(
    "013456789|l"
    "\u2019\u2018\u201b\u02bc\u2032\u00b4"
    "\u201c\u201d\u201e\u201f\u2033"
    "\u2013\u2014\u2015\u2012\u2212",
    "oieasgtbgii''''''\"\"\"\"\"-----",
)
_MARKUP_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9:-]{0,30}(?:\s[^<>]{0,300})?/?>")
# what a tag's attributes say to whoever reads the page: an image's alt text, a title, a label, a
# placeholder, a meta tag's content (a model describing the page reads them); kept where the tag
# is taken out
_TEXT_ATTRIBUTE = re.compile(
    r"(?i)(?<![\w-])(?:alt|title|aria-label|aria-description|placeholder|label|summary|content)"
    r"\s*=\s*(?:\"([^\"<>]*)\"|'([^'<>]*)')"
)
# emphasis marks; a run of underscores read once from its start (tried from each of them to the
# run's end before a word, 16,000 took 13 s to read; review AH)
_MARKDOWN = re.compile(r"[*~`]+|(?<!\w)_+|(?<!_)_++(?!\w)")
_COMMENT = re.compile(r"<!--|-->|/\*|\*/")
# Letters written one by one with a separator ("i g n o r e", "I.G.N.O.R.E", "i-g-n-o-r-e").
_SPACED = re.compile(r"(?<!\w)\w(?:(?: |[^\w\s])\w){2,}(?:[^\w\s](?=\s|$))?(?!\w)")
_SPACED_SEP = re.compile(r" |[^\w\s]")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9_-]{20,}={0,2}")
_HEX = re.compile(r"\b(?:0x)?(?:[0-9a-fA-F]{2}){8,}\b")
_ESCAPES = re.compile(r"(?:\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}){4,}")
# each from the start of its run (after a blank, a "%" or the text's start) and never giving back
# what a run took: tried at every character of a long run, each try read the run to its end (a 64
# KB run with a "%" anywhere took a minute; review AF); the same matches
_PERCENT = re.compile(r"(?<![^%\s])[^%\s]*+(?:%[0-9a-fA-F]{2}[^%\s]*+){3,}")
# Base32 (RFC 4648), in one case: 16 characters or more.
_BASE32 = re.compile(r"\b(?:[A-Z2-7]{16,}|[a-z2-7]{16,})={0,6}(?![\w=])")
# Character codes in decimal: "105 103 110 111 114 101 …", eight or more.
_DECIMAL = re.compile(r"(?<![\d.])(?:\d{2,3}[ ,;]+){7,}\d{2,3}(?![\d.])")
# Hex bytes written apart: "69 67 6e 6f …", "69:67:6e:…", eight or more.
_HEX_SPACED = re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{2}[ :,]){7,}[0-9a-fA-F]{2}(?![\w:])")
# Bytes in binary: "01101001 01100111 …", eight or more.
_BINARY = re.compile(r"(?<![01])(?:[01]{8}[ ,]?){8,}(?![01])")
# Morse code: letters of dots and dashes apart, words apart by " / " or three blanks.
_MORSE = re.compile(r"(?<![.\-\w])(?:[.\-·−_]{1,6}(?: {1,3}| / |/)){10,}[.\-·−_]{1,6}(?![.\-\w])")
_MORSE_CODE = {
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h",
    "..": "i", ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p",
    "--.-": "q", ".-.": "r", "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x",
    "-.--": "y", "--..": "z", "-----": "0", ".----": "1", "..---": "2", "...--": "3", "....-": "4",
    ".....": "5", "-....": "6", "--...": "7", "---..": "8", "----.": "9",
}  # fmt: skip
# Base64 wrapped over lines, from the start of its first line's run (as ``_PERCENT``: a data URI of
# 64 KB in a page that holds a line break took a minute; review AF).
_BASE64_LINES = re.compile(
    r"(?<![A-Za-z0-9+/])(?:[A-Za-z0-9+/]{16,}+\r?\n){1,64}[A-Za-z0-9+/]{2,}={0,2}"
)
# A word written in symbols that read as letters: "!gn0r3", "@ll", "pr3v!0u$".
# a token from its start (not from every character of a long run without a letter or digit: that
# read a 30 KB run of symbols in seconds)
_LEET_TOKEN = re.compile(r"(?<!\S)\S*[A-Za-z0-9]\S*")
_LEET_SYMBOLS = str.maketrans("!@$€+£¡", "iaset" + "li")
_LIST_ITEM = re.compile(r"(?:[-*•+]|\d{1,3}[.)])\s")
# a statement of code or a key of a config ("else:", "required: true", "x = f(y)", "}"): a line
# that stands alone, not a piece of a word
_STATEMENT = re.compile(
    r"[\w)\]'\"]\s*(?:[=:({;]|->|==|!=)(?:\s|$)|[\w)\]'\"]\s*[=:]\s*\S|^[})\]]|^(?:#|//|```)"
)
# How much of a text the line-break views read: they are for short fragments, not whole files.
_FRAGMENTS_MAX = 4000
_LATIN_NAME = re.compile(
    r"LATIN (?:CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL |SCRIPT |DOTLESS |BARRED |)([A-Z])\b"
)
_LATIN_BLOCKS = (
    (0x0180, 0x02B0),
    (0x1D00, 0x1DC0),
    (0x1E00, 0x1F00),
    (0x2C60, 0x2C80),
    (0xA720, 0xA800),
    (0xAB30, 0xAB70),
)


_IN_WORD = re.compile(r"(?<=[^\W\d_])[.\-·*](?=[^\W\d_])")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")


_TAG = re.compile("[\U000e0020-\U000e007e]")
# 🏴 + tags: England, Scotland, Wales
_FLAG = re.compile("\U0001f3f4[\U000e0061-\U000e007a]{2,7}\U000e007f")


def hidden_tag_text(text: str) -> str:
    """The ASCII text spelled in Unicode tag characters, which render as nothing but a model reads
    (the tag sequences of subdivision flags excepted)."""
    if text.isascii() or not _TAG.search(text):
        return ""
    return "".join(chr(ord(ch) - 0xE0000) for ch in _FLAG.sub("", text) if ord(ch) in _TAGS)


def surface(text: str) -> str:
    """NFKC, HTML entities decoded, invisible characters removed: what is visibly there, case
    kept."""
    if "&" in text:
        text = html.unescape(text)
    return text if text.isascii() else INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def _tag_text(match: re.Match[str]) -> str:
    """A tag taken out, the text of its attributes kept (``_TEXT_ATTRIBUTE``); a tag without such
    text leaves nothing, so a word it splits is joined ("ig<b></b>nore")."""
    said = [double or single for double, single in _TEXT_ATTRIBUTE.findall(match.group())]
    return f" {' '.join(said)} " if any(said) else ""


def unwrap(text: str) -> str:
    """Markup removed around the words it wraps: HTML/XML tags and comments, Markdown emphasis."""
    # Each pattern only where its characters are: most texts hold no markup at all.
    if "--" in text or "/*" in text or "*/" in text:
        text = _COMMENT.sub(" ", text)
    if "<" in text:
        text = _MARKUP_TAG.sub(_tag_text, text)
    if "*" in text or "_" in text or "`" in text or "~" in text:
        text = _MARKDOWN.sub(lambda m: " " if "_" in m.group() else "", text)
    return text


def derive_confusables() -> dict[str, str]:
    """The table ``confusables.json`` holds, derived from the Unicode confusables data (UTS #39)
    that the ``confusable_homoglyphs`` package maintains: for each character, the nearest ASCII
    letter or digit through look-alike pairs and case pairs (Cherokee, Lisu and small capitals reach
    ASCII only through their capitals), plus Latin letters the data lacks, by name (``LATIN LETTER
    SMALL CAPITAL N``)."""
    from confusable_homoglyphs.confusables import confusables_data

    pairs: dict[str, set[str]] = {}
    for key, homoglyphs in confusables_data.items():
        a = key.strip("\u200e\u200f")
        for entry in homoglyphs:
            b = entry["c"].strip("\u200e\u200f")
            if len(a) == 1 and len(b) == 1:
                pairs.setdefault(a, set()).add(b)
                pairs.setdefault(b, set()).add(a)
    table = {
        ch: ascii_ for ch in pairs if not ch.isascii() and (ascii_ := _nearest_ascii(ch, pairs))
    }
    for start, end in _LATIN_BLOCKS:
        for code in range(start, end):
            name = _LATIN_NAME.match(unicodedata.name(chr(code), ""))
            if chr(code) not in table and name:
                table[chr(code)] = name.group(1).lower()
    return dict(sorted(table.items()))


def _nearest_ascii(start: str, pairs: dict[str, set[str]], depth: int = 6) -> str | None:
    seen, frontier = {start}, [start]
    for _ in range(depth):
        step: list[str] = []
        for ch in frontier:
            for other in pairs.get(ch, set()) | {
                c for c in (ch.lower(), ch.upper()) if len(c) == 1
            }:
                if other not in seen:
                    seen.add(other)
                    step.append(other)
        found = sorted(c for c in step if c.isascii() and c.isalnum())
        if found:
            return min(found, key=lambda c: (not c.isalpha(), c.isupper())).lower()
        frontier = step
    return None


def write_confusables() -> None:
    """Regenerate ``confusables.json`` (after upgrading ``confusable_homoglyphs``)."""
    _TABLE.write_text(
        json.dumps(derive_confusables(), ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
    )


def _join_spaced(match: re.Match[str]) -> str:
    """Letters spelled out one by one, joined: the separator used most (on a tie, the first one
    used) is removed, any other one stays a word break ("i-g-n-o-r-e a-l-l" is "ignore all"). The
    tie is broken by the text, not by a set's order, which changes with the process's hash seed: one
    text, one verdict."""
    # its keys in the order first used
    counts = Counter(_SPACED_SEP.findall(match.group()))
    # max keeps the first of equals
    most = max(counts, key=counts.__getitem__)
    return "".join(
        " " if ch in counts and ch != most else "" if ch == most else ch for ch in match.group()
    )


# Letters set apart by one blank and words by a wider gap ("B ỏ   q u a   m ọ i   h ư ớ n g"): a
# run of single characters, each alone between blanks of up to four (one pass: a character then its
# blanks, each character read once)
_SPACED_WIDE = re.compile(r"(?<!\S)\S(?: {1,4}\S(?!\S))+")
_WIDE_GAP = re.compile(r" {2,}")
# gaps of two blanks or more a run must hold to be read this way (a line of code "x = 1  # y" holds
# one)
_FEWEST_GAPS = 3


def _join_wide(match: re.Match[str]) -> str:
    """A run of letters set apart, its words apart by wider gaps, joined: each gap of one blank
    removed, each wider one a word break ("b o   q u a" is "bo qua", so two-letter words join too,
    which the joiner of ``_SPACED`` leaves apart); a run without both kinds of gap unchanged."""
    run = match.group()
    words = _WIDE_GAP.split(run)
    if len(words) <= _FEWEST_GAPS or not any(" " in word for word in words):
        return run
    return " ".join(word.replace(" ", "") for word in words)


def finish(skel: str) -> str:
    """The last steps of ``fold`` on a skeleton: spelled-out letters joined (words apart by wider
    gaps too), leetspeak read as letters, underscores as spaces (IGNORE_ALL_PREVIOUS)."""
    skel = skel.replace("_", " ")
    if "  " in skel:
        skel = _SPACED_WIDE.sub(_join_wide, skel)
    skel = _SPACED.sub(_join_spaced, skel)
    if not _NUMBER.search(skel):
        return skel.translate(_LEET)
    # a number of two digits or more is a number, not leetspeak: "41 passed" hails no "ai"
    pieces, at = [], 0
    for number in _NUMBER.finditer(skel):
        pieces += [skel[at : number.start()].translate(_LEET), number.group()]
        at = number.end()
    return "".join(pieces) + skel[at:].translate(_LEET)


# digits standing alone, two or more (a leetspeak word has letters beside its digits: "4ll", "1gn0r3")
_NUMBER = re.compile(r"(?<!\w)[0-9]{2,}+(?!\w)")


def fold(text: str) -> str:
    """``skeleton`` plus leetspeak digits and letters spelled out one by one joined into words."""
    return finish(skeleton(text))


def normalise(text: str) -> str:
    """The one spelling the phrase checks read: visible text, markup unwrapped, folded (see
    ``fold``)."""
    return fold(unwrap(surface(text)))


# Words an injection cannot do without; a token one typo away from one of them reads as it.
_KEYWORDS = (
    "ignore",
    "disregard",
    "forget",
    "previous",
    "instructions",
    "instruction",
    "directives",
    "guidelines",
    "system",
    "prompt",
    "override",
    "bypass",
    "restrictions",
    "unrestricted",
    "jailbreak",
    "jailbroken",
    "reveal",
    "developer",
    "assistant",
    "everything",
    "earlier",
)
_TOKEN = re.compile(r"[^\W\d_]{5,}")


@lru_cache(maxsize=1)
def _keywords() -> dict[tuple[str, int], list[str]]:
    index: dict[tuple[str, int], list[str]] = {}
    for word in {fold(w) for w in _KEYWORDS}:
        for size in (len(word) - 1, len(word), len(word) + 1):
            index.setdefault((word[0], size), []).append(word)
    return index


def _one_typo(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one insertion, deletion, substitution or swap of
    neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :] or (
            a[i : i + 2] == b[i : i + 2][::-1] and a[i + 2 :] == b[i + 2 :]
        )
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[i + 1 :] == shorter[i:]


def typo_view(folded: str) -> str | None:
    """``folded`` with every word one typo away from a keyword spelled as the keyword, or None when
    no word is ("ignroe all previus instrctions")."""
    fixes = {word: keyword for word in set(_TOKEN.findall(folded)) if (keyword := _typo_of(word))}
    return _TOKEN.sub(lambda m: fixes.get(m.group(), m.group()), folded) if fixes else None


@lru_cache(maxsize=65_536)
def _typo_of(word: str) -> str:
    """The keyword ``word`` is one typo away from ("" for none), remembered: words repeat from text
    to text."""
    for keyword in _keywords().get((word[0], len(word)), ()):
        if _one_typo(word, keyword):
            return keyword
    return ""


def _printable(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(ch.isalpha() for ch in text)
    shown = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    return (
        text
        if len(text) >= 8 and shown >= 0.95 * len(text) and letters >= 0.5 * len(text)
        else None
    )


def _base64(run: str) -> str | None:
    padded = run + "=" * (-len(run) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            plain = _printable(decode(padded))
        except (binascii.Error, ValueError):
            continue
        if plain:
            return plain
    return None


def _escapes(run: str) -> str | None:
    try:
        return codecs.decode(run, "unicode_escape")
    except UnicodeDecodeError:
        return None


def _base32(run: str) -> str | None:
    body = run.rstrip("=").upper()
    if len(body) > 4096:
        return None
    try:
        return _printable(base64.b32decode(body + "=" * (-len(body) % 8)))
    except (binascii.Error, ValueError):
        return None


def _decimal(run: str) -> str | None:
    codes = [int(n) for n in re.findall(r"\d+", run)]
    if not all(32 <= n < 127 or n in (9, 10) for n in codes):
        return None
    return _printable(bytes(codes))


def _binary(run: str) -> str | None:
    bits = re.sub(r"[ ,]", "", run)
    return _printable(bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits) - 7, 8)))


def _morse(run: str) -> str | None:
    run = run.replace("·", ".").replace("−", "-").replace("_", "-")
    words = [word.split() for word in re.split(r" / |/| {3}", run.strip())]
    if any(code not in _MORSE_CODE for word in words for code in word):
        return None
    return _printable(
        " ".join("".join(_MORSE_CODE[code] for code in word) for word in words).encode()
    )


def _wrapped_base64(run: str) -> str | None:
    return _base64("".join(run.split()))


# (pattern, decoder, a character every match holds: without it the pattern is not run)
_DECODERS = (
    (_BASE64, _base64, ""),
    (_BASE64_LINES, _wrapped_base64, "\n"),
    (_BASE32, _base32, ""),
    (_DECIMAL, _decimal, " "),
    (_BINARY, _binary, "0"),
    (_MORSE, _morse, "-"),
    (_HEX_SPACED, lambda run: _printable(bytes.fromhex(re.sub(r"[ :,]", "", run))), ""),
    (_HEX, lambda run: _printable(bytes.fromhex(run.removeprefix("0x"))), ""),
    (_ESCAPES, _escapes, "\\"),
    (_PERCENT, unquote, "%"),
)


def _decoded(text: str) -> list[str]:
    """``text`` with its base64, hex, backslash-escaped or percent-encoded runs decoded in place,
    one reading per encoding that decoded anything."""
    found = []
    for pattern, decode, needed in _DECODERS:
        if needed not in text:
            continue
        hits = 0

        def replace(match: re.Match[str], decode: Callable[[str], str | None] = decode) -> str:
            nonlocal hits
            plain = decode(match.group())
            hits += plain is not None
            return match.group() if plain is None else plain

        decoded = pattern.sub(replace, text)
        if hits:
            # only the lines a decoded run changed are read again, with the rest of their line
            before = set(text.splitlines())
            found.append("\n".join(line for line in decoded.splitlines() if line not in before))
    return found


def _leet(plain: str) -> str | None:
    """``plain`` with the symbols that stand for letters inside words read as those letters
    ("!gn0r3 @ll pr3v!0u$" is "ignore all previous"), or None when no word holds one. Addresses and
    URLs are left as they are."""
    if not any(c in plain for c in "!@$€+£¡"):
        return None

    def word(match: re.Match[str]) -> str:
        token = match.group()
        if "://" in token or re.fullmatch(r"[\w.+-]+@[\w-]+\.[\w.]+", token):
            return token
        return token.translate(_LEET_SYMBOLS)

    # only the lines that change are read again
    changed = [new for line in plain.splitlines() if (new := _LEET_TOKEN.sub(word, line)) != line]
    return "\n".join(changed) if changed else None


# Words run together without spaces ("ignorepreviousinstructions", one letter per line): a long run
# of letters is cut before the words an injection is made of.
_RUN = re.compile(r"[A-Za-z]{18,}")
_RUN_WORDS = re.compile(
    "(?i)(ignore|disregard|forget|previous|prior|earlier|above|instructions?|directives?|rules|"
    "guidelines|system|prompt|reveal|print|show|send|upload|your|you|are|now|and|the|all|any|every|"
    "new|from|without|restrictions?|password|secrets?|keys?|delete|assistant|developer|mode|"
    "override|bypass|act|as|unrestricted|admin|repeat|tell|user|never|do|not|must|to)"
)


def _run_together(text: str) -> str | None:
    """``text`` with its long runs of letters cut into words, or None when it has none."""
    if not _RUN.search(text):
        return None
    # only the lines that hold a run are read again
    return "\n".join(
        _RUN.sub(lambda m: " ".join(_RUN_WORDS.sub(r" \1 ", m.group()).split()), line)
        for line in text.splitlines()
        if _RUN.search(line)
    )


def _fragments(plain: str, visible: str = "") -> list[str]:
    """A text cut into short lines (one word, a few letters, a piece of a word per line) read as one
    line: with a space between its lines, and with none (``ign\\nore``, one letter per line, base64
    wrapped short). Empty for ordinary text, whose lines are sentences."""
    if plain.count("\n") < 2:
        return []
    lines = [line.strip() for line in plain[:_FRAGMENTS_MAX].splitlines() if line.strip()]
    if len(lines) < 3 or sorted(map(len, lines))[len(lines) // 2] > 24:
        return []
    shown = [
        line.strip() for line in (visible or plain)[:_FRAGMENTS_MAX].splitlines() if line.strip()
    ]
    if sum(bool(_LIST_ITEM.match(line)) for line in shown) * 2 >= len(shown):
        # a list (before its Markdown is unwrapped): each item stands alone
        return []
    if sum(bool(_STATEMENT.search(line)) for line in shown) * 2 >= len(shown):
        # code or a config: each line is a statement
        return []
    joined = "".join(lines)
    return [" ".join(lines), joined] + [cut for cut in [_run_together(joined)] if cut]


# string literals joined in code ("ig" + "nore", 'a' 'b', "x" .. "y", 'p' || 'q'), and a word
# hyphenated across a line break ("Ign-\nore")
# (the blanks after a quote read once: blanks, an operator that may be missing, blanks again,
# read as two runs, were split every way, each quote before a long run of blanks; review AF)
_GLUE = re.compile(
    r"[\"'`]\s*+(?:(?:\+|\.\.|\.|&|\|\||,)\s*+)?[\"'`]|(?<=\w)-[ \t]*+\r?\n[ \t]*+(?=\w)"
)


def _glued(text: str) -> str | None:
    """``text`` with the pieces of split strings and hyphenated words put together, the lines that
    change alone; None when none does."""
    if "-" not in text and not any(q in text for q in "\"'`"):
        return None
    joined = _GLUE.sub("", text)
    if joined == text:
        return None
    return joined


def hidden_views(text: str, visible: str | None = None) -> list[tuple[str, str]]:
    """(how it was hidden, the text) for every reading of ``text`` besides the plain one;
    ``visible`` is ``surface(text)`` when the caller has it."""
    visible = surface(text) if visible is None else visible
    plain = unwrap(visible)
    views = [("rot13", codecs.encode(plain, "rot13")), ("reversed", plain[::-1])]
    leet = _leet(plain)
    if leet is not None:
        views.append(("leetspeak", leet))
    cut = _run_together(plain)
    if cut is not None:
        views.append(("run-together words", cut))
    fragments = _fragments(plain, visible)
    if fragments:
        # rot13 read across the line breaks too
        views.append(("rot13", codecs.encode(fragments[0], "rot13")))
    for one_line in fragments:
        views.append(("line breaks", one_line))
        views.extend(("line breaks", decoded) for decoded in _decoded(one_line))
    # "ig.nore pre.vious", "IgnoreAllPrevious": only the lines that change are read again.
    joined = [
        new
        for line in plain.splitlines()
        if (new := _IN_WORD.sub("", _CAMEL.sub(" ", line))) != line
    ]
    if joined:
        views.append(("split words", "\n".join(joined)))
    glued = _glued(plain)
    if glued is not None:
        views.append(("joined strings", glued))
    tagged = hidden_tag_text(text)
    if tagged:
        views.append(("tag characters", tagged))
    for decoded in _decoded(visible):
        views.append(("encoded", decoded))
        # base64 of base64, once
        views.extend(("encoded", inner) for inner in _decoded(decoded))
    return views
