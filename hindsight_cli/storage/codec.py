"""The one codec between ``MemoryRow`` and its other forms: the public ``Memory``, SQL values, the
JSON the LanceDB index keeps beside each vector, and that index's records."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..models import Memory
from ..safefs.reading import parse_json
from ..timeutil import iso
from .rows import COLUMNS, JSON_COLUMNS, LIST_COLUMNS, TIME_COLUMNS, MemoryRow

if TYPE_CHECKING:
    from .rows import Vector


def to_memory(row: MemoryRow) -> Memory:
    """The public form: ISO 8601 strings for times, copies of the lists and mappings."""
    return Memory(**_public(row))


def _public(row: MemoryRow) -> dict[str, Any]:
    """The public form's fields (``Memory``'s, in its order), before any copy of the mappings."""
    values: dict[str, Any] = {}
    for name in COLUMNS:
        value = getattr(row, name)
        if name in TIME_COLUMNS:
            value = iso(value)
        elif name in LIST_COLUMNS:
            value = list(value or [])
        values[name] = value
    return values


def _time(value: object) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        parsed = value
    else:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


def from_mapping(data: Mapping[str, Any]) -> MemoryRow:
    """A row from data-model fields (a ``Memory`` dict, an index's JSON): ISO strings become
    times."""
    values: dict[str, Any] = {}
    for name in COLUMNS:
        if name not in data:
            continue
        value = data[name]
        if name in TIME_COLUMNS:
            value = _time(value)
        elif name in LIST_COLUMNS:
            value = list(value or [])
        values[name] = value
    if "seq" in data:
        values["seq"] = data["seq"]
    if "embedding" in data:
        values["embedding"] = data["embedding"]
    return MemoryRow(**values)


def from_memory(memory: Memory) -> MemoryRow:
    return from_mapping(memory.to_dict())


def to_json(row: MemoryRow) -> str:
    """The data-model fields as the JSON document the index stores beside the vector."""
    # The fields as ``to_memory(row).to_dict()`` has them, without building and deep-copying a
    # Memory.
    return json.dumps(_public(row), ensure_ascii=False)


def mapping(text: str) -> Any:
    """A JSON column (metadata, env) as stored: ``{}`` when it is not JSON hindsight wrote (nested
    past what the parser's stack reaches, or not JSON at all). Writers refuse such values; a ledger
    that came with a repository can hold anything, and one row must not fail every listing, search
    and export of the store (nor hold gigabytes: ``safefs.reading.parse_json``)."""
    try:
        # nor one of millions of tiny objects (``{},`` repeated) more than its text; the nesting an
        # older version let in (200 to ~490 levels) still reads
        return parse_json(text, depth=None)
    except (ValueError, RecursionError):
        return {}


def from_json(text: str, embedding: Vector | None = None) -> MemoryRow:
    row = from_mapping(parse_json(text, depth=None))
    row.embedding = embedding
    return row


def sql_values(row: MemoryRow) -> list[object]:
    """The row's data-model columns as SQL parameters, in ``COLUMNS`` order (mappings as JSON
    text)."""
    return [
        json.dumps(getattr(row, c), ensure_ascii=False) if c in JSON_COLUMNS else getattr(row, c)
        for c in COLUMNS
    ]


def from_sql(columns: Sequence[str], values: Sequence[Any]) -> MemoryRow:
    """A row from one result tuple of ``SELECT <columns>``."""
    data: dict[str, Any] = {}
    for name, value in zip(columns, values):
        if name in JSON_COLUMNS and isinstance(value, str):
            value = mapping(value)
        elif name in LIST_COLUMNS:
            value = list(value or [])
        data[name] = value
    return MemoryRow(**data)


def micros(value: datetime | None) -> int | None:
    """A naive-UTC (or aware) time as microseconds since the epoch: the index's time columns."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return int(value.timestamp() * 1_000_000)


def index_record(row: MemoryRow, terms_text: str) -> dict[str, object]:
    """The LanceDB index's record of a row: its vector, keyword terms, filter columns and JSON."""
    return {
        "id": row.id,
        "seq": row.seq,
        "vector": list(row.vector()),
        "terms": terms_text,
        "agent_id": row.agent_id,
        "task_id": row.task_id,
        "type": row.type,
        "status": row.status,
        "outcome": row.outcome,
        "source": row.source,
        "tags": list(row.tags),
        "event_at": micros(row.event_at),
        "expires_at": micros(row.expires_at),
        "memory": to_json(row),
    }


def chunk_records(row: MemoryRow) -> list[dict[str, object]]:
    """The index's records of a long memory's further chunks: each vector, with the memory's filter
    columns (a filtered search filters its chunks the same way)."""
    shared = {
        "id": row.id,
        "agent_id": row.agent_id,
        "task_id": row.task_id,
        "type": row.type,
        "status": row.status,
        "outcome": row.outcome,
        "source": row.source,
        "tags": list(row.tags),
        "event_at": micros(row.event_at),
        "expires_at": micros(row.expires_at),
    }
    return [
        {**shared, "part": part, "vector": list(vector)}
        for part, vector in enumerate(row.chunks or (), 1)
    ]
