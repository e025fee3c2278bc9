"""The ledger key an approval records (review AE): a store's approval holds for the ledger it was
given to, not for whatever file sits at ``ledger.duckdb`` later.

Hindsight writes a random 128-bit key into a local ledger's ``meta`` as it creates the ledger;
approving the store records that key beside the allow-list entry (``<entry>.ledger``). A project
archive unpacked over a checkout (``tar``, ``unzip``, ``rsync``, ``cp -r`` of a template) replaces
the ledger and keeps the store's id and path, so the entry alone still matches: its ledger holds no
key or another one, and the store reads as one of unknown origin until ``hindsight allow``.

Reading the ledger needs its engine, so ``trust`` is handed a callable that reads the key
(``core.binding``): safefs stays below storage.

Standard library and ``safefs`` only: the recording hooks use it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .. import safefs
from . import records

# beside an allow-list entry: the key of the ledger the approval was given to
KEY_SUFFIX = ".ledger"
# what reads the key of a store's ledger: None when there is no ledger to check (none yet, or a
# database, which the approval binds by its URL), "" for a ledger that holds no key
KeyOf = Callable[[], "str | None"]


class Unreadable(Exception):
    """The key cannot be read now without waiting: a writer of this store holds its ledger (a hard
    forget's rewrite copies the whole file). A long-lived process keeps its last answer meanwhile
    (``trust.Trusted``): a search must not wait behind another agent's write for it."""


def new() -> str:
    # os.urandom is what secrets.token_hex reads; importing secrets costs a hook 20 ms
    return os.urandom(16).hex()


def valid(value: str) -> bool:
    return records.hex_digits(value, 32)


def recorded(entry: str) -> str | None:
    """The key the allow-list entry ``entry`` records; None when it records none (an approval
    from before ledger keys), "" when what it holds is no key hindsight wrote."""
    return records.read_record(entry + KEY_SUFFIX, "The allow-list entry", valid)


def holds(entry: str, found: str | None) -> bool:
    """Whether a ledger whose key is ``found`` (``KeyOf``) is the one the approval at ``entry`` was
    given to: the key it records, or, for an approval from before keys, a ledger without one (the
    owner's next write binds it: ``core.binding.bind``)."""
    if found is None:
        return True
    wanted = recorded(entry)
    if wanted is None:
        return found == ""
    return bool(wanted) and found == wanted


def record(entry: str, key: str) -> None:
    """Record ``key`` as the key of the ledger the approval at ``entry`` is given to."""
    if not valid(key):
        raise ValueError("not a ledger key")
    safefs.write_private(entry + KEY_SUFFIX, key + "\n", durable=True)


def why(where: str) -> str:
    """Why a store whose ledger is not the approved one is left alone, and what to do."""
    return (
        f"The ledger of the store {where} is not the one you approved: it holds no key or "
        "another one than your approval records, as a ledger unpacked or copied over yours from "
        "elsewhere does (a project archive, a template, a starter kit), so its memories are "
        "labelled untrusted and hooks and the MCP server leave it alone. If you trust the "
        f"ledger now there, run `hindsight allow {where}`."
    )
