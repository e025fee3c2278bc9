"""``hindsight import FILE --from KIND``: another tool's export, streamed into the store in batches.

Every record has a deterministic id and key, so importing the same export again adds nothing, and an
import that was killed adds exactly the rest when it is run again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidInput
from . import chats, notes
from .base import Reading
from .exchange import clip
from .lines import TooLarge
from .records import ExchangeRecord, Record, import_each, to_record

if TYPE_CHECKING:
    from ..store import Store

BATCH = 1000
_CLIENT = {"chatgpt": "chatgpt", "claude": "claude-ai"}
_NOTES: dict[str, Callable[[Path, Reading], Iterator[Record]]] = {
    "mcp-memory": notes.mcp_memory,
    "basic-memory": notes.basic_memory,
    "mem0": notes.mem0,
}


def check(path: Path, kind: str) -> None:
    """Refuse, before anything is written, a file that is not what ``kind`` says."""
    if not path.exists():
        raise InvalidInput(f"No file {path}; give the path of the export to import.")
    try:
        known = chats.sniff(path, kind) if kind in _CLIENT else notes.sniff(path, kind)
    except TooLarge as error:
        raise InvalidInput(f"Cannot import {path}: {error}; nothing was imported.") from None
    if not known:
        hint = chats.HINTS.get(kind) or notes.HINTS[kind]
        raise InvalidInput(
            f"{path} is not a {kind} export (expected {hint}); check the file, or pick the right "
            f"--from."
        )


def records(
    path: Path, kind: str, reading: Reading, *, agent: str | None, max_bytes: int
) -> Iterator[ExchangeRecord | Record]:
    if kind in _CLIENT:
        for exchange in chats.read(path, kind, reading):
            made = to_record(
                exchange, client=_CLIENT[kind], agent=agent, max_bytes=max_bytes, tag="imported"
            )
            if made["source"] == "agent":
                made["source"] = "import"
            yield made
        return
    for record in _NOTES[kind](path, reading):
        if agent:
            record["agent_id"] = agent
        content = str(record["content"])
        if len(content.encode("utf-8")) > max_bytes - 256:
            record["content"] = clip(content, (max_bytes - 256) // 4)
        yield record


def _read(
    path: Path, kind: str, reading: Reading, *, agent: str | None, max_bytes: int
) -> Iterator[ExchangeRecord | Record]:
    """``records``, where a reader's failure on a value it never met (a list where an export has
    text) is the file's, said in one line like bad JSON, never a traceback."""
    try:
        yield from records(path, kind, reading, agent=agent, max_bytes=max_bytes)
    except (TypeError, AttributeError, KeyError, IndexError, RecursionError) as error:
        raise ValueError(f"{type(error).__name__}: {error}") from None


def import_file(
    store: Store,
    path: Path,
    kind: str,
    *,
    agent: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int | str]:
    """Import ``path`` (an export of ``kind``) into ``store``; returns the counts."""
    check(path, kind)
    reading, batch = Reading(), []
    totals = {"read": 0, "added": 0, "skipped": 0, "redactions": 0, "refused": 0}
    reasons: list[str] = []
    try:
        for record in _read(
            path, kind, reading, agent=agent, max_bytes=int(store.config.max_content_bytes)
        ):
            batch.append(record)
            if len(batch) >= BATCH:
                _write(store, batch, totals, reasons, progress)
        _write(store, batch, totals, reasons, progress)
    except (ValueError, UnicodeDecodeError) as error:
        raise InvalidInput(
            f"{path} stopped being a valid {kind} export ({error}); what came before was imported, "
            "fix the file and import it again (nothing is added twice)."
        ) from None
    result: dict[str, int | str] = {**totals, "broken": reading.broken, "unknown": reading.unknown}
    if reasons:
        result["first_refused"] = reasons[0]
    return result


def _write(
    store: Store,
    batch: list[ExchangeRecord | Record],
    totals: dict[str, int],
    reasons: list[str],
    progress: Callable[[int, int], None] | None,
) -> None:
    """A batch into the store; an entry the store refuses (text that is one unbroken run clipped to
    nothing, metadata past its limit) is counted and skipped, the rest go in: one odd entry of an
    export never stops the import of the others (docs/reliability.md)."""
    if not batch:
        return
    result, refused = import_each(store, batch, lambda _step, reason: reasons.append(reason))
    totals["refused"] += refused
    totals["read"] += len(batch)
    totals["added"] += result.added
    totals["skipped"] += result.skipped
    totals["redactions"] += result.redactions
    batch.clear()
    if progress:
        progress(totals["read"], totals["read"])
