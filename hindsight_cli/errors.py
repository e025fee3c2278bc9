"""The errors hindsight raises; every message says what to do next."""

from __future__ import annotations

import errno
import os
import sys


class HindsightError(Exception):
    """A failure the user can act on; faces print it as one line (CLI exit code 1)."""

    exit_code = 1


class StoreNotFound(HindsightError):
    """No store exists at the resolved location."""


class MemoryNotFound(HindsightError):
    """No memory has the given id."""


class InvalidInput(HindsightError):
    """Input was refused whole; nothing was written."""


class StoreBusy(HindsightError):
    """Another process held the ledger for longer than the lock timeout."""


class EmbeddingUnavailable(HindsightError):
    """The embedding model could not be loaded."""


class EmbeddingMismatch(HindsightError):
    """The store was indexed with another embedding model or dimension."""


class UnsafeLocation(HindsightError):
    """A store, config or token file that other local users own, can write or can swap; refused
    before anything was read from it or written to it."""


class BadUsage(InvalidInput):
    """A value outside its choices, or options that contradict each other: refused before anything
    ran. The CLI exits 2 for it, as for the parser's own usage errors."""

    exit_code = 2


class Interrupted(HindsightError):
    """Ctrl-C (SIGINT) stopped a long job; the message says what was kept. The CLI exits 130 (128 +
    2)."""

    exit_code = 130


class FileProblem(HindsightError):
    """The operating system refused a file operation (``OSError``); the message names the path and
    the fix."""


_FIXES = {
    "EACCES": "this user may not write there: fix its permissions (ls -ld {parent}) or choose "
    "another location",
    # Linux gives EPERM (not EACCES) for a write under an immutable or append-only attribute;
    # chmod cannot help, the attribute must come off
    "EPERM": "{parent} or the file is immutable or append-only (`lsattr -d {parent}` shows an i or "
    "a): `sudo chattr -i -a {parent}`, or choose another location",
    "EROFS": "the file system is mounted read-only: remount it read-write or choose a location "
    "on a writable disk",
    "ENOSPC": "the disk is full: free some space and rerun",
    "EDQUOT": "your disk quota is used up: free some space and rerun",
    "ENOENT": "{parent} does not exist or cannot hold files: create it or choose another location",
    "EISDIR": "it is a directory: give a file name",
    "ENOTDIR": "{blocker} is a file, not a directory: move it away or choose another location",
    "ENAMETOOLONG": "the name is too long: choose a shorter path",
    "ELOOP": "it goes through too many symbolic links: give the real path",
    "EMFILE": "too many files are open: raise the limit (ulimit -n) and rerun",
}


def _blocker(path: str) -> str:
    """The first part of ``path`` that exists but is not a directory (what ``ENOTDIR`` is about)."""
    here = os.path.abspath(path)
    parts = []
    while os.path.dirname(here) != here:
        parts.append(here)
        here = os.path.dirname(here)
    for part in reversed(parts):
        if os.path.lexists(part) and not os.path.isdir(part):
            return part
    return os.path.dirname(os.path.abspath(path))


def os_error_fix(error: OSError) -> str:
    """What to do about ``error``, naming its path (doctor's checks and :func:`from_os_error`)."""
    name = errno.errorcode.get(error.errno or 0, "")
    path = os.fsdecode(error.filename) if error.filename is not None else None
    parent = os.path.dirname(os.path.abspath(path)) if path else "the directory"
    fix = _FIXES.get(name, "check the path and its permissions, then rerun")
    if name == "EPERM" and sys.platform == "darwin":
        fix = _EPERM_MACOS
    return fix.format(
        parent=parent, blocker=_blocker(path) if path and "{blocker}" in fix else parent
    )


# macOS has no chattr: its immutable flag is uchg, and privacy protection (TCC) also gives EPERM
_EPERM_MACOS = (
    "{parent} or the file is locked (`ls -ldO {parent}` shows uchg: `chflags nouchg {parent}`), or "
    "macOS privacy protection keeps this program out (give the terminal Full Disk Access)"
)


def from_os_error(error: OSError) -> HindsightError:
    """An ``OSError`` as one line for a person: what failed on which path, and what to do about it.
    Every face translates the ``OSError``s that reach it with this, so none shows a traceback."""
    reason = (error.strerror or str(error) or type(error).__name__).rstrip(".")
    path = os.fsdecode(error.filename) if error.filename is not None else None
    fix = os_error_fix(error)
    where = f" {path}" if path else ""
    return FileProblem(f"Cannot use{where}: {reason[:1].lower() + reason[1:]}; {fix}.")
