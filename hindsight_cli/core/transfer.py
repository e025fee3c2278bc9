"""Memories in and out: export, import (idempotent, resumable), re-embedding, and copying a whole
store into another (``hindsight migrate``, local → Postgres or back)."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from .. import paths
from ..errors import Interrupted, InvalidInput
from ..models import Filters, ImportResult, part_position
from ..safefs.reading import parse_json
from ..storage.base import Reader, Writer
from ..storage.rows import MemoryRow, row_term_counts
from ..text import json_text
from . import amend, embedding_jobs, jobs, parts
from .jobs import Phase, Progress, announce
from .prepare import Limits, Prepared, claimed
from .reading import list_memories
from .recall import reads_index
from .runtime import Runtime
from .scope import Scope

IMPORT_BATCH = 2000

# told each record left out, by its number (from 1) and the reason
Refused = Callable[[int, str], None]
# asked in the transaction that writes a batch: the ids of its rows that must not be written now
Stale = Callable[[Sequence[MemoryRow]], set[str]]


def export(rt: Runtime, filters: Filters | None, scope: Scope) -> Iterator[dict[str, Any]]:
    """Every memory (all statuses by default) as data-model dicts, oldest first."""
    chosen = filters or Filters(statuses=None, include_expired=True)
    yield from (m.to_dict() for m in list_memories(rt, chosen, scope, None, True))


def _prepared(
    rt: Runtime,
    records: Sequence[Mapping[str, Any]],
    scope: Scope,
    provenance: str | None = None,
    refused: Refused | None = None,
    numbers: dict[int, int] | None = None,
) -> list[Prepared]:
    """Every record validated before anything is written: one bad record refuses the whole
    import, or, given ``refused``, is left out and told to it (``refused(number, reason)``)."""
    out: list[Prepared] = []
    seen: dict[str, tuple[int, Mapping[str, Any]]] = {}
    limits = Limits.of(rt.config)
    for number, record in enumerate(records, 1):
        first = len(out)
        try:
            if not isinstance(record, Mapping):
                raise InvalidInput(f"Record {number} is not a JSON object; nothing was imported.")
            values = claimed(record, provenance)
            try:
                values["agent_id"] = scope.resolve(record.get("agent_id")) or record.get("agent_id")
                # over the size limit: linked parts
                out.extend(parts.prepared(values, limits, rt.now(), keep_identity=True))
            except InvalidInput as error:
                raise InvalidInput(f"Record {number}: {error} Nothing was imported.") from None
            _one_per_id(seen, number, record, out[first].row.id if record.get("id") else None)
            if numbers is not None:
                numbers.update((id(p), number) for p in out[first:])
        except InvalidInput as error:
            if refused is None:
                raise
            del out[first:]
            refused(number, _reason(str(error), number))
    return out


def _reason(message: str, number: int) -> str:
    """A refusal's reason without what only a whole import's refusal says (its record's number,
    that nothing was imported)."""
    for prefix in (f"Record {number}: ", f"Record {number} "):
        message = message.removeprefix(prefix)
    return message.removesuffix(" Nothing was imported.").removesuffix("; nothing was imported.")


def _one_per_id(
    seen: dict[str, tuple[int, Mapping[str, Any]]],
    number: int,
    record: Mapping[str, Any],
    memory_id: str | None,
) -> None:
    """The same record twice (two exports concatenated) is fine; two different ones with one id are
    not: keeping either would drop the other without a word."""
    if memory_id is None:
        return
    first = seen.setdefault(memory_id, (number, record))
    if first[0] != number and first[1] != record:
        differ = sorted(k for k in {*first[1], *record} if first[1].get(k) != record.get(k))
        raise InvalidInput(
            f"Records {first[0]} and {number} both have id {memory_id} but differ "
            f"({', '.join(differ)}); "
            "keep one of them and rerun. Nothing was imported."
        )


def fresh(rows: Sequence[MemoryRow], identities: set[tuple[str, str, str]]) -> list[int]:
    """The positions of the rows whose id, and whose idempotency key in their agent's scope, the
    store does not hold yet (nor an earlier row of ``rows``)."""
    ids, keys = {i for i, _, _ in identities}, {(a, k) for _, a, k in identities}
    out = []
    for position, row in enumerate(rows):
        if row.id in ids or (row.agent_id, row.idempotency_key) in keys:
            continue
        ids.add(row.id)
        keys.add((row.agent_id, row.idempotency_key))
        out.append(position)
    return out


def _fresh(
    items: Sequence[Prepared],
    identities: set[tuple[str, str, str]],
    refused: Callable[[list[Prepared], str], None] | None = None,
) -> list[Prepared]:
    """The items not stored yet. A text in linked parts is new or stored, as a whole: some of its
    parts' keys held and others not means another memory holds one (written in part, the text would
    read as damage), and it is refused (or, given ``refused``, left out and told to it with its
    first part)."""
    rows = [p.row for p in items]
    new = set(fresh(rows, identities))
    out: list[Prepared] = []
    for whole in parts.wholes(rows):
        if not any(i in new for i in whole):
            continue
        taken = next((i for i in whole if i not in new), None)
        if taken is not None:
            error = parts.key_taken(rows[taken].idempotency_key)
            if refused is None:
                raise InvalidInput(f"{error} Nothing was imported.")
            refused([items[i] for i in whole], str(error))
            continue
        out.extend(items[i] for i in whole)
    return out


def import_records(
    rt: Runtime,
    records: Sequence[Mapping[str, Any]],
    progress: Progress | None,
    scope: Scope,
    phase: Phase | None = None,
    provenance: str | None = None,
    refused: Refused | None = None,
    stale: Stale | None = None,
) -> ImportResult:
    """Add exported memories; ids and idempotency keys already present are skipped (idempotent).

    Valid records are embedded and committed in batches of ``IMPORT_BATCH``, so an import that is
    killed (or runs out of disk) keeps what it committed, and rerunning it adds exactly the rest.
    A record the store refuses refuses the whole import, or, given ``refused``, is left out and
    told to it (``refused(number, reason)``, numbers from 1) while the others go in together: one
    refused record never turns a batch into a write per record (docs/reliability.md). ``stale``,
    asked in each batch's write transaction, leaves out rows read from what a purge took meanwhile.
    """
    from .admin import init

    # until the store is asked, none is known to be there
    total = waiting = len(records)
    added: list[Prepared] = []
    fresh: list[Prepared] = []
    numbers: dict[int, int] = {}
    left_out: set[int] = set()

    def whole_refused(whole: list[Prepared], reason: str) -> None:
        if refused is not None and id(whole[0]) not in left_out:
            left_out.update(id(p) for p in whole)
            refused(numbers[id(whole[0])], reason)

    taken = whole_refused if refused is not None else None
    try:
        announce(phase, f"Checking {len(records):,} records")
        # a token principal does not choose its records' sources either
        prepared = _prepared(rt, records, scope, scope.provenance or provenance, refused, numbers)
        # memories: a record over the size limit is several
        total = len(prepared)
        init(rt)
        with rt.ledger.read() as session:
            dim = rt.check_model(session)
            identities = session.identities()
            fresh = _fresh(prepared, identities, taken)
        waiting = len(fresh)
        updated, beside = amend.imported(rt, _repeats(prepared, fresh, identities), dim)
        if beside:
            # less trusted than the memory they repeat: memories of their own, under keys of their
            # own (a rerun finds them held)
            aside = {id(row) for row in beside}
            with rt.ledger.read() as session:
                fresh = _fresh(
                    [*fresh, *(p for p in prepared if id(p.row) in aside)],
                    session.identities(),
                    taken,
                )
            waiting = len(fresh)
        if fresh:
            announce(phase, "Loading the embedding model" if not rt.has_embedder else "Embedding")
        for batch in _committed(rt, fresh, dim, progress, phase, stale):
            added.extend(batch)
    # the batch under way rolled back, the one being embedded is dropped
    except KeyboardInterrupt:
        kept = total - waiting + _kept(rt, fresh, added)
        raise Interrupted(
            f"Interrupted: {kept:,} of {total:,} imported; rerun to finish — it skips what "
            "is there."
        ) from None
    if (
        added
        and rt.mirror is not None
        and (rt.mirror.open or (len(added) >= 1000 and reads_index(rt)))
    ):
        # A big import into a store whose searches read the LanceDB index pays its update now rather
        # than the next search; otherwise the first search (or MCP server) that reads it syncs
        # before it reads.
        announce(phase, "Updating the search index")
        rt.mirror.sync(dim=dim)
    split = sum(1 for p in added if (part_position(p.row.metadata) or (0,))[0] == 1)
    return ImportResult(
        len(added),
        len(prepared) - len(added) - updated - len(left_out),
        sum(p.redactions for p in added),
        split,
        updated,
    )


def _repeats(
    prepared: Sequence[Prepared],
    fresh: Sequence[Prepared],
    identities: set[tuple[str, str, str]],
) -> list[MemoryRow]:
    """The records that repeat a stored memory under its idempotency key with another id: they may
    bring what was learnt since (a record with a stored id is that very version, and is skipped)."""
    ids, keys = {i for i, _, _ in identities}, {(a, k) for _, a, k in identities}
    added = {id(p) for p in fresh}
    return [
        p.row
        for p in prepared
        if id(p) not in added
        and p.row.id not in ids
        and (p.row.agent_id, p.row.idempotency_key) in keys
    ]


def _batches(items: Sequence[Prepared]) -> Iterator[tuple[int, int]]:
    """``IMPORT_BATCH`` rows at a time, never cutting a text's linked parts apart: each batch
    commits alone. A row is a later part by its ``metadata.part``, which an import file states,
    and a text has at most ``parts.MAX_PARTS``: a batch runs on that far at most (a file whose
    every record claimed to be a second part was one transaction, however long; review BR2)."""
    start = 0
    while start < len(items):
        end = min(start + IMPORT_BATCH, len(items))
        most = min(end + parts.MAX_PARTS - 1, len(items))
        while end < most and (part_position(items[end].row.metadata) or (1,))[0] > 1:
            end += 1
        yield start, end
        start = end


class _Dropped(Exception):
    """Ends the embedding of a batch that will never be written (the import stopped)."""


def _committed(
    rt: Runtime,
    fresh: Sequence[Prepared],
    dim: int,
    progress: Progress | None,
    phase: Phase | None,
    stale: Stale | None = None,
) -> Iterator[list[Prepared]]:
    """Embed and commit ``fresh`` batch by batch; yields what each batch added, once it is
    committed.

    While a batch is written, the next one is embedded in a thread (onnxruntime and DuckDB release
    the GIL). On two cores this buys little: the model keeps both busy, so the write shares their
    CPU (docs/benchmarks.md, run D and "What changed"). Only this thread writes: when the import
    stops (Ctrl-C, an error), the batch being embedded is dropped, never written.
    """
    stopped = threading.Event()
    # the phase is named once, when the model has loaded and the first texts are in
    said = False

    def embed(span: tuple[int, int]) -> None:
        start, end = span

        def step(done: int, _total: int) -> None:
            nonlocal said
            if stopped.is_set():
                raise _Dropped
            if not said:
                said = True
                announce(phase, "Embedding and writing")
            if progress:
                progress(start + done, len(fresh))

        embedding_jobs.embed_rows(rt, [p.row for p in fresh[start:end]], dim, step)

    try:
        yield from jobs.pipelined(
            list(_batches(fresh)),
            embed,
            lambda span: _write(rt, fresh[span[0] : span[1]], stale),
        )
    finally:
        stopped.set()


def _write(rt: Runtime, chunk: Sequence[Prepared], stale: Stale | None = None) -> list[Prepared]:
    """Commit one embedded batch; returns what it added."""
    # another process may have imported the same records meanwhile
    with rt.ledger.write() as session:
        batch = _fresh(chunk, _held(session, chunk))
        if stale is not None and batch:
            gone = stale([p.row for p in batch])
            batch = [p for p in batch if p.row.id not in gone]
        session.insert_many([(p.row, row_term_counts(p.row)) for p in batch])
        if batch:
            session.audit("import", [p.row.id for p in batch], rt.now())
            _link_versions(session, [p.row for p in batch], rt.now())
    return batch


def _link_versions(session: Writer, rows: Sequence[MemoryRow], at: datetime) -> None:
    """An imported active memory that supersedes one the store holds active (its older version, or
    the fact it changed, imported earlier) supersedes it here too: the later fix or value is the one
    searched. Never one more trusted than itself (``less_trusted``): a file naming a memory the user
    wrote would take its place."""
    from ..poisoning import less_trusted

    newer = {r.supersedes: r for r in rows if r.supersedes and r.status == "active"}
    for old in session.by_ids(list(newer)) if newer else []:
        new = newer[old.id]
        if old.status == "active" and old.agent_id == new.agent_id and not less_trusted(new, old):
            session.supersede(old.id, new.id, at)
            session.audit("supersede", [old.id, new.id], at, "imported version", new.agent_id)


def _held(session: Reader, chunk: Sequence[Prepared]) -> set[tuple[str, str, str]]:
    """The identities the store holds of ``chunk``'s ids and idempotency keys."""
    return session.present([p.row.id for p in chunk], [p.row.idempotency_key for p in chunk])


