"""Candidates (DESIGN §5.2): vector top-N and keyword top-N from a source, fused, with their rows.

A source is anything that answers the three questions below over the hard filters: the ledger
(DuckDB or Postgres, exact), the in-memory index of a long-lived process (the ledger's answers, from
memory), or the LanceDB index. ``gather`` is the one candidate step every search runs, whatever its
source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from ..config import Ranking
from ..lessons.signatures import near, words
from ..storage.base import Condition, Reader
from ..storage.index import Index, where_clause
from ..storage.rows import MemoryRow
from .columns import Columns, of_index
from .neighbours import Step, add_neighbours, exact, steps_where
from .relevance import Candidate, fuse

if TYPE_CHECKING:
    from ..storage.hot import HotIndex
    from ..storage.hot_columns import Mask


class Source(Protocol):
    """Where candidates come from."""

    def keyword(
        self, terms: Sequence[str], where: Sequence[Condition], limit: int, weights: Ranking
    ) -> list[tuple[str, float]]: ...
    def nearest(
        self, vector: Sequence[float], where: Sequence[Condition], limit: int
    ) -> list[tuple[str, float]]: ...
    def rows(self, ids: Sequence[str], where: Sequence[Condition]) -> list[MemoryRow]: ...
    def at_steps(self, steps: Sequence[Step], where: Sequence[Condition]) -> list[MemoryRow]: ...
    def read_ahead(self, ids: Sequence[str], where: Sequence[Condition]) -> None:
        """Rows ``rows`` will be asked for, while the query's embedding is computed."""

    def columns(self, ids: Sequence[str]) -> Columns | None:
        """The ranking's columns of ``ids``' rows (read from ``rows``, ``search.columns``), when
        the source holds them as columns."""


class LedgerSource:
    """Exact search in the ledger: cosine over every vector, BM25 over the postings."""

    def __init__(self, reader: Reader, agents: Sequence[str] | None = None) -> None:
        self.reader = reader
        # the agents the filters allow (a ledger that keeps statistics per agent)
        self.agents = agents
        # the rows read so far, by id: one search's source, one read session, one set of filters
        self._read: dict[str, MemoryRow] = {}
        self._where: Sequence[Condition] | None = None

    def keyword(
        self, terms: Sequence[str], where: Sequence[Condition], limit: int, weights: Ranking
    ) -> list[tuple[str, float]]:
        return self.reader.keyword(
            terms, where, limit, weights.bm25_k1, weights.bm25_b, self.agents
        )

    def nearest(
        self, vector: Sequence[float], where: Sequence[Condition], limit: int
    ) -> list[tuple[str, float]]:
        return self.reader.nearest(vector, where, limit)

    def rows(self, ids: Sequence[str], where: Sequence[Condition]) -> list[MemoryRow]:
        """``ids``' rows with their vectors, newest first as the ledger orders them; those read
        before (``read_ahead``) are not read again."""
        held = self._read_missing(ids, where)
        found = [held[m] for m in dict.fromkeys(ids) if m in held]
        # the ledger's "newest" order: created_at, then id, both descending (ids are unique and
        # compared by code point, as DuckDB and the in-memory index compare them)
        return sorted(found, key=lambda r: (r.created_at, r.id), reverse=True)

    def read_ahead(self, ids: Sequence[str], where: Sequence[Condition]) -> None:
        """Read ``ids``' rows now, while the query's embedding is still being computed: the
        keyword candidates' rows are then off a cold search's path after the embedding (30-70 ms
        of reads for ~100 rows with their vectors)."""
        self._read_missing(ids, where)

    def columns(self, ids: Sequence[str]) -> Columns | None:
        return None

    def _read_missing(self, ids: Sequence[str], where: Sequence[Condition]) -> dict[str, MemoryRow]:
        """The rows read so far under ``where``, with those of ``ids`` not read yet."""
        if where is not self._where:
            self._where, self._read = where, {}
        missing = [m for m in ids if m not in self._read]
        if missing:
            found = self.reader.select([*where, ("id", "in", missing)], vectors=True)
            self._read.update((r.id, r) for r in found)
        return self._read

    def at_steps(self, steps: Sequence[Step], where: Sequence[Condition]) -> list[MemoryRow]:
        # the conditions hold more than the steps (each task's every step named): those are read
        # without their vectors (most of a cold search's 15 ms here), the exact steps' with them
        found = exact(self.reader.select([*where, *steps_where(steps)]), steps)
        return self.rows([row.id for row in found], where)


class IndexSource:
    """The LanceDB index: every hit comes back with its stored fields, so no second query is
    needed."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self._stored: dict[str, MemoryRow] = {}

    def keyword(
        self, terms: Sequence[str], where: Sequence[Condition], limit: int, weights: Ranking
    ) -> list[tuple[str, float]]:
        return self.index.keyword(terms, where_clause(where), limit, self._stored)

    def nearest(
        self, vector: Sequence[float], where: Sequence[Condition], limit: int
    ) -> list[tuple[str, float]]:
        return self.index.nearest(vector, where_clause(where), limit, self._stored)

    def rows(self, ids: Sequence[str], where: Sequence[Condition]) -> list[MemoryRow]:
        return [self._stored[m] for m in ids]

    def read_ahead(self, ids: Sequence[str], where: Sequence[Condition]) -> None:
        """Its hits' rows came with them."""

    def columns(self, ids: Sequence[str]) -> Columns | None:
        return None

    def at_steps(self, steps: Sequence[Step], where: Sequence[Condition]) -> list[MemoryRow]:
        return exact(self.index.select(where_clause([*where, *steps_where(steps, False)])), steps)


