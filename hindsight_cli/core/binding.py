"""A store's approval bound to its ledger (review AE): the ledger's key, read, recorded and bound.

A local ledger holds a random key in its ``meta`` (``storage.base.LEDGER_KEY``, written as
hindsight creates it); the store's approval records it (``safefs.ledger_key``). ``trust`` asks for
the key through ``key_of``; this module reads it through the store's own ledger, records it once
hindsight has created the ledger, and binds an approval given before keys existed at the owner's
next write. A database is bound by its URL (an archive cannot replace one): its key is written and
recorded, never asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths
from ..errors import HindsightError, StoreBusy
from ..safefs import ledger_key, token_digest, trust
from ..storage.base import LEDGER_KEY, Ledger

if TYPE_CHECKING:
    from .runtime import Runtime


def key_in(ledger: Ledger) -> str | None:
    """The key ``ledger`` holds: None when there is no ledger, "" when it holds none. A read: it
    never writes one, and holds no lock a writer waits for beyond the read."""
    if not ledger.exists:
        return None
    with ledger.read() as session:
        return session.meta().get(LEDGER_KEY, "")


def key_of(ledger: Ledger, wait: bool = True) -> ledger_key.KeyOf | None:
    """What ``trust`` reads the key with: a local ledger's (a file an archive can replace). Without
    ``wait``, it never waits for a writer holding the ledger and raises ``ledger_key.Unreadable``
    instead (``trust.Trusted`` then keeps its last answer): read through a ledger of its own on the
    same file, whose lock timeout is 0."""
    if not ledger.capabilities.files:
        return None
    if wait:
        return lambda: key_in(ledger)
    path = getattr(ledger, "path", None)
    at_once = _local_at(path, lock_timeout=0.0) if path is not None else ledger

    def read() -> str | None:
        try:
            return key_in(at_once)
        except StoreBusy:
            raise ledger_key.Unreadable() from None

    return read


def _local(store: Path) -> Ledger:
    """The local ledger of a store directory no ``Runtime`` is open on (``doctor``, ``allow``).
    The config is not read: ``ledger.duckdb`` is the file an archive brings, whatever it says."""
    from ..config import Config
    from ..storage.registry import BACKENDS

    return BACKENDS["local"].open(store, Config())


def _local_at(path: Path, lock_timeout: float) -> Ledger:
    """A local ledger on the file ``path`` with its own lock timeout."""
    from ..storage.sql.duckdb_ledger import DuckDBLedger

    return DuckDBLedger(path, lock_timeout=lock_timeout)


def local_key(store: Path) -> ledger_key.KeyOf:
    """``key_of`` for a store directory no ``Runtime`` is open on."""
    ledger = _local(store)
    return lambda: key_in(ledger)


def why(store: Path) -> str | None:
    """``trust.why`` of a store directory, its local ledger's key included: why the store is of
    unknown origin and what to do, in one line; None when it is trusted."""
    return trust.why(store, local_key(store))


def writable(store: Path, why_not: Callable[[], str | None] | None = None) -> bool:
    """The rule every write by hand into a store asks (``Runtime.writable``, ``config set``):
    whether the store is fresh (nothing there yet but what init writes, reached through no link
    the user did not approve: creating it there makes it this user's); else it must be trusted
    (``why_not``, by default ``why``, says why it is not).

    Raises:
        UntrustedStore: it is neither: a store that came with a repository, often committed to it,
            or a directory a planted ``.hindsight`` link names, where what is written would go
            into files the repository tracks, or into another program's files.
    """
    fresh = trust.fresh(store)
    if not fresh:
        reason = why_not() if why_not is not None else why(store)
        if reason is not None:
            raise trust.UntrustedStore(
                f"{reason} Nothing is written into it until you do: {store} may be tracked by "
                "the repository, and what you add would leave with the next push."
            )
    return fresh


def require_trusted(store: Path) -> None:
    """Raise ``UntrustedStore`` (saying why) unless ``store`` is trusted, its ledger too."""
    reason = why(store)
    if reason is not None:
        raise trust.UntrustedStore(reason)


def reserve(rt: Runtime) -> str | None:
    """The key of the ledger hindsight is about to create, recorded in the store's approval first
    (an approval naming a key trusts a store without a ledger: a run killed before the ledger is
    written leaves it approved, and the rerun records another). None for a store not approved
    (the ledger then makes its own key)."""
    entry = trust.entry_of(rt.path)
    if entry is None or trust.builtin(rt.path):
        return None
    key = ledger_key.new()
    ledger_key.record(entry, key)
    return key


def bind(rt: Runtime) -> None:
    """The owner's write to a store approved before ledger keys, whose ledger holds none: a new
    key, first into the ledger, then into the approval (reads never write one)."""
    if not rt.ledger.capabilities.files or trust.builtin(rt.path):
        return
    entry = trust.entry_of(rt.path)
    if entry is None or ledger_key.recorded(entry) is not None or key_in(rt.ledger) != "":
        return
    key = ledger_key.new()
    with rt.ledger.write() as session:
        session.set_ledger_key(key)
    # killed here: a keyed ledger the approval does not name, refused until `hindsight allow`
    ledger_key.record(entry, key)


def bind_tokens(store: Path) -> None:
    """The owner's write to a store approved before token records: the token file now there (or
    none) is recorded as the one the approval lets in, as ``bind`` records the ledger's key."""
    if trust.builtin(store):
        return
    entry = trust.entry_of(store)
    if entry is None or token_digest.recorded(entry) is not None:
        return
    found = token_digest.current(store)
    # a file its readers refuse as it is (unsafe, unreadable) is left for `allow` to settle
    if found is not None:
        token_digest.record(entry, found)


def approve(store: Path, tokens: bool = False) -> Path | None:
    """``hindsight allow``: the store is approved with the ledger now there. A ledger holding no key
    gets one first (the user trusts it as it is; a ledger approved must be told from another).

    The token file now there is approved with it only when the approval already lets it in (the
    one recorded, or any, for an approval from before token records), or with ``tokens``
    (``hindsight allow --adopt-tokens``): the user runs ``allow`` on the word of a line about the
    store's id, ledger or config, and a file an archive unpacked beside them (its author's tokens)
    must not be let in unsaid (review AL). Returns the token file left out, or None."""
    key: str | None = None
    if (store / paths.LEDGER_FILE).exists() and not trust.builtin(store):
        ledger = _local(store)
        try:
            key = key_in(ledger)
            if key == "":
                key = ledger_key.new()
                with ledger.write() as session:
                    session.set_ledger_key(key)
        except HindsightError:
            # a ledger hindsight refuses to read (one holding a view, say): approved without its
            # key, it stays refused, and each use says why
            key = None
    # a token file its readers refuse as it is (another user's, say) is recorded as no file
    found = token_digest.current(store) or token_digest.NONE
    entry = None if trust.builtin(store) else trust.entry_of(store)
    # "": no approval of this store here (a new one, or a store id an archive replaced)
    before = token_digest.recorded(entry) if entry is not None else ""
    kept, left = found, None
    if not (
        tokens or trust.builtin(store) or found in (token_digest.NONE, before) or before is None
    ):
        kept, left = before or token_digest.NONE, store / paths.TOKENS_FILE
    trust.allow(store, key=key or None, tokens=kept)
    return left
