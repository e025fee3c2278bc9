"""The scanners the signature rules read text with, without ``re``: a recording hook pays for every
module it loads, and importing ``re`` and compiling a dozen patterns cost each failure hook about
6 ms. Each reads as the pattern in its docstring; ``tests/test_signature_scanners.py`` holds them to
those patterns, on generated text and on real errors and commands."""

from __future__ import annotations

SUFFIXES = (
    "Error Exception Configured DoesNotExist NotReady NotSupported Failure Exit Interrupt Warning "
    "Invalid NotFound Found Denied Refused"
).split()
# the words of an error message (matched in any case)
_MESSAGE = (
    "error",
    "not found",
    "no such file",
    "cannot",
    "can't",
    "unrecognized",
    "invalid",
    "unknown option",
    "permission denied",
    "failed",
    "unterminated",
    "unexpected",
)
# letters that match an ASCII letter when case is ignored, but whose lower case is another letter
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
_ASCII_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_ASCII_WORD = _ASCII_START | frozenset("0123456789")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_UPPER_WORD = _UPPER | frozenset("0123456789_")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_DOTS = frozenset(".-")


def is_word(c: str) -> bool:
    """A regular expression's ``\\w``: a letter, a digit or ``_`` of any script."""
    return c.isalnum() or c == "_"


def is_assignment(word: str) -> bool:
    """``^[A-Za-z_][A-Za-z0-9_]*=``"""
    name, equals, _ = word.partition("=")
    return bool(equals and name) and name[0] in _ASCII_START and all(c in _ASCII_WORD for c in name)


def _is_number(text: str) -> bool:
    """``\\d+(?:\\.\\d+)?``"""
    whole, dot, fraction = text.partition(".")
    return whole.isdecimal() and (not dot or fraction.isdecimal())


def is_duration(word: str) -> bool:
    """``^\\d+(?:\\.\\d+)?[smhd]?$``"""
    return _is_number(word[:-1] if word[-1:] in ("s", "m", "h", "d") else word)


def is_python(program: str) -> bool:
    """``^python(?:\\d+(?:\\.\\d+)*)?$``"""
    if not program.startswith("python"):
        return False
    version = program[6:]
    return not version or all(part.isdecimal() for part in version.split("."))


def exception(line: str) -> tuple[str, str | None] | None:
    """An exception line's class and message (None without a colon), or None when the line is not
    one: ``^\\s*(?:E\\s+)?((?:[A-Za-z_]\\w*\\.)*[A-Za-z_]\\w*(?:SUFFIX))(?::\\s*(.*?))?\\s*$``,
    pytest's ``E   `` prefix allowed."""
    text = line.lstrip()
    if text[:1] == "E" and text[1:2].isspace():
        text = text[1:].lstrip()
    end = 0
    while end < len(text) and text[end] != ":" and not text[end].isspace():
        end += 1
    name, rest = text[:end], text[end:]
    parts = name.split(".")
    if not all(p and p[0] in _ASCII_START and all(map(is_word, p[1:])) for p in parts):
        return None
    last = parts[-1]
    if not any(last.endswith(s) and len(last) > len(s) for s in SUFFIXES):
        return None
    if not rest or rest.isspace():
        return name, None
    return (name, rest[1:].strip()) if rest[0] == ":" else None


def says_error(line: str) -> bool:
    """Whether a line holds one of ``_MESSAGE``'s words, in any case."""
    folded = (line if line.isascii() else line.translate(_FOLD)).lower()
    return any(word in folded for word in _MESSAGE)


def shell_words(text: str) -> list[str]:
    """``shlex.split(text, comments=False)``: words at `` \\t\\r\\n``, quotes and backslashes as a
    POSIX shell reads them; ValueError for a quote or an escape that does not end."""
    words: list[str] = []
    token: list[str] = []
    quoted = False
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            if token or quoted:
                words.append("".join(token))
            token, quoted, i = [], False, i + 1
        elif c == "\\":
            if i + 1 == n:
                raise ValueError("No escaped character")
            token.append(text[i + 1])
            i += 2
        elif c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise ValueError("No closing quotation")
            token.append(text[i + 1 : end])
            quoted, i = True, end + 1
        elif c == '"':
            quoted, i = True, _double_quoted(text, i + 1, token)
        else:
            token.append(c)
            i += 1
    if token or quoted:
        words.append("".join(token))
    return words


def _double_quoted(text: str, i: int, token: list[str]) -> int:
    """Read a double-quoted string's body from ``i`` into ``token``; the index after its quote.
    Inside, a backslash escapes only ``"`` and itself."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            return i + 1
        if c == "\\":
            if i + 1 == n:
                break
            if text[i + 1] not in '"\\':
                token.append(c)
            token.append(text[i + 1])
            i += 2
            continue
        token.append(c)
        i += 1
    raise ValueError("No closing quotation")


def short_quotes(text: str, kept: list[str]) -> str:
    """Each ``'[^'\\s]{1,40}'|"[^"\\s]{1,40}"`` noted in ``kept`` (its digits ``N``) and replaced by
    a NUL."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            end = i + 1
            while end < n and end - i <= 41 and text[end] != c and not text[end].isspace():
                end += 1
            if end < n and text[end] == c and 1 <= end - i - 1 <= 40:
                kept.append(numbers(text[i : end + 1]))
                out.append("\0")
                i = end + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def quotes(text: str) -> str:
    """Each ``'[^'\\n]*'|"[^"\\n]*"`` replaced by ``Q``."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            line_end = text.find("\n", i + 1)
            end = text.find(c, i + 1, n if line_end < 0 else line_end)
            if end >= 0:
                out.append("Q")
                i = end + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def paths(text: str) -> str:
    """Each ``(?:/[\\w.-]+)+`` replaced by ``P``."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        start = i
        while i + 1 < n and text[i] == "/" and (is_word(text[i + 1]) or text[i + 1] in _DOTS):
            i += 1
            while i < n and (is_word(text[i]) or text[i] in _DOTS):
                i += 1
        if i > start:
            out.append("P")
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def hex_numbers(text: str) -> str:
    """Each ``0x[0-9a-fA-F]+`` replaced by ``H``."""
    if "0x" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("0x", i) and i + 2 < n and text[i + 2] in _HEX_DIGITS:
            i += 3
            while i < n and text[i] in _HEX_DIGITS:
                i += 1
            out.append("H")
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def constants(text: str) -> str:
    """Each ``(?<![\\w])[A-Z][A-Z0-9_]{2,}(?![\\w])`` replaced by ``C``."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in _UPPER and (i == 0 or not is_word(text[i - 1])):
            end = i + 1
            while end < n and text[end] in _UPPER_WORD:
                end += 1
            if end - i >= 3 and (end == n or not is_word(text[end])):
                out.append("C")
                i = end
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def numbers(text: str) -> str:
    """Each run of decimal digits (``\\d+``, of any script) replaced by ``N``."""
    out: list[str] = []
    digits = False
    for c in text:
        if c.isdecimal():
            if not digits:
                out.append("N")
            digits = True
        else:
            out.append(c)
            digits = False
    return "".join(out)
