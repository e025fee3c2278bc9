"""The columns of the in-memory index (``storage.hot``), one value per slot, and the storage
contract's conditions evaluated over them as boolean masks, with SQL's meaning: a comparison with
NULL is false, ``is`` matches NULL to NULL, ``null_or_eq`` keeps NULL rows,
``expired``/``unexpired`` read ``expires_at`` as DuckDB does; and the best slots by a score, in the
ledger's order (``top``)."""

from __future__ import annotations

import operator
from array import array
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt

from . import codec
from .rows import COLUMNS, JSON_COLUMNS, LIST_COLUMNS, MemoryRow

if TYPE_CHECKING:
    import pyarrow as pa

    from .base import Condition

# a numpy scalar type: a column's values
Scalar = TypeVar("Scalar", bound=np.generic)
# one boolean per slot: the slots a condition keeps
Mask: TypeAlias = npt.NDArray[np.bool_]
# positions (slots, vector rows) into the columns
Positions: TypeAlias = npt.NDArray[np.signedinteger[Any]]
# float32 rows and values: the vector matrix, cosines
Floats: TypeAlias = npt.NDArray[np.float32]
# change sequence numbers
Seqs: TypeAlias = npt.NDArray[np.int64]
# one score per vector row, or per memory
Scores: TypeAlias = npt.NDArray[np.number[Any]]

_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "=": operator.eq,
    ">=": operator.ge,
    "<=": operator.le,
    "<": operator.lt,
}


class Grow(Generic[Scalar]):
    """A one-dimensional numpy array that grows by doubling (appends are amortised O(1))."""

    def __init__(self, dtype: type[Scalar], width: int = 0) -> None:
        # > 0: rows of ``width`` values (the vector matrix)
        self.width = width
        shape = (16, width) if width else (16,)
        self.data: npt.NDArray[Scalar] = np.zeros(shape, dtype=dtype)
        self.n = 0

    @property
    def view(self) -> npt.NDArray[Scalar]:
        return self.data[: self.n]

    def extend(self, values: npt.ArrayLike) -> None:
        values = np.asarray(values, dtype=self.data.dtype)
        needed = self.n + len(values)
        if needed > len(self.data):
            size = max(needed, 2 * len(self.data))
            grown = np.zeros((size, self.width) if self.width else (size,), dtype=self.data.dtype)
            grown[: self.n] = self.data[: self.n]
            self.data = grown
        self.data[self.n : needed] = values
        self.n = needed

    def keep(self, positions: Positions) -> None:
        """Keep only the values at ``positions`` (in that order): a compaction."""
        kept = self.data[positions]
        self.data = np.zeros((max(16, len(kept)), *self.data.shape[1:]), dtype=self.data.dtype)
        self.data[: len(kept)] = kept
        self.n = len(kept)

    @property
    def nbytes(self) -> int:
        return int(self.data.nbytes)


class Labels:
    """A string column (agent, task, type, …) as codes into a vocabulary; NULL is code -1. Equal
    strings are one object, so a hundred thousand rows of ``"episodic"`` hold one string."""

    def __init__(self) -> None:
        self.codes = Grow(np.int32)
        self.code: dict[str, int] = {}
        self.values: list[str] = []

    def add(self, column: pa.ChunkedArray) -> list[str | None]:
        """Append one value per new slot from an Arrow string column; returns the values, interned.
        Each distinct value is looked up once (Arrow's dictionary encoding), not once per row."""
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(column).combine_chunks()
        indices = encoded.indices
        nulls = indices.is_null().to_numpy(zero_copy_only=False)
        codes = np.full(len(indices), -1, dtype=np.int32)
        distinct = encoded.dictionary.to_pylist()
        if distinct:
            known = np.array([self._intern(value) for value in distinct], dtype=np.int32)
            codes = np.where(
                nulls, -1, known[pc.fill_null(indices, 0).to_numpy(zero_copy_only=False)]
            )
        self.codes.extend(codes)
        # code -1: NULL
        vocabulary: list[str | None] = [*self.values, None]
        return [vocabulary[code] for code in codes.tolist()]

    def _intern(self, value: str) -> int:
        code = self.code.get(value)
        if code is None:
            code = self.code[value] = len(self.values)
            self.values.append(value)
        return code

    def _of(self, values: Sequence[object]) -> list[int]:
        return [self.code[v] for v in map(_text, values) if v in self.code]

    def mask(self, op: str, value: Any) -> Mask:
        codes = self.codes.view
        if op == "in":
            # one lookup per slot in a table of the codes; NULL (-1) reads its last entry, False
            allowed = np.zeros(len(self.values) + 1, dtype=bool)
            allowed[self._of(value or [])] = True
            return allowed[codes]
        if op in ("is", "null_or_eq") and value is None:
            return codes == -1 if op == "is" else np.ones(len(codes), dtype=bool)
        if op in ("=", "is", "null_or_eq"):
            found = self._of([value])
            hit = codes == found[0] if found else np.zeros(len(codes), dtype=bool)
            return hit | (codes == -1) if op == "null_or_eq" else hit
        # an ordering on text: decided once per distinct value
        if op in _COMPARE:
            allowed = np.array([False] + [bool(_COMPARE[op](v, _text(value))) for v in self.values])
            return allowed[codes + 1]
        raise ValueError(f"cannot apply {op!r} to a text column")

    @property
    def nbytes(self) -> int:
        return self.codes.nbytes + sum(49 + len(v) for v in self.values)


