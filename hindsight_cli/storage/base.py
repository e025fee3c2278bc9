"""The storage contract: what the core may ask of a ledger, whatever engine holds it.

A ledger hands out sessions: ``read()`` for a consistent read-only view, ``write()`` for one atomic
transaction. Every method speaks ``MemoryRow`` and ``Condition`` lists (rendered by the engine with
bound parameters), so no SQL, and no engine, leaks into the core. What differs between engines, and
matters to the core, is declared in ``Capabilities`` instead of being guessed from the engine's
class.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Protocol, TypedDict

from .rows import MemoryRow

#: ``(column, operator, value)``: ``in`` (a list; empty matches nothing), ``=``, ``is`` (equal,
#: NULL included), ``has`` (a list column holds the value), ``>=``, ``<=``, ``<``,
#: ``expired``/``unexpired`` (``expires_at`` against the value), ``null_or_eq`` (NULL, or the
#: value, or the value is NULL).
Condition = tuple[str, str, Any]
Order = Literal["newest", "oldest", "event", "seq", "id"]
#: the columns a page of memories may be sorted by (``Reader.page``); the id breaks ties
SORTS = (
    "created_at",
    "event_at",
    "type",
    "outcome",
    "agent_id",
    "task_id",
    "source",
    "status",
    "importance",
    "confidence",
)
AuditRow = tuple[datetime, str, list[str], str | None, str | None]
#: the ``meta`` key holding the ledger's own random key, written as hindsight creates the ledger
#: and recorded beside the store's approval (``safefs.ledger_key``)
LEDGER_KEY = "ledger_key"


class Counts(TypedDict):
    """The ledger's totals (``hindsight stats``)."""

    memories: int
    # created_at of the oldest and newest memory; None in an empty ledger
    oldest: datetime | None
    newest: datetime | None
    by_status: dict[str, int]
    by_type: dict[str, int]
    by_source: dict[str, int]
    by_agent: dict[str, int]
    by_outcome: dict[str, int]
    audit_entries: int


@dataclass(frozen=True)
class Capabilities:
    """What a backend is, as the core needs to know it."""

    # the registry name: "local" or "postgres"
    name: str
    # the data lives in files of the store directory (permissions, rewrites, residue checks)
    files: bool
    # a derived LanceDB index mirrors it for long-lived processes
    mirrored: bool
    # a database server that several machines may use (describe() names it)
    shared: bool


class Reader(Protocol):
    """A read-only view of the ledger (one connection or snapshot)."""

    def meta(self) -> dict[str, str]: ...
    def select(
        self,
        where: Sequence[Condition],
        *,
        order: Order = "newest",
        limit: int | None = None,
        vectors: bool = False,
    ) -> list[MemoryRow]: ...
    def page(
        self, where: Sequence[Condition], sort: str, descending: bool, limit: int, offset: int
    ) -> list[MemoryRow]: ...
    def per_day(self, where: Sequence[Condition]) -> list[tuple[str, int]]: ...
    def ids(self, where: Sequence[Condition]) -> list[str]: ...
    def links(
        self, where: Sequence[Condition]
    ) -> list[tuple[str, str, str, str | None, str | None]]: ...
    def count(self, where: Sequence[Condition]) -> int: ...
    def by_ids(self, ids: Sequence[str], vectors: bool = False) -> list[MemoryRow]: ...
    def by_key(self, key: str, agent_id: str) -> MemoryRow | None: ...
    def by_prefix(
        self, prefix: str, limit: int = 3, where: Sequence[Condition] = ()
    ) -> list[str]: ...
    def by_suffix(
        self, suffix: str, limit: int = 3, where: Sequence[Condition] = ()
    ) -> list[str]: ...
    def identities(self) -> set[tuple[str, str, str]]: ...
    def present(self, ids: Sequence[str], keys: Sequence[str]) -> set[tuple[str, str, str]]: ...
    def vectors_held(self) -> int: ...
    def nearest(
        self, vector: Sequence[float], where: Sequence[Condition], limit: int
    ) -> list[tuple[str, float]]: ...
    def keyword(
        self,
        terms: Sequence[str],
        where: Sequence[Condition],
        limit: int,
        k1: float,
        b: float,
        agents: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]: ...
    def derived_from(self, ids: Sequence[str], *, transitive: bool = True) -> list[str]: ...
    def audit_log(
        self,
        *,
        limit: int | None,
        action: str | None,
        memory_id: str | None,
        since: datetime | None,
        actor: str | None = None,
    ) -> list[AuditRow]: ...
    def max_seq(self) -> int: ...
    def changed_since(self, seq: int) -> list[MemoryRow]: ...
    def counts(self) -> Counts: ...


class Writer(Reader, Protocol):
    """One transaction: everything commits together or not at all."""

    def insert(self, row: MemoryRow, terms: dict[str, int]) -> None: ...
    def insert_many(self, items: Sequence[tuple[MemoryRow, dict[str, int]]]) -> None: ...
    def rewrite(self, row: MemoryRow, terms: dict[str, int]) -> None: ...
    def touch(self, memory_id: str, at: datetime, importance: float) -> None: ...
    def supersede(self, old_id: str, new_id: str, at: datetime) -> None: ...
    # the back link on an existing row: ``new_id`` supersedes ``old_id`` (``supersede`` sets the
    # forward one on the old row)
    def link_supersedes(self, new_id: str, old_id: str, at: datetime) -> None: ...
    def set_status(self, ids: Sequence[str], status: str, at: datetime) -> int: ...
    def delete(self, ids: Sequence[str]) -> int: ...
    def audit(
        self,
        action: str,
        ids: Sequence[str],
        at: datetime,
        reason: str | None = None,
        actor: str | None = None,
    ) -> None: ...
    def set_embeddings(self, rows: Sequence[MemoryRow]) -> None: ...
    def set_model(self, model: str, dim: int) -> None: ...
    def set_ledger_key(self, key: str) -> None: ...


class Ledger(Protocol):
    """A store's source of truth."""

    capabilities: Capabilities
    # the ledger file of a local store; the store directory of a database-backed one
    path: Path
    lock_timeout: float

    @property
    def exists(self) -> bool: ...
    def describe(self) -> str: ...
    def size_bytes(self) -> int: ...
    def create(self, model: str, dim: int, key: str | None = None) -> None: ...
    def read(self) -> AbstractContextManager[Reader]: ...
    def write(self) -> AbstractContextManager[Writer]: ...
    def held(self) -> AbstractContextManager[None]: ...
    def scrub(self) -> bool: ...
    def change_token(self) -> str: ...
    def mark_changed(self) -> None: ...
    # what the engine is: ``engine`` (its name and version) and engine-specific facts
    def probe(self) -> dict[str, str | None]: ...


def conditions_of(*groups: Sequence[Condition]) -> list[Condition]:
    """Several condition lists as one (they are ANDed)."""
    return [condition for group in groups for condition in group]


def unique(values: Iterator[str] | Sequence[str]) -> list[str]:
    """``values`` without repeats, in order."""
    return list(dict.fromkeys(values))
