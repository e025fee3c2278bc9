"""Worker threads of their own for the reads of a shared server (``hindsight mcp --transport
http``, ``hindsight ui``).

A server runs each blocking call in a worker thread of one pool (anyio's, 40 threads), and a write
waits inside its thread: for its turn at a write gate, for the store's lock, or for its embedding,
which takes as long as its text. One agent's long or queued writes can so take every thread of that
pool, and every other agent's searches and pages would wait for them. Reads run here instead, in
``READ_THREADS`` threads that no write ever takes; a read never waits for a write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from anyio import CapacityLimiter

# reads (searches, reads by id, listings, pages) at once
READ_THREADS = 16
Result = TypeVar("Result")


class ReadThreads:
    """The reads' worker threads: one ``anyio.CapacityLimiter`` per running event loop."""

    def __init__(self, size: int = READ_THREADS) -> None:
        self.size = size
        # (event loop, its limiter)
        self._limiter: tuple[object, CapacityLimiter] | None = None

    def limiter(self) -> CapacityLimiter:
        """The limiter of the running event loop (a limiter belongs to the loop that made it)."""
        import anyio
        import anyio.lowlevel

        loop = anyio.lowlevel.current_token()
        if self._limiter is None or self._limiter[0] != loop:
            self._limiter = (loop, anyio.CapacityLimiter(self.size))
        return self._limiter[1]

    async def run(self, call: Callable[[], Result]) -> Result:
        """``call``, a read, in one of these threads."""
        import anyio

        return await anyio.to_thread.run_sync(call, limiter=self.limiter())
