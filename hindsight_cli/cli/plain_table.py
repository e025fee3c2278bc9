"""The table of search hits as Rich draws it to a pipe or a file, written without Rich.

Importing Rich and laying out a table costs a cold ``hindsight search`` ~15 ms of CPU. Without a
terminal (and without colour forced), in UTF-8, at 80 columns or more, that table is plain text
whose layout Rich computes from the length of each cell: this module writes the same bytes when
every character of the cells is one Rich reads as one column and no ``[`` or ``:`` could be read as
markup or an emoji code. Anything else, a terminal above all, goes through Rich (``render``).
``tests/cli/test_plain_table.py`` holds the two equal on thousands of generated tables.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from typing import TextIO

HEADERS = ("rank", "score", "age", "type", "outcome", "content")
# the first three are right-justified, the rest left
_RIGHT = (True, True, True, False, False, False)
# padding: one column between cells, none at the table's edges
_PADS = ((0, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 0))
# the content column's least width, and the box lines of Rich's HEAVY_HEAD without its edges
_MIN_CONTENT = 24
_HEAD, _BODY, _RULE, _CROSS = "┃", "│", "━", "╇"
# characters Rich measures as one cell without its Unicode tables (rich/cells.py), and → and …
_ONE_CELL = frozenset(
    chr(code)
    for start, end in ((0x20, 0x7E), (0xA1, 0xAC), (0xAE, 0x2FF), (0x370, 0x482))
    for code in range(start, end + 1)
) | {"→", "…"}
_WORD = re.compile(r"\s*\S+\s*")

Row = tuple[str, str, str, str, str, Sequence[str]]


def width() -> int:
    """The width Rich gives a console without a terminal: ``COLUMNS``, else the size of the first
    standard stream that is a terminal, else 80."""
    columns = os.environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    for descriptor in (0, 1, 2):
        try:
            return os.get_terminal_size(descriptor).columns or 80
        except (AttributeError, ValueError, OSError):
            pass
    return 80


def table(rows: Sequence[Row], total: int, stream: TextIO | None = None) -> str | None:
    """The table of ``rows`` (five short cells, then the content's lines) at ``total`` columns, as
    Rich prints it to ``stream`` (not a terminal); None where only Rich may draw it."""
    encoding = (getattr(stream, "encoding", "utf-8") or "utf-8").lower()
    if sys.platform == "win32" or not encoding.startswith("utf") or not rows or not _plain(rows):
        return None
    columns = list(zip(*(row[:5] for row in rows)))
    widths = [
        max(len(HEADERS[i]), *map(len, column)) + sum(_PADS[i]) for i, column in enumerate(columns)
    ]
    longest = max(len(HEADERS[5]), *(len(line) for row in rows for line in row[5])) + 1
    # Rich narrows only the content column (the others do not wrap) to fit the width
    content = min(max(longest, _MIN_CONTENT + 1), total - 5 - sum(widths))
    if content < _MIN_CONTENT + 1:
        return None
    widths.append(content)
    out = [_HEAD.join(_cell(h, i, widths[i]) for i, h in enumerate(HEADERS))]
    out.append(_CROSS.join(_RULE * w for w in widths))
    for row in rows:
        texts = [piece for line in row[5] for piece in _wrapped(line, content - 1)]
        short = [_cell(value, i, widths[i]) for i, value in enumerate(row[:5])]
        for number, text in enumerate(texts):
            cells = short if number == 0 else [" " * w for w in widths[:5]]
            out.append(_BODY.join([*cells, " " + text]))
    return "".join(line + "\n" for line in out)


def _plain(rows: Sequence[Row]) -> bool:
    for row in rows:
        for value in row[:5]:
            if "[" in value or ":" in value or not _ONE_CELL.issuperset(value):
                return False
        for line in row[5]:
            if not line or not _ONE_CELL.issuperset(line) or line != " ".join(line.split()):
                return False
    return True


def _cell(value: str, index: int, width: int) -> str:
    left, right = _PADS[index]
    room = width - left - right
    text = value.rjust(room) if _RIGHT[index] else value.ljust(room)
    return " " * left + text + " " * right


def _wrapped(line: str, room: int) -> list[str]:
    """``line`` cut where Rich wraps it (``rich._wrap.divide_line``, folding a word longer than
    ``room``), each piece cut or padded to ``room``."""
    breaks: list[int] = []
    used = 0
    for match in _WORD.finditer(line):
        start, word = match.start(), match.group()
        length = len(word.rstrip())
        if room - used >= length:
            used += len(word)
        elif length > room:
            chunks = [word[i : i + room] for i in range(0, len(word), room)]
            for number, chunk in enumerate(chunks):
                if start:
                    breaks.append(start)
                if number == len(chunks) - 1:
                    used = len(chunk)
                else:
                    start += len(chunk)
        elif used and start:
            breaks.append(start)
            used = len(word)
    # a piece's trailing space past the room is dropped; every piece is padded to the room
    return [line[a:b][:room].ljust(room) for a, b in zip([0, *breaks], [*breaks, len(line)])]
