"""Streaming reads with byte offsets: JSON lines from a position, the elements of a big JSON array,
and a fingerprint of the bytes before a position (to tell an appended file from a rewritten one).

Memory stays bounded by the longest line (or array element), never by the file.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..models import JSONValue

# a line that is not JSON: counted and skipped by the readers
BROKEN = object()
_CHECK_BYTES = 4096
_CHUNK = 1 << 20
# bytes: the longest line read as JSON; a longer one is skipped as broken (a 300 MB line must not
# take 300 MB)
MAX_LINE = 64 << 20


@dataclass
class Line:
    """One JSON line: where it starts and ends in the file, and its value (or ``BROKEN``)."""

    begin: int
    end: int
    # a JSON value, or BROKEN
    value: object
    # 1-based, counted from where the read started
    number: int


def open_regular(path: Path) -> IO[bytes]:
    """``path`` opened for reading, if it is a regular file: a FIFO (whose open would wait for a
    writer) or a device such as ``/dev/zero`` (which never ends), or a link to one, raises
    ``OSError`` instead. Checked on the descriptor that is read."""
    import errno
    import os
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_lines(path: Path, start: int = 0) -> Iterator[Line]:
    """JSON lines from byte ``start``. A last line without its newline is read only if it is
    complete JSON: a client may be writing it right now, and then the next run reads it whole."""
    with open_regular(path) as handle:
        handle.seek(start)
        position, number = start, 0
        while raw := handle.readline(MAX_LINE):
            number += 1
            if len(raw) == MAX_LINE and not raw.endswith(b"\n"):
                # longer than any exchange: skipped to its end, never held whole
                end = _past_line(handle, position + len(raw))
                if end is None:
                    return
                yield Line(position, end, BROKEN, number)
                position = end
                continue
            end = position + len(raw)
            text = raw.strip()
            if text:
                value = _decode(text)
                if value is BROKEN and not raw.endswith(b"\n"):
                    # an unfinished last line
                    return
                yield Line(position, end, value, number)
            position = end


def _past_line(handle: IO[bytes], end: int) -> int | None:
    """Read on to the end of an over-long line; where the next one starts, or None when the file
    ends first (a line still being written)."""
    while more := handle.readline(_CHUNK):
        end += len(more)
        if more.endswith(b"\n"):
            return end
    return None


def _decode(text: bytes) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return BROKEN


def check(path: Path, cursor: int) -> str:
    """A fingerprint of the (up to 4 KiB of) bytes just before ``cursor``: the end of the last line
    read."""
    if cursor <= 0:
        return ""
    size = min(cursor, _CHECK_BYTES)
    with open_regular(path) as handle:
        handle.seek(cursor - size)
        return hashlib.sha256(handle.read(size)).hexdigest()[:32]


def iter_json_array(path: Path, member: str | None = None) -> Iterator[JSONValue]:
    """The elements of a top-level JSON array, one at a time (a 2 GB ``conversations.json``
    included). A file whose top level is an object yields that object once. ``member``: read that
    file from inside ``path`` when it is a zip archive (a ChatGPT or Claude export as downloaded).
    Raises ``ValueError`` on bad JSON or a missing member."""
    decoder = json.JSONDecoder()
    with _open_text(path, member) as handle:
        buffer, done = handle.read(_CHUNK), False
        at = _skip(buffer, 0)
        if buffer[at : at + 1] != "[":
            yield json.loads(buffer + handle.read())
            return
        at, want = at + 1, _CHUNK
        while True:
            if not done and len(buffer) - at < _CHUNK // 2:
                more = handle.read(want)
                done = not more
                buffer, at = buffer[at:] + more, 0
            at = _skip(buffer, at, ",")
            if buffer[at : at + 1] == "]":
                return
            try:
                value, at = decoder.raw_decode(buffer, at)
            except ValueError:
                if done:
                    raise
                # an element longer than what is buffered: read more, doubling
                more = handle.read(want)
                done, want = not more, want * 2
                buffer, at = buffer[at:] + more, 0
                continue
            want = _CHUNK
            yield value


def _open_text(path: Path, member: str | None) -> IO[str]:
    import zipfile

    # a FIFO or a device is refused before anything reads it (is_zipfile would)
    open_regular(path).close()
    if member and zipfile.is_zipfile(path):
        archive = zipfile.ZipFile(path)
        names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == member]
        if not names:
            archive.close()
            raise ValueError(f"the archive holds no {member}")
        return io.TextIOWrapper(archive.open(names[0]), encoding="utf-8-sig", errors="replace")
    return io.TextIOWrapper(open_regular(path), encoding="utf-8-sig", errors="replace")


def _skip(text: str, at: int, also: str = "") -> int:
    while at < len(text) and (text[at].isspace() or text[at] in also):
        at += 1
    return at


def head_values(path: Path, lines: int = 25) -> list[object]:
    """The first JSON values of a JSON-lines file (broken lines left out), to recognise its
    format."""
    found: list[object] = []
    try:
        with open_regular(path) as handle:
            for number, raw in enumerate(handle):
                if number >= lines * 4 or len(found) >= lines:
                    break
                if raw.strip():
                    value = _decode(raw.strip())
                    if value is not BROKEN:
                        found.append(value)
    except OSError:
        return []
    return found
