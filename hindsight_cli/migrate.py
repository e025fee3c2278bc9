"""Copy a store into another, local → Postgres or back (``hindsight migrate``).

Rows travel with their vectors (nothing is re-embedded), their links, statuses and history, and the
audit log goes with them. Ids and idempotency keys the target already holds are skipped, so a rerun
adds nothing and an interrupted run, rerun, adds exactly the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .embedding import model_name
from .errors import InvalidInput
from .store import IMPORT_BATCH, Store
from .timeutil import now as utcnow
from .writing import keyword_terms


@dataclass
class MigrateResult:
    source: str
    target: str
    added: int
    skipped: int
    audit_entries: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def migrate(source: Store, target: Store, progress: Callable[[int, int], None] | None = None) -> MigrateResult:
    """Copy every memory and audit entry of ``source`` that ``target`` lacks.

    Raises:
        InvalidInput: the two are the same store, or their embedding models differ.
    """
    source._require()
    if source.ledger.describe() == target.ledger.describe():
        raise InvalidInput(f"{source.ledger.describe()} is the store being migrated; give another target.")
    with source.ledger.connect(read_only=True) as conn:
        meta = source.ledger.meta(conn)
        rows = source.ledger.select(conn, "TRUE", [], order="m.seq", with_vectors=True)
        history = source.ledger.audit_log(conn, limit=None, action=None, memory_id=None, since=None)
    model, dim = meta["embedding_model"], int(meta["embedding_dim"])
    if not target.exists:
        target.ledger.create(model, dim)
        if target.ledger.local:  # the directory's .gitignore and config.toml, naming the source's model
            target.init()
            if model_name(target.config.embedding_model) != model:
                target._configure_model(model)
    with target.ledger.connect(read_only=True) as conn:
        theirs = target.ledger.meta(conn)
        if (theirs["embedding_model"], int(theirs["embedding_dim"])) != (model, dim):
            raise InvalidInput(
                f"The target's vectors come from {theirs['embedding_model']} and the source's from {model}; "
                f"run `hindsight reindex` on one of them with the other's model first.")
        known = {tuple(r) for r in conn.execute("SELECT id, idempotency_key FROM memories").fetchall()}
        logged = {_entry(e) for e in target.ledger.audit_log(conn, limit=None, action=None, memory_id=None,
                                                             since=None)}
    ids, keys = {i for i, _ in known}, {k for _, k in known}
    fresh = [r for r in rows if r["id"] not in ids and r["idempotency_key"] not in keys]
    added = 0
    for start in range(0, len(fresh), IMPORT_BATCH):
        chunk = fresh[start : start + IMPORT_BATCH]
        with target.ledger.transaction() as conn:  # what another writer added since: this chunk's rows only
            marks = ", ".join("?" for _ in chunk)
            present = conn.execute(
                f"SELECT id, idempotency_key FROM memories WHERE id IN ({marks}) OR idempotency_key IN ({marks})",
                [*(r["id"] for r in chunk), *(r["idempotency_key"] for r in chunk)]).fetchall()
            taken_ids, taken_keys = {r[0] for r in present}, {r[1] for r in present}
            batch = [r for r in chunk if r["id"] not in taken_ids and r["idempotency_key"] not in taken_keys]
            target.ledger.insert_many(conn, [(r, r["embedding"], keyword_terms(r)) for r in batch])
        added += len(batch)
        if progress:
            progress(min(start + IMPORT_BATCH, len(fresh)), len(fresh))
    missing = [e for e in reversed(history) if _entry(e) not in logged]  # oldest first
    with target.ledger.transaction() as conn:
        for at, action, entry_ids, reason, actor in missing:
            target.ledger.audit(conn, action, list(entry_ids), at, reason, actor)
        if added:
            target.ledger.audit(conn, "migrate", [], utcnow(), reason=f"{added} memories from {source.ledger.describe()}")
    target.sync_index()
    return MigrateResult(source.ledger.describe(), target.ledger.describe(), added, len(rows) - added, len(missing))


def _entry(entry: tuple[Any, ...]) -> tuple[Any, ...]:
    at, action, ids, reason, actor = entry
    return (at, action, tuple(ids), reason, actor)
