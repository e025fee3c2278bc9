"""A person says one stored memory replaces another: ``hindsight supersede OLD --by NEW``, or the
web UI's "Superseded by" form.

A write can supersede at once (``record --supersedes``); this links two memories that are both
stored already, once someone curating the store sees that the newer states what replaced the older
("we deploy with Argo now" and "we deploy with Jenkins"). The older leaves search and stays as
history; the two link both ways (``superseded_by``, ``supersedes``); the audit log says
``supersede``, who and why; the summaries quoting the older leave search with it, as they do after
a write-time supersede. Forgetting the newer lets ``hindsight restore OLD`` bring the older back.
"""

from __future__ import annotations

from ..errors import InvalidInput
from ..models import Memory
from ..storage import codec
from ..storage.base import Reader
from ..storage.rows import MemoryRow
from . import parts
from .lifecycle import audit_words, withdraw
from .reading import find, walk
from .runtime import Runtime
from .scope import Scope


def _reaches(session: Reader, start: MemoryRow, link: str, target: str) -> bool:
    """Whether following ``link`` from ``start``, across changed facts too, reaches ``target``."""
    seen = {start.id}
    walk(session, start, link, seen, same_text=False)
    return target in seen


def _standing(row: MemoryRow, role: str) -> None:
    """Refuse a memory that cannot take part: not active, or one part of a long text."""
    if row.status == "superseded" and role == "old":
        raise InvalidInput(
            f"{row.id} was already superseded by {row.superseded_by}; `hindsight show {row.id}` "
            "shows its history."
        )
    if row.status != "active":
        raise InvalidInput(
            f"{row.id} is {row.status}: only active memories can be linked by a supersede "
            f"(`hindsight restore {row.id}` first if it should be)."
        )
    if parts.is_part(row):
        raise InvalidInput(
            f"{row.id} is one of the linked parts of a text over the size limit; a part cannot "
            "supersede or be superseded alone: record the whole text again with --supersedes."
        )


def check(session: Reader, old: MemoryRow, new: MemoryRow) -> None:
    """Refuse what ``new`` superseding ``old`` cannot be, with a one-line reason."""
    if old.id == new.id:
        raise InvalidInput(
            f"{old.id} cannot supersede itself: give --by the id of the memory that replaces it."
        )
    _standing(old, "old")
    _standing(new, "new")
    if old.agent_id != new.agent_id:
        raise InvalidInput(
            f"{old.id} belongs to agent {old.agent_id!r} and {new.id} to {new.agent_id!r}: a "
            "memory can only supersede one of its own agent."
        )
    if new.supersedes and new.supersedes != old.id:
        raise InvalidInput(
            f"{new.id} already supersedes {new.supersedes}; a memory supersedes one other at most."
        )
    if _reaches(session, old, "supersedes", new.id) or _reaches(
        session, new, "superseded_by", old.id
    ):
        raise InvalidInput(
            f"{new.id} is an older version of {old.id}: superseding {old.id} by it would make a "
            "loop."
        )


def supersede(
    rt: Runtime,
    old_id: str,
    new_id: str,
    scope: Scope,
    actor: str | None,
    reason: str | None,
) -> Memory:
    """Mark the memory ``old_id`` superseded by ``new_id`` (ids or unique parts, both in
    ``scope``); the older memory as it is now."""
    rt.require_writable()
    with rt.ledger.read() as session:
        old, new = find(session, old_id, scope), find(session, new_id, scope)
        check(session, old, new)
        scope.check_replaces(old, new)
    why, who = audit_words(reason, actor or rt.config.default_agent)
    at = rt.now()
    with rt.ledger.write() as session:
        # another process may have changed either since
        now = {r.id: r for r in session.by_ids([old.id, new.id]) if scope.visible(r)}
        if len(now) != 2:
            gone = old.id if old.id not in now else new.id
            raise InvalidInput(f"{gone} was purged meanwhile; nothing was changed.")
        check(session, now[old.id], now[new.id])
        scope.check_replaces(now[old.id], now[new.id])
        session.supersede(old.id, new.id, at)
        session.link_supersedes(new.id, old.id, at)
        session.audit("supersede", [old.id, new.id], at, why, who)
        # summaries quoting the older memory
        withdraw(session, [old.id], at, who)
        result = session.by_ids([old.id])[0]
    rt.after_write()
    return codec.to_memory(result)
