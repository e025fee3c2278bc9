"""``MemoryRow``: the one shape of a memory inside hindsight, from validation to storage and
ranking.

The data-model fields (DESIGN §2) in their order, with real ``datetime`` values (naive, UTC), plus
what only storage keeps: the change sequence number and the vector. The column lists of both SQL
ledgers and the LanceDB index derive from the field list here; ``storage.codec`` converts rows to
and from ``Memory``, SQL values and index records.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pyarrow as pa

    from ..models import JSONValue

    # an embedding: floats, or a row of the in-memory index's float32 matrix (``storage.hot``)
    Vector: TypeAlias = Sequence[float] | npt.NDArray[np.float32]
    # embeddings, one row per text (what an embedder returns)
    Vectors: TypeAlias = npt.NDArray[np.float32]

# a mapping stored as a JSON string
JSON: Final = "json"
TIME: Final = "time"
# a list of strings
LIST: Final = "list"


@dataclass(slots=True)
class MemoryRow:
    """One memory as hindsight handles it internally (``Memory`` is its public, ISO-string form)."""

    id: str
    content: str
    type: str = "episodic"
    agent_id: str = "default"
    task_id: str | None = None
    step: int | None = None
    trigger: str | None = None
    outcome: str = "unknown"
    resolution: str | None = None
    importance: float = 0.5
    confidence: float = 0.6
    tags: list[str] = field(default_factory=list, metadata={"kind": LIST})
    metadata: dict[str, JSONValue] = field(default_factory=dict, metadata={"kind": JSON})
    env: dict[str, str] = field(default_factory=dict, metadata={"kind": JSON})
    source: str = "agent"
    created_at: datetime = field(
        default_factory=lambda: datetime(1970, 1, 1), metadata={"kind": TIME}
    )
    event_at: datetime = field(
        default_factory=lambda: datetime(1970, 1, 1), metadata={"kind": TIME}
    )
    valid_until: datetime | None = field(default=None, metadata={"kind": TIME})
    expires_at: datetime | None = field(default=None, metadata={"kind": TIME})
    status: str = "active"
    superseded_by: str | None = None
    source_ids: list[str] = field(default_factory=list, metadata={"kind": LIST})
    version: int = 1
    content_hash: str = ""
    idempotency_key: str = ""
    seen_count: int = 1
    last_seen_at: datetime | None = field(default=None, metadata={"kind": TIME})
    updated_at: datetime | None = field(default=None, metadata={"kind": TIME})
    supersedes: str | None = None
    # Storage only, never part of the data model:
    seq: int = field(default=0, metadata={"storage": True})
    embedding: Vector | None = field(default=None, metadata={"storage": True})
    # The vectors of a long memory's further chunks (the first chunk's is ``embedding``): searched
    # too, each memory by its best chunk. None: not loaded (or a short memory).
    chunks: list[list[float]] | None = field(default=None, metadata={"storage": True})

    def replace(self, **changes: Any) -> MemoryRow:
        return dataclasses.replace(self, **changes)

    def vector(self) -> Vector:
        """The embedding of a row that has one (a row the write path embedded, a row stored with
        its vector)."""
        if self.embedding is None:
            raise ValueError(f"the memory {self.id} has no vector")
        return self.embedding


_FIELDS = dataclasses.fields(MemoryRow)

#: The data-model columns, in the order every ledger table stores them.
COLUMNS: Final[tuple[str, ...]] = tuple(f.name for f in _FIELDS if not f.metadata.get("storage"))
JSON_COLUMNS: Final[frozenset[str]] = frozenset(
    f.name for f in _FIELDS if f.metadata.get("kind") == JSON
)
TIME_COLUMNS: Final[frozenset[str]] = frozenset(
    f.name for f in _FIELDS if f.metadata.get("kind") == TIME
)
LIST_COLUMNS: Final[frozenset[str]] = frozenset(
    f.name for f in _FIELDS if f.metadata.get("kind") == LIST
)
INT_COLUMNS: Final[frozenset[str]] = frozenset({"step", "version", "seen_count"})
FLOAT_COLUMNS: Final[frozenset[str]] = frozenset({"importance", "confidence"})
#: Columns the LanceDB index can filter on (and so every engine renders alike).
FILTER_COLUMNS: Final[frozenset[str]] = frozenset(
    {"agent_id", "task_id", "type", "status", "outcome", "source", "tags", "event_at", "expires_at"}
)


def arrow_type(name: str) -> pa.DataType:
    """The Arrow type of a data-model column (for bulk inserts)."""
    import pyarrow as pa

    if name in TIME_COLUMNS:
        return pa.timestamp("us")
    if name in LIST_COLUMNS:
        return pa.list_(pa.string())
    if name in INT_COLUMNS:
        return pa.int32()
    if name in FLOAT_COLUMNS:
        return pa.float64()
    return pa.string()


def embedding_text(row: MemoryRow) -> str:
    """What the vector represents: the memory and, for failures, how it was fixed."""
    return row.content + (f"\nFix: {row.resolution}" if row.resolution else "")


def keyword_text(row: MemoryRow) -> str:
    """What the keyword side of search reads: the memory, its fix and its tags."""
    return " ".join(filter(None, [row.content, row.resolution or "", " ".join(row.tags or [])]))


def row_term_counts(row: MemoryRow) -> dict[str, int]:
    """How often each term occurs in the row's keyword text: the postings a ledger stores for it."""
    from ..text import term_counts

    return dict(term_counts(keyword_text(row)))
