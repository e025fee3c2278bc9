"""What went wrong, as a stable identity: an error's *signature* and a command's *family*.

The repeat gate of the hooks, transcript mining, troubleshooting search and ``hindsight eval
replay`` all name a failure by its **kind**, ``family | signature``: the program that decided the
command (``python -m pytest``, ``grep``, ``python script``) and the error's last exception line with
what changes between runs taken out (paths, numbers, hex, long quotes, constants). Two tracebacks of
the same mistake in different files, at different lines, read alike; two different mistakes that
share words do not. The definition is ``bench/replay/PROBES.md``'s, so the product and its measure
agree.

Standard library only, and without ``re`` (``shlex``, ``hashlib`` and ``re`` only where a rarer
path needs them): a recording hook loads it under ``python -S`` on every failure, and the module and
its patterns cost that hook more than the rest of its work. The scanners below read as the
patterns in their comments; ``tests/test_signature_scanners.py`` holds them to those patterns.
"""

from __future__ import annotations

SIGNATURE_WORDS = 12
# a lesson's tag: ``sig:`` and the first hex digits of its kind's digest
TAG_PREFIX = "sig:"
_TAG_DIGITS = 16
# a shell tool: its calls have a command, hence a family
SHELL_TOOLS = frozenset(
    {"bash", "shell", "run_shell_command", "exec_command", "local_shell", "terminal", "bash_tool"}
)

