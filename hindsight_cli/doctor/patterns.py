"""What reading a server's words may cost (review BF), and what a path pattern in them may match,
for ``reach``: each look at the file system counted, a pattern's directories listed here rather
than by ``glob`` (which walks a link loop or ``/proc/*/root`` for ever)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

# what stands for a part of a path the shell alone knows (an unset or operated-on parameter, a
# command's output): any characters, `/` too
ANY = "\0"
GLOB = re.compile(r"[*?[]")
# places a pattern (`~/src/*/index.js`) is matched to, for the links among them
MAX_MATCHES = 64
# the looks at the file system one server's words may lead to (review BF): a part resolved from a
# directory, a file queued, an entry a pattern lists; past them, the server counts as reaching the
# checkout. A project's `.mcp.json` of 20,000 words cost doctor minutes, one pattern through
# `/proc/*/root` kept it walking for ever
MAX_LOOKS = 1 << 14


class Spent(Exception):
    """A server's words cost more than ``MAX_LOOKS``."""


class Looks:
    """The looks at the file system left to one server's words."""

    def __init__(self) -> None:
        self.left = MAX_LOOKS

    def spend(self, count: int = 1) -> None:
        self.left -= count
        if self.left < 0:
            raise Spent


def may_match(pattern: str, real: str, looks: Looks) -> bool:
    """Whether a path ``pattern`` stands for (``*``, ``?``, ``[…]`` within a name, ``ANY``
    anything) may lie in ``real``: its directory before the first pattern holds ``real`` (and
    the rest may name it) or lies in it, or a path it matches now is in ``real`` (through a
    link)."""
    import fnmatch
    from itertools import islice

    names = pattern.split(os.sep)
    fixed = next(i for i, name in enumerate(names) if ANY in name or GLOB.search(name))
    try:
        prefix = os.path.realpath(os.sep.join(names[:fixed]) or os.sep)
    except (OSError, ValueError):
        return True
    if within(prefix, real):
        return True
    rest = names[fixed:]
    if within(real, prefix):
        inside = os.path.relpath(real, prefix).split(os.sep)
        if any(ANY in name or name == ".." for name in rest) or (
            len(rest) >= len(inside)
            and all(fnmatch.fnmatchcase(have, want) for have, want in zip(inside, rest))
        ):
            return True
    if ANY in pattern:
        return False
    matches = islice(matching(names, looks), MAX_MATCHES)
    return any(within(os.path.realpath(match), real) for match in matches)


def matching(names: list[str], looks: Looks) -> Iterator[str]:
    """The paths a pattern's ``names`` match, as ``glob`` finds them (a name starting
    with a dot only by a pattern starting with one), each entry a directory lists a look: a
    pattern through a link loop or ``/proc/*/root`` lists its directories again and again."""
    import fnmatch

    stack = [(os.sep, names[1:]) if not names[0] else (os.curdir, names)]
    while stack:
        place, rest = stack.pop()
        if not rest:
            yield place
            continue
        name, rest = rest[0], rest[1:]
        if not GLOB.search(name):
            looks.spend()
            if os.path.lexists(os.path.join(place, name)):
                stack.append((os.path.join(place, name), rest))
            continue
        try:
            with os.scandir(place) as listing:
                for entry in listing:
                    looks.spend()
                    if (name.startswith(".") or not entry.name.startswith(".")) and (
                        fnmatch.fnmatchcase(entry.name, name)
                    ):
                        stack.append((entry.path, rest))
        except (OSError, ValueError):
            continue


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