class Numbers:
    """A nullable number column: times as microseconds since the epoch (naive times are UTC),
    steps."""

    def __init__(self) -> None:
        self.data = Grow(np.int64)
        self.null = Grow(np.bool_)

    def add(self, values: npt.NDArray[np.int64], nulls: Mask) -> None:
        self.data.extend(values)
        self.null.extend(nulls)

    def mask(self, op: str, value: Any) -> Mask:
        data, null = self.data.view, self.null.view
        if op in ("is", "null_or_eq") and value is None:
            return null.copy() if op == "is" else np.ones(len(data), dtype=bool)
        if op == "in":
            return np.isin(data, [_number(v) for v in value]) & ~null
        number = _number(value)
        if op == "expired":
            return ~null & (data <= number)
        if op == "unexpired":
            return null | (data > number)
        if op == "null_or_eq":
            equal: Mask = data == number
            return null | equal
        if op in ("=", "is") or op in _COMPARE:
            compared: Mask = _COMPARE["=" if op == "is" else op](data, number)
            return compared & ~null
        raise ValueError(f"cannot apply {op!r} to a number or time column")

    def around(self, number: int) -> tuple[int, int]:
        """The values nearest ``number`` at or below it and above it: a comparison with any number
        from the first up to (not including) the second keeps the same slots as with ``number``."""
        data = self.data.view[~self.null.view]
        below, above = data[data <= number], data[data > number]
        return (
            int(below.max()) if len(below) else -(2**63),
            int(above.min()) if len(above) else 2**63,
        )

    @property
    def nbytes(self) -> int:
        return self.data.nbytes + self.null.nbytes


class Tags:
    """The tags column as postings (tag → slots), for ``has``."""

    def __init__(self) -> None:
        self.slots: dict[str, array[int]] = {}  # noqa: RUF012

    def add(self, first: int, tag_lists: Sequence[Sequence[str]]) -> None:
        for offset, tags in enumerate(tag_lists):
            for tag in set(tags or ()):
                self.slots.setdefault(tag, array("i")).append(first + offset)

    def mask(self, op: str, value: Any, size: int) -> Mask:
        if op != "has":
            raise ValueError(f"cannot apply {op!r} to tags")
        out = np.zeros(size, dtype=bool)
        found = self.slots.get(_text(value))
        if found:
            out[np.frombuffer(found, dtype=np.int32)] = True
        return out

    def holding(self, values: Sequence[str]) -> tuple[Positions, Positions]:
        """The slots that hold any of ``values`` (the dead among them too), without a pass over
        every slot, and beside each the position in ``values`` of the value it holds."""
        found = [np.frombuffer(self.slots.get(v, b""), dtype=np.int32) for v in values]
        if not found:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
        which = np.repeat(np.arange(len(found)), [len(slots) for slots in found])
        return np.concatenate(found), which

    def remap(self, new_slot: Positions) -> None:
        for tag, slots in list(self.slots.items()):
            moved = new_slot[np.frombuffer(slots, dtype=np.int32)]
            kept = moved[moved >= 0].astype(np.int32)
            if len(kept):
                self.slots[tag] = array("i", kept.tobytes())
            else:
                del self.slots[tag]

    @property
    def nbytes(self) -> int:
        return sum(120 + len(tag) + 4 * len(slots) for tag, slots in self.slots.items())


class Scalars:
    """The fields the ranking reads for every candidate that no filter reads (``search.columns``),
    one value per slot."""

    def __init__(self) -> None:
        self.importance = Grow(np.float64)
        self.confidence = Grow(np.float64)
        # a resolution (not empty), a valid_until
        self.resolved = Grow(np.bool_)
        self.bounded = Grow(np.bool_)

    def add(self, rows: Sequence[MemoryRow]) -> None:
        self.importance.extend([r.importance for r in rows])
        self.confidence.extend([r.confidence for r in rows])
        self.resolved.extend([bool(r.resolution) for r in rows])
        self.bounded.extend([r.valid_until is not None for r in rows])

    @property
    def grown(self) -> tuple[Grow[Any], ...]:
        return (self.importance, self.confidence, self.resolved, self.bounded)


def compare_id(op: str, left: str, right: Any) -> bool:
    """An id (``left``) against a condition's value, as the ledger compares them."""
    if op == "is":
        return right is not None and left == right
    if op == "null_or_eq":
        return right is None or left == right
    if op in ("=", ">=", "<=", "<"):
        return bool(
            {"=": left == right, ">=": left >= right, "<=": left <= right, "<": left < right}[op]
        )
    raise ValueError(f"cannot apply {op!r} to id")


