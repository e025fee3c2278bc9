"""Worker threads of their own for the reads of a shared server (``hindsight mcp --transport
http``, ``hindsight ui``).

A server runs each blocking call in a worker thread of one pool (anyio's, 40 threads), and a write
waits inside its thread: for its turn at a write gate, for the store's lock, or for its embedding,
which takes as long as its text. One agent's long or queued writes can so take every thread of that
pool, and every other agent's searches and pages would wait for them. Reads run here instead, in
``READ_THREADS`` threads that no write ever takes; a read never waits for a write.

Among the reads, each agent (a token's, a UI login's) holds at most ``PER_AGENT`` of those threads
at once, and its other reads wait for one of its own: an agent that sends a hundred slow searches
at once queues behind itself, and another agent's search finds a thread. Reads of no agent (a
server without tokens: one user) may take them all.

Writes go one at a time (the MCP server's write gate, the store's lock), so an agent's writes take a
thread of the shared pool one at a time too (``Writers``): the rest wait without a thread, and
another agent's write waits for the one under way, never for a queue of someone else's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from anyio import CapacityLimiter

# reads (searches, reads by id, listings, pages) at once
READ_THREADS = 16
# of them, at most this many of one agent's
PER_AGENT = 4
Result = TypeVar("Result")


class ReadThreads:
    """The reads' worker threads: one ``anyio.CapacityLimiter`` per running event loop, and one
    per agent in front of it."""

    def __init__(self, size: int = READ_THREADS, per_agent: int = PER_AGENT) -> None:
        self.size, self.per_agent = size, per_agent
        # (event loop, its limiter, each agent's limiter)
        self._loop: tuple[object, CapacityLimiter, dict[str, CapacityLimiter]] | None = None
        # reads that have asked for a thread so far (the tests await it)
        self.asked = 0

    def _limiters(self) -> tuple[CapacityLimiter, dict[str, CapacityLimiter]]:
        """The running event loop's limiters (a limiter belongs to the loop that made it)."""
        import anyio
        import anyio.lowlevel

        loop = anyio.lowlevel.current_token()
        if self._loop is None or self._loop[0] != loop:
            self._loop = (loop, anyio.CapacityLimiter(self.size), {})
        return self._loop[1], self._loop[2]

    def limiter(self) -> CapacityLimiter:
        """The limiter of every read of the running event loop."""
        return self._limiters()[0]

    async def run(self, call: Callable[[], Result], agent: str | None = None) -> Result:
        """``call``, a read of ``agent`` (None: of the server's one user), in one of these
        threads."""
        import anyio

        shared, agents = self._limiters()
        self.asked += 1
        if agent is None:
            return await anyio.to_thread.run_sync(call, limiter=shared)
        own = agents.setdefault(agent, anyio.CapacityLimiter(self.per_agent))
        async with own:
            return await anyio.to_thread.run_sync(call, limiter=shared)


class Writers:
    """One thread of the shared pool per agent for its writes; the agent's next write waits
    (without a thread) until its last one is done. Writes of no agent (a server of one user) are
    not held back."""

    def __init__(self) -> None:
        # (event loop, each agent's limiter)
        self._loop: tuple[object, dict[str, CapacityLimiter]] | None = None
        # writes that have asked for a thread so far (the tests await it)
        self.asked = 0

    async def run(self, call: Callable[[], Result], agent: str | None = None) -> Result:
        """``call``, a write of ``agent``, in a thread of the shared pool."""
        import anyio
        import anyio.lowlevel

        self.asked += 1
        if agent is None:
            return await anyio.to_thread.run_sync(call)
        loop = anyio.lowlevel.current_token()
        if self._loop is None or self._loop[0] != loop:
            self._loop = (loop, {})
        own = self._loop[1].setdefault(agent, anyio.CapacityLimiter(1))
        async with own:
            return await anyio.to_thread.run_sync(call)