class HotSource:
    """The in-memory index (``storage.hot``): the ledger engine's candidates without a ledger read.
    The filters become one mask per query, shared by its three questions."""

    def __init__(self, index: HotIndex) -> None:
        self.index = index
        self._where: Sequence[Condition] | None = None
        self._mask: Mask | None = None

    def _masked(self, where: Sequence[Condition]) -> Mask:
        if where is not self._where or self._mask is None:
            self._where, self._mask = where, self.index.filter_mask(where)
        return self._mask

    def keyword(
        self, terms: Sequence[str], where: Sequence[Condition], limit: int, weights: Ranking
    ) -> list[tuple[str, float]]:
        return self.index.keyword(
            terms, self._masked(where), limit, weights.bm25_k1, weights.bm25_b
        )

    def nearest(
        self, vector: Sequence[float], where: Sequence[Condition], limit: int
    ) -> list[tuple[str, float]]:
        return self.index.nearest(vector, self._masked(where), limit)

    def rows(self, ids: Sequence[str], where: Sequence[Condition]) -> list[MemoryRow]:
        return self.index.rows(ids)

    def read_ahead(self, ids: Sequence[str], where: Sequence[Condition]) -> None:
        """Its rows are in memory."""

    def columns(self, ids: Sequence[str]) -> Columns | None:
        return of_index(self.index, ids)

    def at_steps(self, steps: Sequence[Step], where: Sequence[Condition]) -> list[MemoryRow]:
        # the filters' mask of this query's searches, narrowed to the tasks and steps
        import numpy as np

        index = self.index
        # the slots of those tasks (not a pass over every slot), then their exact (task, step)
        # places among them, in numpy (a task's other steps never reach Python), then their rows
        tasks = sorted({task for _, task, _ in steps})
        slots, which = index.tasks.holding(tasks)
        kept = self._masked(where)[slots]
        step = index.numbers["step"]
        kept &= ~step.null.view[slots]
        slots, which = slots[kept], which[kept]
        values = step.data.view[slots]
        # each (task, step) as one number, the steps counted from the lowest asked for
        low = min(s for _, _, s in steps)
        span = max(s for _, _, s in steps) - low + 1
        task_of = {task: i for i, task in enumerate(tasks)}
        wanted = np.array(sorted({task_of[t] * span + s - low for _, t, s in steps}), np.int64)
        inside = (values >= low) & (values < low + span)
        places = which * span + (values - low)
        # np.isin of a few places costs ten times a binary search in them
        near = wanted[np.minimum(np.searchsorted(wanted, places), len(wanted) - 1)]
        slots = slots[inside & (near == places)]
        found = exact([index.stored[s] for s in slots.tolist()], steps)
        return index.rows([r.id for r in found])


def gather(
    source: Source,
    terms: Sequence[str],
    vector: Callable[[], Sequence[float]] | None,
    where: Sequence[Condition],
    limit: int,
    weights: Ranking,
    mode: str,
    neighbours: bool = True,
) -> tuple[dict[str, MemoryRow], dict[str, Candidate]]:
    """The fused candidates of one query and their rows, by id.

    ``vector`` returns the query's embedding; it is asked for after the keyword search, which runs
    while the model embeds the query in the background. Vector-only candidates under
    ``min_vector_similarity`` are noise, not hits, and are dropped. With ``neighbours`` (every search
    but ``--troubleshoot``), the steps beside the best candidates join them (``neighbours``).
    """
    words = source.keyword(terms, where, limit, weights) if mode != "vector" else []
    if words and vector is not None and mode != "keyword":
        source.read_ahead([m for m, _ in words], where)
    near = (
        source.nearest(vector(), where, limit) if vector is not None and mode != "keyword" else []
    )
    by_keyword = {m for m, _ in words}
    near = [(m, s) for m, s in near if s >= weights.min_vector_similarity or m in by_keyword]
    candidates = fuse(near, words)
    rows = {r.id: r for r in source.rows(list(candidates), where)}
    if neighbours and weights.neighbour_pool:
        add_neighbours(source, where, weights, 2 if mode == "hybrid" else 1, rows, candidates)
    return rows, candidates


# failures matched by the error's own line that a troubleshooting search adds to its candidates
SAME_ERROR = 50


def add_same_error(
    source: Source,
    terms: Sequence[str],
    where: Sequence[Condition],
    weights: Ranking,
    signature: str,
    rows: dict[str, MemoryRow],
    candidates: dict[str, Candidate],
    query: str = "",
) -> None:
    """Troubleshooting: the fixed failures of the query's error signature (or one the query shows
    in other words, ``lessons.signatures.near``) that the query's words as a whole did not bring,
    found by the error line's words among failures, join the candidates (the ranking puts the same
    error first; ``pipeline.same_error``)."""
    if not terms:
        return
    found = source.keyword(terms, [*where, ("outcome", "in", ["failure"])], SAME_ERROR, weights)
    new = [m for m, _ in found if m not in candidates]
    if not new:
        return
    shown = words(query)
    for row in source.rows(new, where):
        found_signature = (row.metadata or {}).get("signature")
        if (
            row.resolution
            and isinstance(found_signature, str)
            and (found_signature == signature or near(found_signature, shown))
        ):
            rows[row.id] = row
            candidates[row.id] = Candidate(row.id)
