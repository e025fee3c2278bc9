"""Lines appended to a store's JSON-lines files (the spool's, the injection record, the hook
log): each whole or not at all."""

from __future__ import annotations

import os

from . import _write_all, open_nofollow


def append_private(path: str | os.PathLike[str], data: bytes) -> None:
    """Append ``data`` whole or not at all (``append_whole``; mode 0600 when created), never
    through a link."""
    fd = open_nofollow(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    try:
        append_whole(fd, data)
    finally:
        os.close(fd)


def append_whole(fd: int, data: bytes) -> None:
    """Append the line ``data`` to the file open at ``fd`` (``O_RDWR | O_APPEND``, no other writer
    meanwhile) whole or not at all: a write the disk cannot take whole (full, a file-size limit)
    is cut back and raises, where one short write left half a line said to be written; a last line
    left torn so is ended first, so it does not swallow this one (review AX: both events lost)."""
    size = os.fstat(fd).st_size
    torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
    try:
        _write_all(fd, b"\n" + data if torn else data)
    except OSError:
        os.ftruncate(fd, size)
        raise
