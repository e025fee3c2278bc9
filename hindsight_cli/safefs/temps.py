"""The temp files ``safefs.write_private`` writes beside a file before renaming it over it, and
the sweep of those a killed writer left (each a whole copy of what it was writing, which a hard
forget must not leave behind). Standard library only: the recording hooks import ``safefs``."""

from __future__ import annotations

import os

from .reading import whole_number

TEMP_SUFFIX = ".tmp"


def _temp_writer(name: str) -> int | None:
    """The pid in a ``write_private`` temp file's name (``.NAME.PID-HEX.tmp``); 0 for one of a
    version before the pid was in it (``.NAME.HEX.tmp``); None for any other name. (No ``re``: the
    recording hooks import this module.)"""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
        return None
    stem = name[: -len(TEMP_SUFFIX)]
    if stem.count(".") < 2:
        return None
    pid, _, tail = stem.rpartition(".")[2].rpartition("-")
    if len(tail) != 12 or any(c not in "0123456789abcdef" for c in tail):
        return None
    if not pid:
        return 0
    return whole_number(pid)


def remove_stale_temps(directory: str | os.PathLike[str]) -> int:
    """Delete the temp files ``write_private`` left in ``directory`` when its process was killed
    between writing one and renaming it (SIGKILL, a power cut): each holds a whole copy of what it
    was writing, which a hard forget must not leave behind. A live writer's temp file is left to
    it. Returns how many went."""
    removed = 0
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    for name in names:
        writer = _temp_writer(name)
        if writer is None or (writer and _alive(writer)):
            continue
        try:
            os.unlink(os.path.join(directory, name))
            removed += 1
        except OSError:
            pass
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # another user's process, or no way to ask: leave its file
    except (PermissionError, OSError, OverflowError):
        return True
    return True
