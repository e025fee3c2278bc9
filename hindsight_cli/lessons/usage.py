"""Did the agent use what was injected? Read from its commands, without an LLM (issue 36).

A memory's fix is a few commands; each part of them that acts (not ``cd``, not a command that only
reads: ``cat``, ``grep``, ``sed -n``, ``ls``) is an **action**, known by its distinctive normalised
words: the files and packages it names, the words of its edit, its longer flags. Words of the
failing command the memory answers are left out, so running the failing test again is not using
the memory. After the injection, the memory counts as **used** when one of the agent's next
commands repeats an action (an acting part carrying all of a one- or two-word action's words,
else at least ``SHARE`` of them and never fewer than two) and the same kind of error does not come
back after it; **misleading** when it was repeated and the same error came back; **ignored** when
no command repeats one. A command that only reads is weak evidence and never counts.

Pure functions over command strings: the hooks' session-end pass and the benchmark
(``benchmarks/use_detector``) call the same ``judge``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .signatures import strip_heredocs

USED, IGNORED, MISLEADING = "used", "ignored", "misleading"
# the commands after the injection that are read for a verdict
WINDOW = 10
# the share of an action's words a later command must carry to repeat it
SHARE = 0.7
_SEPARATORS = " \t\n;|&<>(){}[]\"'`=,:$\\"
# programs and words every session says: never a sign that a memory was used
_COMMON = frozenset(
    """
    awk bash bin cat cd chmod cp diff echo env export false find git grep head less ls mkdir more
    mv nl pip pip3 print python python3 pytest rm sed sort source sudo tail tee test tests testing
    timeout touch true uniq wc xargs import from return self none true false with open file lines
    line path sys debug else elif def class for while pass reproduce reproduce_issue
    reproduce_issue.py install checkout status stash show apply main
    """.split()
)
# programs whose arguments are only read, or that only move the shell
_READERS = frozenset(
    {"cat", "nl", "grep", "head", "tail", "ls", "find", "less", "more", "wc", "cd", "pwd", "which"}
)

# programs that change a file in place
_EDITORS = frozenset({"sed", "awk", "perl", "patch", "ed"})


def _words(command: str) -> list[str]:
    table = str.maketrans({c: " " for c in _SEPARATORS})
    return [w.strip(".").lower() for w in command.translate(table).split() if w.strip(".")]


def _is_path(word: str) -> bool:
    return "/" in word or (
        "." in word and word.rsplit(".", 1)[1] in {"py", "txt", "rst", "cfg", "toml", "ini", "json"}
    )


def _distinctive(word: str) -> bool:
    core = word.lstrip("-")
    return len(core) >= 4 and not core.replace(".", "").isdigit() and word not in _COMMON


def tokens(command: str) -> set[str]:
    """The normalised words of a command (heredoc bodies left out), a path by its base name."""
    return {w.rsplit("/", 1)[-1] if _is_path(w) else w for w in _words(strip_heredocs(command))}


def _split(command: str) -> list[str]:
    """The parts of a command between ``;``, ``&&``, ``||`` and line ends outside quotes."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    text = strip_heredocs(command)
    index = 0
    while index < len(text):
        char = text[index]
        pair = text[index : index + 2]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in ";\n" or pair in ("&&", "||"):
            parts.append("".join(current))
            current = []
            index += 2 if pair in ("&&", "||") else 1
            continue
        current.append(char)
        index += 1
    return [*parts, "".join(current)]


Action = tuple[str, frozenset[str]]


def _acting_parts(command: str) -> list[Action]:
    """The program and words of each part of ``command`` that acts (``sed -n`` reads; ``sed -i``
    acts)."""
    found = []
    for part in _split(command):
        words = _words(part)
        if not words or words[0] in _READERS or (words[0] == "sed" and "-i" not in words):
            continue
        found.append((words[0], frozenset(tokens(part))))
    return found


def actions(fix: Sequence[str], failed: str = "") -> list[Action]:
    """What a memory's fix tells an agent to do: the program and distinctive words of each acting
    part of its commands, less the words of the failing command it answers."""
    known = tokens(failed)
    # kept unique in a dict, in order (a list's ``in`` grew with the square of a fix's commands)
    out: dict[Action, None] = {}
    for command in fix:
        for program, words in _acting_parts(command):
            told = (program, frozenset(w for w in words - known if _distinctive(w)))
            # an edit known only by the file it touches: another edit of that file is not it
            edit_of_a_file = program in _EDITORS and all(_is_path(w) for w in told[1])
            if told[1] and not edit_of_a_file:
                out[told] = None
    return list(out)


def _needed(action: frozenset[str]) -> int:
    return len(action) if len(action) <= 2 else max(2, math.ceil(SHARE * len(action)))


def applied(told: Sequence[Action], command: str) -> bool:
    """Whether an acting part of ``command`` repeats one of the memory's actions: the same program
    with enough of its words."""
    return any(
        program == wanted and len(action & words) >= _needed(action)
        for program, words in _acting_parts(command)
        for wanted, action in told
    )


def judge(fix: Sequence[str], later: Sequence[tuple[str, bool]], failed: str = "") -> str:
    """``used``, ``ignored`` or ``misleading``: ``later`` holds the agent's commands after the
    injection, each with whether it failed with the same kind of error again; ``failed``, the
    failing command the memory was injected for (none after a session-start injection)."""
    told = actions(fix, failed)
    for index, (command, _) in enumerate(later[:WINDOW]):
        if applied(told, command):
            again = any(same for _, same in later[index + 1 : WINDOW])
            return MISLEADING if again else USED
    return IGNORED
