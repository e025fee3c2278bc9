"""Writing one memory (DESIGN §6): validated, redacted, idempotent, restatements merged, changed
facts superseding the old ones, every link inside the writer's agent scope.

The idempotency key (unique per agent), the superseded memory and the near memories a new one is
compared with are all looked up inside the write transaction, so concurrent writers cannot both add
the same memory, and nothing is ever looked up in, merged into or superseded across another agent's
scope.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from ..models import WriteResult, part_position
from ..poisoning import less_trusted
from ..storage import codec
from ..storage.base import Condition, Writer
from ..storage.rows import MemoryRow, row_term_counts
from . import amend, embedding_jobs, parts
from .lifecycle import expire_if_due, withdraw
from .prepare import Limits, Prepared, claimed, derived_key
from .reading import chain_ids, current, find
from .runtime import Runtime
from .scope import Scope

if TYPE_CHECKING:
    import numpy as np

# near memories a new one is compared with for a merge or an update
_NEAREST = 5


@dataclass
class _Plan:
    """What the write does besides inserting: merge into ``merge_into``, or supersede ``old``."""

    merge_into: str | None = None
    old: MemoryRow | None = None
    # "60 → 100": what an automatic supersede changed
    change: str | None = None
    # kept beside this memory, which it reads like an update of, and why
    beside: str | None = None
    why: str | None = None


def _inherit(rt: Runtime, values: dict[str, Any], scope: Scope) -> None:
    """A memory that supersedes another keeps its agent and task unless it names its own."""
    if not values.get("supersedes") or not rt.exists:
        return
    with rt.ledger.read() as session:
        old = find(session, str(values["supersedes"]), scope)
    if not values.get("agent_id"):
        values["agent_id"] = old.agent_id
    if values.get("task_id") is None:
        values["task_id"] = old.task_id


def _supersedable(session: Writer, row: MemoryRow, scope: Scope) -> MemoryRow:
    assert row.supersedes is not None
    # another agent's memory is not there for a scoped writer
    old = find(session, row.supersedes, scope)
    if old.agent_id != row.agent_id:
        raise InvalidInput(
            f"{old.id} belongs to agent {old.agent_id!r}, not {row.agent_id!r}: "
            "a memory can only supersede one of its own agent."
        )
    scope.check_replaces(old, row)
    if old.status == "superseded":
        raise InvalidInput(
            f"{old.id} was already superseded by {old.superseded_by}; supersede that one instead."
        )
    row.supersedes = old.id
    return old


def _near(row: MemoryRow) -> list[Condition]:
    """The memories a new one may restate or update: active, of its agent, type and outcome, in its
    task; explicit, different steps of a task are distinct events, however alike their text."""
    return [
        ("status", "in", ["active"]),
        ("agent_id", "in", [row.agent_id]),
        ("type", "in", [row.type]),
        ("outcome", "in", [row.outcome]),
        ("task_id", "is", row.task_id),
        ("step", "null_or_eq", row.step),
    ]


def _plan(rt: Runtime, session: Writer, row: MemoryRow) -> _Plan:
    """Merge a restatement (same words, values and polarity), supersede an update (the same
    statement with other values, or negated), or just insert (core/facts.py decides;
    docs/benchmarks.md measures it)."""
    from .facts import CANDIDATE_COSINE, THRESHOLDS, Thresholds, resolve

    near = [
        (m, s)
        for m, s in session.nearest(list(row.vector()), _near(row), _NEAREST)
        if s >= CANDIDATE_COSINE
    ]
    if not near:
        return _Plan()
    rows = {r.id: r for r in session.by_ids([m for m, _ in near])}
    thresholds = Thresholds(
        THRESHOLDS.floor,
        rt.config.dedup_threshold,
        THRESHOLDS.update,
        THRESHOLDS.slack,
        THRESHOLDS.slack_cosine,
    )
    # An episode is an event: "deploy 41 failed" after "deploy 40 failed" is a second event, not a
    # correction, so only facts and how-tos (and working state) are superseded by their update.
    facts = rt.config.on_change == "supersede" and row.type != "episodic"
    # a piece is no statement
    near = [(m, s) for m, s in near if m in rows and not parts.is_part(rows[m])]
    # The statements are compared, not their fixes: a repeat that brings a fix (or another one)
    # merges into the memory it repeats, which then takes the fix as a new version (amend.py).
    choice = resolve(
        row.content,
        [(m, rows[m].content, s) for m, s in near],
        supersede=facts,
        thresholds=thresholds,
    )
    if choice.action == "merge":
        said = rows.get(choice.target or "")
        if said is not None and less_trusted(said, row):
            # the same words from a file or a page do not make what the user says theirs
            return _Plan(
                beside=said.id,
                why=(
                    f"it restates {said.id}, which comes from {said.source} (untrusted); "
                    "stored as its own"
                ),
            )
        return _Plan(merge_into=choice.target)
    if choice.action == "supersede" and choice.target in rows and choice.decision is not None:
        old = rows[choice.target]
        if less_trusted(row, old):
            # a page, a tool's output or a file does not overrule what the user or an agent wrote
            return _Plan(
                beside=old.id,
                why=(
                    f"{choice.decision.summary or choice.decision.reason} reads like an update, "
                    f"but it comes from {row.source} (untrusted) and the memory it would replace "
                    "does not"
                ),
            )
        return _Plan(old=old, change=choice.decision.summary or choice.decision.reason)
    if choice.beside is not None and row.type != "episodic":
        beside, decision = choice.beside
        if decision.kind == "update":
            why = f'{decision.summary} reads like an update, but [write] on_change = "keep_both"'
        else:
            why = (
                f"{decision.reason}; [write] on_change supersedes only a changed value of the "
                "same subject"
            )
        return _Plan(beside=beside, why=why)
    return _Plan()


def _supersede(session: Writer, old: MemoryRow, row: MemoryRow, change: str | None) -> None:
    session.supersede(old.id, row.id, row.created_at)
    reason = f"updated automatically: {change}" if change else None
    session.audit("supersede", [old.id, row.id], row.created_at, reason, row.agent_id)
    # summaries quoting the old fact
    withdraw(session, [old.id], row.created_at, row.agent_id)


def record(
    rt: Runtime,
    content: str,
    fields: Mapping[str, Any],
    merge: bool,
    supersedes: str | None,
    scope: Scope,
    turn: AbstractContextManager[Any] | None = None,
) -> WriteResult:
    """Store one memory. ``turn`` (a shared server's write gate) is held only while the store
    changes: the write's checks, its redaction and its embedding come before it, so one agent's
    long text never holds another agent's writes (review AS: 15 to 60 s a write)."""
    turn = turn or nullcontext()
    if scope.provenance is not None:
        # a token principal's claims (source, confidence) are kept, never taken
        fields = claimed(fields, scope.provenance)
    values = {**fields, "content": content, "supersedes": supersedes}
    values["agent_id"] = scope.resolve(values.get("agent_id")) or values.get("agent_id")
    _inherit(rt, values, scope)
    every = parts.prepared(values, Limits.of(rt.config), rt.now())
    if len(every) > 1:
        return _record_parts(rt, every, scope, turn)
    prepared = every[0]
    row = prepared.row
    _made(rt, turn)
    vectors = _embedded(rt, row)

    def write(made: amend.Made) -> WriteResult:
        plan = _Plan()
        with turn:
            with rt.ledger.write() as session:
                # checked in the write's own transaction: one ledger open per write, not two
                dim = rt.check_model(session)
                embedding_jobs.assign(row, embedding_jobs.checked(rt, vectors, dim))
                existing, beside = _holder(session, row, fields)
                if existing is not None:
                    stored: _Outcome | None = _repeat(
                        rt, session, existing, row, fields, merge, scope, dim, made
                    )
                else:
                    if row.supersedes:
                        plan = _Plan(old=_supersedable(session, row, scope))
                    elif beside is not None:
                        plan = _beside(beside, row)
                    elif merge:
                        plan = _plan(rt, session, row)
                        if plan.merge_into is not None:
                            target = session.by_ids([plan.merge_into])[0]
                            if amend.kept_beside(target, row, amend.stated(row, fields)):
                                plan = _beside(target, row)
                    stored = _written(rt, session, plan, row, fields, dim, made)
            if stored is not None:
                return _answer(rt, stored, prepared.redactions)
            rt.after_write()
            expire_if_due(rt)
        superseded = [plan.old.id] if plan.old is not None else []
        return WriteResult(
            codec.to_memory(row),
            False,
            prepared.redactions,
            superseded,
            plan.change or plan.why,
            beside=plan.beside,
        )

    # a new version's vectors are made outside the transaction and the gate (``amend.outside``)
    return amend.outside(rt, write, "rerun the write. Nothing was written.")


def _made(rt: Runtime, turn: AbstractContextManager[Any]) -> None:
    """The store made if it is not there yet (``admin.init``), in the write's turn."""
    from .admin import init

    with turn:
        init(rt)


def _key_holder(session: Writer, rows: Sequence[MemoryRow]) -> MemoryRow | None:
    """The memory stored under the key of a write (``rows``: it, or its linked parts), unless it is
    less trusted than the write (``less_trusted``): anyone can derive the key the user's next write
    of a text will have (from its agent, task, step and text), and a memory an import file or a
    page brought under it must not stand for that write. Then the write's keys move to keys of
    their own, derived from the ones held (the same at every retry, which then finds itself):
    ``amend.MOVED`` of them read at once. Past them, all held so, a key derived from the write's own id:
    walked a read a key without end, an import file's memories under the keys each derives from
    the one before (anyone can derive them too) held the owner's write of that text in its
    transaction, at the write gate, a read each (3,000 of them: 13 s a write; review BN)."""
    steps = [[row.idempotency_key for row in rows]]
    for _ in range(amend.MOVED):
        steps.append([_over(key, len(rows)) for key in steps[-1]])
    agent = rows[0].agent_id
    where: list[Condition] = [
        ("agent_id", "in", [agent]),
        ("idempotency_key", "in", [keys[0] for keys in steps]),
    ]
    held = {row.idempotency_key: row for row in session.select(where)}
    for keys in steps:
        existing = held.get(keys[0])
        if existing is None or not less_trusted(existing, rows[0]):
            for row, key in zip(rows, keys, strict=True):
                row.idempotency_key = key
            return existing
    for row in rows:
        row.idempotency_key = _over(row.idempotency_key, len(rows), rows[0].id)
    return None


def _over(key: str, parts: int, *own: str) -> str:
    """The key a write moves to past ``key``, held by a memory less trusted than it (a part's
    keeps its ``#<part>``)."""
    base, _, part = key.rpartition("#")
    if parts > 1 and base:
        return f"{derived_key('over', base, *own)}#{part}"
    return derived_key("over", key, *own)


def _holder(
    session: Writer, row: MemoryRow, fields: Mapping[str, Any]
) -> tuple[MemoryRow | None, MemoryRow | None]:
    """The memory stored under the write's key (``_key_holder``), or None and the memory the write
    is kept beside: when the write is less trusted than the memory it repeats and adds to it
    (``amend.kept_beside``), it moves to a key derived from the held one (the same at every
    retry, which then finds itself)."""
    beside: MemoryRow | None = None
    for moved in range(amend.MOVED + 1):
        existing = _key_holder(session, [row])
        if existing is None:
            return None, beside
        newest = current(session, existing)
        if not amend.kept_beside(newest, row, amend.stated(row, fields)):
            return existing, beside
        beside = beside or newest
        # past ``amend.MOVED`` keys held so (an import file's under the keys anyone can derive), a
        # key of its own id
        row.idempotency_key = derived_key(
            "beside", row.idempotency_key, *([row.id] if moved == amend.MOVED - 1 else [])
        )
    return None, beside


def _beside(old: MemoryRow, row: MemoryRow) -> _Plan:
    return _Plan(
        beside=old.id,
        why=(
            f"it adds to {old.id}, but it comes from {row.source} (untrusted) and that memory "
            "does not: stored as its own"
        ),
    )


def _embedded(rt: Runtime, row: MemoryRow) -> np.ndarray:
    """The memory's vectors, made before the write opens the ledger (the write lock is never held
    while a model loads or embeds). A hub model is loaded only once the store is known to hold its
    vectors, so a mismatch never starts a download; when embedding fails, a store of another model
    is the error said, as it was before any embedding."""
    job = embedding_jobs.start(rt, embedding_jobs.windows(rt, row))
    if not rt.model_is_known():
        with rt.ledger.read() as session:
            rt.check_model(session)
    try:
        return job()
    except Exception:
        with rt.ledger.read() as session:
            rt.check_model(session)
        raise


def _answer(rt: Runtime, outcome: _Outcome, redactions: int) -> WriteResult:
    """What a write that found the memory stored answers: the new version it made, or the memory
    as it is."""
    if outcome.new is None:
        return WriteResult(codec.to_memory(outcome.old), True, redactions)
    rt.after_write()
    return WriteResult(
        codec.to_memory(outcome.new),
        False,
        redactions,
        [outcome.old.id],
        outcome.change,
        updated=True,
    )


@dataclass
class _Outcome:
    """A write of a memory already stored: the newest version ``old`` and, when the write added
    what was learnt, the new version ``new`` and what changed."""

    old: MemoryRow
    new: MemoryRow | None = None
    change: str | None = None


def _version(
    rt: Runtime,
    session: Writer,
    old: MemoryRow,
    row: MemoryRow,
    given: dict[str, Any],
    dim: int,
    made: amend.Made | None,
) -> _Outcome:
    """A new version of ``old`` with what ``given`` adds, or ``old`` when it adds nothing."""
    change = amend.amendment(old, given)
    if change is None or old.status != "active" or parts.is_part(old):
        return _Outcome(old)
    new = amend.new_version(old, change, row.created_at)
    new.importance = max(old.importance, row.importance)
    amend.guarded(new, row)
    amend.embed(rt, new, row, dim, made)
    amend.write(session, old, new, change, row.agent_id)
    return _Outcome(old, new, change.change)


def _repeat(
    rt: Runtime,
    session: Writer,
    existing: MemoryRow,
    row: MemoryRow,
    fields: Mapping[str, Any],
    merge: bool,
    scope: Scope,
    dim: int,
    made: amend.Made | None,
) -> _Outcome:
    """The same idempotency key again: a retry answers the memory stored; a write that adds what
    was learnt makes its new version. ``--supersedes`` of another memory, or ``--no-merge`` with
    something to add, cannot be done with a text stored already, and are refused with why."""
    newest = current(session, existing)
    if row.supersedes:
        target = find(session, row.supersedes, scope)
        if target.id not in chain_ids(session, newest):
            raise InvalidInput(
                f"This text is stored already as {newest.id} (same agent, task, step and text), "
                f"so it cannot be stored again to supersede {target.id}: record the new text "
                f"with --supersedes {target.id}, or give {newest.id} what was learnt with "
                f"`hindsight edit {newest.id}`. Nothing was written."
            )
    given = amend.stated(row, fields)
    if not merge and amend.amendment(newest, given) is not None:
        raise InvalidInput(
            f"This text is stored already as {newest.id} (same agent, task, step and text); "
            "--no-merge cannot store it twice. Drop --no-merge to give it what this write adds "
            "as a new version, or give another --step or --key to record a second event. "
            "Nothing was written."
        )
    return _version(rt, session, newest, row, given, dim, made)


def _written(
    rt: Runtime,
    session: Writer,
    plan: _Plan,
    row: MemoryRow,
    fields: Mapping[str, Any],
    dim: int,
    made: amend.Made | None,
) -> _Outcome | None:
    """Write the plan; a restatement merged into a stored memory gives it what it adds (a new
    version) or raises its seen count. None: the new row was inserted."""
    if plan.merge_into is not None:
        target = session.by_ids([plan.merge_into])[0]
        outcome = _version(rt, session, target, row, amend.stated(row, fields), dim, made)
        if outcome.new is not None:
            return outcome
        session.touch(plan.merge_into, row.created_at, row.importance)
        session.audit(
            "merge", [plan.merge_into], row.created_at, "the same statement again", row.agent_id
        )
        return _Outcome(session.by_ids([plan.merge_into])[0])
    if plan.old is not None:
        row.supersedes = plan.old.id
    session.insert(row, row_term_counts(row))
    session.audit("record", [row.id], row.created_at, actor=row.agent_id)
    if plan.old is not None:
        _supersede(session, plan.old, row, plan.change)
    return None


def _record_parts(
    rt: Runtime, prepared: Sequence[Prepared], scope: Scope, turn: AbstractContextManager[Any]
) -> WriteResult:
    """Content over the size limit, in linked parts written in one transaction. The first part
    stands for the whole: its key says whether the text is stored already, and it is what
    supersedes. A part is never merged into, nor taken for an update of, another memory: it is a
    piece of a text, not a statement."""
    rows = [p.row for p in prepared]
    first, redactions = rows[0], sum(p.redactions for p in prepared)
    _made(rt, turn)
    with rt.ledger.read() as session:
        dim = rt.check_model(session)
    embedding_jobs.embed_rows(rt, rows, dim)
    with turn:
        with rt.ledger.write() as session:
            existing = _key_holder(session, rows)
            if existing is not None:
                # the text stored already (under its first part's key), or another memory's key
                if (part_position(existing.metadata) or (0,))[0] != 1:
                    raise parts.key_taken(first.idempotency_key)
                return WriteResult(
                    codec.to_memory(existing), True, redactions, parts=parts.ids(existing)
                )
            for row in rows[1:]:
                if session.by_key(row.idempotency_key, row.agent_id) is not None:
                    raise parts.key_taken(row.idempotency_key)
            old = _supersedable(session, first, scope) if first.supersedes else None
            session.insert_many([(r, row_term_counts(r)) for r in rows])
            session.audit(
                "record",
                [r.id for r in rows],
                first.created_at,
                f"{len(rows)} linked parts",
                first.agent_id,
            )
            if old is not None:
                _supersede(session, old, first, None)
        rt.after_write()
        expire_if_due(rt)
    return WriteResult(
        codec.to_memory(first),
        False,
        redactions,
        [old.id] if old else [],
        parts=[r.id for r in rows],
    )
