"""One Ctrl-C (SIGINT) stops the server within a second, on either transport.

Why it did not: over stdio, the SDK reads stdin in a worker thread blocked in ``readline``, which no
cancellation interrupts, so the event loop waited for the next line or EOF; over HTTP, uvicorn waits
for the requests in flight (a tool call queued behind the model's warm-up, an open event stream) and
the session manager then for the tools' worker threads. So on the first signal a deadline starts:
the server gets ``GRACE`` seconds to stop by itself, a store operation under way gets ``GRACE`` more
to finish (no other starts), and then the process exits with 128 + the signal's number. A second
signal exits at once. Every write is crash-safe already (docs/architecture.md), so the deadline
never leaves a store half-written.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import uvicorn

log = logging.getLogger("hindsight.mcp")
# seconds; twice this is the longest a stop takes
GRACE = 0.3


class Stopper:
    """Turns the first stop signal into a deadline, the second into an immediate exit. ``hold``
    waits for the store operation under way (``ToolStore.hold``)."""

    def __init__(self, hold: Callable[[float], object], grace: float = GRACE) -> None:
        self.hold = hold
        self.grace = grace
        # set once the server has stopped by itself
        self.finished = threading.Event()
        self._signal: int | None = None

    def signalled(self, signum: int, graceful: bool = True) -> None:
        """``graceful``: give the server ``grace`` seconds to stop by itself before the deadline."""
        if self._signal is not None:
            self.exit(signum)
        self._signal = signum
        log.info("stopping (%s)", signal.Signals(signum).name)
        threading.Thread(
            target=self._deadline, args=(signum, graceful), daemon=True, name="hindsight-stop"
        ).start()

    def _deadline(self, signum: int, graceful: bool) -> None:
        if graceful and self.finished.wait(self.grace):
            return
        self.hold(self.grace)
        self.exit(signum)

    @staticmethod
    def exit(signum: int) -> None:
        from ..safefs import rendezvous

        for handler in logging.getLogger().handlers:
            handler.flush()
        # the hooks' socket goes with the process (os._exit runs no ``finally``)
        rendezvous.close_all(GRACE)
        os._exit(128 + signum)


def on_interrupt(stopper: Stopper) -> None:
    """For stdio: SIGINT starts the deadline at once (nothing there stops gracefully: the stdin
    reader would wait for input). Installed before the event loop starts, so asyncio keeps it."""
    signal.signal(signal.SIGINT, lambda signum, frame: stopper.signalled(signum, graceful=False))


def uvicorn_server(config: uvicorn.Config, stopper: Stopper) -> uvicorn.Server:
    """A uvicorn server whose stop signals also start the deadline."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            stopper.signalled(sig)
            super().handle_exit(sig, frame)

    return Server(config)
