"""Writing one memory (DESIGN §6): validated, redacted, idempotent, near-duplicates merged, supersedes linked.

The idempotency key, the superseded memory and the near-duplicate are all looked up inside the write
transaction, so concurrent writers cannot both add the same memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from ..models import WriteResult
from ..storage import codec
from ..storage.base import Writer
from ..storage.rows import MemoryRow, embedding_text, keyword_terms
from . import embedding_jobs
from .lifecycle import expire_if_due
from .reading import find
from .runtime import Runtime
from .scope import UNSCOPED, Scope


def _supersedable(session: Writer, row: MemoryRow, scope: Scope) -> MemoryRow:
    assert row.supersedes is not None
    old = find(session, row.supersedes, UNSCOPED)
    if old.agent_id != row.agent_id:
        raise InvalidInput(f"{old.id} belongs to agent {old.agent_id!r}, not {row.agent_id!r}: "
                           "a memory can only supersede one of its own agent.")
    if old.status == "superseded":
        raise InvalidInput(f"{old.id} was already superseded by {old.superseded_by}; supersede that one instead.")
    row.supersedes = old.id
    return old


def _near_duplicate(rt: Runtime, session: Writer, row: MemoryRow) -> str | None:
    """An active memory of the same agent, type, outcome and task whose cosine reaches the threshold.
    Explicit, different steps of a task are distinct events, however alike their text."""
    where = [("status", "in", ["active"]), ("agent_id", "in", [row.agent_id]), ("type", "in", [row.type]),
             ("outcome", "in", [row.outcome]), ("task_id", "is", row.task_id), ("step", "null_or_eq", row.step)]
    best = session.nearest(list(row.embedding), where, 1)
    if best and best[0][1] >= rt.config.dedup_threshold:
        return best[0][0]
    return None


def record(rt: Runtime, content: str, fields: Mapping[str, Any], merge: bool, supersedes: str | None,
           scope: Scope) -> WriteResult:
    values = {**fields, "content": content, "supersedes": supersedes}
    values["agent_id"] = scope.resolve(values.get("agent_id")) or values.get("agent_id")
    prepared = rt.prepare(values)
    row = prepared.row
    from .admin import init

    init(rt)
    job = embedding_jobs.start(rt, [embedding_text(row)])
    with rt.ledger.read() as session:
        dim = rt.check_model(session)
    row.embedding = rt.checked(job.result(), dim)[0].tolist()
    with rt.ledger.write() as session:
        existing = session.by_key(row.idempotency_key, None)
        if existing is not None:
            return WriteResult(codec.to_memory(existing), True, prepared.redactions)
        old = _supersedable(session, row, scope) if row.supersedes else None
        if merge and old is None:
            twin = _near_duplicate(rt, session, row)
            if twin is not None:
                session.touch(twin, row.created_at, row.importance)
                session.audit("merge", [twin], row.created_at, actor=row.agent_id)
                return WriteResult(codec.to_memory(session.by_ids([twin])[0]), True, prepared.redactions)
        session.insert(row, keyword_terms(row))
        session.audit("record", [row.id], row.created_at, actor=row.agent_id)
        if old is not None:
            session.supersede(old.id, row.id, row.created_at)
            session.audit("supersede", [old.id, row.id], row.created_at, actor=row.agent_id)
    rt.after_write()
    expire_if_due(rt)
    return WriteResult(codec.to_memory(row), False, prepared.redactions)
