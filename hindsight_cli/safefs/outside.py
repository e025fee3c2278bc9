"""Files hindsight writes outside a store (client configs, hook settings, their backups), written
as store files are: a random temp name opened ``O_CREAT|O_EXCL|O_NOFOLLOW`` and renamed over, and
no symbolic link on the way from the project root followed out of the project (issue 31)."""

from __future__ import annotations

import errno
import os
import stat

from ..errors import UnsafeLocation
from . import _lstat, _replace_file
from .reading import open_regular, read_at_most, size_text

# bytes: the most a client config or settings file read by an installer may hold
CONFIG_LIMIT = 16 << 20


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def check_outside(path: str | os.PathLike[str], root: str | os.PathLike[str] | None) -> None:
    """Refuse to touch ``path`` when a symbolic link between ``root`` (the project, for a file of
    project scope) and it, itself included, leads out of ``root``: a repository may have planted it
    to make hindsight write elsewhere (``~/.bashrc``). A link that stays inside is followed as
    usual. Whatever the root, ``path`` is a regular file or a link if it exists."""
    target = os.path.abspath(os.fspath(path))
    if root is not None and _within(target, os.path.abspath(os.fspath(root))):
        base = os.path.abspath(os.fspath(root))
        real_root = os.path.realpath(base)
        current = base
        for part in os.path.relpath(target, base).split(os.sep):
            current = os.path.join(current, part)
            st = _lstat(current)
            if st is None:
                return
            if stat.S_ISLNK(st.st_mode):
                real = os.path.realpath(current)
                if not _within(real, real_root):
                    _outside_link(current, real, base)
    st = _lstat(target)
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        raise UnsafeLocation(
            f"{target} is not a regular file; move it aside, then run the command again. "
            "Nothing was changed."
        )


def _outside_link(link: str, real: str, root: str) -> None:
    raise UnsafeLocation(
        f"{link} is a symbolic link to {real}, outside {root}: hindsight does not write through a "
        "link a repository may have planted. Remove it, then run the command again. Nothing was "
        "changed."
    )


def read_outside(
    path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None
) -> bytes | None:
    """A config file's bytes (None when it does not exist), checked as ``check_outside`` does and
    read on a descriptor that is a regular file, at most ``CONFIG_LIMIT`` bytes."""
    check_outside(path, root)
    # checked: any link on the way stays inside the root
    real = os.path.realpath(os.fspath(path))
    try:
        handle = open_regular(real, nofollow=True)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno != errno.EINVAL:
            raise
        raise UnsafeLocation(f"{os.fspath(path)} is not a regular file; move it aside.") from None
    with handle:
        try:
            return read_at_most(handle, CONFIG_LIMIT, path)
        except OSError as error:
            if error.errno != errno.EFBIG:
                raise
            raise UnsafeLocation(
                f"{os.fspath(path)} is larger than {size_text(CONFIG_LIMIT)}, more than a config "
                "file holds; move it aside."
            ) from None


def write_outside(
    path: str | os.PathLike[str],
    data: str | bytes,
    root: str | os.PathLike[str] | None = None,
) -> None:
    """Write a file hindsight keeps outside a store (a client config, hook settings, a backup of
    one) the way it writes store files: ``check_outside`` on the way from ``root`` to it, missing
    directories made one at a time without following a link, a random temp name opened
    ``O_CREAT|O_EXCL|O_NOFOLLOW``, renamed over it. The file keeps its mode (0644 when new)."""
    target = os.path.abspath(os.fspath(path))
    check_outside(target, root)
    parent = os.path.dirname(target)
    missing = []
    while _lstat(parent) is None and parent != os.path.dirname(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    for directory in reversed(missing):
        # mkdir never follows a link at the name: a link planted meanwhile fails it
        os.mkdir(directory, 0o755)
    check_outside(target, root)
    st = _lstat(target)
    mode = stat.S_IMODE(st.st_mode) if st is not None and stat.S_ISREG(st.st_mode) else 0o644
    # a client's config: on the disk before this returns, its directory too (docs/reliability.md)
    _replace_file(target, data, mode, durable=True)
