"""Copy a store into another, local → Postgres or back (``hindsight migrate``).

Rows travel with their vectors (nothing is re-embedded), their links, statuses and history, and the
audit log goes with them. Ids and idempotency keys the target already holds are skipped, so a rerun
adds nothing and an interrupted run, rerun, adds exactly the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..embedding import resolve_model
from ..errors import InvalidInput
from ..storage.base import AuditRow
from ..storage.rows import row_term_counts
from .jobs import Progress
from .runtime import Runtime
from .transfer import IMPORT_BATCH, fresh as fresh_positions


@dataclass
class MigrateResult:
    source: str
    target: str
    added: int
    skipped: int
    audit_entries: int

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def _entry(entry: AuditRow) -> tuple[object, ...]:
    at, action, ids, reason, actor = entry
    return (at, action, tuple(ids), reason, actor)


def _prepare_target(source: Runtime, target: Runtime, model: str, dim: int) -> None:
    from .admin import configure_model, lay_out, writable

    files = target.ledger.capabilities.files
    # a directory that came with a repository is not written into (``writable``); a new one is
    # laid out and approved before its ledger, as ``init`` does
    fresh = writable(target) if files else False
    if not target.exists:
        if files:
            lay_out(target, approve=fresh)
            # the config names the source's model before the ledger is created: a run killed in
            # between leaves a store that is not there yet (the rerun does it all), never one
            # whose config names another model than its vectors' (which the rerun, finding the
            # store, would leave so: every command on it refused)
            if resolve_model(target.config.embedding_model).name != model:
                configure_model(target, model)
        from .binding import reserve

        target.ledger.create(model, dim, reserve(target))
    with target.ledger.read() as session:
        theirs = session.meta()
    if (theirs["embedding_model"], int(theirs["embedding_dim"])) != (model, dim):
        raise InvalidInput(
            f"The target's vectors come from {theirs['embedding_model']} and the source's from "
            f"{model}; "
            f"run `hindsight reindex` on one of them with the other's model first."
        )


def _purged_meanwhile(source: Runtime, target: Runtime, copied: list[str]) -> int:
    """Purge from ``target`` what was copied and the source no longer holds: the rows were read
    before the copy, and a hard forget (or an expiry) in the source meanwhile left the forgotten
    text in the target, which no purge of the source reaches (review AK). Returns how many went."""
    from .lifecycle import purge_for_good

    if not copied:
        return 0
    with source.ledger.read() as session:
        there = set(session.ids([]))
    gone = [memory_id for memory_id in copied if memory_id not in there]
    if not gone:
        return 0
    return purge_for_good(
        target,
        lambda session: session.ids([("id", "in", gone)]),
        "purged from the source during the migration",
        "hindsight",
        "forget_hard",
    )


def migrate(source: Runtime, target: Runtime, progress: Progress | None = None) -> MigrateResult:
    """Copy every memory and audit entry of ``source`` that ``target`` lacks.

    Raises:
        InvalidInput: the two are the same store, or their embedding models differ.
    """
    source.require()
    if source.ledger.describe() == target.ledger.describe():
        raise InvalidInput(
            f"{source.ledger.describe()} is the store being migrated; give another target."
        )
    with source.ledger.read() as session:
        meta = session.meta()
        rows = session.select([], order="seq", vectors=True)
        history = session.audit_log(limit=None, action=None, memory_id=None, since=None)
    _prepare_target(source, target, meta["embedding_model"], int(meta["embedding_dim"]))
    with target.ledger.read() as session:
        known = session.identities()
        logged = {
            _entry(e)
            for e in session.audit_log(limit=None, action=None, memory_id=None, since=None)
        }
    fresh = [rows[i] for i in fresh_positions(rows, known)]
    added = 0
    copied: list[str] = []
    for start in range(0, len(fresh), IMPORT_BATCH):
        chunk = fresh[start : start + IMPORT_BATCH]
        # what another writer added since: this chunk's rows only
        with target.ledger.write() as session:
            present = session.present([r.id for r in chunk], [r.idempotency_key for r in chunk])
            batch = [chunk[i] for i in fresh_positions(chunk, present)]
            session.insert_many([(r, row_term_counts(r)) for r in batch])
        added += len(batch)
        copied += [r.id for r in batch]
        if progress:
            progress(min(start + IMPORT_BATCH, len(fresh)), len(fresh))
    added -= _purged_meanwhile(source, target, copied)
    # oldest first
    missing = [e for e in reversed(history) if _entry(e) not in logged]
    with target.ledger.write() as session:
        for at, action, entry_ids, reason, actor in missing:
            session.audit(action, list(entry_ids), at, reason, actor)
        if added:
            session.audit(
                "migrate",
                [],
                target.now(),
                reason=f"{added} memories from {source.ledger.describe()}",
            )
    if target.mirror is not None:
        target.mirror.sync()
    return MigrateResult(
        source.ledger.describe(), target.ledger.describe(), added, len(rows) - added, len(missing)
    )
