"""The one rule for reading a file that came from outside (a transcript, an export, a note, a client's
settings, a config or token file): a regular file only, and never more than a stated number of
bytes (docs/reliability.md, "Bounded reads").

A FIFO's open waits for a writer and a device such as ``/dev/zero`` never ends, so the file is opened
without blocking and checked on the descriptor that is then read (a link to either is caught too).
A read that would pass its limit stops there and raises instead of growing without end. Errors are
``OSError``, which every reader already reports as "cannot read". Standard library only: the
recording hooks use it.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

# not `typing`: the recording hooks must not import it
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator
    from typing import Any, BinaryIO

# a line of a transcript or an import file, one JSON array element, one note
MAX_LINE = 64 << 20
# a JSON document read whole (a Gemini session, a mini-swe-agent trajectory, a client's settings)
MAX_DOCUMENT = 256 << 20
# a `hindsight import` JSONL file or stream (split a bigger one: its lines are independent)
MAX_IMPORT = 1 << 30
# a config, token, allow-list or marker file
MAX_SMALL = 1 << 20
# levels of JSON nesting: what every walker of a value (cleaning, redaction, export) can go through
# on any thread's stack, and far more than any transcript, export or config nests
MAX_DEPTH = 200
# values in one JSON text (each ``[``, ``{``, ``,`` and ``:`` outside its strings): a limit on bytes
# is not one on objects (64 MiB of ``{},`` decodes to 22 million dicts, gigabytes); this many cost
# at most a few hundred megabytes, and no transcript line, export element or document comes near
MAX_VALUES = 1 << 22
# values, and lines, in all of one `hindsight import` (held together until every line is checked:
# one bad line refuses the whole file), a few hundred thousand memories
MAX_IMPORT_VALUES = 1 << 23


def size_text(limit: int) -> str:
    """``limit`` bytes as people read it (64 MiB, 1 GiB)."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if limit >= 1 << shift and limit % (1 << shift) == 0:
            return f"{limit >> shift} {unit}"
    return f"{limit} bytes"


def too_large(path: str | os.PathLike[str], limit: int) -> OSError:
    return OSError(errno.EFBIG, f"larger than {size_text(limit)}, more than hindsight reads", path)


# What a reader of a store's files reads a call: a line's read of a file of gigabytes took the
# page-sized reads of the default buffer (`st_blksize`), one system call each.
_BUFFER = 1 << 16
_SKIP_READ = 1 << 20


def not_regular(path: str | os.PathLike[str]) -> OSError:
    return OSError(errno.EINVAL, "not a regular file (a pipe, a device or a directory)", path)


