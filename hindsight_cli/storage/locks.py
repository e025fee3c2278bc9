"""Advisory ``flock`` locks with deadlines, shared by the ledger's and the index's locks."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from .. import safefs


def wait_for_flock(
    fcntl: ModuleType, handle: int, mode: int, deadline: float, busy: Callable[[], Exception]
) -> None:
    """Take ``mode`` (``LOCK_SH``/``LOCK_EX``) on ``handle``, polling with jittered exponential
    backoff; raise ``busy()`` once ``deadline`` (a ``time.monotonic()`` value) has passed."""
    delay = 0.001
    while True:
        try:
            fcntl.flock(handle, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise busy() from None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.05)


def open_lock_file(path: Path) -> int:
    """A descriptor on a lock file, never through a symbolic link planted in its place."""
    return safefs.open_nofollow(path, os.O_RDWR | os.O_CREAT)


@contextmanager
def ordered(
    lock_path: Path,
    queue_path: Path,
    exclusive: bool,
    timeout: float,
    busy: Callable[[], Exception],
    unavailable: Callable[[], Exception],
) -> Iterator[None]:
    """Advisory locks that order every process's access to one file.

    Readers hold ``lock_path`` shared; writers hold it exclusively. A writer first takes
    ``queue_path`` and keeps it while it waits; readers pass through the queue before they take
    their shared lock, so a waiting writer goes next (the engine's own lock prefers readers and can
    starve a writer).

    Where ``fcntl`` is missing (Windows) or the lock file cannot be opened by a reader (a read-only
    directory) the work goes ahead unordered; a writer that cannot open it gets ``unavailable()``.
    """
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        lock = open_lock_file(lock_path)
    except OSError:
        if exclusive and lock_path.parent.exists():
            raise unavailable() from None
        yield
        return
    deadline = time.monotonic() + timeout
    try:
        queue: int | None = open_lock_file(queue_path)
    except OSError:
        queue = None
    try:
        if queue is not None:
            wait_for_flock(fcntl, queue, fcntl.LOCK_EX, deadline, busy)
        try:
            if exclusive:
                wait_for_flock(fcntl, lock, fcntl.LOCK_EX, deadline, busy)
        finally:
            if queue is not None and not exclusive:
                # a reader only passes through the queue
                os.close(queue)
                queue = None
        if not exclusive:
            wait_for_flock(fcntl, lock, fcntl.LOCK_SH, deadline, busy)
        if queue is not None:
            # the writer holds the file: let the next one queue
            os.close(queue)
            queue = None
        yield
    finally:
        if queue is not None:
            os.close(queue)
        # closing a descriptor releases its lock
        os.close(lock)
