"""Forgetting and bringing back (DESIGN §6): soft forget, archive, hard forget, TTL expiry, restore.

Every forget is written to the audit log (ids, time, reason, who; never content).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from .. import safefs
from ..errors import HindsightError, InvalidInput
from ..models import Filters, Memory
from ..storage import codec
from ..timeutil import parse_duration
from .reading import find
from .runtime import Runtime
from .scope import Scope

_STAMP = ".expiry-checked"


def select_ids(rt: Runtime, filters: Filters, scope: Scope) -> list[str]:
    rt.require()
    with rt.ledger.read() as session:
        return session.ids(scope.filters(filters).conditions(rt.now()))


def forget(rt: Runtime, ids: Iterable[str], filters: Filters | None, hard: bool, archive: bool, reason: str | None,
           actor: str | None, scope: Scope) -> int:
    if hard and archive:
        raise InvalidInput("Choose one: --hard deletes for good, --archive keeps memories in cold storage.")
    rt.require()
    at = rt.now()
    actor = actor or rt.config.default_agent
    derived: list[str] = []
    with rt.ledger.write() as session:
        targets = list(dict.fromkeys(find(session, memory_id, scope).id for memory_id in ids))
        if filters is not None:
            for mid in session.ids(scope.filters(filters).conditions(at)):
                if mid not in targets:
                    targets.append(mid)
        if hard:
            derived = session.derived_from(targets)
            count = session.delete(targets + derived)
            if count:
                session.audit("forget_hard", targets, at, reason, actor)
            if derived:
                session.audit("forget_hard", derived, at, "built from hard-forgotten memories", actor)
        else:
            count = session.set_status(targets, "archived" if archive else "invalidated", at)
            if count:
                session.audit("archive" if archive else "forget", targets, at, reason, actor)
    if hard and count:
        purge(rt, targets + derived)
    else:
        rt.after_write()
    return count


def purge(rt: Runtime, ids: list[str]) -> bool:
    """After a hard forget: drop the vectors and every old index version that still holds them, then
    rewrite the ledger so no freed block keeps the old bytes. Returns whether it could."""
    if rt.mirror is not None:
        rt.mirror.scrub(ids)
    return rt.ledger.scrub()


def expire(rt: Runtime) -> int:
    """Delete every memory whose TTL has passed (rows, terms and vectors); returns how many."""
    rt.require()
    at = rt.now()
    with rt.ledger.write() as session:
        targets = session.ids(Filters(statuses=None, expired_only=True).conditions(at))
        count = session.delete(targets)
        if count:
            session.audit("expire", targets, at, "TTL passed", "hindsight")
    if count and rt.mirror is not None:
        rt.mirror.delete(targets)
    safefs.touch_private(rt.path / _STAMP)
    return count


def expire_if_due(rt: Runtime) -> int:
    """Purge expired memories if the last purge is older than ``[ttl] purge_every`` (cheap otherwise: one
    ``stat``). Writes and the MCP server call it, so expired memories do not pile up."""
    try:
        age = time.time() - (rt.path / _STAMP).stat().st_mtime
    except FileNotFoundError:
        age = float("inf")
    if age < parse_duration(rt.config.expiry_check, "[ttl] purge_every").total_seconds():
        return 0
    try:
        return expire(rt)
    except (HindsightError, OSError):
        return 0  # busy, read-only or full: the write that called this succeeded; the next one retries


def restore(rt: Runtime, memory_id: str, actor: str | None, scope: Scope) -> Memory:
    """Make a soft-forgotten or archived memory active again (or a superseded one whose replacement is gone)."""
    rt.require()
    at = rt.now()
    with rt.ledger.write() as session:
        row = find(session, memory_id, scope)
        if row.status == "active":
            return codec.to_memory(row)
        if row.status == "superseded":
            newer = session.by_ids([row.superseded_by]) if row.superseded_by else []
            if newer and newer[0].status == "active":
                raise InvalidInput(f"{row.id} was superseded by {row.superseded_by}; restore or forget that one instead.")
        session.set_status([row.id], "active", at)
        session.audit("restore", [row.id], at, actor=actor or rt.config.default_agent)
        restored = session.by_ids([row.id])[0]
    rt.after_write()
    return codec.to_memory(restored)