def top(
    ids: Sequence[str], slots: Positions, scores: Scores, limit: int
) -> list[tuple[str, float]]:
    """The ``limit`` best of ``slots`` by score, ties by id (``ids``: each slot's; the ledger's
    ``ORDER BY score DESC, id``)."""
    if len(scores) > limit:
        threshold = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        chosen = np.flatnonzero(scores >= threshold)
        slots, scores = slots[chosen], scores[chosen]
    # ordered by score in numpy; the ids order only equal scores, so only the entries up to the
    # last one equal to the limit-th score go to Python (many BM25 scores tie at the cut)
    order = np.argsort(-scores, kind="stable")
    negative = (-scores)[order]
    end = len(order)
    if 0 < limit < end:
        end = int(np.searchsorted(negative, negative[limit - 1], side="right"))
    values = negative[:end]
    found = [ids[s] for s in slots[order[:end]].tolist()]
    # each run of equal scores (numpy left it in slot order) by id
    equal = np.flatnonzero(np.diff(np.concatenate(([0], values[1:] == values[:-1], [0]))))
    for first, last in zip(equal[::2].tolist(), equal[1::2].tolist()):
        found[first : last + 1] = sorted(found[first : last + 1])
    return list(zip(found[:limit], (-values[:limit]).tolist()))


def _text(value: object) -> str:
    return value if isinstance(value, str) else str(value)


def _number(value: datetime | str | int) -> int:
    """A condition's value as the column holds it: a time as microseconds, a step as itself."""
    if isinstance(value, datetime):
        return int(codec.micros(value) or 0)
    if isinstance(value, str):
        return int(codec.micros(datetime.fromisoformat(value.replace("Z", "+00:00"))) or 0)
    return int(value)


# conditions against the present time (``FilterMasks`` applies them afresh)
_NOW_OPS = frozenset({"expired", "unexpired"})
# filter masks kept at once
_KEPT = 8


class FilterMasks:
    """The filters' masks of one state of an index (most searches filter alike). A condition on the
    present time (expiry) keeps its mask only while no value of its column lies between the time it
    was computed for and the time asked: every search tests the time afresh, and a memory drops out
    the moment it expires."""

    def __init__(self) -> None:
        self.masks: dict[str, Mask] = {}
        # with the conditions on the time: the mask, and each condition's range of times it holds for
        self.timed: dict[str, tuple[Mask, list[tuple[int, int]]]] = {}
        self.version = -1
        # the last mask's count and its rows' total length (``stats``)
        self._stats: tuple[Mask, int, int, int] | None = None

    def get(
        self,
        version: int,
        where: Sequence[Condition],
        mask: Callable[[Sequence[Condition]], Mask],
        numbers: Mapping[str, Numbers],
    ) -> Mask:
        """``mask(where)``; ``version`` names the index's state, ``numbers`` its number columns."""
        fixed = [c for c in where if c[1] not in _NOW_OPS]
        if self.version != version or len(self.masks) >= _KEPT or len(self.timed) >= _KEPT:
            self.masks, self.timed, self.version = {}, {}, version
        key = repr(fixed)
        found = self.masks.get(key)
        if found is None:
            found = self.masks[key] = mask(fixed)
            found.flags.writeable = False
        timed = [c for c in where if c[1] in _NOW_OPS]
        if not timed:
            return found
        at = [_number(value) for _, _, value in timed]
        key += repr([(column, op) for column, op, _ in timed])
        kept = self.timed.get(key)
        if kept is not None and all(lo <= n < hi for n, (lo, hi) in zip(at, kept[1])):
            return kept[0]
        out = found & mask(timed)
        out.flags.writeable = False
        self.timed[key] = (out, [numbers[c].around(n) for (c, _, _), n in zip(timed, at)])
        return out

    def stats(self, mask: Mask, lengths: npt.NDArray[np.int64]) -> tuple[int, float]:
        """How many slots ``mask`` keeps and their mean length (at least 1), as BM25 reads them:
        counted once per mask."""
        kept = self._stats
        if kept is None or kept[0] is not mask or kept[3] != len(lengths):
            n = int(np.count_nonzero(mask))
            kept = self._stats = (mask, n, int(lengths[mask].sum()) if n else 0, len(lengths))
        n, total = kept[1], kept[2]
        return n, max(float(total) / n, 1.0) if n else 0.0


def decode(table: pa.Table, labels: Mapping[str, Labels]) -> list[MemoryRow]:
    """The table's rows as ``MemoryRow``s (without vectors), column by column, ``labels``
    interned."""
    columns: list[Sequence[object]] = []
    for name in COLUMNS:
        if name in labels:
            columns.append(labels[name].add(table.column(name)))
            continue
        values = table.column(name).to_pylist()
        # most are empty: a new {} each, without the parser
        if name in JSON_COLUMNS:
            values = [
                {} if v == "{}" else codec.mapping(v) if isinstance(v, str) else v for v in values
            ]
        elif name in LIST_COLUMNS:
            values = [v or [] for v in values]
        columns.append(values)
    rows = [MemoryRow(*values) for values in zip(*columns)]
    for row, seq in zip(rows, table.column("seq").to_pylist()):
        row.seq = seq
    return rows
