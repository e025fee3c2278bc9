"""The in-memory index of a long-lived process: every ledger row, its vectors as one contiguous
float32 matrix, its keyword postings and its filter columns, searched the way the ledger engine
searches.

It reproduces the DuckDB ledger's candidates: cosine top-N (``ORDER BY cosine DESC, id``) and BM25
with the ledger's formula, whose statistics (rows, mean length, document frequencies) are those of
the rows the filters select. Each change takes a new slot (the old one is marked dead), so postings
and columns only ever grow until a compaction packs them; ``storage.hot_sync`` keeps it current from
the ledger's change sequence. One memory may own several vector rows (``vector_slot`` maps a row to
its memory), and ``nearest`` gives each memory its best row's cosine.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from .base import Condition
from .hot_columns import (
    FilterMasks,
    Floats,
    Grow,
    Labels,
    Mask,
    Numbers,
    Positions,
    Scalars,
    Scores,
    Seqs,
    Tags,
    compare_id,
    decode,
    top,
)
from .rows import FILTER_COLUMNS, MemoryRow
from .sql.duckdb_feed import Changes

if TYPE_CHECKING:
    import pyarrow as pa


LABELS = ("agent_id", "task_id", "type", "status", "outcome", "trigger", "source")
NUMBERS = ("event_at", "created_at", "expires_at", "step")
# what the ledger can filter on
FILTERABLE = FILTER_COLUMNS | {"id", "trigger", "created_at", "source", "step"}
# more than a float32 product's rounding of a cosine: rows this near the cut are scored again
_SLACK = 1e-5
# a keyword search with fewer postings than one in this many slots sorts them (np.unique); with
# more, it sums them per slot over an array the size of the index, which is faster than sorting
_SPARSE = 8
# bytes a decoded row's objects take besides its text (measured: docs/architecture.md)
ROW_OVERHEAD = 1100


class HotIndex:
    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ids: list[str] = []
        self.stored: list[MemoryRow] = []
        # each id's live slot
        self.slot_of: dict[str, int] = {}
        self.alive = Grow(np.bool_)
        self.doc_len = Grow(np.int64)
        self.labels = {name: Labels() for name in LABELS}
        self.numbers = {name: Numbers() for name in NUMBERS}
        self.tags, self.scalars = Tags(), Scalars()
        # each task's slots (``at_slots``), a task id being a tag of its memories
        self.tasks = Tags()
        # term → (slots, tf)
        self.postings: dict[str, tuple[array[int], array[int]]] = {}
        self.matrix = Grow(np.float32, dim)
        # each vector row's norm, as the ledger's cosine divides by it
        self.norms = Grow(np.float64)
        # vector rows of norm 0 (a search divides by the norms)
        self.zero_norms = 0
        self.vector_slot = Grow(np.int32)
        # per slot: its (whole-memory) vector row, or -1
        self.first_vector = Grow(np.int32)
        # per slot: how many further vector rows (a long memory's chunks) it owns
        self.extra = Grow(np.int32)
        # the live slots' further vector rows
        self.chunk_rows = 0
        # some memory owns more than one vector row
        self.multi = False
        # the highest change sequence number applied
        self.seq = 0
        self.dead = 0
        self._row_bytes = 0
        # slots whose stored row holds a view of the matrix (``rows``)
        self._lent: list[int] = []
        # changes applied (rows added, killed or packed): what ``filter_mask`` keeps is of one
        self.version, self._masks = 0, FilterMasks()

    @property
    def live(self) -> int:
        return len(self.slot_of)

    # --- changes
    # ------------------------------------------------------------------------------------

    def apply(self, changes: Changes) -> None:
        """Add (or replace) the rows of ``changes`` with their vectors and postings."""
        table = changes.rows
        count = table.num_rows
        if not count:
            return
        first = len(self.ids)
        self.version += 1
        rows = decode(table, self.labels)
        for row in rows:
            old = self.slot_of.get(row.id)
            if old is not None:
                self._kill(old)
        seqs = np.asarray(table.column("seq").to_numpy(), dtype=np.int64)
        for offset, row in enumerate(rows):
            self.slot_of[row.id] = first + offset
            self._row_bytes += ROW_OVERHEAD + len(row.content) + len(row.resolution or "")
        self.ids.extend(row.id for row in rows)
        self.stored.extend(rows)
        self.alive.extend(np.ones(count, dtype=bool))
        self.doc_len.extend(table.column("doc_len").to_numpy(zero_copy_only=False))
        self._columns(table, rows, first)
        matrix = self.matrix.data
        self.extra.extend(np.zeros(count, dtype=np.int32))
        self._vectors(table, first)
        self._chunks(changes.chunks, seqs, first)
        if self.matrix.data is not matrix:
            self._recall_lent()
        self._postings(changes.postings, seqs, first)
        self.seq = max(self.seq, int(seqs.max()))

    def _chunks(self, chunks: pa.Table, seqs: Seqs, first: int) -> None:
        """A long memory's further windows: more vector rows for its slot (``nearest`` takes its
        best)."""
        if chunks is None or not chunks.num_rows:
            return
        slots = (first + np.searchsorted(seqs, chunks.column("seq").to_numpy())).astype(np.int32)
        values = (
            chunks.column("embedding").combine_chunks().flatten().to_numpy(zero_copy_only=False)
        )
        self._add_rows(np.asarray(values, dtype=np.float32).reshape(len(slots), self.dim), slots)
        np.add.at(self.extra.data, slots, 1)
        self.chunk_rows += len(slots)
        self.multi = True

    def _add_rows(self, vectors: Floats, slots: Positions) -> None:
        self.matrix.extend(vectors)
        norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors, dtype=np.float64))
        self.norms.extend(norms)
        self.zero_norms += int(np.count_nonzero(norms <= 0))
        self.vector_slot.extend(slots)

    def remove(self, ids: Sequence[str]) -> None:
        for mid in ids:
            slot = self.slot_of.get(mid)
            if slot is not None:
                self._kill(slot)

    def _kill(self, slot: int) -> None:
        del self.slot_of[self.ids[slot]]
        self.version += 1
        self.alive.data[slot] = False
        self.dead += 1
        self.chunk_rows -= int(self.extra.data[slot])
        row = self.stored[slot]
        self._row_bytes -= ROW_OVERHEAD + len(row.content) + len(row.resolution or "")

    def _columns(self, table: pa.Table, rows: Sequence[MemoryRow], first: int) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        for name, column in self.numbers.items():
            values = table.column(name)
            if pa.types.is_timestamp(values.type):
                values = values.cast(pa.timestamp("us")).cast(pa.int64())
            nulls = values.is_null().to_numpy(zero_copy_only=False)
            column.add(pc.fill_null(values, 0).to_numpy(zero_copy_only=False), nulls)
        self.tags.add(first, [row.tags for row in rows])
        self.scalars.add(rows)
        self.tasks.add(first, [[] if row.task_id is None else [row.task_id] for row in rows])

    def _vectors(self, table: pa.Table, first: int) -> None:
        column = table.column("embedding").combine_chunks()
        has = ~column.is_null().to_numpy(zero_copy_only=False)
        present = np.flatnonzero(has)
        starts = np.full(len(has), -1, dtype=np.int32)
        if len(present):
            kept = column if len(present) == len(has) else column.filter(has)
            values = kept.flatten().to_numpy(zero_copy_only=False)
            vectors = np.asarray(values, dtype=np.float32).reshape(len(present), self.dim)
            starts[present] = np.arange(self.matrix.n, self.matrix.n + len(present), dtype=np.int32)
            self._add_rows(vectors, first + present)
        self.first_vector.extend(starts)

    def _postings(self, postings: pa.Table, seqs: Seqs, first: int) -> None:
        """Append each posting to its term's lists, grouped by term in numpy (not a loop per
        posting)."""
        if not postings.num_rows:
            return
        import pyarrow.compute as pc

        terms = pc.dictionary_encode(postings.column("term").combine_chunks())
        codes = np.asarray(terms.indices.to_numpy(zero_copy_only=False))
        slots = (first + np.searchsorted(seqs, postings.column("seq").to_numpy())).astype(np.int32)
        tf = np.asarray(postings.column("tf").to_numpy(), dtype=np.int32)
        order = np.argsort(codes, kind="stable")
        codes, slots, tf = codes[order], slots[order], tf[order]
        bounds = [0, *(np.flatnonzero(np.diff(codes)) + 1).tolist(), len(codes)]
        names = terms.dictionary.to_pylist()
        for start, end in pairwise(bounds):
            lists = self.postings.setdefault(names[codes[start]], (array("i"), array("i")))
            lists[0].frombytes(slots[start:end].tobytes())
            lists[1].frombytes(tf[start:end].tobytes())

    def compact(self) -> None:
        """Pack the live slots (and their vector rows) together, dropping dead ones everywhere."""
        self._recall_lent()
        self.version += 1
        live = np.flatnonzero(self.alive.view)
        new_slot = np.full(len(self.ids), -1, dtype=np.int64)
        new_slot[live] = np.arange(len(live))
        self.ids = [self.ids[s] for s in live]
        self.stored = [self.stored[s] for s in live]
        self.slot_of = {mid: slot for slot, mid in enumerate(self.ids)}
        for grown in (
            self.alive,
            self.doc_len,
            self.extra,
            *(c.codes for c in self.labels.values()),
            *(n for c in self.numbers.values() for n in (c.data, c.null)),
            *self.scalars.grown,
        ):
            grown.keep(live)
        self.tags.remap(new_slot)
        self.tasks.remap(new_slot)
        for term, (slots, tf) in list(self.postings.items()):
            moved = new_slot[np.frombuffer(slots, dtype=np.int32)]
            keep = moved >= 0
            if keep.any():
                self.postings[term] = (
                    array("i", moved[keep].astype(np.int32).tobytes()),
                    array("i", np.frombuffer(tf, dtype=np.int32)[keep].tobytes()),
                )
            else:
                del self.postings[term]
        self._compact_vectors(live, new_slot)
        self.dead = 0

    def _compact_vectors(self, live: Positions, new_slot: Positions) -> None:
        rows = np.flatnonzero(new_slot[self.vector_slot.view] >= 0)
        new_row = np.full(self.matrix.n, -1, dtype=np.int64)
        new_row[rows] = np.arange(len(rows))
        firsts = self.first_vector.view[live]
        for grown in (self.matrix, self.norms, self.vector_slot):
            grown.keep(rows)
        self.zero_norms = int(np.count_nonzero(self.norms.view <= 0))
        self.vector_slot.data[: len(rows)] = new_slot[self.vector_slot.view]
        self.first_vector.keep(live)
        self.first_vector.data[: len(live)] = np.where(firsts >= 0, new_row[firsts], -1)

    # --- search
    # -------------------------------------------------------------------------------------

    def mask(self, where: Sequence[Condition]) -> Mask:
        """The live slots that satisfy every condition."""
        out = self.alive.view.copy()
        for column, op, value in where:
            if column not in FILTERABLE:
                raise ValueError(f"cannot filter on {column!r}")
            if column == "id" and op in ("in", "="):
                wanted = np.zeros(len(out), dtype=bool)
                found = [
                    self.slot_of[m] for m in (value if op == "in" else [value]) if m in self.slot_of
                ]
                wanted[found] = True
                out &= wanted
            elif column == "id":
                out &= np.array([compare_id(op, mid, value) for mid in self.ids], dtype=bool)
            elif column == "tags":
                out &= self.tags.mask(op, value, len(out))
            elif column in self.numbers:
                out &= self.numbers[column].mask(op, value)
            else:
                out &= self.labels[column].mask(op, value)
        return out

    def filter_mask(self, where: Sequence[Condition]) -> Mask:
        # ``mask``, kept while the index does not change (``FilterMasks``): read it, never change it
        return self._masks.get(self.version, where, self.mask, self.numbers)

    def nearest(self, vector: Sequence[float], mask: Mask, limit: int) -> list[tuple[str, float]]:
        """Cosine top-``limit`` among the masked memories, each scored by its best vector row."""
        # every slot owns one vector row, its own number: the slots' mask is the rows' mask
        plain = not self.multi and self.matrix.n == len(self.ids)
        wanted = mask if plain else mask[self.vector_slot.view]
        count = int(np.count_nonzero(wanted))
        if not count or limit <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32)
        length = math.sqrt(float(np.dot(query.astype(np.float64), query)))
        # every row (most searches): no list of them until the first pass has narrowed them
        rows: Positions | None = None
        if count == self.matrix.n:
            dots, norms = self.matrix.view @ query, self.norms.view
        # a narrow filter: multiply only its rows
        elif count * 4 < self.matrix.n:
            rows = np.flatnonzero(wanted)
            dots, norms = self.matrix.data[rows] @ query, self.norms.data[rows]
        else:
            rows = np.flatnonzero(wanted)
            dots, norms = (self.matrix.view @ query)[rows], self.norms.data[rows]
        # A first pass finds the rows that may reach the top: the product over the norms orders
        # them as their cosines do. Only they are scored again, exactly alike.
        # (a division masked by ``where`` costs several plain ones: only for zero vectors)
        rough = (
            dots / norms
            if not self.zero_norms or float(norms.min()) > 0
            else np.divide(dots, norms, out=np.zeros(len(norms)), where=norms > 0)
        )
        # a memory's best row when some own several
        every = (np.arange(self.matrix.n) if rows is None else rows) if self.multi else None
        best = self._best(every, rough)[1] if every is not None else rough
        if len(best) > limit:
            cut = np.partition(best, len(best) - limit)[len(best) - limit]
            near = rough >= cut - _SLACK * length
            rows = np.flatnonzero(near) if rows is None else rows[near]
        elif rows is None:
            rows = np.arange(self.matrix.n)
        # BLAS rounds a row by its position in the matrix (its kernel differs at block edges), so
        # equal vectors (the windows two long memories share) may differ in the last bit; einsum
        # rounds equal rows alike, and they tie as in the ledger (then the id decides)
        exact = self._cosine(rows, np.einsum("ij,j->i", self.matrix.data[rows], query), length)
        return top(self.ids, *self._best(rows, exact), limit)

    def _cosine(self, rows: Positions, dots: Scores, length: float) -> Floats:
        denominator = self.norms.data[rows] * length
        with np.errstate(divide="ignore", invalid="ignore"):
            cosine = np.where(denominator > 0, dots / denominator, 0.0)
        # np.clip's own checks cost more than the two bounds on a hundred values
        return np.minimum(np.maximum(cosine, -1.0), 1.0).astype(np.float32)

    def _best(self, rows: Positions, cosine: Scores) -> tuple[Positions, Scores]:
        """Each memory's slot and its best row's cosine (a long memory owns several rows)."""
        slots = self.vector_slot.data[rows]
        if not self.multi:
            return slots, cosine
        order = np.lexsort((slots, -cosine))
        _, first = np.unique(slots[order], return_index=True)
        return slots[order][first], cosine[order][first]

    def keyword(
        self, terms: Sequence[str], mask: Mask, limit: int, k1: float, b: float
    ) -> list[tuple[str, float]]:
        """BM25 over the postings with the ledger's formula and the masked rows' statistics."""
        doc_len = self.doc_len.view
        n, avgdl = self._masks.stats(mask, doc_len)
        if not n or limit <= 0:
            return []
        found, parts = [], []
        for term in sorted(set(terms)):
            lists = self.postings.get(term)
            if lists is None:
                continue
            slots = np.frombuffer(lists[0], dtype=np.int32)
            keep = mask[slots]
            slots = slots[keep]
            df = len(slots)
            if not df:
                continue
            tf = np.frombuffer(lists[1], dtype=np.int32)[keep].astype(np.float64)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            parts.append(idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len[slots] / avgdl)))
            found.append(slots)
        if not found:
            return []
        every = np.concatenate(found)
        if len(every) * _SPARSE < len(mask):
            unique, inverse = np.unique(every, return_inverse=True)
            return top(self.ids, unique, np.bincount(inverse, weights=np.concatenate(parts)), limit)
        # one sum per slot without sorting the postings: the same additions in the same order
        summed = np.bincount(every, weights=np.concatenate(parts))
        present = np.flatnonzero(np.bincount(every))
        return top(self.ids, present, summed[present], limit)

    def rows(self, ids: Sequence[str]) -> list[MemoryRow]:
        """The rows of ``ids`` with their vectors, newest first as the ledger returns them.

        They are the index's own objects, not copies (copying 150 rows cost more than the search):
        read them, never change them. A row's vector is a view of the matrix, lent until the matrix
        moves."""
        found = [self.slot_of[m] for m in ids if m in self.slot_of]
        # created_at as the column's microseconds orders as the times do
        created = self.numbers["created_at"].data.data[found].tolist()
        ordered = sorted(zip(created, [self.ids[s] for s in found], found), reverse=True)
        out = []
        for _, _, slot in ordered:
            row = self.stored[slot]
            if row.embedding is None:
                vector = int(self.first_vector.data[slot])
                if vector >= 0:
                    row.embedding = self.matrix.data[vector]
                    self._lent.append(slot)
            out.append(row)
        return out

    def _recall_lent(self) -> None:
        """The matrix moved (it grew, or was packed): lent views would keep the old one alive."""
        for slot in self._lent:
            self.stored[slot].embedding = None
        self._lent = []

    @property
    def nbytes(self) -> int:
        """What the index holds, in bytes (the arrays' and postings' own sizes; rows by
        ``ROW_OVERHEAD``)."""
        arrays = sum(
            g.nbytes
            for g in (
                self.alive,
                self.doc_len,
                self.matrix,
                self.norms,
                self.vector_slot,
                self.first_vector,
                self.extra,
            )
        ) + sum(g.nbytes for g in self.scalars.grown)
        columns = sum(c.nbytes for c in self.labels.values()) + sum(
            c.nbytes for c in self.numbers.values()
        )
        postings = sum(
            130 + len(term) + 4 * (len(s) + len(t)) for term, (s, t) in self.postings.items()
        )
        return (
            arrays
            + columns
            + postings
            + self.tags.nbytes
            + self.tasks.nbytes
            + self._row_bytes
            + 100 * len(self.ids)
        )
