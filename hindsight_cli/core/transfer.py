"""Memories in and out: export, import (idempotent, resumable), re-embedding, and copying a whole store
into another (``hindsight migrate``, local → Postgres or back)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from .. import paths
from ..errors import InvalidInput
from ..models import Filters, ImportResult
from ..storage.rows import MemoryRow, keyword_terms
from . import embedding_jobs
from .prepare import Prepared
from .reading import list_memories
from .runtime import Progress, Runtime
from .scope import Scope

IMPORT_BATCH = 2000


def export(rt: Runtime, filters: Filters | None, scope: Scope) -> Iterator[dict[str, Any]]:
    """Every memory (all statuses by default) as data-model dicts, oldest first."""
    chosen = filters or Filters(statuses=None, include_expired=True)
    yield from (m.to_dict() for m in list_memories(rt, chosen, scope, None, True))


def _prepared(rt: Runtime, records: Sequence[Mapping[str, Any]], scope: Scope) -> list[Prepared]:
    """Every record validated before anything is written: one bad record refuses the whole import."""
    out: list[Prepared] = []
    for number, record in enumerate(records, 1):
        if not isinstance(record, Mapping):
            raise InvalidInput(f"Record {number} is not a JSON object; nothing was imported.")
        values = {**record, "source": record.get("source") or "import"}
        try:
            values["agent_id"] = scope.resolve(record.get("agent_id")) or record.get("agent_id")
            out.append(rt.prepare(values, keep_identity=True))
        except InvalidInput as error:
            raise InvalidInput(f"Record {number}: {error} Nothing was imported.") from None
    return out


def fresh(rows: Sequence[MemoryRow], identities: set[tuple[str, str, str]]) -> list[int]:
    """The positions of the rows whose id, and whose idempotency key in their agent's scope, the store does
    not hold yet (nor an earlier row of ``rows``)."""
    ids, keys = {i for i, _, _ in identities}, {(a, k) for _, a, k in identities}
    out = []
    for position, row in enumerate(rows):
        if row.id in ids or (row.agent_id, row.idempotency_key) in keys:
            continue
        ids.add(row.id)
        keys.add((row.agent_id, row.idempotency_key))
        out.append(position)
    return out


def _fresh(items: Sequence[Prepared], identities: set[tuple[str, str, str]]) -> list[Prepared]:
    return [items[i] for i in fresh([p.row for p in items], identities)]


def import_records(rt: Runtime, records: Sequence[Mapping[str, Any]], progress: Progress | None,
                   scope: Scope) -> ImportResult:
    """Add exported memories; ids and idempotency keys already present are skipped (idempotent).

    Valid records are embedded and committed in batches of ``IMPORT_BATCH``, so an import that is killed
    (or runs out of disk) keeps what it committed, and rerunning it adds exactly the rest.
    """
    from .admin import init

    prepared = _prepared(rt, records, scope)
    init(rt)
    with rt.ledger.read() as session:
        dim = rt.check_model(session)
        fresh = _fresh(prepared, session.identities())
    added: list[Prepared] = []
    for start in range(0, len(fresh), IMPORT_BATCH):
        chunk = fresh[start : start + IMPORT_BATCH]
        step = (lambda done, _total, base=start: progress(base + done, len(fresh))) if progress else None
        embedding_jobs.embed_rows(rt, [p.row for p in chunk], dim, step)
        with rt.ledger.write() as session:  # another process may have imported the same records meanwhile
            batch = _fresh(chunk, session.present([p.row.id for p in chunk], [p.row.idempotency_key for p in chunk]))
            session.insert_many([(p.row, keyword_terms(p.row)) for p in batch])
            if batch:
                session.audit("import", [p.row.id for p in batch], rt.now())
        added.extend(batch)
    if added and rt.mirror is not None and (rt.mirror.open or len(added) >= 1000):
        # A big import pays the index update now rather than the next search; small ones leave it to the
        # next search or the MCP server, which sync before they read.
        rt.mirror.sync(dim=dim)
    return ImportResult(len(added), len(records) - len(added), sum(p.redactions for p in added))


def reindex(rt: Runtime, progress: Progress | None) -> int:
    """Re-embed every memory with the configured model and rebuild the LanceDB index from the ledger."""
    rt.require()
    with rt.ledger.read() as session:
        rows = session.select([], order="seq")
        meta = session.meta()
    model = rt.embedder.name
    dim = rt.embedder.dim or int(rt.embedder.embed(["probe"]).shape[1])
    embedding_jobs.embed_rows(rt, rows, None, progress)
    with rt.ledger.write() as session:
        if meta.get("embedding_model") != model or int(meta.get("embedding_dim", 0)) != dim:
            session.set_model(model, dim)
        session.set_embeddings(rows)
        session.audit("reindex", [], rt.now(), reason=model)
    if rt.mirror is not None:
        shutil.rmtree(rt.path / paths.INDEX_DIR, ignore_errors=True)
        rt.mirror.forget_index()
        rt.mirror.sync()
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
