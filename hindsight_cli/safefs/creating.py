"""Files hindsight makes once and never rewrites (a store's ``config.toml`` and ``.gitignore``,
the spool secret where links fail): each whole or not at all."""

from __future__ import annotations

import os
import stat

from . import _link, _lstat, _unlink_quietly, _write_all, _written_beside, open_nofollow


def create_private(path: str | os.PathLike[str], data: str | bytes) -> bool:
    """Create ``path`` with ``data`` (mode 0600) unless it exists; returns whether it did. Whole or
    not at all: written beside it, then linked to the name (a full disk or a kill mid-write once
    left half a ``config.toml`` that every later command refused, review BA). A link in its place,
    dangling or not, is refused rather than written through."""
    target = os.fspath(path)
    # one that is there is left as it is, and nothing is written beside it: a read-only store or a
    # full disk holding it only refuses what must be made
    if not _absent(target):
        return False
    temp = _written_beside(target, data, 0o600)
    try:
        os.link(temp, target)
    except FileExistsError:
        _absent(target)  # a link put there meanwhile is refused
        return False
    except OSError:
        # a file system without hard links: created in place, and removed if cut short
        return _create_in_place(target, data)
    finally:
        _unlink_quietly(temp)
    return True


def _absent(path: str) -> bool:
    """Whether nothing is at ``path``; a link there, dangling or not, is refused."""
    st = _lstat(path)
    if st is not None and stat.S_ISLNK(st.st_mode):
        _link(path).raise_()
    return st is None


def _create_in_place(path: str, data: str | bytes) -> bool:
    try:
        fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        _absent(path)  # a link put there meanwhile is refused
        return False
    try:
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
    except BaseException:
        _unlink_quietly(path)
        raise
    return True
