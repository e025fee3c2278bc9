"""Hard forgetting that a crash cannot leave half done (issue 16, point 3).

A hard forget deletes rows in one transaction, then scrubs what still holds their bytes: the LanceDB
index (old data files and versions), the hook spool (the events and "seen before" signatures they
came from), the injection record (their ids) and the ledger file (freed blocks). A crash between the
commit and the last scrub would leave the text on disk. So before the delete commits, the purge
begins (``begin``): a journal file under ``purges/`` names the ids (never the content) and salted
hashes of the forgotten words (for the spool, whose lines the ledger does not know), and from then
until ``finish`` drops it the purge is *owed*. Any process that opens the store finishes owed purges
first (``finish_owed``), as does ``hindsight doctor --fix``; ``doctor store`` fails while one is
owed. Every step is idempotent, so finishing twice, or after a crash in the middle of finishing, is
safe.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import safefs
from ..errors import HindsightError
from ..safefs import temps
from ..safefs.reading import load_own
from ..storage import spool, spool_scrub
from ..storage.rows import MemoryRow
from ..text import terms
from . import injections
from .scope import by_principal

if TYPE_CHECKING:
    from .runtime import Runtime

log = logging.getLogger("hindsight.purge")

JOURNAL_DIR = "purges"
# memories one ledger transaction of a forget takes (soft or hard): every other process's reads
# and writes wait while one is open, about 0.5 ms a memory, so a forget of all of a principal's
# memories by task or age must not hold the ledger for all of them (review AG: 20,000 passed the
# lock timeout). A crash between two batches leaves the journal, whose finish deletes the rest.
FORGET_BATCH = 1000


def journal_dir(rt: Runtime) -> Path:
    return rt.path / JOURNAL_DIR


def _listed(rt: Runtime) -> list[Path]:
    return _listed_in(journal_dir(rt))


def _listed_in(directory: Path) -> list[Path]:
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    return sorted(directory / name for name in names if name.endswith(".json"))


def journal(path: Path) -> dict[str, Any] | None:
    """The journal at ``path`` as ``begin`` writes it, or None when the file is not one (gone,
    unreadable, or another shape: one that came with a repository's ``.hindsight/``)."""
    try:
        data = load_own(path)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    lists = [data.get("ids"), data.get("words")]
    texts = all(isinstance(v, list) and all(isinstance(i, str) for i in v) for v in lists)
    labels = all(isinstance(data.get(k), str | None) for k in ("reason", "actor"))
    return data if texts and labels and isinstance(data.get("salt"), str) else None


def owed(rt: Runtime) -> list[Path]:
    """The purges begun and not finished (one ``stat`` when there are none)."""
    return [path for path in _listed(rt) if journal(path) is not None]


def forgetting(store: Path) -> list[Callable[[str], bool]]:
    """For each purge of ``store`` begun and not finished: whether a word is one it forgets (what
    its spool scrub takes, or will)."""
    found = []
    for path in _listed_in(store / JOURNAL_DIR):
        data = journal(path)
        if data is not None:
            found.append(_forgets(str(data["salt"]), frozenset(data["words"])))
    return found


def _forgets(salt: str, words: frozenset[str]) -> Callable[[str], bool]:
    return lambda word: _digest(salt, word) in words


def strays(rt: Runtime) -> list[Path]:
    """Files under ``purges/`` that are not journals hindsight wrote: never acted on."""
    return [path for path in _listed(rt) if path.exists() and journal(path) is None]


def _words(rows: Iterable[MemoryRow]) -> set[str]:
    """The words of the forgotten memories, as the spool's signatures and events hold them. A token
    principal's text, and what is built from it (``scope.by_principal``), never came through the
    spool nor the mining state (the hooks and transcripts are the store owner's): its words are no
    trace there, and a line goes when it holds four of them (``spool_scrub.mostly``), so a principal's
    memory of common words, forgotten by her or by the owner, would take every pending hook event,
    "seen before" signature and open failure of the owner's with it."""
    found: set[str] = set()
    for row in rows:
        if by_principal(row.source):
            continue
        text = " ".join(
            [row.content, row.resolution or "", " ".join(row.tags), json.dumps(row.metadata)]
        )
        found.update(spool.terms(text))
        found.update(terms(text))
    return found


def _digest(salt: str, word: str) -> str:
    return hashlib.sha256(f"{salt}:{word}".encode()).hexdigest()[:24]


def _write_durably(path: Path, data: dict[str, Any]) -> None:
    """The journal, flushed with its directory entry (a power cut must not lose it), through the
    one writer whose temp files a killed writer leaves are swept (``sweep_temps``): a journal's
    temp file holds the ids and the salted digests of every forgotten word beside their salt."""
    safefs.write_private(path, json.dumps(data), durable=True)


# journals this process is working on -> the descriptor holding their lock
_HELD: dict[str, int] = {}


def _lock_path(path: Path) -> Path:
    return path.with_suffix(".lock")


def _take(path: Path, wait: bool) -> bool:
    """The lock that says a live process is finishing this purge (released when it dies); False when
    another process holds it."""
    try:
        import fcntl
    # Windows: no way to tell a live owner from a dead one; the owner finishes it
    except ImportError:
        return wait
    fd = os.open(_lock_path(path), os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        os.close(fd)
        return False
    _HELD[str(path)] = fd
    return True


def _release(path: Path) -> None:
    _lock_path(path).unlink(missing_ok=True)
    fd = _HELD.pop(str(path), None)
    if fd is not None:
        os.close(fd)


def begin(
    rt: Runtime, ids: Sequence[str], rows: Iterable[MemoryRow], reason: str | None, actor: str
) -> Path:
    """Write, durably, the journal that says ``ids`` must be purged: from now until ``finish`` the
    purge is owed. Returns the journal file, whose lock this process holds until it has finished
    the purge, cancelled it (``cancel``) or deferred it (``defer``): other processes leave it alone
    meanwhile."""
    directory = journal_dir(rt)
    safefs.private_dir(directory, "The purge journal")
    salt = secrets.token_hex(8)
    path = directory / f"{rt.now():%Y%m%dT%H%M%S}-{secrets.token_hex(4)}.json"
    _take(path, wait=True)
    _write_durably(
        path,
        {
            "ids": list(ids),
            "salt": salt,
            "words": sorted(_digest(salt, w) for w in _words(rows)),
            "reason": reason,
            "actor": actor,
        },
    )
    return path


def cancel(path: Path) -> None:
    """Nothing was deleted after all: drop the journal, since nothing is owed."""
    path.unlink(missing_ok=True)
    _release(path)


def defer(path: Path) -> None:
    """Leave a committed purge owed, its journal kept, for the next open to finish: release this
    process's lock (it could not finish it now)."""
    fd = _HELD.pop(str(path), None)
    if fd is not None:
        os.close(fd)


def add_ids(path: Path, ids: Sequence[str]) -> None:
    """Add to the journal every id the delete took that it does not name yet (the delete selects
    again, in its own transaction: more may have expired, or been built on the memories)."""
    data = load_own(path)
    data["ids"] = sorted(set(data["ids"]) | set(ids))
    _write_durably(path, data)


def batches(ids: Sequence[str]) -> Iterator[list[str]]:
    """``ids`` in runs of at most ``FORGET_BATCH``, one ledger transaction each."""
    for start in range(0, len(ids), FORGET_BATCH):
        yield list(ids[start : start + FORGET_BATCH])


def _delete(rt: Runtime, ids: list[str], reason: str | None, actor: str) -> list[str]:
    """Delete whatever of ``ids`` (and what was built from them) is still there: the crash may have
    come before the delete committed, or between two of its batches. Returns every id deleted or
    already gone."""
    gone: list[str] = []
    for batch in batches(ids):
        with rt.ledger.write() as session:
            derived = session.derived_from(batch)
            if session.delete(batch + derived):
                at = rt.now()
                why = reason or "an interrupted purge, finished"
                session.audit("forget_hard", batch, at, why, actor)
                if derived:
                    session.audit(
                        "forget_hard", derived, at, "built from hard-forgotten memories", actor
                    )
        gone += batch + derived
    return gone


# where ``hindsight mine`` keeps each transcript's state (``transcripts.state.STATE_DIR``)
MINED_DIR = "mined"


def scrub_mining_state(store: Path, ids: set[str], forgotten: Callable[[str], bool]) -> int:
    """Drop from every ``<store>/mined/*.json`` the open failures (a failed command's tool and
    arguments, kept until a later call fixes it) of the forgotten memories, and those whose words are
    mostly forgotten ones. Returns how many went."""
    directory = store / MINED_DIR
    if not directory.is_dir():
        return 0
    dropped = 0
    for path in sorted(directory.glob("*.json")):
        try:
            state = load_own(path)
        except (OSError, ValueError):
            continue
        failures = state.get("open") if isinstance(state, dict) else None
        if not isinstance(failures, list):
            continue
        kept = [
            f
            for f in failures
            if not (
                isinstance(f, dict)
                and (
                    f.get("ref") in ids
                    or spool_scrub.mostly(terms(" ".join(str(v) for v in f.values())), forgotten)
                    # a forgotten command among the calls of its trail (review BU2)
                    or spool_scrub.holds_forgotten(f, forgotten)
                )
            )
        ]
        if len(kept) != len(failures):
            dropped += len(failures) - len(kept)
            safefs.write_private(path, json.dumps({**state, "open": kept}))
    return dropped


def sweep_temps(store: Path) -> int:
    """Delete the temp files killed writers left in the store's own directories (each a whole copy
    of a spool, mining state or record file as it was being rewritten), before the scrubs read what
    is left."""
    removed = 0
    directories = (
        store,
        spool.spool_dir(store),
        spool.spool_dir(store) / spool.OPEN_DIR,
        store / JOURNAL_DIR,
    )
    for directory in directories:
        if directory.is_dir() and not directory.is_symlink():
            removed += temps.remove_stale_temps(directory)
    removed += _sweep_old_journal_temps(store / JOURNAL_DIR)
    mined = store / MINED_DIR
    if mined.is_dir() and not mined.is_symlink():
        removed += temps.remove_stale_temps(mined)
        # the mining state's temp files of versions before it wrote through safefs
        for path in mined.glob("tmp*.tmp"):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _sweep_old_journal_temps(directory: Path) -> int:
    """The journal temp files of versions before the journal was written through ``safefs``
    (``.NAME.json.tmp``), left by a killed purge: each removed unless a live process holds its
    journal's lock (it is still writing it)."""
    if not directory.is_dir() or directory.is_symlink():
        return 0
    removed = 0
    for temp in directory.glob(".*.json.tmp"):
        journal_path = directory / temp.name[1 : -len(temps.TEMP_SUFFIX)]
        ours = str(journal_path) in _HELD
        if not ours and not _take(journal_path, wait=False):
            continue
        temp.unlink(missing_ok=True)
        removed += 1
        if not ours:
            # taken only to ask: the lock file goes unless its journal is still owed
            if journal_path.exists():
                defer(journal_path)
            else:
                _release(journal_path)
    return removed


def finish(rt: Runtime, path: Path) -> None:
    """Finish one owed purge: delete, scrub the index, the spool and the ledger, then drop the
    journal."""
    data = journal(path)
    if data is None:
        # gone meanwhile (finished by its owner), or not one of ours: nothing to act on
        _release(path)
        return
    ids = _delete(rt, list(data["ids"]), data.get("reason"), str(data.get("actor") or "hindsight"))
    if rt.mirror is not None:
        rt.mirror.scrub(ids)
    words = set(data["words"])
    sweep_temps(rt.path)
    spool_scrub.scrub(rt.path, lambda word: _digest(data["salt"], word) in words)
    scrub_mining_state(rt.path, set(ids), lambda word: _digest(data["salt"], word) in words)
    injections.scrub(rt.path, set(ids))
    # the indexes this process holds catch up with the delete before the rewrite below keeps every
    # reader off the ledger for as long as it copies the store: a search here (another agent's, on
    # a shared server) then answers from them, never waiting behind this forget
    rt.after_write()
    rt.ledger.scrub()
    path.unlink(missing_ok=True)
    _release(path)


def finish_owed(rt: Runtime) -> int:
    """Finish every owed purge this process can; one that cannot finish now (the store is busy)
    stays owed and the next open tries again. Returns how many were finished."""
    done = 0
    for path in owed(rt):
        if str(path) in _HELD or not _take(path, wait=False):
            # a live process is finishing it
            continue
        try:
            # its owner may have finished it just before we took the lock
            if path.exists():
                finish(rt, path)
                done += 1
            else:
                _release(path)
        except (HindsightError, OSError) as error:
            defer(path)
            log.warning("an owed purge (%s) could not finish yet: %s", path.name, error)
    return done
