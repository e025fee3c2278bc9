"""A person's review of what the write-time quarantine held back (docs/reliability.md).

A memory whose text reads like instructions is stored quarantined: tagged, at a low confidence,
ranked after every other memory, labelled in the block. Someone who reads it decides:

- **release**: it is harmless. A new version without the quarantine (its tag and its reason, kept
  under ``metadata.released`` for the record), at its source's usual confidence; it still carries
  its source's trust label. The audit log says ``released`` and who.
- **confirm**: it is an attack. It is forgotten (soft: ``hindsight restore`` brings it back), with
  the quarantine's reason in the audit log.

Either way the memory leaves the review list (``hindsight quarantine``).
"""

from __future__ import annotations

from ..errors import InvalidInput
from ..models import Memory, WriteResult
from ..poisoning import QUARANTINE_TAG, is_quarantined
from ..storage import codec
from ..storage.base import Reader
from ..storage.rows import MemoryRow
from . import amend, lifecycle
from .prepare import source_confidence
from .reading import find
from .runtime import Runtime
from .scope import Scope


def _quarantined(session: Reader, memory_id: str, scope: Scope) -> MemoryRow:
    """The active quarantined memory ``memory_id``, else a one-line refusal: only what the review
    list shows can be released or confirmed."""
    row = find(session, memory_id, scope)
    if row.status == "superseded":
        raise InvalidInput(
            f"{row.id} was superseded by {row.superseded_by}: review that one, the newest version."
        )
    if row.status != "active":
        raise InvalidInput(
            f"{row.id} is {row.status} already, out of search: nothing to release or confirm "
            f"(`hindsight restore {row.id}` first to review it)."
        )
    if not is_quarantined(row.tags, row.metadata):
        raise InvalidInput(
            f"{row.id} is not quarantined: there is nothing to release or confirm "
            "(`hindsight quarantine` lists the memories that are)."
        )
    return row


def release(
    rt: Runtime, memory_id: str, scope: Scope, actor: str | None, reason: str | None
) -> WriteResult:
    """Release the quarantined memory ``memory_id``: a new version without the quarantine. Only
    the store's owner releases: a token principal's text was quarantined for the other readers of
    the store, and its own word that the text is harmless is no review."""
    if scope.provenance is not None:
        raise InvalidInput(
            f"A quarantine is released by the store's owner, not by agent {scope.agent!r}'s "
            f"token: run `hindsight quarantine release {memory_id}` where the store is. Nothing "
            "was changed."
        )
    rt.require_writable()
    with rt.ledger.read() as session:
        old = _quarantined(session, memory_id, scope)
        dim = rt.check_model(session)
    amend.amendable(old)
    who = actor or old.agent_id
    held = (old.metadata or {}).get("quarantine")
    metadata = {k: v for k, v in (old.metadata or {}).items() if k != "quarantine"}
    metadata["released"] = {"quarantine": held, "by": who, "reason": reason}
    change = amend.Amendment(
        {
            "tags": [t for t in old.tags if t != QUARANTINE_TAG],
            "metadata": metadata,
            "confidence": max(old.confidence, source_confidence(old.source)),
        },
        "quarantine released" + (f": {reason}" if reason else ""),
        "released",
    )
    new = amend.new_version(old, change, rt.now())
    # the same text: the same vectors
    amend.embed(rt, new, old, dim)
    with rt.ledger.write() as session:
        amend.write_unchanged(session, old, new, change, who, "released", "run it again.")
    rt.after_write()
    return WriteResult(
        codec.to_memory(new), superseded=[old.id], change=change.change, updated=True
    )


def confirm(
    rt: Runtime, memory_id: str, scope: Scope, actor: str | None, reason: str | None
) -> Memory:
    """Confirm the quarantine of ``memory_id``: the memory is forgotten (restorable), and the
    audit log says why it was held back."""
    rt.require_writable()
    with rt.ledger.read() as session:
        row = _quarantined(session, memory_id, scope)
    held = (row.metadata or {}).get("quarantine") or {}
    why = held.get("reason") if isinstance(held, dict) else None
    # the caller's reason is bounded as every reason is; what is said before it never makes a
    # reason within the bound refused (review AY, low)
    lifecycle.audit_words(reason, actor or "")
    said = f": {reason}" if reason else ""
    head = "quarantine confirmed" + (f" ({why})" if why else "")
    words = head + said
    if len(words) > lifecycle.MAX_REASON:
        # the caller's words whole, ours cut (the reason alone, at the bound)
        cut = lifecycle.MAX_REASON - len(said)
        words = head[:cut] + said if cut >= 0 else str(reason)
    plan = lifecycle.plan(rt, [row.id], None, False, False, scope)
    lifecycle.forget(rt, plan, words, actor, scope)
    return codec.to_memory(row)
