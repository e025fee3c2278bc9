"""``ToolStore``: the store operations the MCP tools call, bound to one store and its agent scope:
the server's (``--agent``) or, on an HTTP server started with tokens, the agent of each request's
token. Each is one call to the store; the rules (scope, selection, budget, result shapes) are the
core's."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from ..core.amend import only_learnt
from ..core.selection import browse_filters, when
from ..errors import HindsightError
from ..models import ForgetResult, Memory, SearchResult, SummaryResult, WriteResult
from ..search.query import SearchQuery
from ..serving.readers import READ_THREADS, ReadThreads, Writers
from ..store import Store

log = logging.getLogger("hindsight.mcp")
Result = TypeVar("Result")


class Gate:
    """Who may use the store at once: any number of readers (searches, reads by id, listings),
    beside one writer at a time. A reader never waits for a writer: on a shared server, one agent's
    long write (its embedding) must not stall another agent's search (the store's own locks keep a
    read and a write of the ledger apart; the in-memory index has its own lock). ``exclusive``
    waits for the readers and keeps new ones out: the index's first build, the process's exit."""

    def __init__(self) -> None:
        self.writes = threading.Lock()
        self._changed = threading.Condition()
        self._readers = 0
        self._closed = False

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._changed:
            self._changed.wait_for(lambda: not self._closed)
            self._readers += 1
        try:
            yield
        finally:
            with self._changed:
                self._readers -= 1
                self._changed.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self.writes:
            self._close(None)
            try:
                yield
            finally:
                with self._changed:
                    self._closed = False
                    self._changed.notify_all()

    def hold(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the operations under way, then keep every other one from
        starting, for good. Whether the wait ended in time."""
        deadline = time.monotonic() + timeout
        if not self.writes.acquire(timeout=timeout):
            return False
        return self._close(max(0.0, deadline - time.monotonic()))

    def _close(self, timeout: float | None) -> bool:
        with self._changed:
            self._closed = True
            return self._changed.wait_for(lambda: self._readers == 0, timeout)