_TRIVIAL = frozenset("cd echo export source set true mkdir rm touch cp mv chmod pip".split())
_PREFIXES = frozenset({"timeout", "sudo", "env"})
# python options that take a value
_PYTHON_VALUED = frozenset({"-W", "-X", "-Q"})
_HEREDOC = r"(?<!<)<<(?!<)(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2"
_SUFFIXES = (
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


def _is_word(c: str) -> bool:
    """A regular expression's ``\\w``: a letter, a digit or ``_`` of any script."""
    return c.isalnum() or c == "_"


def _is_assignment(word: str) -> bool:
    """``^[A-Za-z_][A-Za-z0-9_]*=``"""
    name, equals, _ = word.partition("=")
    return bool(equals and name) and name[0] in _ASCII_START and all(c in _ASCII_WORD for c in name)


def _is_number(text: str) -> bool:
    """``\\d+(?:\\.\\d+)?``"""
    whole, dot, fraction = text.partition(".")
    return whole.isdecimal() and (not dot or fraction.isdecimal())


def _is_duration(word: str) -> bool:
    """``^\\d+(?:\\.\\d+)?[smhd]?$``"""
    return _is_number(word[:-1] if word[-1:] in ("s", "m", "h", "d") else word)


def _is_python(program: str) -> bool:
    """``^python(?:\\d+(?:\\.\\d+)*)?$``"""
    if not program.startswith("python"):
        return False
    version = program[6:]
    return not version or all(part.isdecimal() for part in version.split("."))


def _exception(line: str) -> tuple[str, str | None] | None:
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
    if not all(p and p[0] in _ASCII_START and all(map(_is_word, p[1:])) for p in parts):
        return None
    last = parts[-1]
    if not any(last.endswith(s) and len(last) > len(s) for s in _SUFFIXES):
        return None
    if not rest or rest.isspace():
        return name, None
    return (name, rest[1:].strip()) if rest[0] == ":" else None


def _says_error(line: str) -> bool:
    """Whether a line holds one of ``_MESSAGE``'s words, in any case."""
    folded = (line if line.isascii() else line.translate(_FOLD)).lower()
    return any(word in folded for word in _MESSAGE)


def strip_heredocs(command: str) -> str:
    """The command without its heredoc bodies; the operators (``<<EOF``) stay."""
    if "<<" not in command:
        return command
    import re

    heredoc = re.compile(_HEREDOC)
    kept: list[str] = []
    waiting: list[tuple[str, bool]] = []
    for line in command.split("\n"):
        if waiting:
            delimiter, tabs = waiting[0]
            if (line.lstrip("\t") if tabs else line).strip() == delimiter:
                waiting.pop(0)
            continue
        kept.append(line)
        waiting = [(m.group(3), bool(m.group(1))) for m in heredoc.finditer(line)]
    return "\n".join(kept)


def _parts(text: str) -> list[str]:
    """``text`` cut at every ``&&``, ``||``, ``;`` and line break, quoted or not (the definition
    does not read quotes)."""
    return text.replace("&&", "\n").replace("||", "\n").replace(";", "\n").split("\n")


def _words(part: str) -> list[str]:
    """A command's words as a POSIX shell reads them (``shlex.split``), or split at white space
    when its quotes do not close."""
    if not any(c in part for c in "'\"\\"):
        return part.split()
    try:
        return _shell_words(part)
    except ValueError:
        return part.split()


def _shell_words(text: str) -> list[str]:
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


def _program(part: str) -> list[str]:
    """The words of a part's first pipeline element, without leading assignments, ``timeout``,
    ``sudo``, ``env`` and bare durations."""
    words = _words(part.split("|", 1)[0])
    while words and (_is_assignment(words[0]) or words[0] in _PREFIXES or _is_duration(words[0])):
        words.pop(0)
    return words


def _base(program: str) -> str:
    return program.rstrip("/").rsplit("/", 1)[-1]


def _python(args: list[str]) -> str:
    rest = iter(args)
    for arg in rest:
        if arg == "-m":
            module = next(rest, "")
            return f"python -m {module}".rstrip()
        if arg.startswith("-m") and len(arg) > 2:
            return f"python -m {arg[2:]}"
        if arg == "-c" or arg.startswith("-c"):
            return "python -c"
        if arg in _PYTHON_VALUED:
            next(rest, None)
            continue
        if arg.startswith("-"):
            continue
        return "runtests" if arg.endswith("runtests.py") else "python script"
    return "python script"


def family(command: str) -> str | None:
    """The command family of a step: the program of its last non-trivial part (``python -m
    pytest``, ``python -c``, ``python script``, ``runtests``, ``grep`` …), or None."""
    chosen: list[str] | None = None
    for raw in _parts(strip_heredocs(command)):
        part = raw.strip()
        if not part or "<<" in part.replace("<<<", "") or part[0] in "(#{}":
            continue
        words = _program(part)
        if not words or _base(words[0]) in _TRIVIAL:
            continue
        chosen = words
    if chosen is None:
        return None
    program = _base(chosen[0])
    if program == "runtests.py":
        return "runtests"
    if _is_python(program):
        return _python(chosen[1:])
    return program


def normalise(message: str) -> str:
    """An error message without what changes between runs: long quotes, paths, hex, constants,
    numbers; lower case, its first 12 words. A short quoted word (``'reproduce_app'``) is kept as
    it is but for its digits: it names what went wrong."""
    kept: list[str] = []
    text = _short_quotes(message.replace("\0", ""), kept)
    for rewrite in (_quotes, _paths, _hex, _constants, _numbers):
        text = rewrite(text)
    pieces = text.split("\0")
    restored = [pieces[0]]
    # a later rewrite may have taken a NUL inside a longer quote, and its word with it
    for word, piece in zip(kept, pieces[1:], strict=False):
        restored += (word, piece)
    return " ".join("".join(restored).lower().split()[:SIGNATURE_WORDS])


def _short_quotes(text: str, kept: list[str]) -> str:
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
                kept.append(_numbers(text[i : end + 1]))
                out.append("\0")
                i = end + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _quotes(text: str) -> str:
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


def _paths(text: str) -> str:
    """Each ``(?:/[\\w.-]+)+`` replaced by ``P``."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        start = i
        while i + 1 < n and text[i] == "/" and (_is_word(text[i + 1]) or text[i + 1] in _DOTS):
            i += 1
            while i < n and (_is_word(text[i]) or text[i] in _DOTS):
                i += 1
        if i > start:
            out.append("P")
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _hex(text: str) -> str:
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


def _constants(text: str) -> str:
    """Each ``(?<![\\w])[A-Z][A-Z0-9_]{2,}(?![\\w])`` replaced by ``C``."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in _UPPER and (i == 0 or not _is_word(text[i - 1])):
            end = i + 1
            while end < n and text[end] in _UPPER_WORD:
                end += 1
            if end - i >= 3 and (end == n or not _is_word(text[end])):
                out.append("C")
                i = end
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _numbers(text: str) -> str:
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


def error_line(output: str) -> str | None:
    """The line an output's error signature is read from: its last exception line, else its first
    line that says an error happened; None when it has neither."""
    lines = [line for line in output.splitlines() if line.strip()]
    last = None
    for line in lines:
        if not line.startswith("Traceback") and _exception(line) is not None:
            last = line
    if last is not None:
        return last
    return next((line for line in lines if _says_error(line)), None)


def signature(output: str) -> str | None:
    """The error signature of an output: ``Class: message`` from its last exception line (the
    class without its module), else the first line that says an error happened, normalised; None
    when it says neither."""
    return read_error(output)[0]


def read_error(output: str) -> tuple[str | None, str | None]:
    """An output's signature and the line it is read from (``error_line``), in one reading."""
    line = error_line(output)
    return (None, None) if line is None else (_of_line(line), line)


def _of_line(line: str) -> str:
    found = _exception(line)
    if found is None:
        return normalise(line)
    name, message = found
    return f"{name.rsplit('.', 1)[-1]}: {normalise(message or '')}"


def kind(family_name: str | None, signature_text: str | None) -> str | None:
    """``family | signature``, or None when either is missing."""
    if not family_name or not signature_text:
        return None
    return f"{family_name} | {signature_text}"


def tag(kind_text: str) -> str:
    """The tag a lesson of this kind carries: its exact lookup key in every storage engine."""
    import hashlib

    digest = hashlib.sha256(kind_text.encode("utf-8")).hexdigest()
    return TAG_PREFIX + digest[:_TAG_DIGITS]


def exception_class(signature_text: str | None) -> str | None:
    """The class of a signature read from an exception line (``KeyError``), else None."""
    if not signature_text or ": " not in signature_text:
        return None
    head = signature_text.split(": ", 1)[0]
    return head if _exception(head) is not None else None


# calls after a failure within which a success of its family is its fix
FIX_WINDOW = 10


def step_trail(family: str, trail: tuple[str, ...], args: str) -> tuple[str, ...] | None:
    """An open failure's trail after one more call (``args``): a failure with a family notes the
    call, and is let go (None) once ``FIX_WINDOW`` calls have passed; one without is unchanged."""
    if not family:
        return trail
    return None if len(trail) >= FIX_WINDOW else (*trail, args)


def call_family(tool: str, command: str | None) -> str | None:
    """The family of a tool call: a shell call's command family, else the tool's own name (an
    ``Edit`` that failed is fixed by a later ``Edit`` that worked)."""
    if tool.lower() in SHELL_TOOLS:
        return family(command) if command else None
    return tool or None


def of_query(text: str) -> tuple[str | None, str | None, str | None]:
    """What a troubleshooting query says went wrong: the family of its first line (the command,
    when the query is a command and its output), the signature of the whole, and the error's
    line. Any may be None (a question in words has no signature)."""
    first = text.strip().split("\n", 1)[0]
    return family(first) if "\n" in text.strip() else None, signature(text), error_line(text)


_WORD = r"[a-z_][a-z0-9_]{2,}"
# words a signature must hold to be recognised inside another text: fewer say too little
NEAR_WORDS = 2


def words(text: str) -> frozenset[str]:
    """The informative words of a text, lower case: three or more letters, digits or ``_`` (a
    signature's placeholders ``n``, ``q``, ``p``, ``c`` are not)."""
    import re

    return frozenset(re.findall(_WORD, text.lower()))


def near(signature_text: str, text_words: frozenset[str]) -> bool:
    """Whether a text shows the error of ``signature_text``, though its own signature reads
    otherwise (a clipped output, pytest's summary line instead of the traceback's): every
    informative word of the signature is in it, and there are at least ``NEAR_WORDS``."""
    wanted = words(signature_text)
    return len(wanted) >= NEAR_WORDS and wanted <= text_words
