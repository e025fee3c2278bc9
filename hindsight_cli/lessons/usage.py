"""Did the agent use what was injected? Read from its commands, without an LLM (issue 36).

A memory's fix is a few commands. What it *tells* an agent is what in them is new to the agent: the
files and packages it names, the flags and words of its commands that the agent's own commands
before the injection did not hold (``marks``). After the injection, the memory counts as **used**
when one of the agent's next commands carries enough of those marks (``applied``) and the same kind
of error does not come back after it; **misleading** when it was applied and the same error came
back; **ignored** when no command carries them. A command that only reads (``cat``, ``grep``,
``sed -n``, ``ls``) names files without acting on them, so a memory's reading commands give marks
only through the paths they name.

Pure functions over command strings: the hooks' session-end pass and the benchmark
(``benchmarks/use_detector``) call the same ``judge``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .signatures import strip_heredocs

USED, IGNORED, MISLEADING = "used", "ignored", "misleading"
# the commands after the injection that are read for a verdict
WINDOW = 10
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
# programs whose arguments are only read
_READERS = frozenset({"cat", "nl", "grep", "head", "tail", "ls", "find", "less", "more", "wc"})
# fewest marks a command must carry when the memory has many
_ENOUGH = 2


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
    """The normalised words of a command (heredoc bodies left out), paths also by their base
    name."""
    out: set[str] = set()
    for word in _words(strip_heredocs(command)):
        out.add(word)
        if _is_path(word):
            out.add(word.rsplit("/", 1)[-1])
    return out


def _acting(command: str) -> set[str]:
    """A command's words that say what it does: every word of a command that acts, only the paths
    of one that reads (``sed -n`` reads; ``sed -i`` acts)."""
    found: set[str] = set()
    for part in strip_heredocs(command).replace("&&", ";").replace("||", ";").split(";"):
        words = tokens(part)
        head = _words(part)[:1]
        reads = bool(head) and (
            head[0] in _READERS or (head[0] == "sed" and "-i" not in _words(part))
        )
        found |= {w for w in words if _is_path(w)} if reads else words
    return found


def marks(fix: Sequence[str], before: Iterable[str] = ()) -> set[str]:
    """What a memory's fix tells an agent that its commands before the injection did not hold."""
    known: set[str] = set()
    for command in before:
        known |= tokens(command)
    told: set[str] = set()
    for command in fix:
        told |= _acting(command)
    return {w for w in told - known if _distinctive(w)}


def applied(told: set[str], command: str) -> bool:
    """Whether ``command`` carries the memory's marks: all of them when it has one or two, else at
    least ``_ENOUGH``."""
    if not told:
        return False
    carried = len(told & tokens(command))
    return carried >= min(len(told), _ENOUGH)


def judge(
    fix: Sequence[str],
    later: Sequence[tuple[str, bool]],
    before: Iterable[str] = (),
) -> str:
    """``used``, ``ignored`` or ``misleading``: ``later`` holds the agent's commands after the
    injection, each with whether it failed with the same kind of error again; ``before``, its
    commands before the injection."""
    told = marks(fix, before)
    for index, (command, _) in enumerate(later[:WINDOW]):
        if applied(told, command):
            again = any(same for _, same in later[index + 1 : WINDOW])
            return MISLEADING if again else USED
    return IGNORED
