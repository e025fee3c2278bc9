"""Bearer tokens for the HTTP MCP server, one agent each (``hindsight mcp token``).

A token is shown once, when it is made; the file keeps only its SHA-256 (which cannot be turned back
into the token), the agent it belongs to and when it was made. A server started with tokens answers
only requests that carry one, and scopes each request to its token's agent as ``--agent`` would.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NotRequired, TypedDict

from .. import safefs
from ..errors import HindsightError, InvalidInput, StoreBusy
from ..paths import TOKENS_FILE
from ..safefs import token_digest, trust
from ..safefs.reading import parse_json
from ..text import MAX_LABEL
from ..timeutil import iso, now
from .scope import agent_name, check_agent, token_label

PREFIX = "hst_"
DEFAULT_FILE = TOKENS_FILE
# how long ``mcp token`` waits for another run changing the same token file
EDIT_TIMEOUT = 10.0
log = logging.getLogger("hindsight.mcp")


class Entry(TypedDict):
    """One token of the file: its agent and its digest (the token itself is never stored)."""

    agent: str
    sha256: str
    created_at: NotRequired[str | None]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Foreign(InvalidInput):
    """A store's own token file that is not the one ``hindsight mcp token`` wrote (review AE)."""


def load(path: Path) -> list[Entry]:
    """The file's entries; a missing file has none.

    Raises:
        Foreign: it is a store's own token file whose bytes are not the ones the store's approval
            records (``safefs.token_digest``): an archive unpacked over the store brought it.
        InvalidInput: it cannot be read, git tracks it, or it lies in a store not approved here.
    """
    try:
        # it decides who reads your memories: yours only
        text = safefs.read_trusted(path, "The token file")
        if text is None:
            return []
        _untracked(path)
        _bound(path, text)
        data = parse_json(text)
    except (OSError, ValueError) as error:
        raise InvalidInput(
            f"Cannot read the token file {path} ({error}); fix or delete it."
        ) from None
    entries = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(
        isinstance(e, dict)
        and {"agent", "sha256"} <= set(e)
        and isinstance(e["agent"], str)
        and isinstance(e["sha256"], str)
        and _name(e["agent"])
        for e in entries
    ):
        raise InvalidInput(f"{path} is not a hindsight token file; fix or delete it.")
    # compared as writes store the name: a token of "bob" plus a control character is bob's
    for entry in entries:
        entry["agent"] = _name(entry["agent"]) or ""
    return entries


def _untracked(path: Path) -> None:
    """Refuse a token file its git repository tracks: whoever can commit there adds a token (a
    store committed with its ``mcp-tokens.json`` brings its author's tokens, and a later commit
    others), and a server would answer it as the user's. The one rule for every token file: the
    store's own (``of_store``) and one given with ``--tokens``, read (``load``) or written."""
    from ..safefs.tracked import folded, tracked

    where = path.resolve()
    # in any case, as `tracked` matches the store's path: where the file system ignores case
    # (macOS, Windows), a commit's `MCP-TOKENS.json` is the file opened as `mcp-tokens.json`
    # (review AE)
    if folded(where.name) in {folded(name) for name in tracked(where.parent)}:
        raise InvalidInput(
            f"The token file {path} came with a git repository (git tracks it): whoever commits "
            "there can add a token, so none of its tokens is accepted. Make your own outside the "
            "repository (hindsight mcp token AGENT --tokens FILE) and serve with --tokens FILE."
        )


def store_of(path: Path) -> Path | None:
    """The store whose own token file ``path`` is (named so, in any case, in a directory holding a
    store's id or ledger; reached through links too), or None: a file the user names elsewhere with
    ``--tokens`` is their choice. The global store's is none: no archive is unpacked into
    ``HINDSIGHT_HOME``."""
    from ..paths import LEDGER_FILE
    from ..safefs.tracked import folded

    where = path.resolve()
    if folded(where.name) != folded(TOKENS_FILE):
        return None
    store = where.parent
    if trust.builtin(store):
        return None
    held = (trust.ID_FILE, LEDGER_FILE)
    return store if any(os.path.lexists(store / name) for name in held) else None


def _entry(path: Path) -> tuple[Path, str] | None:
    """``path``'s store and the allow-list entry that approves it, when ``path`` is a store's own
    token file (``store_of``).

    Raises:
        InvalidInput: the store is not approved at this path (an archive may have brought its id
            file too): no entry records which token file it lets in.
    """
    store = store_of(path)
    if store is None:
        return None
    entry = trust.entry_of(store)
    if entry is None:
        raise InvalidInput(
            f"The token file {path} is in the store {store}, which you have not approved on this "
            "machine at this path (it may have come with a repository or an archive): none of "
            f"its tokens is accepted. If you trust the store and its token file, run `hindsight "
            f"allow {store}`."
        )
    return store, entry


