"""What a command line runs: its words as a POSIX shell splits them, and the program past its
wrappers (``sh -c``, ``cmd /c``, ``wsl -e``, ``env K=V``, ``sudo``)."""

from __future__ import annotations

import re
from pathlib import Path

_WRAPPERS = {"sudo", "env", "nohup", "exec", "time", "tini", "dumb-init"}
SHELLS = {"sh", "bash", "zsh", "dash", "pwsh", "powershell"}
# -c, -lc, -ic; PowerShell's -Command
_COMMAND_FLAG = re.compile(r"-[a-z]*c[a-z]*|-command", re.IGNORECASE)


def split_words(text: str) -> list[str]:
    """A command line's words as a POSIX shell splits them; unbalanced quotes fall back to
    whitespace. Read once (review BI: ``shlex`` adds a word's characters one at a time, so a
    quoted word of 256 KB took 6 s, one of 1 MiB in a Dockerfile's `ENV` minutes)."""
    from ..lessons.scanning import shell_words

    try:
        return shell_words(text)
    except ValueError:
        return text.split()


def _unwrap_wsl(rest: list[str]) -> list[str]:
    index = 0
    while index < len(rest) and rest[index].startswith("-"):
        option = rest[index]
        index += 1
        if option in ("-e", "--exec", "--"):
            break
        if option in ("-d", "--distribution", "-u", "--user", "--cd") and index < len(rest):
            index += 1
    return rest[index:]


def launched(argv: list[str]) -> list[str]:
    """The program a command line really runs, past wrappers: ``cmd /c``, ``wsl -e``, ``sh -c "…"``,
    ``env K=V``, ``sudo``, ``nohup``. ``wsl`` itself is kept in front, since it needs WSL."""
    words = list(argv)
    # wrappers inside wrappers, but never forever
    for _ in range(8):
        name, rest = program(words), words[1:]
        if name == "wsl":
            return ["wsl", *launched(_unwrap_wsl(rest))]
        command_flag = next((i for i, w in enumerate(rest[:3]) if _COMMAND_FLAG.fullmatch(w)), None)
        if name in SHELLS and command_flag is not None:
            script = rest[command_flag + 1 :]
            words = split_words(script[0]) if script else []
        elif name == "cmd":
            words = [w for w in rest if w.lower() not in ("/c", "/k", "/s", "/q", "/d")]
        elif name in _WRAPPERS:
            # its options and assignments, skipped at once (review BI)
            words = rest[
                next(
                    (i for i, w in enumerate(rest) if not w.startswith("-") and "=" not in w),
                    len(rest),
                ) :
            ]
        else:
            return words
    return words


def program(argv: list[str]) -> str:
    """The name of the program ``argv`` starts (lower case, no ``.exe``)."""
    return Path(argv[0].replace("\\", "/")).name.lower().removesuffix(".exe") if argv else ""
