"""Store: the one API that the CLI, the MCP server, the hooks and Python users call.

A façade: each method validates its arguments' shape and hands the work to the module of the core
that owns it (core/writes, lifecycle, derive, transfer, reading, recall, admin), with this store's
``Runtime`` and agent ``Scope``.
"""

from __future__ import annotations

import builtins
import dataclasses
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import paths
from .config import Config

# the other modules of the core are imported by the methods that hand them work: a search (a new
# process) loads recall's alone, not the writes', transfers' and reviews' (~7 ms)
from .core import injections as record, reading, recall, recall_report, verdicts
from .core.injections import Injection, Verdict
from .core.jobs import Phase, Progress
from .core.runtime import Runtime
from .core.scope import Scope
from .core.selection import check_limit, forget_filters, plain
from .embedding import Embedder
from .errors import HindsightError
from .models import (
    AUDIT_ACTIONS,
    AuditEntry,
    ConsolidateResult,
    Filters,
    ForgetPlan,
    ForgetResult,
    ImportResult,
    Memory,
    MemoryPage,
    SearchResult,
    SummaryResult,
    WriteResult,
    one_of,
)
from .search.query import SearchQuery
from .storage import spool
from .storage.base import Ledger
from .timeutil import as_utc_or_none, iso

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from .core.migrate import MigrateResult
    from .storage.index import Index
    from .storage.rows import MemoryRow

# what Store.search takes beside the text: every other field of the request
_SEARCH_OPTIONS = tuple(f.name for f in dataclasses.fields(SearchQuery) if f.name != "text")


def _search_query(query: str | SearchQuery, options: Mapping[str, Any]) -> SearchQuery:
    """The one request a search makes: the ``SearchQuery`` given, or one built from the text and the
    options; never the two mixed, since one of them would be ignored."""
    if isinstance(query, SearchQuery):
        if options:
            raise TypeError(
                "Store.search() takes a SearchQuery or keyword arguments, not both: "
                f"set {', '.join(sorted(options))} in the SearchQuery itself "
                "(dataclasses.replace(query, ...))."
            )
        return query
    unknown = sorted(set(options) - set(_SEARCH_OPTIONS))
    if unknown:
        raise TypeError(
            f"Store.search() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}; "
            f"it takes {', '.join(_SEARCH_OPTIONS)}."
        )
    return SearchQuery(query, **options)