def open_regular(path: str | os.PathLike[str], nofollow: bool = False) -> BinaryIO:
    """``path`` opened for reading if it is a regular file (a link to one is followed, unless
    ``nofollow``); a FIFO, a device or a directory, or a link to one, raises ``OSError`` without
    waiting."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags | (getattr(os, "O_NOFOLLOW", 0) if nofollow else 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise not_regular(path)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=_BUFFER)
    except BaseException:
        os.close(fd)
        raise


def read_at_most(handle: BinaryIO, limit: int, path: str | os.PathLike[str]) -> bytes:
    """The rest of ``handle``, or ``OSError`` (too large) as soon as it passes ``limit`` bytes."""
    data = handle.read(limit + 1)
    if len(data) > limit:
        raise too_large(path, limit)
    return data


def parse_json(text: str | bytes, depth: int | None = MAX_DEPTH) -> Any:
    """``json.loads(text)``, where every way ``text`` is not JSON hindsight reads raises
    ``json.JSONDecodeError`` (a ``ValueError``): bad JSON, nesting deeper than ``MAX_DEPTH`` levels
    (which the parser could still take on a short stack, and a walker then not: a
    ``RecursionError``), more than ``MAX_VALUES`` values (judged on the text, before a value is
    built), an integer of more than 4,300 digits (Python's own ``ValueError``). ``depth=None``:
    any nesting the parser takes (a ledger's value an older version wrote)."""
    import json

    refused = shape_error(text, depth=depth)
    if refused:
        raise json.JSONDecodeError(refused, "", 0)
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError(f"nested more than {MAX_DEPTH} levels deep", "", 0) from None
    except ValueError:
        # the only other ValueError the parser raises: int()'s digit limit
        raise json.JSONDecodeError("a number of more than 4,300 digits", "", 0) from None
    return value


def shape_error(
    text: str | bytes, first: bool = False, depth: int | None = MAX_DEPTH
) -> str | None:
    """Why the JSON ``text`` is not decoded (``None`` when it may be): more than ``MAX_VALUES``
    values or nesting deeper than ``MAX_DEPTH`` levels, judged on the text at C speed, so that
    neither the memory of the values nor the time of a walk over them is spent first. Text that
    is not JSON may pass: the parser refuses it. ``first``: judge only the first value of
    ``text`` (an array's element, with what follows it buffered). ``depth=None``: values only."""
    if isinstance(text, str):
        opened = text.count("[") + text.count("{")
        values = opened + text.count(",") + text.count(":")
    else:
        opened = text.count(b"[") + text.count(b"{")
        values = opened + text.count(b",") + text.count(b":")
    # most texts: too few brackets to nest that deep, too few separators to hold that many
    if (depth is None or opened <= depth) and values <= MAX_VALUES:
        return None
    if isinstance(text, str):
        data = text.encode("utf-8", "surrogatepass")
    elif text[:4].count(0) or text.startswith((b"\xff\xfe", b"\xfe\xff")):
        # UTF-16 or UTF-32, which json.loads also reads: judged on the characters, not the bytes
        import json

        data = text.decode(json.detect_encoding(text), "replace").encode("utf-8")
    else:
        data = text
    # what is outside the strings (a ``"`` that never closes runs to the end: linear either way)
    outside = _strings().sub(b"", data)
    if first:
        outside = _first(outside)
    values = sum(outside.count(mark) for mark in (b"[", b"{", b",", b":"))
    if values > MAX_VALUES:
        return f"more than {MAX_VALUES:,} values"
    if depth is None:
        return None
    brackets = outside.translate(_SAME_BRACKETS, _NOT_BRACKETS)
    if brackets.count(b"[") > depth and _depth(brackets) > depth:
        return f"nested more than {depth} levels deep"
    return None


def count_values(text: str | bytes) -> int:
    """How many values the JSON ``text`` holds, as ``MAX_VALUES`` counts them (each ``[``, ``{``,
    ``,`` and ``:`` outside its strings); a text of a few counts them with its strings."""
    if isinstance(text, str):
        marks = text.count("[") + text.count("{") + text.count(",") + text.count(":")
        if marks <= 32:
            return marks
        text = text.encode("utf-8", "surrogatepass")
    marks = text.count(b"[") + text.count(b"{") + text.count(b",") + text.count(b":")
    if marks <= 32:
        return marks
    outside = _strings().sub(b"", text)
    return sum(outside.count(mark) for mark in (b"[", b"{", b",", b":"))


_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_SAME_BRACKETS = bytes.maketrans(b"{}", b"[]")
_STRING: list[Any] = []


def _strings() -> Any:
    """The JSON string literal (compiled once, on first need: the recording hooks rarely do)."""
    if not _STRING:
        import re

        _STRING.append(re.compile(rb'"(?:[^"\\]++|\\.?)*+(?:"|\Z)', re.DOTALL))
    return _STRING[0]


def _depth(brackets: bytes) -> int:
    """How deep the ``[``/``]`` sequence ``brackets`` nests (C speed, linear time)."""
    from itertools import accumulate, count
    from operator import sub

    # most nest a few levels: innermost pairs removed, a level a pass
    for passes in range(8):
        shorter = brackets.replace(b"[]", b"")
        if not shorter:
            return passes + 1
        if len(shorter) == len(brackets):
            break
        brackets = shorter
    else:
        passes = 8
    # ``[`` as 2 and ``]`` as 0: the depth after the i-th is the running sum less i
    steps = brackets.translate(_STEPS)
    return passes + max(map(sub, accumulate(steps), count(1)), default=0)


_STEPS = bytes.maketrans(b"[]", b"\x02\x00")
_STRUCTURE = bytes.maketrans(b"[]{},:", b"\x02\x00\x02\x00\x01\x01")
_NOT_STRUCTURE = bytes(range(256)).translate(None, b"[]{},:")


def _first(outside: bytes) -> bytes:
    """The first value of ``outside`` (JSON text without its strings): up to where its first
    bracket closes, or all of it when it does not (yet)."""
    from itertools import accumulate, count
    from operator import indexOf, sub

    marks = outside.translate(None, _NOT_STRUCTURE)
    if not marks.startswith((b"[", b"{")):
        return b""
    # ``[`` as 2, ``]`` as 0, a separator as 1: the depth after the i-th mark is the sum less i
    try:
        end = indexOf(map(sub, accumulate(marks.translate(_STRUCTURE)), count(1)), 0)
    except ValueError:
        return marks
    return marks[: end + 1]


def parse_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, where TOML nested deeper than ``MAX_DEPTH`` levels (a checkout's
    config of a few kilobytes of ``[``: a ``RecursionError`` in the parser, or in whatever walks the
    value next) raises ``tomllib.TOMLDecodeError`` (a ``ValueError``), as bad TOML does; and so
    does an integer past TOML's 64 bits, which the TOML spec makes an error (review BO: one of
    more than 4,300 digits raised a plain ``ValueError``, ``int()``'s limit, and a hexadecimal
    one of 5,000 digits could be neither printed nor made a float: in a checkout's
    ``.hindsight/config.toml`` or ``.codex/config.toml`` each ended every command there, or
    `hindsight doctor`, with a traceback)."""
    import tomllib

    if text.count(".") >= MAX_DEPTH and _long_key(text):
        raise tomllib.TOMLDecodeError(f"nested more than {MAX_DEPTH} levels deep")
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError(f"nested more than {MAX_DEPTH} levels deep") from None
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:
        # the only other ValueError the parser raises: int()'s digit limit
        raise tomllib.TOMLDecodeError(_LONG_INTEGER) from None
    if text.count("[") + text.count("{") > MAX_DEPTH and too_deep(value):
        raise tomllib.TOMLDecodeError(f"nested more than {MAX_DEPTH} levels deep")
    if _long_integer(value):
        raise tomllib.TOMLDecodeError(_LONG_INTEGER)
    return value


_LONG_INTEGER = "an integer past TOML's 64 bits"


def _long_integer(value: Any) -> bool:
    """Whether a TOML document's ``value`` holds an integer past 64 bits (walked without
    recursion: nested as deep as ``parse_toml`` lets it)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, int) and not -(1 << 63) <= item < 1 << 63:
            return True
    return False


