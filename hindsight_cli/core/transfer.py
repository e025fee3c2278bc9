"""Memories in and out: export, import (idempotent, resumable), re-embedding, and copying a whole store
into another (``hindsight migrate``, local → Postgres or back)."""

from __future__ import annotations

import json
import logging
import shutil
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from .. import paths
from ..errors import Interrupted, InvalidInput
from ..models import Filters, ImportResult, part_position
from ..storage.rows import MemoryRow, keyword_terms
from . import embedding_jobs
from .prepare import Prepared
from .reading import list_memories
from .runtime import Phase, Progress, Runtime, announce
from .scope import Scope

IMPORT_BATCH = 2000
log = logging.getLogger("hindsight.import")


def export(rt: Runtime, filters: Filters | None, scope: Scope) -> Iterator[dict[str, Any]]:
    """Every memory (all statuses by default) as data-model dicts, oldest first."""
    chosen = filters or Filters(statuses=None, include_expired=True)
    yield from (m.to_dict() for m in list_memories(rt, chosen, scope, None, True))


def _each_prepared(rt: Runtime, records: Sequence[Mapping[str, Any]], scope: Scope) -> Iterator[list[Prepared]]:
    """Each record prepared (its linked parts when over the size limit), in order; a bad record raises
    InvalidInput naming it."""
    seen: dict[str, tuple[int, Mapping[str, Any]]] = {}
    for number, record in enumerate(records, 1):
        if not isinstance(record, Mapping):
            raise InvalidInput(f"Record {number} is not a JSON object; nothing was imported.")
        values = {**record, "source": record.get("source") or "import"}
        try:
            values["agent_id"] = scope.resolve(record.get("agent_id")) or record.get("agent_id")
            rows = rt.prepare_parts(values, keep_identity=True)  # over the size limit: linked parts
        except InvalidInput as error:
            raise InvalidInput(f"Record {number}: {error} Nothing was imported.") from None
        _one_per_id(seen, number, record, rows[0].row.id if record.get("id") else None)
        yield rows


def _prepared(rt: Runtime, records: Sequence[Mapping[str, Any]], scope: Scope) -> list[Prepared]:
    """Every record validated before anything is written: one bad record refuses the whole import."""
    return [p for rows in _each_prepared(rt, records, scope) for p in rows]


def _one_per_id(seen: dict[str, tuple[int, Mapping[str, Any]]], number: int, record: Mapping[str, Any],
                memory_id: str | None) -> None:
    """The same record twice (two exports concatenated) is fine; two different ones with one id are not:
    keeping either would drop the other without a word."""
    if memory_id is None:
        return
    first = seen.setdefault(memory_id, (number, record))
    if first[0] != number and first[1] != record:
        differ = sorted(k for k in {*first[1], *record} if first[1].get(k) != record.get(k))
        raise InvalidInput(f"Records {first[0]} and {number} both have id {memory_id} but differ ({', '.join(differ)}); "
                           "keep one of them and rerun. Nothing was imported.")


class _Unseen:
    """The ids, and idempotency keys in their agent's scope, held so far (the store's, then those of the
    rows kept before): which rows are new."""

    def __init__(self, identities: set[tuple[str, str, str]]) -> None:
        self.ids, self.keys = {i for i, _, _ in identities}, {(a, k) for _, a, k in identities}

    def positions(self, rows: Sequence[MemoryRow]) -> list[int]:
        out = []
        for position, row in enumerate(rows):
            if row.id in self.ids or (row.agent_id, row.idempotency_key) in self.keys:
                continue
            self.ids.add(row.id)
            self.keys.add((row.agent_id, row.idempotency_key))
            out.append(position)
        return out


def fresh(rows: Sequence[MemoryRow], identities: set[tuple[str, str, str]]) -> list[int]:
    """The positions of the rows whose id, and whose idempotency key in their agent's scope, the store does
    not hold yet (nor an earlier row of ``rows``)."""
    return _Unseen(identities).positions(rows)