def _bound(path: Path, text: str) -> None:
    """Refuse a store's own token file whose bytes are not the ones its approval records."""
    found = _entry(path)
    if found is not None and not token_digest.holds(found[1], text):
        raise Foreign(token_digest.why(path, found[0]))


def foreign(path: Path) -> str | None:
    """Why ``hindsight mcp token`` drops the tokens of the file at ``path`` (a store's own that is
    not the one it wrote), or None."""
    try:
        load(path)
    except Foreign as error:
        return str(error)
    return None


def of_store(store: Path) -> Path:
    """The store's own token file (``mcp-tokens.json``), what the servers and ``hindsight mcp
    token`` use when no ``--tokens`` is given; it need not exist yet.

    Raises:
        InvalidInput: the git repository holding the store tracks it. A repository that commits its
            ``.hindsight/`` can commit this file too, holding its author's tokens: approving the
            store (its memories) must not let them in, and the user's tokens must not join them.
    """
    path = store / DEFAULT_FILE
    if path.exists():
        _untracked(path)
    return path


def _name(agent: str) -> str | None:
    name = agent_name(agent)
    return name if name and "\n" not in name and len(name) <= MAX_LABEL else None


@contextmanager
def _editing(path: Path) -> Iterator[None]:
    """One ``mcp token`` at a time edits the token file at ``path``: an exclusive ``flock`` on its
    directory (no file of ours to plant or lose) held from the read to the digest's record. Two at
    once each added their token to the file they read and saved it, so one token was lost, and the
    record could name the other run's file, refusing every token until ``allow``. A lock held past
    ``EDIT_TIMEOUT`` (another run stopped mid-way) is one line, nothing changed."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; the runs are not ordered
        yield
        return
    from ..storage.locks import wait_for_flock

    if not path.parent.exists():
        safefs.private_dir(path.parent)
    handle = _lock_handle(path)
    try:
        wait_for_flock(
            fcntl,
            handle,
            fcntl.LOCK_EX,
            time.monotonic() + EDIT_TIMEOUT,
            lambda: StoreBusy(
                f"Another `hindsight mcp token` is changing {path}; run this again when it is done. "
                "Nothing was changed."
            ),
        )
        yield
    finally:
        os.close(handle)


def _lock_handle(path: Path) -> int:
    """What ``_editing`` locks for the token file at ``path``: its directory when no other account
    can open it (a store's, 0700), else a lock file of this user's own, under
    ``HINDSIGHT_HOME/locks`` and named by the directory: anyone who can read a shared directory
    (``/tmp``) can hold a ``flock`` on it, and every ``mcp token`` there waited on them."""
    info = os.stat(path.parent)
    if info.st_uid == os.getuid() and not info.st_mode & 0o044:
        return os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    from ..paths import user_data_dir
    from ..storage.locks import open_lock_file

    where = os.path.realpath(path.parent).encode("utf-8", "surrogateescape")
    locks = user_data_dir() / "locks"
    safefs.private_dir(locks, "The lock directory")
    return open_lock_file(locks / f"tokens-{hashlib.sha256(where).hexdigest()[:32]}.lock")


def _save(path: Path, entries: list[Entry]) -> None:
    """Write the file, then, for a store's own, record its digest in the store's approval: a run
    killed between the two leaves a file the record does not name, refused until the next
    ``mcp token`` or ``allow``."""
    bound = _entry(path)
    if not path.parent.exists():
        safefs.private_dir(path.parent)
    text = json.dumps({"tokens": entries}, indent=2) + "\n"
    safefs.write_private(path, text, durable=True)
    if bound is not None:
        token_digest.record(bound[1], token_digest.of(text))


def alike(entries: list[Entry], agent: str | None = None) -> list[tuple[str, str]]:
    """Pairs of token agents whose names read alike (``Bob`` and ``bob``; ``alice`` and ``alice``
    with a zero-width space, a Cyrillic ``і`` or fullwidth letters; ``a b`` and ``a  b``; two names
    alike up to where their label is cut, ``scope.token_label``), among ``entries`` or, given
    ``agent``, between it and them. Each is another principal, whose memories the others never
    read, but what it writes is labelled ``token:<name>`` (sources are kept lower-cased): the owner
    could not tell whose text a label names."""
    from ..poisoning import INVISIBLE, skeleton

    def looks(name: str) -> str:
        # as the label reads: cut as it is stored, any run of blanks one
        return " ".join(skeleton(INVISIBLE.sub("", token_label(name))).split())

    names = [agent] if agent is not None else []
    first: dict[str, str] = {}
    pairs = []
    for name in names + [e["agent"] for e in entries]:
        seen = first.setdefault(looks(name), name)
        if seen != name and (seen, name) not in pairs:
            pairs.append((seen, name))
    return [p for p in pairs if agent is None or agent in p]


def create(path: Path, agent: str) -> str:
    """A new token for ``agent``, added to the file; the only time the token itself exists."""
    name = _name(agent)
    if not name:
        raise InvalidInput(
            f"An agent's name is one line of at most {MAX_LABEL} characters; give a shorter one, "
            "e.g. hindsight mcp token ci-bot."
            if agent_name(agent)
            else "Name the agent the token is for, e.g. hindsight mcp token ci-bot."
        )
    # its requests would be refused: its scope cannot be told from names that read alike
    agent = check_agent(name)
    with _editing(path):
        try:
            entries = load(path)
        except Foreign:
            # not the user's: a new file, with this token alone (``foreign`` says so first)
            entries = []
        for _, other in alike(entries, agent):
            raise InvalidInput(
                f"{agent!r} reads like {other!r}, an agent that already has a token in {path}: "
                "what each writes would carry a label that reads alike. Give a name that reads "
                "differently (or exactly that one, for another token of it). Nothing was changed."
            )
        token = PREFIX + secrets.token_urlsafe(32)
        entries.append({"agent": agent, "sha256": _digest(token), "created_at": iso(now())})
        _save(path, entries)
    return token


def revoke(path: Path, agent: str) -> int:
    """Remove every token of ``agent``; returns how many went."""
    with _editing(path):
        entries = load(path)
        kept = [e for e in entries if e["agent"] != _name(agent)]
        if len(kept) != len(entries):
            _save(path, kept)
    return len(entries) - len(kept)


def same_secret(given: object, expected: str) -> bool:
    """Whether ``given`` is the secret ``expected`` (a token, a digest, a session or CSRF id),
    compared in constant time, as UTF-8 bytes: ``hmac.compare_digest`` raises on a ``str`` with a
    character past ASCII, and what a request or a hand-edited file holds may be anything (a lone
    surrogate from JSON included). Every secret comparison of the servers goes through here."""
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(
        given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass")
    )


def agent_of(entries: list[Entry], token: str) -> str | None:
    """The agent whose token this is, or None (compared in constant time)."""
    return holder(entries, _digest(token))


def digest(token: str) -> str:
    """What the file keeps of ``token``: what a login made with it is bound to (``holder``)."""
    return _digest(token)


def holder(entries: list[Entry], sha256: str) -> str | None:
    """The agent of the token whose digest is ``sha256`` while the file still holds it, or None: a
    session opened with a token ends with that token (a rotation, one token of two removed), not
    only with its agent's last one."""
    found = None
    for entry in entries:
        if same_secret(entry["sha256"], sha256):
            found = entry["agent"]
    return found


class Watched:
    """A token file as a long-lived server sees it (the HTTP MCP server, ``hindsight ui``): read
    again whenever a ``stat`` of it, or of what binds a store's own to its approval (the store's id
    file, the allow-list entry and its token record), changes, so ``hindsight mcp token AGENT
    --revoke`` counts from the next request, a new token works without a restart and a file an
    archive unpacks over the store's is refused from the next. A file that is gone, unreadable, no
    longer this user's own or not the one recorded lets no token in until it is fixed: never the
    last good copy."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._store = store_of(path)
        self._id = trust.store_id(self._store) if self._store is not None else None
        self._seen = self._state(self._id)
        # the first reading's errors are the caller's (a server that cannot start says why)
        self._entries = load(path)

    def _state(self, found: str | None) -> tuple[object, ...]:
        """The files' stats, the allow-list entry's named by the store id ``found``: what a
        request costs while nothing changed."""
        from ..safefs.tracked import stat_key

        files = [os.fspath(self.path)]
        if self._store is not None:
            entry = os.path.join(trust.allowed_dir(), found or trust.ID_FILE)
            files += [os.fspath(self._store / trust.ID_FILE), entry, entry + token_digest.SUFFIX]
        return tuple(map(stat_key, files))

    @property
    def entries(self) -> list[Entry]:
        with self._lock:
            if self._state(self._id) != self._seen:
                found = trust.store_id(self._store) if self._store is not None else None
                seen = self._state(found)
                try:
                    self._entries = load(self.path) if seen[0] is not None else []
                except HindsightError as error:
                    log.warning("no token is accepted until the token file is fixed: %s", error)
                    self._entries = []
                self._id, self._seen = found, seen
            return self._entries