# a basic and a literal string, to their closing quote: on one line, as TOML keys, table headers
# and inline tables are
_BASIC = r'"(?:[^"\\\n]|\\.)*+'
_LITERAL = r"'[^'\n]*+"


def _long_key(text: str) -> bool:
    """Whether ``text`` holds a dotted key of more than ``MAX_DEPTH`` parts (``[a.a.a…]``,
    ``a.a.a… = 1``): a table nested that deep, and one ``tomllib`` reads in time quadratic in its
    parts (it grows the key a part at a time: 600 KB of ``a.`` in a checkout's ``config.toml`` held
    every command and hook for minutes; review AO). Read once, in time linear in ``text``: a part
    starts only where no bare part goes on, a quoted one is read whole with its escapes, and a
    string that is no part of a key is passed over whole, so no search starts inside it (a part
    of an escaped quote, or of 300 characters, every 150 parts cut the key into runs counted
    apart: 39 KB held a search 10 s; review AR)."""
    import re

    return any(
        found.group(1) and re.sub(_QUOTED, "", found.group(1)).count(".") >= MAX_DEPTH
        for found in _dotted().finditer(text)
    )


def dotted_keys(text: str) -> int:
    """How many dotted keys of key/value pairs (``a.b = 1``, ``{ a.b = 1 }``) the TOML ``text``
    holds, counted in one linear pass as ``_long_key`` reads them (a float's ``1.5`` counts too,
    never a string, a comment or a table header such as Codex's ``[projects."/a/b"]``):
    ``tomlkit``, which edits client configs, places each in time linear in the keys before it
    (review AT)."""
    return sum(
        1
        for found in _dotted(comments=True).finditer(text)
        if found.group(1)
        and not text[max(0, found.start() - 8) : found.start()].rstrip(" \t").endswith("[")
    )


# dotted keys (`a.b = 1`) a TOML file hindsight edits through tomlkit may hold: tomlkit places each
# in time linear in the keys before it, 256 take it 0.3 s; a client's config holds a few dozen
MAX_EDITED_DOTTED = 256
# characters of a TOML file hindsight edits through tomlkit (a client's config, a store's or the
# user's config.toml): tomlkit reads one at ~30 KB a second, blank lines in time growing with their
# square: a checkout's `.codex/config.toml` of 888 KB of `[tN]` tables held `mcp install` 26 s and
# 236 MB (review BS), a store's `config.toml` of 1 MiB of blank lines `config set` 55 s (review
# BS2); a config holds its settings and a table for each trusted project, a few kilobytes
MAX_EDITED_TOML = 64 << 10


def too_long_to_edit(
    text: str, characters: int = MAX_EDITED_TOML, dotted: int = MAX_EDITED_DOTTED
) -> tuple[str, str] | None:
    """What of the TOML ``text`` is past what tomlkit is given to edit (``characters``,
    ``dotted`` keys), and that limit, as words (``("70,000 characters", "65,536")``); None when it
    is within both."""
    if len(text) > characters:
        return f"{len(text):,} characters", f"{characters:,}"
    if (count := dotted_keys(text)) > dotted:
        # a checkout's `.codex/config.toml` of 100 KB of `a.b.c.d.e.kN = 1` held `mcp install` and
        # `doctor --fix` 35 s, 200 KB 95 s (review AT)
        return f"{count} dotted keys", f"{dotted}"
    return None