def _fresh(items: Sequence[Prepared], identities: set[tuple[str, str, str]]) -> list[Prepared]:
    return [items[i] for i in fresh([p.row for p in items], identities)]


def import_records(rt: Runtime, records: Sequence[Mapping[str, Any]], progress: Progress | None,
                   scope: Scope, phase: Phase | None = None) -> ImportResult:
    """Add exported memories; ids and idempotency keys already present are skipped (idempotent).

    Valid records are embedded and committed in batches of ``IMPORT_BATCH``, so an import that is killed
    (or runs out of disk) keeps what it committed, and rerunning it adds exactly the rest. The first batch
    is embedded while the records after it are checked; nothing is written before every record passed.
    """
    from .admin import init

    total = waiting = len(records)  # until the store is asked, none is known to be there
    added: list[Prepared] = []
    fresh: list[Prepared] = []
    embedding = _Embedding(rt, progress, phase)
    try:
        announce(phase, f"Checking {len(records):,} records")
        head = _Head(rt, embedding)
        prepared: list[Prepared] = []
        for rows in _each_prepared(rt, records, scope):
            prepared.extend(rows)
            head.offer(rows)
        total = len(prepared)  # memories: a record over the size limit is several
        init(rt)
        with rt.ledger.read() as session:
            dim = rt.check_model(session)
            fresh = _fresh(prepared, session.identities())
        waiting = len(fresh)
        spans, first = head.take(fresh, dim)
        if fresh and not embedding.release(len(fresh)):
            announce(phase, "Loading the embedding model" if not rt.has_embedder else "Embedding")
        for number, batch in enumerate(_committed(rt, fresh, dim, embedding, spans, first), 1):
            added.extend(batch)
            if number < len(spans) and _indexed_now(rt, len(fresh)):
                _index_batch(rt, dim)
    except KeyboardInterrupt:  # the batch under way rolled back, the one being embedded is dropped
        kept = total - waiting + _kept(rt, fresh, added)
        raise Interrupted(f"Interrupted: {kept:,} of {total:,} imported; rerun to finish — it skips what "
                          "is there.") from None
    finally:
        embedding.stopped.set()
    if added and rt.mirror is not None and _indexed_now(rt, len(added)):
        announce(phase, "Updating the search index")
        rt.mirror.sync(dim=dim)
    split = sum(1 for p in added if (part_position(p.row.metadata) or (0,))[0] == 1)
    return ImportResult(len(added), len(prepared) - len(added), sum(p.redactions for p in added), split)


def _indexed_now(rt: Runtime, count: int) -> bool:
    """Whether an import of ``count`` memories updates the search index itself: a big one pays it now
    (batch by batch, while the next one is embedded) rather than the next search; small ones leave it to
    the next search or the MCP server, which sync before they read."""
    return rt.mirror is not None and (rt.mirror.open or count >= 1000)


def _index_batch(rt: Runtime, dim: int) -> None:
    """The index takes in the batch just committed while the next one is embedded. It is derived: busy
    with another process, or failing, it is left to the sync after the last batch."""
    assert rt.mirror is not None
    try:
        rt.mirror.sync(dim=dim, wait=0, maintain=False)
    except Exception as error:  # noqa: BLE001 - see above
        log.info("index update during an import deferred to its end: %s", error)


def _batches(items: Sequence[Prepared]) -> Iterator[tuple[int, int]]:
    """``IMPORT_BATCH`` rows at a time, never cutting a text's linked parts apart: each batch commits alone."""
    start = 0
    while start < len(items):
        end = min(start + IMPORT_BATCH, len(items))
        while end < len(items) and (part_position(items[end].row.metadata) or (1,))[0] > 1:
            end += 1
        yield start, end
        start = end


class _Dropped(Exception):
    """Ends the embedding of a batch that will never be written (the import stopped)."""


