"""Forgetting and bringing back (DESIGN §6): soft forget, archive, hard forget, TTL expiry, restore.

Every forget is written to the audit log (ids, time, reason, who; never content). What is built on a
memory that leaves search (a summary, a pattern) leaves with it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path

from .. import safefs
from ..errors import BadUsage, HindsightError, InvalidInput
from ..models import Filters, ForgetPlan, Memory
from ..poisoning import is_quarantined, trust
from ..redact import redact_field
from ..storage import codec
from ..storage.base import Reader, Writer
from ..storage.rows import MemoryRow
from ..text import clean
from ..timeutil import parse_duration
from . import parts, purge
from .reading import every_version, find, find_all, version_chains
from .runtime import Runtime
from .scope import UNSCOPED, Scope

log = logging.getLogger("hindsight.lifecycle")

_STAMP = ".expiry-checked"


def select_ids(rt: Runtime, filters: Filters, scope: Scope) -> list[str]:
    rt.require()
    with rt.ledger.read() as session:
        return session.ids(scope.filters(filters).conditions(rt.now()))


# characters of the reason a change gives for the audit log: why, in a few sentences. It is
# redacted as a memory's text is, while the change holds the writes of every agent of a shared
# server: a token principal's `memory_forget` with a reason of 64 KB held them 15 s, 512 KB a minute,
# and nothing bounded it (review AS)
MAX_REASON = 2000


def audit_words(reason: str | None, actor: str) -> tuple[str | None, str]:
    """What the caller wrote into the audit log (why, who), with its secrets redacted like any
    memory's.

    Raises:
        BadUsage: a reason of more than ``MAX_REASON`` characters, refused before it is read.
    """
    if reason and len(reason) > MAX_REASON:
        raise BadUsage(
            f"The reason is {len(reason):,} characters; the audit log takes at most "
            f"{MAX_REASON:,}: say why in a few sentences. Nothing was changed."
        )
    reason = redact_field(clean(reason), "reason")[0] if reason else None
    return reason, str(redact_field(clean(actor), "actor")[0])


def _targets(
    session: Reader,
    ids: Iterable[str],
    filters: Filters | None,
    scope: Scope,
    at: datetime,
    hard: bool = False,
) -> list[str]:
    targets = find_all(session, ids, scope)
    if filters is not None:
        named = set(targets)
        targets += [m for m in session.ids(scope.filters(filters).conditions(at)) if m not in named]
    if hard:
        targets = versions(session, targets, scope)
    # a text stored in parts leaves (and comes back) whole
    return parts.whole(session, targets)


def versions(session: Reader, targets: Sequence[str], scope: Scope) -> list[str]:
    """``targets`` with every other version of their texts (what ``edit``, a repeated write with a
    fix or a re-import made of them: the same words, ``show``'s history), older and newer: a purge
    that left one would leave the words it was asked to remove. A changed fact that superseded one
    is another statement and stays. Each memory read once (``reading.every_version``): a set of
    ``out`` made again for each target grew with their square (a hard forget by task of 20,000 of
    a principal's memories held every agent's writes 50 s; review AY), and each target's chain
    walked again for each of its versions too (review BB)."""
    out = list(dict.fromkeys(targets))
    named = set(out)
    found = every_version(session, session.by_ids(out))
    return out + [r.id for r in found if r.id not in named and scope.visible(r)]


def withdraw(session: Writer, ids: Sequence[str], at: datetime, actor: str) -> list[str]:
    """Summaries and patterns built on memories that just left search (forgotten, archived,
    superseded) leave search too: they quote those memories. Rerunning ``summarize`` or
    ``consolidate`` rebuilds them from what is still active. Returns the ids withdrawn."""
    derived = [r for r in session.by_ids(session.derived_from(ids)) if r.status == "active"]
    pieces = [r.id for r in derived if parts.is_part(r)]
    built = [r.id for r in derived if not parts.is_part(r)]
    # the rest of a part that was superseded
    if pieces and session.set_status(pieces, "invalidated", at):
        session.audit("withdraw", pieces, at, "other parts of a text that left search", actor)
    if built and session.set_status(built, "invalidated", at):
        session.audit("withdraw", built, at, "built from memories that left search", actor)
    return pieces + built


def plan(
    rt: Runtime,
    ids: Iterable[str],
    filters: Filters | None,
    hard: bool,
    archive: bool,
    scope: Scope,
    at: datetime | None = None,
) -> ForgetPlan:
    """Which memories a forget takes, resolved once: the ids named (MemoryNotFound for one that
    names none) and what ``filters`` match as of ``at`` (default now), a text stored in parts
    whole."""
    if hard and archive:
        raise InvalidInput(
            "Choose one: --hard deletes for good, --archive keeps memories in cold storage."
        )
    rt.require()
    with rt.ledger.read() as session:
        targets = _targets(session, ids, filters, scope, at or rt.now(), hard)
    return ForgetPlan(tuple(targets), hard, archive, filters)


def _planned(session: Reader, ids: Sequence[str], scope: Scope) -> list[str]:
    """The planned memories that are still there, in the plan's order: another process may have
    purged some since; nothing is added."""
    if not ids:
        return []
    present = set(session.ids([("id", "in", list(ids)), *scope.conditions()]))
    return [memory_id for memory_id in ids if memory_id in present]


def forget(
    rt: Runtime, plan: ForgetPlan, reason: str | None, actor: str | None, scope: Scope
) -> int:
    """Carry out ``plan``: exactly the memories it names, soft, archived or purged for good."""
    rt.require_writable()
    reason, who = audit_words(reason, actor or rt.config.default_agent)
    if plan.hard:
        return purge_for_good(
            rt, lambda session: _planned(session, plan.ids, scope), reason, who, "forget_hard"
        )
    at = rt.now()
    count = 0
    # a batch a transaction (``purge.FORGET_BATCH``): a crash between two leaves the rest active,
    # and the same forget again takes them
    for batch in purge.batches(plan.ids):
        with rt.ledger.write() as session:
            targets = _planned(session, batch, scope)
            done = session.set_status(targets, "archived" if plan.archive else "invalidated", at)
            if done:
                session.audit("archive" if plan.archive else "forget", targets, at, reason, who)
                withdraw(session, targets, at, who)
        rt.after_write()
        count += done
    return count


# which memories a purge takes, read again in the purge's own transaction
Select = Callable[[Reader], list[str]]


def _delete(
    rt: Runtime,
    select: Select,
    journal: Path,
    labels: tuple[str | None, str, str],
    gone: list[str],
) -> int:
    """Delete what ``select`` picks, ``purge.FORGET_BATCH`` memories a transaction (each batch
    picked again in its own: the rest of the plan still there), each named in ``journal`` and
    added to ``gone`` as it commits, this process's indexes catching up after each; returns how
    many rows went. A crash between two batches leaves the journal, which the next open finishes:
    a forget of all of a principal's memories no longer holds the ledger for all of them."""
    reason, actor, action = labels
    at = rt.now()
    count = 0
    while True:
        with rt.ledger.write() as session:
            picked = select(session)[: purge.FORGET_BATCH]
            targets = _and_newer(session, picked)
            derived = session.derived_from(targets)
            done = session.delete(targets + derived) if targets else 0
            if done:
                session.audit(action, targets, at, reason, actor)
            if derived:
                session.audit(
                    "forget_hard", derived, at, "built from hard-forgotten memories", actor
                )
        gone += targets + derived
        count += done
        # the delete may select more than was planned (more expired meanwhile, or was built on it)
        try:
            purge.add_ids(journal, targets + derived)
        except (HindsightError, OSError) as error:
            # the batch is deleted: the forget goes on; the journal names what was planned
            log.warning("the purge's journal could not name this batch's memories: %s", error)
        if not done or len(picked) < purge.FORGET_BATCH:
            return count
        rt.after_write()


def _and_newer(session: Reader, targets: list[str]) -> list[str]:
    """``targets`` with the newer versions of their texts not among them (``version_chains``, the
    agent's own): an edit, a fix given by a repeat or a release that committed between a hard
    forget's plan and its delete (the user reading its confirmation, another agent's write on a
    shared server) left the words the forget was asked to remove in that version (review AV).
    Every chain read at once: one by one, a memory superseded by a changed fact (another
    statement, never taken) cost reads of its own at each batch (review BB)."""
    out = list(targets)
    named = set(out)
    moved = [
        row
        for row in session.by_ids(targets)
        if row.superseded_by and row.superseded_by not in named
    ]
    chains = version_chains(session, moved)
    for row in moved:
        newer = [r.id for r in chains[row.id] if r.id not in named and r.agent_id == row.agent_id]
        out += newer
        named.update(newer)
    return out


def purge_for_good(rt: Runtime, select: Select, reason: str | None, actor: str, action: str) -> int:
    """Delete the memories ``select`` picks and everything built from them, then scrub every file
    that held their bytes.

    The purge is begun (``core/purge.py``) before the delete commits, so a crash at any point leaves
    a journal that the next open finishes. Once a batch of the delete has committed the forget has
    happened: a scrub that cannot run now (the store is busy) stays owed and is logged, never
    reported as a failure."""
    with rt.ledger.read() as session:
        planned = select(session)
        rows = session.by_ids(planned + session.derived_from(planned))
    if not planned:
        return 0
    journal = purge.begin(rt, planned, rows, reason, actor)
    gone: list[str] = []
    try:
        count = _delete(rt, select, journal, (reason, actor, action), gone)
    except BaseException:
        if gone:
            # a batch committed: what it deleted is scrubbed, and the rest deleted, at the next open
            purge.defer(journal)
        else:
            # nothing was deleted, so nothing is owed
            purge.cancel(journal)
        raise
    try:
        purge.finish(rt, journal)
    except (HindsightError, OSError) as error:
        purge.defer(journal)
        log.warning(
            "%d memories were purged; scrubbing their old bytes is owed and finishes at the next "
            "open: "
            "%s",
            count,
            error,
        )
    return count


def expire(rt: Runtime) -> int:
    """Purge every memory whose TTL has passed, as a hard forget does (rows, vectors, old bytes, the
    summaries built on them); returns how many."""
    rt.require()
    expired = Filters(statuses=None, expired_only=True)
    count = purge_for_good(
        rt,
        lambda session: _targets(session, (), expired, UNSCOPED, rt.now()),
        "TTL passed",
        "hindsight",
        "expire",
    )
    expiry_checked(rt)
    return count


def expiry_checked(rt: Runtime) -> None:
    """Stamp the check for expired memories as done now: after a purge, and when a store is created
    (it holds none), so the first write into a new store does not open its ledger again to look."""
    safefs.touch_private(rt.path / _STAMP)


def expire_if_due(rt: Runtime) -> int:
    """Purge expired memories if the last purge is older than ``[ttl] purge_every`` (cheap
    otherwise: one ``stat``). Writes and the MCP server call it, so expired memories do not pile up.
    """
    try:
        age = time.time() - (rt.path / _STAMP).stat().st_mtime
    except FileNotFoundError:
        age = float("inf")
    if age < parse_duration(rt.config.expiry_check, "[ttl] purge_every").total_seconds():
        return 0
    try:
        return expire(rt)
    except (HindsightError, OSError):
        # busy, read-only or full: the write that called this succeeded; the next one retries
        return 0


def restore(rt: Runtime, memory_id: str, actor: str | None, scope: Scope) -> Memory:
    """Make a soft-forgotten or archived memory active again (or a superseded one whose replacement
    is gone)."""
    rt.require_writable()
    at = rt.now()
    with rt.ledger.write() as session:
        row = find(session, memory_id, scope)
        if row.status == "active":
            return codec.to_memory(row)
        together = [
            r for r in session.by_ids(parts.whole(session, [row.id])) if r.status == row.status
        ]
        if scope.provenance is not None:
            # every row it brings back: a text's other parts come back with it, and an import file
            # may state parts of different trust (review BR2: a clean part brought back the part
            # the owner had confirmed as an attack)
            for each in together:
                _restorable_by_principal(each, scope)
        if row.status == "superseded":
            newer = session.by_ids([row.superseded_by]) if row.superseded_by else []
            if newer and newer[0].status == "active":
                raise InvalidInput(
                    f"{row.id} was superseded by {row.superseded_by}, which is active: forget "
                    f"that one first (`hindsight forget {row.superseded_by}`), then restore this "
                    "one."
                )
        ids = [r.id for r in together]
        session.set_status(ids, "active", at)
        session.audit(
            "restore", ids, at, actor=audit_words(None, actor or rt.config.default_agent)[1]
        )
        restored = session.by_ids([row.id])[0]
    rt.after_write()
    return codec.to_memory(restored)


def _restorable_by_principal(row: MemoryRow, scope: Scope) -> None:
    """Refuse a token principal's restore of ``row``: a quarantined text, or a trusted one."""
    if is_quarantined(row.tags, row.metadata):
        # bringing a quarantined text back is the owner's review, as releasing it is
        # (``review.release``): its writer put it there, the owner put it away
        raise InvalidInput(
            f"{row.id} is quarantined: only the store's owner restores it, not agent "
            f"{scope.agent!r}'s token (`hindsight restore {row.id}` where the store is). "
            "Nothing was changed."
        )
    if trust(row.source) == "trusted":
        # nor what the owner (or a trusted source) wrote and someone put away: back, it would
        # be trusted again, unlabelled, in the owner's recall (a fact the owner retracted, the
        # older version the owner replaced)
        raise InvalidInput(
            f"{row.id} comes from {row.source} (trusted): only the store's owner restores it, "
            f"not agent {scope.agent!r}'s token (`hindsight restore {row.id}` where the store "
            "is). Nothing was changed."
        )
