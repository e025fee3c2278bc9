"""Streaming reads with byte offsets: JSON lines from a position, the elements of a big JSON array,
and a fingerprint of the bytes before a position (to tell an appended file from a rewritten one).

Memory stays bounded by the longest line (or array element), never by the file.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..models import JSONValue
from ..safefs.reading import (
    MAX_DEPTH,
    MAX_DOCUMENT,
    MAX_LINE,
    MAX_VALUES,
    open_regular,
    parse_json,
    shape_error,
    size_text,
)

if TYPE_CHECKING:
    import zipfile

# a line that is not JSON: counted and skipped by the readers
BROKEN = object()
_CHECK_BYTES = 4096
_CHUNK = 1 << 20
# the first window an element is decoded from when much more is buffered (``_element``)
_WINDOW = 1 << 12
# bytes one run reads past the start of an over-long line looking for its end: a sparse file of
# terabytes of zeros (``truncate -s 16T``, one command) is a line without end that costs nothing to
# make, and reading it through took hours at every run; the next run goes on from there
MAX_SKIP = MAX_DOCUMENT
# a member of an archive: what it may unpack to, and how many times its packed size (JSON packs
# about 5 to 20 times; a zip bomb a thousand)
MAX_UNZIPPED = 8 << 30
MAX_RATIO = 200


class TooLarge(ValueError):
    """Input past one of the reading limits: refused as it is, not read as a broken file."""


class DamagedArchive(TooLarge):
    """A zip whose bytes do not unpack (truncated, a bad CRC, bad deflate data): refused as it is,
    like input past a limit, naming the damage."""


@dataclass
class Line:
    """One JSON line: where it starts and ends in the file, and its value (or ``BROKEN``)."""

    begin: int
    end: int
    # a JSON value, or BROKEN
    value: object
    # 1-based, counted from where the read started
    number: int


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
                end = _past_line(handle, position + len(raw), position + MAX_SKIP)
                if end is None:
                    return
                yield Line(position, end, BROKEN, number)
                if end - position >= MAX_SKIP:
                    # no end in sight: this run stops here, and the next goes on from there
                    return
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


def _past_line(handle: IO[bytes], end: int, stop: int) -> int | None:
    """Read on to the end of an over-long line; where the next one starts, or None when the file
    ends first (a line still being written), or ``stop`` when the line reaches it first (read as a
    broken line up to there)."""
    while more := handle.readline(min(_CHUNK, stop - end)):
        end += len(more)
        if more.endswith(b"\n") or end >= stop:
            return end
    return None


def _decode(text: bytes) -> object:
    try:
        return scrub(parse_json(text), text)
    except (ValueError, RecursionError):
        return BROKEN


_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub(value: Any, text: str | bytes = "\\u") -> Any:
    """``value`` decoded from JSON ``text`` without lone surrogates (``"\\ud800"``, half an emoji),
    which no UTF-8 store, path or hash takes: one would abort a whole run. Only text with a ``\\u``
    escape can hold one, so most values are not walked."""
    if (text.find(b"\\u") if isinstance(text, bytes) else text.find("\\u")) < 0:
        return value
    if isinstance(value, str):
        return _SURROGATE.sub("", value)
    if isinstance(value, list):
        return [scrub(item) for item in value]
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    return value


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
    """``_json_array``, where an archive's damage, which ``zipfile`` and ``zlib`` report with their
    own errors at any read, is ``DamagedArchive``."""
    import zipfile
    import zlib

    try:
        yield from _json_array(path, member)
    except (zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise DamagedArchive(f"the archive is damaged ({error})") from None


def _json_array(path: Path, member: str | None = None) -> Iterator[JSONValue]:
    """The elements of a top-level JSON array, one at a time (a 2 GB ``conversations.json``
    included). A file whose top level is an object yields that object once. ``member``: read that
    file from inside ``path`` when it is a zip archive (a ChatGPT or Claude export as downloaded).
    Raises ``ValueError`` on bad JSON, nesting too deep, an element over ``MAX_LINE`` or a document
    over ``MAX_DOCUMENT`` (elements are never held whole past their limit), or a missing or
    oversized member."""
    decoder = json.JSONDecoder()
    with _open_text(path, member) as handle:
        buffer, done = handle.read(_CHUNK), False
        at = _skip(buffer, 0)
        if buffer[at : at + 1] != "[":
            rest = handle.read(MAX_DOCUMENT + 1 - len(buffer))
            if len(buffer) + len(rest) > MAX_DOCUMENT:
                raise TooLarge(f"a JSON document larger than {size_text(MAX_DOCUMENT)}")
            yield _loads(buffer + rest)
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
                begin = at
                value, at = _element(decoder, buffer, at)
            except RecursionError:
                raise ValueError(f"JSON nested more than {MAX_DEPTH} levels deep") from None
            except ValueError:
                if done:
                    raise
                if len(buffer) - at > MAX_LINE:
                    raise TooLarge(f"an array element larger than {size_text(MAX_LINE)}") from None
                # an element longer than what is buffered: read more, doubling
                more = handle.read(want)
                done, want = not more, want * 2
                buffer, at = buffer[at:] + more, 0
                continue
            refused = shape_error(buffer[begin:at])
            if refused:
                raise ValueError(_element_error(refused))
            value = scrub(value, buffer[begin:at])
            want = _CHUNK
            yield value


def _element(decoder: json.JSONDecoder, buffer: str, at: int) -> tuple[Any, int]:
    """The element at ``at`` and where it ends. Past what is buffered normally (1 MiB, at most a
    value a character), an element is judged on its text before the parser builds its values: on
    a window that grows until it holds the element, never on all that is buffered (after a long
    element, millions of short ones follow it there: judging all of it for each was quadratic)."""
    if len(buffer) - at <= MAX_VALUES:
        return decoder.raw_decode(buffer, at)
    window = _WINDOW
    while True:
        text = buffer[at : at + window]
        whole = at + window >= len(buffer)
        refused = len(text) > MAX_VALUES and shape_error(text, first=True)
        if refused:
            raise ValueError(_element_error(refused))
        try:
            value, end = decoder.raw_decode(text)
        except ValueError:
            if whole:
                raise
        else:
            # a number cut at the window's edge reads as a shorter one: only an element ending
            # before the edge is whole
            if whole or end < len(text):
                return value, at + end
        window *= 8


def _element_error(refused: str) -> str:
    return f"JSON {refused}" if refused.startswith("nested") else f"an array element of {refused}"


def _loads(text: str) -> JSONValue:
    try:
        value: JSONValue = scrub(parse_json(text), text)
    except RecursionError:
        raise ValueError(f"JSON nested more than {MAX_DEPTH} levels deep") from None
    return value


def _open_text(path: Path, member: str | None) -> IO[str]:
    import zipfile

    # a FIFO or a device is refused before anything reads it (is_zipfile would)
    open_regular(path).close()
    if member and zipfile.is_zipfile(path):
        archive = zipfile.ZipFile(path)
        try:
            raw = archive.open(_member(archive, member))
        except BaseException:
            archive.close()
            raise
        return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace")
    return io.TextIOWrapper(open_regular(path), encoding="utf-8-sig", errors="replace")


def _member(archive: zipfile.ZipFile, member: str) -> zipfile.ZipInfo:
    """The archive's ``member``, if it passes the limits that refuse a zip bomb before a byte of it
    is inflated: only stored or deflated (whose output the reader caps at the declared size), at
    most ``MAX_UNZIPPED`` declared, and at most ``MAX_RATIO`` times its compressed size."""
    import zipfile

    found = [i for i in archive.infolist() if i.filename.rsplit("/", 1)[-1] == member]
    if not found:
        raise ValueError(f"the archive holds no {member}")
    info = found[0]
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise TooLarge(f"{info.filename} is compressed in a way hindsight does not read")
    if info.file_size > MAX_UNZIPPED:
        raise TooLarge(
            f"{info.filename} unpacks to {info.file_size} bytes, more than the "
            f"{size_text(MAX_UNZIPPED)} hindsight unpacks"
        )
    if info.file_size > _CHUNK and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise TooLarge(
            f"{info.filename} unpacks to {info.file_size // max(info.compress_size, 1)} times its "
            f"packed size, more than the {MAX_RATIO} of any real export (a zip bomb?)"
        )
    return info


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
            for _ in range(lines * 4):
                # a line past the limit is not one of a transcript's
                raw = handle.readline(MAX_LINE)
                if not raw or len(found) >= lines:
                    break
                if len(raw) == MAX_LINE and not raw.endswith(b"\n"):
                    # no transcript begins with a line this long (a sparse file of zeros would be
                    # read a hundred times 64 MiB here)
                    break
                if raw.strip():
                    value = _decode(raw.strip())
                    if value is not BROKEN:
                        found.append(value)
    except OSError:
        return []
    return found