def _kept(rt: Runtime, fresh: Sequence[Prepared], added: Sequence[Prepared]) -> int:
    """How many of ``fresh`` the ledger holds after a Ctrl-C, asked of the ledger itself: the signal
    may land between a batch's commit and its count."""
    present: set[tuple[str, str, str]] = set()
    try:
        with rt.ledger.read() as session:
            for start, end in _batches(fresh):
                chunk = fresh[start:end]
                present |= _held(session, chunk)
    except Exception:  # noqa: BLE001 - the count kept so far is the next best answer
        return len(added)
    return len(fresh) - len(_fresh(fresh, present))


def reindex(rt: Runtime, progress: Progress | None, phase: Phase | None = None) -> int:
    """Re-embed every memory with the configured model and rebuild the LanceDB index from the
    ledger."""
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
        raise Interrupted(
            "Interrupted: nothing was changed; rerun `hindsight reindex` to re-embed."
        ) from None
    if rt.mirror is not None:
        announce(phase, "Rebuilding the search index")
        try:
            shutil.rmtree(rt.path / paths.INDEX_DIR, ignore_errors=True)
            rt.mirror.forget_index()
            rt.mirror.sync()
        except KeyboardInterrupt:
            raise Interrupted(
                "Interrupted while rebuilding the search index: every memory is re-embedded, and "
                "the "
                "next search rebuilds the index."
            ) from None
    return len(rows)


def dump_jsonl(records: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    for record in records:
        yield json_text(record) + "\n"


def parse_jsonl(lines: Iterable[str]) -> list[dict[str, Any]]:
    """Parse JSONL strictly: one bad line refuses the whole input, naming the line."""
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = parse_json(line)
        except json.JSONDecodeError as error:
            raise InvalidInput(
                f"Line {number} is not valid JSON ({error.msg}); nothing was imported."
            ) from None
        if not isinstance(value, dict):
            raise InvalidInput(f"Line {number} is not a JSON object; nothing was imported.")
        records.append(value)
    return records