class _Embedding:
    """An import's embedding, batch by batch. Progress and the "Embedding and writing" phase are said
    from ``release`` on, when every record has been checked and the number to embed is known."""

    def __init__(self, rt: Runtime, progress: Progress | None, phase: Phase | None) -> None:
        self.rt, self.progress, self.phase = rt, progress, phase
        self.stopped = threading.Event()  # the import ended: whatever is being embedded is dropped
        self.total: int | None = None
        self._done = self._said = 0
        self._lock = threading.Lock()

    def start(self, rows: Sequence[MemoryRow], offset: int, dim: int | None, thread: bool,
              dropped: threading.Event | None = None) -> embedding_jobs.Job:
        """Embed ``rows`` (the batch at ``offset``), in a thread if ``thread``."""
        def step(done: int, _total: int) -> None:
            if self.stopped.is_set() or (dropped is not None and dropped.is_set()):
                raise _Dropped
            self._say(offset + done)

        function = lambda: embedding_jobs.embed_rows(self.rt, rows, dim, step)  # noqa: E731
        return embedding_jobs.Background(function) if thread else embedding_jobs.Deferred(function)

    def release(self, total: int) -> bool:
        """The number to embed is known: say how far the embedding is. False if it has not begun."""
        self.total = total
        self._say(0)
        return self._said > 0

    def _say(self, done: int) -> None:
        with self._lock:  # the embedding thread and the caller's may both say it
            self._done = max(self._done, done)
            if self.total is None or not self._done:
                return
            if not self._said:
                self._said = 1
                announce(self.phase, "Embedding and writing")
            if self.progress:
                self.progress(self._done, self.total)


class _Head:
    """The import's first batch, embedded in a thread while the records after it are checked (preparing
    a record costs about a tenth of embedding it). Its rows are those new to the store as read before the
    check; the import uses them only if its own reading, after every record has passed, gives the same."""

    def __init__(self, rt: Runtime, embedding: _Embedding) -> None:
        from .admin import new_store_model

        self.embedding, self.rows = embedding, list[Prepared]()
        self.dropped = threading.Event()
        self.job: embedding_jobs.Job | None = None
        self.unseen: _Unseen | None = None
        self.dim: int | None = None
        if rt.exists:  # a hub model is loaded only after the store's model check
            with rt.ledger.read() as session:
                self.dim, identities = rt.check_model(session), session.identities()
        elif rt.model_is_known():
            self.dim, identities = new_store_model(rt)[1], set()
        if self.dim:
            self.unseen = _Unseen(identities)

    def offer(self, rows: Sequence[Prepared]) -> None:
        """The next record's rows: the batch is embedded once it is full (it ends at a record's end)."""
        if self.unseen is None or self.job is not None:
            return
        self.rows.extend(rows[i] for i in self.unseen.positions([p.row for p in rows]))
        if len(self.rows) >= IMPORT_BATCH:
            self.job = self.embedding.start([p.row for p in self.rows], 0, self.dim, True, self.dropped)

    def take(self, fresh: Sequence[Prepared], dim: int) -> tuple[list[tuple[int, int]], embedding_jobs.Job | None]:
        """The import's batches, and the first one's embedding if it is under way and still the right one."""
        size = len(self.rows)
        if self.job is None or self.dim != dim or len(fresh) < size \
                or any(a is not b for a, b in zip(self.rows, fresh[:size])):
            self.dropped.set()
            return list(_batches(fresh)), None
        return [(0, size), *((start + size, end + size) for start, end in _batches(fresh[size:]))], self.job


