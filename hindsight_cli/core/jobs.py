"""Work beside the caller's: a function started in a thread of its own, its result a
``concurrent.futures.Future``; the pipeline that overlaps one step of a batch with the next batch's
other step; and how a long job reports where it is.

A job is one daemon thread, not a ``ThreadPoolExecutor``'s worker: those are not daemons, and the
interpreter joins them at exit, so an embedding that a Ctrl-C dropped, or a model warm-up nobody
waits for any more, would hold the process's exit; and a pool's idle worker would outlive the work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")
Item = TypeVar("Item")

# ``progress(done, total)``
Progress = Callable[[int, int], None]
# a long job says which step it is on ("Loading the embedding model")
Phase = Callable[[str], None]


def announce(phase: Phase | None, text: str) -> None:
    if phase is not None:
        phase(text)


def beside(function: Callable[[], T]) -> Future[T]:
    """Start ``function`` in a daemon thread now; the future holds its value, or its exception,
    which ``result()`` raises in the caller's thread."""
    future: Future[T] = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(function())
        # the caller's to raise, as a ThreadPoolExecutor's worker hands it on
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, daemon=True, name="hindsight-job").start()
    return future


def pipelined(
    items: Sequence[Item], first: Callable[[Item], object], then: Callable[[Item], T]
) -> Iterator[T]:
    """``first(item)``, then ``then(item)``, for every item in order, yielding what each ``then``
    returns; the next item's ``first`` runs in a thread while this item's ``then`` runs here.

    Only the caller's thread runs ``then``. An error of ``first`` is raised when its item's turn
    comes; one item has nothing to overlap with, so its ``first`` runs here, without a thread's cost.
    """
    if not items:
        return

    def job(item: Item) -> Callable[[], object]:
        return beside(lambda: first(item)).result if len(items) > 1 else lambda: first(item)

    pending = job(items[0])
    for number, item in enumerate(items):
        # raises ``first``'s error, or a Ctrl-C while it waits
        pending()
        if number + 1 < len(items):
            pending = job(items[number + 1])
        yield then(item)
