"""Waiting for an advisory ``flock`` with a deadline, shared by the ledger's and the index's locks."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any


def wait_for_flock(fcntl: Any, handle: int, mode: int, deadline: float, busy: Callable[[], Exception]) -> None:
    """Take ``mode`` (``LOCK_SH``/``LOCK_EX``) on ``handle``, polling with jittered exponential backoff;
    raise ``busy()`` once ``deadline`` (a ``time.monotonic()`` value) has passed."""
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