def _committed(rt: Runtime, fresh: Sequence[Prepared], dim: int, embedding: _Embedding,
               spans: Sequence[tuple[int, int]], first: embedding_jobs.Job | None) -> Iterator[list[Prepared]]:
    """Embed and commit ``fresh`` batch by batch (``spans``; ``first``: the first one's embedding if
    under way); yields what each batch added, once it is committed.

    While a batch is written, the next one is embedded in a thread (onnxruntime and DuckDB release the
    GIL), so the import runs at the model's rate rather than 1 / (1/embed + 1/store). Only this thread
    writes: when the import stops (Ctrl-C, an error), the batch being embedded is dropped, never written.
    """
    def embed(start: int, end: int) -> embedding_jobs.Job:
        # One batch has nothing to overlap with: it is embedded here, without a thread's cost.
        return embedding.start([p.row for p in fresh[start:end]], start, dim, len(spans) > 1)

    pending = [first or embed(*spans[0])] if spans else []
    for number, (start, end) in enumerate(spans):
        pending.pop().result()  # raises the embedding's error, or a Ctrl-C while it waits
        if number + 1 < len(spans):
            pending.append(embed(*spans[number + 1]))
        yield _write(rt, fresh[start:end])


def _write(rt: Runtime, chunk: Sequence[Prepared]) -> list[Prepared]:
    """Commit one embedded batch; returns what it added."""
    with rt.ledger.write() as session:  # another process may have imported the same records meanwhile
        batch = _fresh(chunk, session.present([p.row.id for p in chunk], [p.row.idempotency_key for p in chunk]))
        session.insert_many([(p.row, keyword_terms(p.row)) for p in batch])
        if batch:
            session.audit("import", [p.row.id for p in batch], rt.now())
    return batch


def _kept(rt: Runtime, fresh: Sequence[Prepared], added: Sequence[Prepared]) -> int:
    """How many of ``fresh`` the ledger holds after a Ctrl-C, asked of the ledger itself: the signal may
    land between a batch's commit and its count."""
    present: set[tuple[str, str, str]] = set()
    try:
        with rt.ledger.read() as session:
            for start, end in _batches(fresh):
                chunk = fresh[start:end]
                present |= session.present([p.row.id for p in chunk], [p.row.idempotency_key for p in chunk])
    except Exception:  # noqa: BLE001 - the count kept so far is the next best answer
        return len(added)
    return len(fresh) - len(_fresh(fresh, present))


def reindex(rt: Runtime, progress: Progress | None, phase: Phase | None = None) -> int:
    """Re-embed every memory with the configured model and rebuild the LanceDB index from the ledger."""
    rt.require()
    try:
        announce(phase, "Loading the embedding model")
        with rt.ledger.read() as session:
            rows = session.select([], order="seq")
            meta = session.meta()
        model = rt.embedder.name
        dim = rt.embedder.dim or int(rt.embedder.embed(["probe"]).shape[1])
        announce(phase, "Re-embedding")
        embedding_jobs.embed_rows(rt, rows, None, progress)
        announce(phase, f"Writing {len(rows):,} memories' vectors to the ledger")
        with rt.ledger.write() as session:
            if meta.get("embedding_model") != model or int(meta.get("embedding_dim", 0)) != dim:
                session.set_model(model, dim)
            session.set_embeddings(rows)
            session.audit("reindex", [], rt.now(), reason=model)
    except KeyboardInterrupt:
        raise Interrupted("Interrupted: nothing was changed; rerun `hindsight reindex` to re-embed.") from None
    if rt.mirror is not None:
        announce(phase, "Rebuilding the search index")
        try:
            shutil.rmtree(rt.path / paths.INDEX_DIR, ignore_errors=True)
            rt.mirror.forget_index()
            rt.mirror.sync()
        except KeyboardInterrupt:
            raise Interrupted("Interrupted while rebuilding the search index: every memory is re-embedded, and the "
                              "next search rebuilds the index.") from None
    return len(rows)


def dump_jsonl(records: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    for record in records:
        yield json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n"


def parse_jsonl(lines: Iterable[str]) -> list[dict[str, Any]]:
    """Parse JSONL strictly: one bad line refuses the whole input, naming the line."""
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise InvalidInput(f"Line {number} is not valid JSON ({error.msg}); nothing was imported.") from None
        if not isinstance(value, dict):
            raise InvalidInput(f"Line {number} is not a JSON object; nothing was imported.")
        records.append(value)
    return records