class ToolStore:
    """The store as the MCP tools see it: scoped per request to its agent; reads at any time, one
    write at a time (``Gate``)."""

    def __init__(self, store: Store, agent: str | None = None, per_request: bool = False) -> None:
        self.base = store
        # with tokens, each request's credential is its only identity: no fixed agent at all
        self.fixed_agent = None if per_request else agent
        self.per_request = per_request
        # tools run in worker threads
        self.gate = Gate()
        # cleared while the server's first look at the hook spool runs beside the handshake: a
        # tool call waits for it, the handshake does not
        self._ingested = threading.Event()
        self._ingested.set()
        # the reads' own worker threads (``reads``); the writes' one thread per agent
        self._reads = ReadThreads(READ_THREADS)
        self._writes = Writers()
        # each agent's last prompt asked of its client's LLM, with what it summarises (one an
        # agent: never more than the agents)
        self._asked: dict[str | None, tuple[tuple[str | None, ...], str]] = {}

    def reads(self) -> Any:
        """The worker threads reads run in (an ``anyio.CapacityLimiter`` of the running event
        loop), apart from the pool every other call shares (``readers``): a write waits for its
        turn at the gate inside a worker thread, so one agent's queued writes could take every
        thread of that pool, and a read must never wait for them."""
        return self._reads.limiter()

    async def reading(self, call: Callable[[], Result]) -> Result:
        """``call``, a read, in one of the reads' worker threads (``reads``), among at most
        ``readers.PER_AGENT`` of this request's agent's at once."""
        return await self._reads.run(call, self.reader())

    async def writing(self, call: Callable[[], Result]) -> Result:
        """``call``, a write, in a thread of the shared pool, one at a time for this request's
        agent (``readers.Writers``): its queued writes never take the threads another agent's
        write needs to reach the gate."""
        return await self._writes.run(call, self.reader())

    def reader(self) -> str | None:
        """Whose read or write this is, for the fair shares (``readers``): the request's agent on a
        server with tokens; None on a server of one user (its calls may take every thread). A
        request without a token is refused by the call itself."""
        if not self.per_request:
            return None
        try:
            return self.agent
        except HindsightError:
            return None

    @property
    def agent(self) -> str | None:
        if not self.per_request:
            return self.fixed_agent
        from mcp.server.auth.middleware.auth_context import get_access_token

        token = get_access_token()
        if token is None or not token.client_id:
            # never unscoped for want of a credential
            raise HindsightError("This request carries no token; send Authorization: Bearer.")
        return token.client_id

    @property
    def store(self) -> Store:
        """The store as this request's agent sees it (once what hooks spooled before the server
        started is in)."""
        self._ingested.wait()
        # a token's agent is another principal than the store's owner (``Scope.provenance``)
        return self.base.scoped(self.agent, principal=self.per_request)

    def starting(self) -> None:
        """Tool calls wait from now until ``started``."""
        self._ingested.clear()

    def started(self) -> None:
        self._ingested.set()

    def write(self, content: str, **fields: Any) -> WriteResult:
        # the gate only while the store changes: one agent's long text (its redaction, its
        # embedding) never holds another agent's write
        return self.store.record(content, turn=self.gate.writes, **fields)

    def edit(
        self,
        memory_id: str,
        *,
        content: str | None,
        others: list[str],
        resolution: str | None,
        outcome: str | None,
        confidence: float | None,
        tags: list[str],
        importance: float | None = None,
    ) -> WriteResult:
        """``memory_write`` with ``id``: what was learnt, as a new version of that memory. The
        text and the memory's other fields are not edited: a call that gives them is refused."""
        only_learnt(memory_id, others)
        return self.store.edit(
            memory_id,
            content=content,
            resolution=resolution,
            outcome=outcome,
            confidence=confidence,
            tags=tags,
            importance=importance,
            actor=self.agent,
            turn=self.gate.writes,
        )

    def search(self, query: SearchQuery, event: str = "mcp-search") -> SearchResult:
        """A search, recorded in the injection record as ``event`` (``mcp-search`` or
        ``recall-prompt``); a record that cannot be written is logged, never the search's
        failure."""
        store = self.store
        started = time.perf_counter()
        with self.gate.read():
            found = store.search(query)
        try:
            store.record_injection(
                event,
                [hit.memory.id for hit in found.hits],
                found.tokens,
                session=query.current_task,
                ms=(time.perf_counter() - started) * 1000,
                budget=found.budget,
                left_out=found.dropped_for_budget,
            )
        except (OSError, HindsightError) as error:
            log.warning("the injection record could not be written: %s", error)
        return found

    def summarize(
        self,
        task_id: str | None,
        since: str | None,
        until: str | None,
        text: str | None = None,
        method: str = "extractive",
    ) -> SummaryResult:
        store = self.store
        # the prompt the client's LLM answered with ``text`` (``summary_request``)
        asked = None
        found = self._asked.get(self.agent)
        if text and found is not None and found[0] == (task_id, since, until):
            asked = self._asked.pop(self.agent, found)[1]
        # the gate only while the store changes: her summary's reading, composing and embedding
        # never hold another agent's write
        return store.summarize(
            task_id=task_id,
            since=when(since, "since"),
            until=when(until, "until"),
            text=text,
            method=method,
            asked=asked,
            turn=self.gate.writes,
        )

    def summary_request(
        self, task_id: str | None, since: str | None, until: str | None
    ) -> tuple[str, str] | None:
        """The prompt for the client's LLM, or None when there is nothing to summarise (the tool
        then reports that error itself)."""
        store = self.store
        with self.gate.read():
            try:
                request = store.summary_request(
                    task_id=task_id, since=when(since, "since"), until=when(until, "until")
                )
            except HindsightError:
                return None
        # kept for ``summarize``: the LLM's text is written only while the memories still make
        # this prompt (a forget meanwhile would leave its words in that text; review AJ)
        self._asked[self.agent] = ((task_id, since, until), request[1])
        return request

    def consolidate(self, dry_run: bool) -> dict[str, Any]:
        """``hindsight consolidate --json``'s answer (a pattern a dry run would create has no id
        yet)."""
        store = self.store
        return store.consolidate(
            dry_run=dry_run, actor=self.agent or "mcp", turn=self.gate.writes
        ).to_dict()

    def get(self, memory_id: str) -> Memory:
        store = self.store
        with self.gate.read():
            return store.get(memory_id)

    def forget(
        self,
        ids: list[str],
        *,
        task_id: str | None,
        older_than: str | None,
        expired: bool,
        hard: bool,
        reason: str | None,
        archive: bool = False,
    ) -> ForgetResult:
        store = self.store
        with self.gate.writes:
            return store.forget_where(
                ids,
                task_id=task_id,
                older_than=older_than,
                expired=expired,
                hard=hard,
                archive=archive,
                reason=reason,
                actor=self.agent or "mcp",
            )

    def recent(self, limit: int = 20) -> list[Memory]:
        store = self.store
        with self.gate.read():
            return store.list(browse_filters(search=True), limit=limit)

    def ingest_hook_events(self) -> int:
        """Move what lifecycle hooks spooled (docs/hooks.md) into the store: the server's own write,
        run at start and from its loop, never inside a read-only tool. One stat when there is
        nothing."""
        store = self.base
        if not (store.exists and store.events_pending()):
            return 0
        with self.gate.writes:
            try:
                return int(store.ingest_events()["events"])
            except HindsightError as error:
                log.warning("could not ingest hook events: %s", error)
                return 0

    def hold(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the store operation under way, then keep every other one from
        starting: the process is about to exit. Whether the wait ended in time."""
        return self.gate.hold(timeout)

    def warm_up(self) -> None:
        """Load the model and bring the index up to date. The in-memory index loads outside the
        tools' lock (a search meanwhile is answered by the ledger, exactly as the index will
        answer); the rest, the LanceDB index where there is no in-memory one among it, under the
        same lock as the tools: a tool call that arrives meanwhile waits instead of racing to create
        the index."""
        self.ingest_hook_events()
        store = self.base
        store.load_in_memory_index()
        with self.gate.exclusive():
            if store.exists:
                store.expire_if_due()
                store.warm_up()
            store.embedder.embed(["warm up"])