_QUOTED = rf"(?:{_BASIC}\"|{_LITERAL}')"


def _dotted(comments: bool = False) -> re.Pattern[str]:
    """A dotted key (group 1), else a string passed over whole (else a comment)."""
    import re

    part = rf"(?:(?<![A-Za-z0-9_-])[A-Za-z0-9_-]++|{_QUOTED})"
    return re.compile(
        rf"({part}(?:[ \t]*+\.[ \t]*+{part})++)|{_BASIC}\"?|{_LITERAL}'?"
        + ("|#[^\n]*+" if comments else "")
    )


def too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether a JSON value nests lists and objects more than ``limit`` levels deep (read without
    recursion)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, dict)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def read_own(path: str | os.PathLike[str], limit: int = MAX_DOCUMENT) -> bytes:
    """The bytes of a file hindsight wrote inside a store (a purge journal, a mining state), read
    back: a regular file reached without a link, at most ``limit`` bytes; ``OSError`` otherwise.
    A store that came with a repository holds whatever its author put at those names (a link to
    ``/dev/zero``), and the check for links at a store's open looks at its top level only."""
    with open_regular(path, nofollow=True) as handle:
        return read_at_most(handle, limit, path)


def load_own(path: str | os.PathLike[str], limit: int = MAX_DOCUMENT) -> Any:
    """``parse_json`` of ``read_own(path, limit)``: ``OSError`` or ``ValueError`` for anything but
    JSON hindsight could have written there."""
    return parse_json(read_own(path, limit))


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ``OSError`` otherwise."""
    with open_regular(path) as handle:
        return read_at_most(handle, limit, path)


def own_lines(path: str | os.PathLike[str], tail: int | None, limit: int) -> Iterator[str]:
    """The lines of a JSON-lines file hindsight wrote inside a store (the hooks' spool, the
    injection record), read back one at a time (with ``tail``, of its last ``tail`` bytes only, the
    first whole line on). Lines end at ``\\n`` alone: ``str.splitlines`` also ends one at U+2028,
    U+2029, U+0085 and a few more, which a JSON line holds raw (an event whose prompt held one was
    cut in two halves, neither JSON, and lost). A line of more than ``limit`` bytes is skipped,
    never held whole. Only a regular file reached without a link is read (none otherwise), as
    ``read_own``."""
    try:
        handle = open_regular(path, nofollow=True)
    except OSError:
        return
    with handle:
        yield from split_lines(handle, tail, limit)


def skip_line(handle: BinaryIO) -> bool:
    """Read past the rest of the line ``handle`` (a regular file) is in; whether it ended (not
    the file). Read a mebibyte a call: a line of gigabytes (a checkout's file of zeros) took a
    `readline`'s page-sized reads, over a million of them."""
    while True:
        start = handle.tell()
        piece = handle.read(_SKIP_READ)
        if not piece:
            return False
        if (end := piece.find(b"\n")) >= 0:
            handle.seek(start + end + 1)
            return True


def seek_tail(handle: BinaryIO, size: int, tail: int | None) -> int:
    """Put ``handle`` at the first whole line of the last ``tail`` bytes of its ``size`` (the
    line the tail cuts is left out, unless the tail starts a line), and say where that is; a file
    no longer than ``tail`` (or no ``tail``) is read from its start, where the handle is left."""
    if tail is None or size <= tail:
        return 0
    handle.seek(size - tail - 1)
    if handle.read(1) != b"\n":
        skip_line(handle)
    return handle.tell()


def split_lines(handle: BinaryIO, tail: int | None, limit: int) -> Iterator[str]:
    """``own_lines`` of an open file."""
    seek_tail(handle, os.fstat(handle.fileno()).st_size, tail)
    while True:
        raw = handle.readline(limit + 1)
        if not raw:
            return
        if len(raw) > limit:
            if not raw.endswith(b"\n"):
                skip_line(handle)
            continue
        yield raw.decode("utf-8", errors="replace").removesuffix("\n")


def whole_number(value: str) -> int | None:
    """``value`` as a whole number when it is ASCII digits only (``8765``), else None. The one test
    for a number read from outside (a Host header's port, a form or query field, a file's name, a
    compose file): ``str.isdigit`` also says yes to ``²`` and ``¹``, which ``int`` refuses, so a
    check by ``isdigit`` let a ValueError through (a traceback for one request, every command of a
    store with such a file in it). More digits than ``int`` reads (4,300 by default, leading zeros
    aside) name no number either: ``int`` raised there too (a Host header's port of 5,000 digits;
    review AF)."""
    if not (value.isascii() and value.isdigit()):
        return None
    digits = value.lstrip("0") or "0"
    limit = sys.get_int_max_str_digits()
    return None if limit and len(digits) > limit else int(digits)