class Store:
    """A hindsight store: a directory with the ledger (DuckDB, or a Postgres schema), the LanceDB
    index and ``config.toml``.

    Args:
        path: the store directory.
        embedder: the embedder to use; by default the configured model is loaded on first need.
        config: settings; by default read from the user config, ``<path>/config.toml`` and env vars.
        warm: a long-running process (MCP server): search through the LanceDB index, kept in sync.
        agent: scope every operation to this agent_id (reads, writes, forgets, summaries); None:
        all. clock: what "now" is (naive UTC ``datetime``) for expiry, recency and timestamps;
        default the
            system clock. Tests and replays inject one.
    """

    def __init__(
        self,
        path: Path,
        embedder: Embedder | None = None,
        config: Config | None = None,
        warm: bool = False,
        *,
        agent: str | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._rt = Runtime(Path(path), embedder, config, warm, clock)
        self.scope = Scope(agent)

    @classmethod
    def _view(cls, runtime: Runtime, scope: Scope) -> Store:
        view = cls.__new__(cls)
        view._rt, view.scope = runtime, scope
        return view

    def scoped(self, agent: str | None, principal: bool = False) -> Store:
        """This store seen as one agent (``None``: this store's own scope), sharing its state.
        ``principal``: the agent is a credential's (a token on a shared server), another principal
        than the store's owner: what it writes is stored as ``token:<agent>``, untrusted, whatever
        source it claims (``Scope.provenance``)."""
        if agent is None:
            return self
        # a name with nothing visible in it is refused (Scope), never read as "every agent"
        return Store._view(
            self._rt, Scope(self.scope.resolve(Scope(agent).agent), principal=principal)
        )

    @property
    def path(self) -> Path:
        return self._rt.path

    @property
    def clock(self) -> Callable[[], datetime]:
        return self._rt.clock

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        self._rt.clock = clock

    @property
    def config(self) -> Config:
        return self._rt.config

    @property
    def ledger(self) -> Ledger:
        return self._rt.ledger

    @property
    def warm(self) -> bool:
        return self._rt.warm

    @property
    def exists(self) -> bool:
        return self._rt.exists

    @property
    def origin(self) -> str | None:
        """None for a store this user created or approved on this machine; else how its memories'
        labels name it (``an unapproved store``): they are untrusted, whatever they claim."""
        return self._rt.origin

    @property
    def embedder(self) -> Embedder:
        return self._rt.embedder

    def init(
        self,
        model: str | None = None,
        *,
        backend: str | None = None,
        url: str | None = None,
        schema: str | None = None,
    ) -> bool:
        """Create the store if needed (directory 0700, ``.gitignore`` of ``*``, a commented config).

        Args:
            model: the embedding model of a new store (``multilingual``, ``default`` or any
            fastembed
                name); written to its ``config.toml``. An existing store keeps its model.
            backend: ``local`` (DuckDB + LanceDB files in the directory) or ``postgres`` (a shared
                PostgreSQL + pgvector database; docs/team.md); written to ``config.toml``.
            url: the database URL of a postgres store. Written without its password, which later
                commands take from ``HINDSIGHT_DATABASE_URL``, ``PGPASSWORD`` or ``~/.pgpass``.
            schema: the database schema of a postgres store (default ``hindsight``).

        Returns:
            True if the store was created, False if it already existed.

        Raises:
            InvalidInput: ``model`` or ``backend`` differs from those of an existing store, or
                ``model`` names no model (``embedding.MODELS`` lists them).
        """
        from .core import admin

        return admin.init(self._rt, model, backend, url, schema)

    def record(
        self,
        content: str,
        *,
        merge: bool = True,
        supersedes: str | None = None,
        turn: AbstractContextManager[Any] | None = None,
        **fields: Any,
    ) -> WriteResult:
        """Store one memory (DESIGN §6): validated, secrets redacted, idempotent, near-duplicates
        merged.

        Args:
            content: the memory text.
            merge: merge into an active memory of the same agent, type, task and outcome whose
            cosine
                similarity reaches ``dedup_threshold`` (default 0.97) instead of adding a row.
            supersedes: the id (or unique prefix) of a memory of the same agent that this one
            replaces:
                it becomes ``superseded`` (out of search, kept as history) and the two link both
                ways.
            turn: held only while the store changes (a shared server's write gate): the checks,
                redaction and embedding of the text run before it is taken.
            **fields: any data-model field (``type``, ``agent_id``, ``task_id``, ``step``,
            ``trigger``,
                ``outcome``, ``resolution``, ``importance``, ``confidence``, ``tags``, ``metadata``,
                ``env``, ``source``, ``event_at``, ``valid_until``) plus ``ttl`` (``"2h"``) and
                ``key``.

        Returns:
            The stored memory, ``deduplicated`` and the number of ``redactions``.

        Raises:
            InvalidInput: the input was refused; nothing was written.
            MemoryNotFound: ``supersedes`` names no memory.
        """
        from .core import writes

        return writes.record(self._rt, content, fields, merge, supersedes, self.scope, turn)

    def edit(
        self,
        memory_id: str,
        *,
        resolution: str | None = None,
        outcome: str | None = None,
        confidence: float | None = None,
        tags: Sequence[str] = (),
        actor: str | None = None,
        content: str | None = None,
        importance: float | None = None,
        turn: AbstractContextManager[Any] | None = None,
    ) -> WriteResult:
        """Give a stored memory what was learnt since: a new version with the resolution, outcome,
        confidence, importance or added tags, superseding it (kept as history); the audit log says
        ``fixed`` (a resolution) or ``updated``.

        Args:
            memory_id: the id (or a unique part) of an active memory of this store's scope.
            resolution: how the failure was fixed.
            outcome: ``success``, ``failure``, ``neutral`` or ``unknown``.
            confidence: 0 to 1.
            tags: tags to add (the ones it has are kept).
            actor: who edits, for the audit log (default the memory's agent).
            content: the memory's text, when a caller states it: it must be the stored one (the
                text is never edited; a new text supersedes with ``record(supersedes=...)``).
            importance: 0 to 1, how much the memory matters (a person's call).
            turn: held only while the store changes (a shared server's write gate), as in
                ``record``.

        Returns:
            The new version, ``superseded`` naming the old one and ``change`` what changed
            (``"resolution added"``); when nothing changes, the memory as it is and
            ``deduplicated``.

        Raises:
            BadUsage: nothing to change was given.
            InvalidInput: a value was refused, or the memory cannot take a new version.
            MemoryNotFound: no memory has that id.
        """
        from .core import amend

        fields = {
            "resolution": resolution,
            "outcome": outcome,
            "confidence": confidence,
            "tags": list(tags),
            "content": content,
            "importance": importance,
        }
        return amend.edit(self._rt, memory_id, fields, self.scope, actor, turn)

    def summary_request(
        self,
        *,
        task_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        agent_id: str | None = None,
    ) -> tuple[str, str]:
        """The (system prompt, prompt) that asks an LLM to summarise what ``summarize`` would cover;
        its answer goes back in through ``summarize(text=...)``."""
        from .core import derive

        return derive.summary_request(
            self._rt, task_id, as_utc_or_none(since), as_utc_or_none(until), agent_id, self.scope
        )

    def summarize(
        self,
        *,
        task_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        agent_id: str | None = None,
        chunk: int = 5,
        text: str | None = None,
        method: str = "extractive",
        asked: str | None = None,
        turn: AbstractContextManager[Any] | None = None,
    ) -> SummaryResult:
        """Write (or update) a semantic memory that summarises a task or a time range.

        Without ``text``: no LLM; extractive key points plus a roll-up of outcomes and of each error
        with its fix. With ``text`` (an LLM's summary, e.g. through MCP sampling), that text is the
        task summary (redacted like any memory) and ``method`` names where it came from. More than
        ``chunk`` sources make a summary chain: one extractive part summary per ``chunk`` memories,
        and the task summary links to the parts (``source_ids``), which link to the originals.
        Rerunning updates the same summaries instead of adding new ones. ``asked``: the prompt
        (``summary_request``'s) that ``text`` answers; the text is written only while the memories
        still make that prompt (none forgotten, changed or added since). ``turn``: held only while
        the store changes (a shared server's write gate), as ``record``'s.

        Raises:
            InvalidInput: nothing selected, nothing to summarise, or the memories changed since
                ``asked`` was made.
        """
        from .core import derive

        return derive.summarize(
            self._rt,
            task_id=task_id,
            since=as_utc_or_none(since),
            until=as_utc_or_none(until),
            agent_id=agent_id,
            chunk=chunk,
            text=text,
            method=method,
            scope=self.scope,
            asked=asked,
            turn=turn,
        )

    def sources(
        self, memory_id: str, depth: int = 5, limit: int | None = None
    ) -> list[tuple[int, Memory]]:
        """Walk a summary chain down to the original memories: (depth, memory) in reading order;
        with ``limit``, the first ``limit`` sources of each and ``limit + 1`` entries at most."""
        return reading.sources(self._rt, memory_id, depth, self.scope, limit)

    def built_on(self, memory_id: str, limit: int | None = None) -> list[Memory]:
        """The memories built directly on this one (the summaries above it, a pattern, another part
        of its text), oldest first, the first ``limit``: ``sources`` walks the other way."""
        return reading.built_on(self._rt, memory_id, self.scope, limit)

    def history(self, memory_id: str) -> list[Memory]:
        """The supersede chain a memory belongs to, oldest first (just the memory if it has
        none)."""
        return reading.history(self._rt, memory_id, self.scope)

    def log(
        self,
        *,
        limit: int | None = 50,
        action: str | None = None,
        memory_id: str | None = None,
        since: datetime | None = None,
    ) -> list[AuditEntry]:
        """The audit log, newest first: who did what to which memories, when and why (never
        content); ``action`` is one of ``AUDIT_ACTIONS``."""
        check_limit(limit)
        action = one_of(action, "action", AUDIT_ACTIONS) if action else None
        return reading.log(
            self._rt,
            limit=limit,
            action=action,
            memory_id=memory_id,
            since=as_utc_or_none(since),
            scope=self.scope,
        )

    def consolidate(
        self,
        *,
        agent_id: str | None = None,
        dry_run: bool = False,
        similarity: float | None = None,
        min_evidence: int | None = None,
        actor: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        phase: Callable[[str], None] | None = None,
        turn: AbstractContextManager[Any] | None = None,
    ) -> ConsolidateResult:
        """Turn groups of similar episodes (per agent) into semantic pattern memories, without an
        LLM.

        Each pattern links to its evidence (``source_ids``) and carries a confidence from it. A
        group that already has a pattern updates it only when new evidence arrived, so rerunning
        writes nothing new. ``dry_run`` computes the same plan and writes nothing. ``progress(done,
        total)`` counts the episodes grouped; ``phase(text)`` names each step. ``turn``: held only
        while the store changes, as ``record``'s.
        """
        from .core import derive

        return derive.consolidate(
            self._rt,
            agent_id=agent_id,
            dry_run=dry_run,
            similarity=similarity,
            min_evidence=min_evidence,
            actor=actor,
            scope=self.scope,
            progress=progress,
            phase=phase,
            turn=turn,
        )

    def get(self, memory_id: str) -> Memory:
        """One memory by id or unique id prefix (at least 8 characters).

        Raises:
            MemoryNotFound: no memory (or more than one) matches.
        """
        return reading.get(self._rt, memory_id, self.scope)

    def list(
        self, filters: Filters | None = None, limit: int | None = 50, oldest_first: bool = False
    ) -> list[Memory]:
        """Memories matching ``filters`` (default: every status, expired included), newest first; at
        most ``limit`` (None: all)."""
        check_limit(limit)
        return reading.list_memories(
            self._rt,
            filters or Filters(statuses=None, include_expired=True),
            self.scope,
            limit,
            oldest_first,
        )

    def page(
        self,
        filters: Filters | None = None,
        *,
        sort: str = "created_at",
        descending: bool = True,
        limit: int = 50,
        offset: int = 0,
    ) -> MemoryPage:
        """One page of the memories matching ``filters`` (default: every status, expired included),
        sorted by ``sort`` (``created_at``, ``event_at``, ``type``, ``outcome``, ``agent_id``,
        ``task_id``, ``source``, ``status``, ``importance`` or ``confidence``; ties by id), with the
        total that match.

        Raises:
            BadUsage: an unknown sort column, a limit outside 1 to 100,000 or a negative offset.
        """
        return reading.page(
            self._rt,
            filters or Filters(statuses=None, include_expired=True),
            self.scope,
            sort,
            descending,
            limit,
            offset,
        )

    def per_day(self, filters: Filters | None = None) -> builtins.list[tuple[str, int]]:
        """(UTC day ``YYYY-MM-DD``, memories that happened that day: ``event_at``) for the memories matching
        ``filters`` (default: all), oldest day first; days without any are left out."""
        return reading.per_day(
            self._rt, filters or Filters(statuses=None, include_expired=True), self.scope
        )

    def search(self, query: str | SearchQuery, **options: Any) -> SearchResult:
        """Find the memories that matter for ``query`` (DESIGN §5).

        Args:
            query: what to look for (the default model reads English; see ``SearchQuery.text``), or
                a whole ``SearchQuery``, the request the CLI and the MCP server build.
            **options: with a text query, any other field of ``SearchQuery``, whose defaults
                apply to the rest: ``filters`` (hard filters; by default active, unexpired
                episodic/semantic/procedural memories), ``k`` (at most this many hits; 5, or 20
                with a budget), ``budget`` (keep the formatted context block within this many
                tokens), ``mode`` (``hybrid``, ``vector`` or ``keyword``), ``env`` (the caller's
                environment fingerprint; memories recorded under other values rank lower),
                ``current_task`` (its memories get the same-task bonus), ``engine`` (``ledger`` or
                ``index``; default from config), ``now`` (rank as of this moment instead of the
                clock's; evaluations replay recorded conversations this way) and ``troubleshoot``
                ("I have seen this error before": relevant failures that have a resolution come
                first) and ``listed`` (the budget holds the block and a line of its hits' ids, as
                the MCP tool answers).

        Returns:
            A ``SearchResult`` with ranked hits and the ready-to-paste ``context`` block.

        Raises:
            TypeError: a ``SearchQuery`` and options together, or an option ``SearchQuery`` lacks.
        """
        return recall.search(self._rt, _search_query(query, options), self.scope)

    def index(self, dim: int | None = None) -> Index:
        """The LanceDB index of a local store (opened on first use)."""
        if self._rt.mirror is None:
            raise HindsightError(
                f"The {self.ledger.capabilities.name} store {self.path} has no LanceDB index."
            )
        return self._rt.mirror.index(dim)

    def sync_index(self) -> int:
        """Index every ledger change the index lacks (and the in-memory index of a warm store);
        returns how many rows were written to the LanceDB index (0 on Postgres, whose database
        indexes its own rows)."""
        self._rt.require()
        if self._rt.hot is not None:
            self._rt.hot.synced_index()
        return 0 if self._rt.mirror is None else self._rt.mirror.sync()

    def warm_up(self) -> None:
        """Get a long-lived process ready to answer at once: what expired is purged (when due), the
        model is loaded and, beside it, the in-memory index (or, where there is none, the LanceDB
        index caught up)."""
        recall.warm_up(self._rt)

    def load_in_memory_index(self) -> None:
        """Load a long-lived process's in-memory index (and the model); searches from other threads
        meanwhile are answered by the ledger. Nothing else: ``warm_up`` does the rest."""
        recall.load_in_memory(self._rt)

    def select_ids(self, filters: Filters) -> builtins.list[str]:
        from .core import lifecycle

        return lifecycle.select_ids(self._rt, filters, self.scope)

    def forget(
        self,
        ids: Iterable[str] = (),
        *,
        filters: Filters | None = None,
        hard: bool = False,
        archive: bool = False,
        reason: str | None = None,
        actor: str | None = None,
    ) -> int:
        """Forget memories by id and/or filter.

        Soft (default): status ``invalidated``, excluded from search, restorable with ``restore``.
        Archive: status ``archived``: cold, out of default search, found with ``include_archived``,
        restorable. Hard: the rows, their keyword terms and vectors are deleted, together with the
        summaries and patterns built from them; old index versions are purged and the ledger file is
        rewritten, so no trace of the content stays on disk. Every forget is written to the audit
        log (ids, time, reason, who; never content).

        Returns:
            How many memories changed (with ``hard``, derived summaries included).
        """
        from .core import lifecycle

        plan = lifecycle.plan(self._rt, ids, filters, hard, archive, self.scope)
        return lifecycle.forget(self._rt, plan, reason, actor, self.scope)

    def plan_forget(
        self,
        ids: Iterable[str] = (),
        *,
        task_id: str | None = None,
        agent_id: str | None = None,
        older_than: str | None = None,
        expired: bool = False,
        hard: bool = False,
        archive: bool = False,
        spell: Callable[[str], str] = plain,
    ) -> ForgetPlan:
        """Decide what ``forget_where`` with these arguments would forget, and forget nothing: the
        ids of exactly the memories it takes, resolved now with the store's clock (``older_than``'s
        cutoff, what has expired). Show or count it, then hand it to ``forget_planned``.

        Raises:
            InvalidInput: nothing to forget was named, or ``hard`` with ``archive``.
            MemoryNotFound: an id names no memory.
        """
        from .core import lifecycle

        ids = list(ids)
        at = self._rt.now()
        filters, hard = forget_filters(
            ids,
            task_id=task_id,
            agent_id=agent_id,
            older_than=older_than,
            expired=expired,
            hard=hard,
            archive=archive,
            now=at,
            spell=spell,
        )
        return lifecycle.plan(self._rt, ids, filters, hard, archive, self.scope, at)

    def forget_planned(
        self, plan: ForgetPlan, *, reason: str | None = None, actor: str | None = None
    ) -> ForgetResult:
        """Carry out a plan from ``plan_forget``: the memories it names and no other, even if more
        match its filter by now (those purged meanwhile by another process are skipped)."""
        from .core import lifecycle

        count = lifecycle.forget(self._rt, plan, reason, actor, self.scope)
        return ForgetResult(count, plan.hard, plan.archive)

    def forget_where(
        self,
        ids: Iterable[str] = (),
        *,
        task_id: str | None = None,
        agent_id: str | None = None,
        older_than: str | None = None,
        expired: bool = False,
        hard: bool = False,
        archive: bool = False,
        reason: str | None = None,
        actor: str | None = None,
        spell: Callable[[str], str] = plain,
    ) -> ForgetResult:
        """Forget by ids and/or a filter, as ``hindsight forget`` and ``memory_forget`` do: a task,
        an agent, recorded longer ago than ``older_than`` ("30d"), or ``expired`` (past their TTL,
        which purges them unless ``archive``). ``spell`` names options in error messages the
        caller's way. The same as ``forget_planned(plan_forget(...))``.

        Raises:
            InvalidInput: nothing to forget was named, or ``hard`` with ``archive``.
        """
        plan = self.plan_forget(
            ids,
            task_id=task_id,
            agent_id=agent_id,
            older_than=older_than,
            expired=expired,
            hard=hard,
            archive=archive,
            spell=spell,
        )
        return self.forget_planned(plan, reason=reason, actor=actor)

    def owed_purges(self) -> builtins.list[str]:
        """Hard forgets a crash interrupted (their journals): any operation on the store finishes
        them."""
        from .core import purge

        return [path.name for path in purge.owed(self._rt)]

    def stray_purges(self) -> builtins.list[str]:
        """Files among the purge journals that hindsight did not write; never acted on."""
        from .core import purge

        return [path.name for path in purge.strays(self._rt)]

    def finish_purges(self) -> int:
        """Finish the hard forgets a crash interrupted; returns how many finished."""
        from .core import purge

        return purge.finish_owed(self._rt)

    def expire(self) -> int:
        """Delete every memory whose TTL has passed (rows, terms and vectors); returns how many."""
        from .core import lifecycle

        return lifecycle.expire(self._rt)

    def expire_if_due(self) -> int:
        """Purge expired memories if the last purge is older than ``[ttl] purge_every``."""
        from .core import lifecycle

        return lifecycle.expire_if_due(self._rt)

    def release(
        self, memory_id: str, *, reason: str | None = None, actor: str | None = None
    ) -> WriteResult:
        """Release a quarantined memory someone read and found harmless: a new version without the
        quarantine, at its source's usual confidence (its trust label stays); the audit log says
        ``released``.

        Raises:
            InvalidInput: the memory is not quarantined, or cannot take a new version.
            MemoryNotFound: no memory has that id.
        """
        from .core import review

        return review.release(self._rt, memory_id, self.scope, actor, reason)

    def confirm(
        self, memory_id: str, *, reason: str | None = None, actor: str | None = None
    ) -> Memory:
        """Confirm a quarantined memory as an attack: it is forgotten (``restore`` brings it back)
        and the audit log gives the quarantine's reason.

        Raises:
            InvalidInput: the memory is not quarantined.
            MemoryNotFound: no memory has that id.
        """
        from .core import review

        return review.confirm(self._rt, memory_id, self.scope, actor, reason)

    def supersede(
        self, old_id: str, new_id: str, *, reason: str | None = None, actor: str | None = None
    ) -> Memory:
        """Mark a stored memory as superseded by another stored one that replaces it (a person
        curating the store): the older leaves search and stays as history, the two link both ways,
        the audit log says ``supersede``, and summaries quoting the older leave search with it.
        Forgetting the newer lets ``restore`` bring the older back.

        Args:
            old_id: the id (or a unique part) of the active memory that is out of date.
            new_id: the id (or a unique part) of the active memory that replaces it, of the same
                agent.
            reason: why, for the audit log.
            actor: who, for the audit log (default the configured default agent).

        Returns:
            The older memory as it is now (``superseded``, ``superseded_by`` the newer).

        Raises:
            InvalidInput: the two are the same memory, not both active, of two agents, a part of a
                long text, or the newer supersedes another memory already (or would make a loop);
                or a token principal's memory would replace a more trusted one.
            MemoryNotFound: an id names no memory of this store's scope.
        """
        from .core import supersession

        return supersession.supersede(self._rt, old_id, new_id, self.scope, actor, reason)

    def restore(self, memory_id: str, actor: str | None = None) -> Memory:
        """Make a soft-forgotten or archived memory active again (or a superseded one whose
        replacement is gone)."""
        from .core import lifecycle

        return lifecycle.restore(self._rt, memory_id, actor, self.scope)

    def export(self, filters: Filters | None = None) -> Iterator[dict[str, Any]]:
        """Every memory (all statuses by default) as data-model dicts, oldest first."""
        from .core import transfer

        return transfer.export(self._rt, filters, self.scope)

    def import_records(
        self,
        records: Sequence[Mapping[str, Any]],
        progress: Progress | None = None,
        phase: Phase | None = None,
        *,
        provenance: str | None = None,
        refused: Callable[[int, str], None] | None = None,
        stale: Callable[[Sequence[MemoryRow]], set[str]] | None = None,
    ) -> ImportResult:
        """Add exported memories; ids and idempotency keys already present are skipped (idempotent).

        Every record is validated before anything is written: one bad record, or two different
        records with one id, refuses the whole import. Valid records are then embedded and committed
        in batches of ``IMPORT_BATCH``, so an import that is killed (or runs out of disk) keeps what
        it committed, and rerunning it adds exactly the rest. ``progress(done, total)`` follows the
        embedding, ``phase(text)`` each step ("Loading the embedding model").

        ``provenance`` (``hindsight import`` passes ``import``) is the source every record gets,
        whatever it claims; the claimed one is kept as ``metadata.claimed_source``. Without it a
        record keeps its own source (the hooks' ingestion, which wrote it).

        ``refused(number, reason)``, when given, is told each record the store refuses (numbered
        from 1), which is left out while the others are imported together. ``stale(rows)``, when
        given, is asked in the transaction that writes each batch which of its rows must not be
        written after all (the hooks' ingestion: events a hard forget scrubbed meanwhile).

        Raises:
            InvalidInput: a record was refused (without ``refused``); nothing was imported.
            Interrupted: KeyboardInterrupt (Ctrl-C); the message says how many were kept.
        """
        from .core import transfer

        return transfer.import_records(
            self._rt, records, progress, self.scope, phase, provenance, refused, stale
        )

    def events_pending(self) -> bool:
        """Whether recording hooks spooled events this store has not ingested (one ``stat``)."""
        return spool.pending(self.path)

    def ingest_events(self) -> dict[str, Any]:
        """Move what recording hooks spooled (docs/hooks.md) into the store: failures and prompts as
        episodic memories, later successes as their fixes, and the transcripts that closing events
        name, mined. Idempotent; a no-op (one ``stat``) when nothing is spooled.

        Returns:
            ``events`` read, memories ``added``, failures ``fixed``, ``transcripts`` mined and the
            ``sessions`` the events came from.
        """
        from .core import events

        if not spool.pending(self.path):
            return {"events": 0, "added": 0, "fixed": 0, "transcripts": 0, "sessions": []}
        from .transcripts.incremental import mine_named

        return events.ingest(self, mine_named)

    def reindex(self, progress: Progress | None = None, phase: Phase | None = None) -> int:
        """Re-embed every memory with the configured model and rebuild the LanceDB index from the
        ledger."""
        from .core import transfer

        return transfer.reindex(self._rt, progress, phase)

    def migrate(self, target: Store, progress: Progress | None = None) -> MigrateResult:
        """Copy every memory (with its vector, links and status) and audit entry this store holds
        and ``target`` lacks into ``target``: local to Postgres or back; idempotent.

        Raises:
            InvalidInput: the two are the same store, or their embedding models differ.
        """
        from .core.migrate import migrate

        return migrate(self._rt, target._rt, progress)

    def stats(self) -> dict[str, Any]:
        """Counts by status, type, source, agent and outcome; model; sizes on disk; index state."""
        from .core import admin

        return admin.stats(self._rt)

    def record_injection(
        self, event: str, ids: Sequence[str], tokens: int, **fields: Any
    ) -> Injection | None:
        """Add one injection to the record (``core/injections.py``); nothing is written to a store
        directory that does not exist, or with ``[injections] keep_days = 0``.

        Args:
            event: ``session-start``, ``repeat-error``, ``repeat-prompt``, ``mcp-search`` or
                ``recall-prompt``.
            ids: the memories injected, in the block's order.
            tokens: the block's tokens.
            **fields: ``session``, ``ms`` (latency), ``budget``, ``dropped`` (ids the budget left
                out), ``skipped`` (why nothing was injected: ``daily cap``, ``session cap``).

        Returns:
            The entry recorded, or None.
        """
        now = self._rt.now()
        # a token principal's own: the only entries it reads back (``injections.seen_by``)
        entry = record.make(event, ids, tokens, at=now, by=self.scope.token_agent, **fields)
        if not self.path.is_dir() or self.config.injections_keep_days <= 0:
            return None
        record.append(self.path, entry, self.config.injections_keep_days, now)
        return entry

    def record_verdict(
        self, injection: str, memory: str, verdict: str, session: str | None = None
    ) -> None:
        """Record whether the agent ``used``, ``ignored`` or was misled by (``misleading``) a
        memory of an injection."""
        if verdict not in record.VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}")
        if not self.path.is_dir():
            return
        now = self._rt.now()
        entry = Verdict(
            at=iso(now) or "", injection=injection, memory=memory, verdict=verdict, session=session
        )
        record.append(self.path, entry, self.config.injections_keep_days, now)

    def injections(
        self, since: datetime | None = None, session: str | None = None
    ) -> tuple[builtins.list[Injection], builtins.list[Verdict]]:
        """The injection record since ``since`` (of one ``session``), oldest first: the injections
        (each with its memory ids, tokens, latency, budget and what it dropped or why it was
        skipped) and the use verdicts. A store scoped to an agent reads only the entries of its own
        memories (``injections.seen_by``)."""
        return self._seen(*record.read(self.path, as_utc_or_none(since), session))

    def _seen(
        self, entries: builtins.list[Injection], judged: builtins.list[Verdict]
    ) -> tuple[builtins.list[Injection], builtins.list[Verdict]]:
        if not self.scope.scoped:
            return entries, judged
        named = sorted({m for e in entries for m in e.ids} | {v.memory for v in judged})
        visible = {m.id for m in reading.by_ids(self._rt, named, self.scope)}
        return record.seen_by(entries, judged, visible, self.scope.token_agent)

    def judge_session(self, session: str, calls: Sequence[verdicts.Call]) -> int:
        """Record whether the agent used each memory of ``session``'s injections not judged yet,
        from the shell calls the session ran (``core/verdicts.py``); returns how many verdicts were
        recorded."""
        entries, judged = self.injections(session=session)
        done = {v.injection for v in judged}
        todo = [e for e in entries if e.event in verdicts.JUDGED and e.ids and e.id not in done]
        if not todo:
            return 0
        wanted = {i for e in todo for i in e.ids}
        memories = {m.id: m for m in reading.by_ids(self._rt, sorted(wanted), self.scope)}
        found = verdicts.judge(todo, memories, calls)
        for entry, memory_id, verdict in found:
            self.record_verdict(entry.id, memory_id, verdict, session=entry.session)
        return len(found)

    def injection_spend(self, session: str | None) -> tuple[int, int]:
        """Tokens automatic injections spent today (UTC) and in ``session``: what the caps
        count."""
        return record.spent(self.path, session, self._rt.now())

    def standing(self) -> dict[str, float]:
        """Each judged memory's standing from -1 (ignored, misleading) to 1 (used), from the
        injection record's verdicts, decaying with ``[ranking] use_half_life``: what
        reinforcement ranks by."""
        return record.standing(
            record.verdicts(self.path), self._rt.now(), self.config.ranking.use_half_life
        )

    def flagged(self) -> builtins.list[str]:
        """Memories flagged as misleading by the injection record (out of automatic injection)."""
        return recall_report.flagged(record.verdicts(self.path))

    def list_flagged(
        self, filters: Filters | None = None, limit: int | None = 50
    ) -> builtins.list[Memory]:
        """The memories of ``list(filters)`` that the injection record flags as misleading."""
        check_limit(limit)
        ids = set(self.flagged())
        if not ids:
            return []
        found = [m for m in self.list(filters, limit=None) if m.id in ids]
        return found if limit is None else found[:limit]

    def recall_stats(self, since: datetime | None = None) -> dict[str, Any]:
        """What recall cost and bought since ``since`` (``hindsight stats --recall``)."""
        since = as_utc_or_none(since)
        return recall_report.report(self._seen(*record.read(self.path, since)), since)


def open_store(
    path: str | os.PathLike[str] | None = None,
    *,
    embedder: Embedder | None = None,
    warm: bool = False,
    agent: str | None = None,
) -> Store:
    """Open the store that the lookup order picks (see ``hindsight_cli.paths``).

    Args:
        path: a store directory; by default ``HINDSIGHT_STORE``, the nearest ``.hindsight/``, or the
            global store.
        embedder: use this embedder instead of the configured model.
        warm: for long-running processes: search through the LanceDB index.
        agent: scope the store to this agent_id (see ``Store``).

    Returns:
        A ``Store``; it may not exist yet (``record`` and ``import`` create it, ``init`` does
        explicitly).
    """
    location = paths.resolve_store(path)
    return Store(location.path, embedder=embedder, warm=warm, agent=agent)


__all__ = ["Store", "open_store"]
