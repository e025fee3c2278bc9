"""What a hard forget takes from the hook spool (``purge``): the lines whose words are mostly the
forgotten text's, or that carry a forgotten command among their calls (review BU2). Apart from
``spool``, which the recording hooks import: none of this runs in a hook.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from . import spool_json as codec
from .spool import OPEN_DIR, lines, rewrite, spool_dir, terms

# forgotten words in one line that make it the forgotten text's, whatever else it says
_ENOUGH = 4
_TEXT_FIELDS = ("text", "args", "error", "prompt", "command", "message", "trail", "fix", "kind")


def _line_value(line: str) -> dict[str, Any] | None:
    """A spool line's object (a line set aside, ``REJECTED``: the event it holds whole), or None."""
    try:
        value = codec.loads(line)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    return value["event"] if isinstance(value.get("event"), dict) else value


def steps(value: Mapping[str, Any]) -> list[str]:
    """The commands a line carries one by one: an open failure's ``trail`` (each call after it) and
    each ``fixes[].fix`` of a success (the commands that fixed a failure). Each is its own text, as
    it becomes one in a failure's resolution."""
    trail = value.get("trail")
    found = [str(step) for step in trail] if isinstance(trail, list) else []
    fixed = value.get("fixes")
    for fix in fixed if isinstance(fixed, list) else ():
        commands = fix.get("fix") if isinstance(fix, dict) else None
        found += [str(step) for step in commands] if isinstance(commands, list) else []
    return found


def holds_forgotten(value: Mapping[str, Any], forgotten: Callable[[str], bool]) -> bool:
    """Whether one of ``value``'s ``steps`` is mostly ``forgotten`` words: among the other calls of
    a trail or the other fixes of a success, a forgotten command is a few of the line's words, and
    the line kept it (review BU2: the next ingestion wrote it back as a failure's resolution). Two
    forgotten words at least: a one-word call (``make``) says nothing of a memory that names it."""
    for step in steps(value):
        words = terms(step)
        hits = sum(1 for word in words if forgotten(word))
        if hits >= 2 and mostly(words, forgotten):
            return True
    return False


def _line_words(line: str, value: dict[str, Any] | None) -> list[str]:
    """The words a spool line (``value``: its ``_line_value``) holds of what was recorded (a
    signature's terms, an event's text), not its bookkeeping (ids, times, field names)."""
    if value is None:
        return terms(line)
    if isinstance(value.get("terms"), list):
        return [str(t) for t in value["terms"]]
    return terms(
        " ".join(
            " ".join(map(str, v)) if isinstance(v, list) else str(v)
            for k in _TEXT_FIELDS
            if (v := value.get(k))
        )
    )


def mostly(words: list[str], forgotten: Callable[[str], bool]) -> bool:
    """Whether ``words`` are mostly forgotten ones (or hold enough of them): the spool's rule for a
    line to go after a hard forget."""
    hits = sum(1 for word in words if forgotten(word))
    return bool(hits) and (hits * 2 >= len(words) or hits >= _ENOUGH)


def forgets(line: str, forgotten: Callable[[str], bool]) -> bool:
    # whether a hard forget of the ``forgotten`` words takes this spool line (``scrub``'s rule):
    # mostly its words, or one of the commands it carries (``holds_forgotten``)
    value = _line_value(line)
    if mostly(_line_words(line, value), forgotten):
        return True
    return value is not None and holds_forgotten(value, forgotten)


def scrub(store: Path, forgotten: Callable[[str], bool]) -> int:
    """After a hard forget: drop every spool line (events, claimed events, "seen before" signatures,
    the hooks' log) whose words are mostly ``forgotten`` ones, so no trace of the text stays in the
    spool. Returns how many lines went."""

    directory = spool_dir(store)
    if not directory.is_dir():
        return 0
    dropped = 0
    open_dir = directory / OPEN_DIR
    found = sorted(directory.iterdir()) + (
        sorted(open_dir.iterdir()) if open_dir.is_dir() and not open_dir.is_symlink() else []
    )

    def keep(found: Iterator[str]) -> Iterator[str]:
        nonlocal dropped
        for line in found:
            if forgets(line, forgotten):
                dropped += 1
            else:
                yield line

    for path in found:
        if not path.is_file() or path.is_symlink() or path.name.startswith("."):
            continue
        # read once without the lock (most files hold nothing forgotten), then again under it
        if any(forgets(line, forgotten) for line in lines(path)):
            rewrite(path, keep)
    return dropped
