"""The candidates' fields that the ranking reads for every candidate, as columns (one entry per
candidate): the in-memory index's own columns taken by slot, or, from any other source, read from
the rows once. A warm search then reads a few arrays instead of a hundred rows' objects, most of
them out of the processor's caches by the time the ranking runs.

Each column holds exactly the row's value (a time as its microseconds since the epoch, naive UTC),
so every signal computed from them is the same to the last bit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, TypeAlias

from ..lazy import once
from ..storage.rows import MemoryRow

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..storage.hot import HotIndex

    Ints: TypeAlias = npt.NDArray[np.int64]
    Floats: TypeAlias = npt.NDArray[np.float64]
    Mask: TypeAlias = npt.NDArray[np.bool_]

_EPOCH = datetime(1970, 1, 1)
_MICRO = timedelta(microseconds=1)


def micros(moment: datetime) -> int:
    """A naive-UTC time as its exact microseconds since the epoch (the index's time columns)."""
    return (moment - _EPOCH) // _MICRO


@dataclass(frozen=True)
class Coded:
    """A text field as codes into ``names`` (-1: none); ``code``: each name's."""

    names: Sequence[str]
    codes: Ints
    code: Mapping[str, int]

    def mapped(self, table: Mapping[str, float], default: float) -> Floats:
        """Each entry's value in ``table`` (``default`` for a name not in it, or none)."""
        import numpy as np

        values = [table.get(name, default) for name in self.names]
        return np.array([*values, default], dtype=np.float64)[self.codes]

    def equals(self, value: str | None) -> Mask:
        import numpy as np

        at = self.code.get(value) if value is not None else None
        if at is None:
            return np.zeros(len(self.codes), dtype=bool)
        found: Mask = self.codes == at
        return found


@dataclass(frozen=True)
class Columns:
    """The candidates' fields, in the rows' order."""

    event_at: Ints
    type: Coded
    outcome: Coded
    task: Coded
    # a resolution (not empty)
    resolved: Mask
    importance: Floats
    confidence: Floats
    # a valid_until
    bounded: Mask


def _coded(values: Sequence[str | None]) -> Coded:
    import numpy as np

    code: dict[str, int] = {}
    codes = [-1 if v is None else code.setdefault(v, len(code)) for v in values]
    return Coded(list(code), np.array(codes, dtype=np.int64), code)


def of_rows(rows: Sequence[MemoryRow]) -> Columns:
    import numpy as np

    return Columns(
        np.array([micros(r.event_at) for r in rows], dtype=np.int64),
        _coded([r.type for r in rows]),
        _coded([r.outcome for r in rows]),
        _coded([r.task_id for r in rows]),
        np.array([bool(r.resolution) for r in rows], dtype=bool),
        np.array([r.importance for r in rows], dtype=np.float64),
        np.array([r.confidence for r in rows], dtype=np.float64),
        np.array([r.valid_until is not None for r in rows], dtype=bool),
    )


def of_index(index: HotIndex, ids: Sequence[str]) -> Columns:
    """The columns of ``ids`` (live memories of ``index``), from its arrays by slot."""
    import numpy as np

    slots = np.array([index.slot_of[m] for m in ids], dtype=np.int64)
    labels, scalars = index.labels, index.scalars

    def coded(name: str) -> Coded:
        label = labels[name]
        return Coded(label.values, label.codes.data[slots].astype(np.int64), label.code)

    return Columns(
        index.numbers["event_at"].data.data[slots],
        coded("type"),
        coded("outcome"),
        coded("task_id"),
        scalars.resolved.data[slots],
        scalars.importance.data[slots],
        scalars.confidence.data[slots],
        scalars.bounded.data[slots],
    )


class Rows(list[MemoryRow]):
    """Candidates' rows with their ``Columns`` (read from the rows when first asked for, unless
    given)."""

    def __init__(self, rows: Sequence[MemoryRow], columns: Columns | None = None) -> None:
        super().__init__(rows)
        if columns is not None:
            self.__dict__["columns"] = columns

    @once
    def columns(self) -> Columns:
        return of_rows(self)


def columns(rows: Sequence[MemoryRow]) -> Columns:
    """``rows``' columns: their own when they carry them (``Rows``)."""
    return rows.columns if isinstance(rows, Rows) else of_rows(rows)
