"""A later fix is never lost: what was learnt about a stored memory (its resolution, outcome,
confidence, tags) is given to it as a new version that supersedes it, whether it comes as a write
that repeats the memory, as ``edit`` of a memory named by id, or as an import of a record the store
holds under the same idempotency key.

The new version keeps the text, the agent, the task and every other field, takes what changed, and
supersedes the old one (which stays as history: ``hindsight show ID``). What a write does not state
does not change: a repeat without ``--resolution`` keeps the resolution stored, and tags are only
ever added. What was learnt keeps the trust of whoever said it (``guarded``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import BadUsage, InvalidInput
from ..models import MAX_TAGS, WriteResult
from ..poisoning import QUARANTINE_CONFIDENCE, QUARANTINE_TAG, less_trusted, trust
from ..storage import codec
from ..storage.base import Reader, Writer
from ..storage.rows import MemoryRow, embedding_text, row_term_counts
from ..text import clean
from . import embedding_jobs, parts
from .lifecycle import withdraw
from .prepare import Limits, claimed, derived_importance, derived_key, prepare, uuid7
from .reading import current, find
from .runtime import Runtime
from .scope import Scope, by_principal

#: The fields of a memory that say what was learnt, in the order a change names them.
LEARNT = ("resolution", "outcome", "confidence", "tags")
# what an edit may change: what was learnt, and how much the memory matters (a person's call: a
# repeated write never changes it through a new version)
EDITABLE = (*LEARNT, "importance")
# the keys a write or an import moves past, held by memories it must not stand for, at most: past
# them, a key derived from its own id (``writes._key_holder``, ``_repeated``; review BN: an import
# file's memories under the keys anyone can derive, each from the one before, held a write of
# that text in its transaction at the write gate, a read each)
MOVED = 32
Result = TypeVar("Result")


@dataclass(frozen=True)
class Amendment:
    """What a new version changes: the new values, the words that say so (``resolution added``)
    and the audit action (``fixed`` when a resolution came, ``updated`` otherwise)."""

    values: dict[str, Any]
    change: str
    action: str


def stated(
    row: MemoryRow, fields: Mapping[str, Any], names: Sequence[str] = LEARNT
) -> dict[str, Any]:
    """The learnt fields (``names``) a caller gave (``fields``), as validated and redacted into
    ``row``."""
    out: dict[str, Any] = {}
    for name in names:
        given = fields.get(name)
        if given is None or given == [] or given == "":
            continue
        out[name] = getattr(row, name)
    return out


def amendment(old: MemoryRow, given: Mapping[str, Any]) -> Amendment | None:
    """What ``given`` adds to or changes in ``old``; None when it holds all of it already."""
    values: dict[str, Any] = {}
    words: list[str] = []
    resolution = given.get("resolution")
    if resolution and resolution != old.resolution:
        values["resolution"] = resolution
        words.append("resolution added" if not old.resolution else "resolution changed")
    outcome = given.get("outcome")
    if outcome and outcome != old.outcome:
        values["outcome"] = outcome
        words.append(f"outcome {old.outcome} → {outcome}")
    for name in ("confidence", "importance"):
        value, was = given.get(name), getattr(old, name)
        if value is not None and abs(float(value) - was) > 1e-9:
            values[name] = float(value)
            words.append(f"{name} {was:g} → {float(value):g}")
    # the quarantine's tag comes with its reason (``guarded``), never as something learnt
    had = set(old.tags)
    added = [t for t in given.get("tags") or [] if t not in had and t != QUARANTINE_TAG]
    if added:
        if len(had) + len(added) > MAX_TAGS:
            raise BadUsage(f"a memory takes at most {MAX_TAGS:,} tags; give fewer.")
        values["tags"] = [*old.tags, *added]
        words.append(f"tag{'s' if len(added) > 1 else ''} added: {', '.join(added)}")
    if not values:
        return None
    return Amendment(values, ", ".join(words), "fixed" if "resolution" in values else "updated")


def kept_beside(old: MemoryRow, came: MemoryRow, given: Mapping[str, Any]) -> bool:
    """Whether what ``came`` (a write repeating ``old``, or an imported record under its key)
    adds (``given``) is kept as a memory of its own beside ``old`` rather than made its new
    version: ``came`` is less trusted (``less_trusted``: a page, a tool's output, an import file),
    and its version would change what ``old`` states: the user's own fix would leave search for
    the one a page or a file states (anyone can derive the key of a text). The one rule for every
    write and import that gives a stored memory what was learnt."""
    if not less_trusted(came, old):
        return False
    change = amendment(old, given)
    if change is None:
        return False
    # What it only fills in (a fix or an outcome the memory lacks) makes the new version,
    # under the less trusted writer's source and label (a later fix is never lost, issue 30); what
    # it would change of what the memory states (its fix, its outcome, its scores) stays beside it.
    values = change.values
    return (
        # tags alone learn nothing of what happened: that version would hand the memory's own text
        # to the less trusted writer (its source, its label, its confidence; review V)
        set(values) <= {"tags"}
        or bool(old.resolution and "resolution" in values)
        or (old.outcome not in ("", "unknown") and "outcome" in values)
        or "confidence" in values
        or "importance" in values
    )


def amendable(old: MemoryRow) -> None:
    """Refuse to version a memory that cannot take a new version."""
    if old.status == "superseded":
        raise InvalidInput(
            f"{old.id} was superseded by {old.superseded_by}: edit that one, the newest version."
        )
    if old.status != "active":
        raise InvalidInput(
            f"{old.id} is {old.status}: `hindsight restore {old.id}` first, then edit it."
        )
    if parts.is_part(old):
        raise InvalidInput(
            f"{old.id} is one of the linked parts of a text over the size limit; a part cannot "
            "take a new version: record the whole text again with --supersedes."
        )


def new_version(old: MemoryRow, change: Amendment, at: Any) -> MemoryRow:
    """``old`` with the changed values, under a new id, superseding it."""
    new_id = uuid7()
    return old.replace(
        **change.values,
        id=new_id,
        created_at=at,
        updated_at=None,
        last_seen_at=at,
        seen_count=old.seen_count + 1,
        status="active",
        superseded_by=None,
        supersedes=old.id,
        version=old.version + 1,
        # the text and its key stay the old version's; the new one needs its own
        idempotency_key=derived_key("version", old.idempotency_key, new_id),
        embedding=None,
        chunks=None,
    )


def guarded(new: MemoryRow, came: MemoryRow) -> None:
    """A new version takes the trust of the write that brought what it learnt (``came``, as
    validated): a fix from an untrusted source makes it untrusted (that source, the lower
    confidence), and instruction-like text in it quarantines it, as it would a new memory. A
    token principal's fix makes it hers whatever source it had (her label, not a page's), and it
    then weighs no more than her own writes (``prepare.derived_importance``, the one cap)."""
    if trust(came.source) == "untrusted" and (
        trust(new.source) == "trusted" or by_principal(came.source)
    ):
        new.source = came.source
        new.confidence = min(new.confidence, came.confidence)
    new.importance = derived_importance(new.source, new.importance)
    found = (came.metadata or {}).get("quarantine")
    if found and "quarantine" not in (new.metadata or {}) and not _reviewed(new, found):
        new.metadata = {**new.metadata, "quarantine": found}
        new.confidence = min(new.confidence, QUARANTINE_CONFIDENCE)
        if QUARANTINE_TAG not in new.tags:
            new.tags = [*new.tags, QUARANTINE_TAG]


def _reviewed(new: MemoryRow, found: object) -> bool:
    """Whether what quarantines ``new`` is its text alone, which a person read and released
    (``hindsight quarantine release``): a version never changes the text, so the release holds; a
    new resolution or tag that reads like instructions quarantines it again."""
    fields = found.get("fields") if isinstance(found, Mapping) else None
    return (
        "released" in (new.metadata or {})
        and isinstance(fields, list)
        and set(fields) <= {"content"}
    )


class Unembedded(Exception):
    """A new version met in a write transaction whose text has no vectors made yet (``made``)."""

    def __init__(self, row: MemoryRow) -> None:
        super().__init__(row.id)
        self.row = row


# texts' vectors made outside a write transaction for a new version it met (``outside``)
Made = dict[str, Any]


def embed(
    rt: Runtime, row: MemoryRow, like: MemoryRow | None, dim: int, made: Made | None = None
) -> None:
    """Give ``row`` its vectors: ``like``'s when it represents the same text, else the model's;
    inside a write transaction (``made`` given) only vectors made before it, else ``Unembedded``
    ends it (``outside``)."""
    if (
        like is not None
        and like.embedding is not None
        and embedding_text(like) == embedding_text(row)
    ):
        row.embedding, row.chunks = like.embedding, like.chunks
        return
    if made is None:
        vectors = _vectors(rt, row)
    elif embedding_text(row) in made:
        vectors = made[embedding_text(row)]
    else:
        raise Unembedded(row)
    embedding_jobs.assign(row, embedding_jobs.checked(rt, vectors, dim))


# a transaction run again for the vectors of a new version it met, at most (``outside``)
_TRIES = 3


def outside(
    rt: Runtime, write: Callable[[Made], Result], again: str, made: Made | None = None
) -> Result:
    """``write(made)``, a write transaction, run again with the vectors of each new version it met
    without them, made outside it: the model never runs in the transaction, nor at a shared
    server's write gate around it. A write repeating a text with what it adds (a tag, an outcome)
    made the new version's vectors there, its text and stored fix, 32 KB at most: every other
    agent's writes waited for the model, and the ledger too (review BK). A text that changes again
    at every run (its agent's other writes giving it another fix meanwhile) is refused after
    ``_TRIES`` runs, ``again`` saying what to rerun: embedded in a last run, as before, a token
    principal's edits of her note racing her write of it ran the model in the transaction and at
    the gate, every agent's writes and reads of the ledger waiting (review BN)."""
    made = {} if made is None else made
    met: MemoryRow | None = None
    for _ in range(_TRIES):
        try:
            return write(made)
        except Unembedded as missing:
            met = missing.row
            made[embedding_text(met)] = _vectors(rt, met)
    assert met is not None
    raise InvalidInput(
        f"{met.supersedes} changed at each of {_TRIES} tries while this write gave it a new "
        f"version (other writes of agent {met.agent_id!r} meanwhile); {again}"
    )


def _vectors(rt: Runtime, row: MemoryRow) -> Any:
    return rt.embedder.embed(embedding_jobs.windows(rt, row))


def write(session: Writer, old: MemoryRow, new: MemoryRow, change: Amendment, actor: str) -> None:
    """Store ``new`` as the next version of ``old``, in the caller's transaction."""
    session.insert(new, row_term_counts(new))
    session.supersede(old.id, new.id, new.created_at)
    session.audit(change.action, [old.id, new.id], new.created_at, change.change, actor)
    # summaries quoting the old version
    withdraw(session, [old.id], new.created_at, actor)


def write_unchanged(
    session: Writer,
    old: MemoryRow,
    new: MemoryRow,
    change: Amendment,
    actor: str,
    doing: str,
    again: str,
) -> None:
    """``write``, once ``old`` is still as it was read (another process may have versioned or
    forgotten it since): else refused, ``"<id> changed while it was being <doing>; <again>"``."""
    now = session.by_ids([old.id])
    if not now or now[0].version != old.version or now[0].status != old.status:
        raise InvalidInput(f"{old.id} changed while it was being {doing}; {again}")
    write(session, old, new, change, actor)


def only_learnt(memory_id: str, others: Sequence[str]) -> None:
    """An edit changes what was learnt and nothing else: refuse one that names other fields."""
    if others:
        raise InvalidInput(
            f"An edit of {memory_id} gives it what was learnt (resolution, outcome, confidence, "
            f"importance, tags) and nothing else; {', '.join(others)} cannot be edited: write a new memory "
            f"with supersedes={memory_id} instead. Nothing was written."
        )


def edit(
    rt: Runtime,
    memory_id: str,
    fields: Mapping[str, Any],
    scope: Scope,
    actor: str | None,
    turn: AbstractContextManager[Any] | None = None,
) -> WriteResult:
    """Give the memory ``memory_id`` what was learnt (``fields``: any of ``LEARNT``) as a new
    version; a memory that holds all of it already is answered as it is (``deduplicated``).
    ``turn`` (a shared server's write gate) is held only while the store changes, as in
    ``writes.record``: the memory read back unchanged in that transaction (``write_unchanged``)."""
    nothing = BadUsage(
        "Nothing to edit: give what was learnt — a resolution, an outcome, a confidence, an "
        "importance or a tag."
    )
    empty = all(fields.get(name) in (None, [], "") for name in EDITABLE)
    if empty and fields.get("content") is None:
        raise nothing
    rt.require_writable()
    with rt.ledger.read() as session:
        dim = rt.check_model(session)
        old = find(session, memory_id, scope)
    amendable(old)
    text = fields.get("content")
    if text is not None and clean(str(text)) != old.content:
        raise InvalidInput(
            f"An edit keeps the text of {old.id}; to change the text, write the new one "
            f"superseding it (`hindsight record TEXT --supersedes {old.id}`, or memory_write "
            "with `supersedes`). Nothing was written."
        )
    if empty:
        raise nothing
    values = {name: fields.get(name) for name in EDITABLE}
    given = {**values, "content": old.content, "source": old.source, "agent_id": old.agent_id}
    if scope.provenance is not None:
        # what was learnt takes the trust of who says it (``guarded``): a token principal's is
        # its own, and it does not choose its confidence
        given = claimed(given, scope.provenance)
    checked = prepare(
        given,
        Limits.of(rt.config),
        rt.now(),
        derived=True,
    )
    learnt = stated(checked.row, values, EDITABLE)
    if less_trusted(checked.row, old):
        # a token principal's scores are claims (kept in metadata, never taken): they never change
        # the owner's memory
        learnt = {k: v for k, v in learnt.items() if k not in ("confidence", "importance")}
    if kept_beside(old, checked.row, learnt):
        # the rule a repeated write meets (its change is kept beside): an edit keeps the text, so
        # there is no beside; what a token principal would change of the owner's memory is refused
        raise InvalidInput(
            f"{old.id} comes from {old.source} (trusted) and this edit from {checked.row.source} "
            "(untrusted): it may fill in what the memory lacks (a fix, an outcome still unknown), "
            "not change its fix, outcome, confidence or importance nor tag it alone. Write yours "
            "as a memory of its own. Nothing was changed."
        )
    change = amendment(old, learnt)
    if change is None:
        return WriteResult(codec.to_memory(old), True, checked.redactions)
    new = new_version(old, change, rt.now())
    guarded(new, checked.row)
    embed(rt, new, None, dim)
    with turn or nullcontext():
        with rt.ledger.write() as session:
            write_unchanged(
                session, old, new, change, actor or old.agent_id, "edited", "rerun the edit."
            )
        rt.after_write()
    return WriteResult(
        codec.to_memory(new), False, checked.redactions, [old.id], change.change, updated=True
    )


def _brought(old: MemoryRow, record: MemoryRow) -> dict[str, Any]:
    """What an imported record states that was learnt: all of it when it is the newer one; when
    the store's version is newer, only what that version lacks (an old export never undoes a later
    fix)."""
    newer = record.created_at >= old.created_at
    given: dict[str, Any] = {"tags": record.tags}
    if record.resolution and (newer or not old.resolution):
        given["resolution"] = record.resolution
    if record.outcome != "unknown" and (newer or old.outcome == "unknown"):
        given["outcome"] = record.outcome
    return given


def _repeated(session: Reader, record: MemoryRow) -> tuple[str, MemoryRow | None, MemoryRow | None]:
    """Where ``record`` goes (read only): the key it goes under (its own, or one derived from it
    to stay beside a more trusted memory), the stored memory under that key and its newest
    version; (key, None, None) when nothing repeats it, (key, None, old) when it stays beside."""
    key = record.idempotency_key
    existing = session.by_key(key, record.agent_id)
    if existing is None:
        return key, None, None
    old = current(session, existing)
    for moved in range(MOVED):
        if not kept_beside(old, record, _brought(old, record)):
            return key, existing, old
        # the key of its own, which a memory of the file's trust may hold: that one's new
        # version, or a memory to import; past ``MOVED``, one of its own id
        key = derived_key("beside", key, *([record.id] if moved == MOVED - 1 else []))
        existing = session.by_key(key, record.agent_id)
        if existing is None:
            return key, None, old
        old = current(session, existing)
    return key, existing, old


def _changes(old: MemoryRow, record: MemoryRow) -> Amendment | None:
    change = amendment(old, _brought(old, record))
    if change is None or old.status != "active" or parts.is_part(old):
        return None
    return change


def imported(rt: Runtime, records: Sequence[MemoryRow], dim: int) -> tuple[int, list[MemoryRow]]:
    """Give the stored memories that ``records`` repeat (the same idempotency key, another id) what
    the records add, a new version each; how many got one, and the records kept beside a more
    trusted memory instead (``kept_beside``), each under a key derived from the one it repeats (to
    be imported as memories of their own).

    Which records add anything is read first, in one read: a rerun of an import (every record
    repeated, nothing new) opens no write transaction and marks nothing changed; each record that
    adds something is read again in its own write transaction, which decides."""
    beside: list[MemoryRow] = []
    adding: list[MemoryRow] = []
    unmade: dict[str, MemoryRow] = {}
    with rt.ledger.read() as session:
        for record in records:
            if record.status != "active" or parts.is_part(record):
                continue
            key, existing, old = _repeated(session, record)
            if existing is None and old is not None:
                record.idempotency_key = key
                beside.append(record)
            elif old is not None and (change := _changes(old, record)) is not None:
                adding.append(record)
                # its new version's vectors, as its write transaction will find it
                new = new_version(old, change, rt.now())
                guarded(new, record)
                unmade.setdefault(embedding_text(new), new)
    made: Made = {text: _vectors(rt, new) for text, new in unmade.items()}
    count = 0
    for record in adding:

        def give(made: Made, record: MemoryRow = record) -> str:
            with rt.ledger.write() as session:
                key, existing, old = _repeated(session, record)
                record.idempotency_key = key
                if old is None:
                    return "none"
                if existing is None:
                    return "beside"
                change = _changes(old, record)
                if change is None:
                    return "none"
                new = new_version(old, change, rt.now())
                guarded(new, record)
                embed(rt, new, None, dim, made)
                write(session, old, new, change, old.agent_id)
                return "new"

        done = outside(rt, give, "rerun the import: what it wrote stays written.", made)
        if done == "beside":
            beside.append(record)
        count += done == "new"
    if count:
        rt.after_write()
    return count, beside
