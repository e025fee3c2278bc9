"""What went wrong, as a stable identity: an error's *signature* and a command's *family*.

The repeat gate of the hooks, transcript mining, troubleshooting search and ``hindsight eval
replay`` all name a failure by its **kind**, ``family | signature``: the program that decided the
command (``python -m pytest``, ``grep``, ``python script``) and the error's last exception line with
what changes between runs taken out (paths, numbers, hex, long quotes, constants). Two tracebacks of
the same mistake in different files, at different lines, read alike; two different mistakes that
share words do not. The definition is ``bench/replay/PROBES.md``'s, so the product and its measure
agree.

Standard library only, and without ``re`` (``hashlib``, and ``re`` for a heredoc or ``words``, only
where those rarer paths need them): a recording hook loads it under ``python -S`` on every failure.
The text is read by the scanners of ``scanning``.
"""

from __future__ import annotations

from . import scanning as scan

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
        return scan.shell_words(part)
    except ValueError:
        return part.split()


def _program(part: str) -> list[str]:
    """The words of a part's first pipeline element, without leading assignments, ``timeout``,
    ``sudo``, ``env`` and bare durations."""
    words = _words(part.split("|", 1)[0])
    while words and (
        scan.is_assignment(words[0]) or words[0] in _PREFIXES or scan.is_duration(words[0])
    ):
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
    if scan.is_python(program):
        return _python(chosen[1:])
    return program


def normalise(message: str) -> str:
    """An error message without what changes between runs: long quotes, paths, hex, constants,
    numbers; lower case, its first 12 words. A short quoted word (``'reproduce_app'``) is kept as
    it is but for its digits: it names what went wrong."""
    kept: list[str] = []
    text = scan.short_quotes(message.replace("\0", ""), kept)
    for rewrite in (scan.quotes, scan.paths, scan.hex_numbers, scan.constants, scan.numbers):
        text = rewrite(text)
    pieces = text.split("\0")
    restored = [pieces[0]]
    # a later rewrite may have taken a NUL inside a longer quote, and its word with it
    for word, piece in zip(kept, pieces[1:], strict=False):
        restored += (word, piece)
    return " ".join("".join(restored).lower().split()[:SIGNATURE_WORDS])


def error_line(output: str) -> str | None:
    """The line an output's error signature is read from: its last exception line, else its first
    line that says an error happened; None when it has neither."""
    lines = [line for line in output.splitlines() if line.strip()]
    last = None
    for line in lines:
        if not line.startswith("Traceback") and scan.exception(line) is not None:
            last = line
    if last is not None:
        return last
    return next((line for line in lines if scan.says_error(line)), None)


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
    found = scan.exception(line)
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
    return head if scan.exception(head) is not None else None


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
