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
from pathlib import Path
from typing import NotRequired, TypedDict

from .. import safefs
from ..errors import HindsightError, InvalidInput
from ..paths import TOKENS_FILE
from ..safefs.reading import parse_json
from ..text import MAX_LABEL
from ..timeutil import iso, now
from .scope import agent_name, check_agent

PREFIX = "hst_"
DEFAULT_FILE = TOKENS_FILE
log = logging.getLogger("hindsight.mcp")


class Entry(TypedDict):
    """One token of the file: its agent and its digest (the token itself is never stored)."""

    agent: str
    sha256: str
    created_at: NotRequired[str | None]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def load(path: Path) -> list[Entry]:
    """The file's entries; a missing file has none."""
    try:
        # it decides who reads your memories: yours only
        text = safefs.read_trusted(path, "The token file")
        if text is None:
            return []
        _untracked(path)
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


def _save(path: Path, entries: list[Entry]) -> None:
    if not path.parent.exists():
        safefs.private_dir(path.parent)
    safefs.write_private(path, json.dumps({"tokens": entries}, indent=2) + "\n", durable=True)


def create(path: Path, agent: str) -> str:
    """A new token for ``agent``, added to the file; the only time the token itself exists."""
    name = _name(agent)
    if not name:
        raise InvalidInput("Name the agent the token is for, e.g. hindsight mcp token ci-bot.")
    # its requests would be refused: its scope cannot be told from names that read alike
    agent = check_agent(name)
    entries = load(path)
    token = PREFIX + secrets.token_urlsafe(32)
    entries.append({"agent": agent, "sha256": _digest(token), "created_at": iso(now())})
    _save(path, entries)
    return token


def revoke(path: Path, agent: str) -> int:
    """Remove every token of ``agent``; returns how many went."""
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
    again whenever a ``stat`` of it changes, so ``hindsight mcp token AGENT --revoke`` counts from
    the next request and a new token works without a restart. A file that is gone, unreadable or
    no longer this user's own lets no token in until it is fixed: never the last good copy."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._seen: tuple[int, ...] | None = self._stat()
        # the first reading's errors are the caller's (a server that cannot start says why)
        self._entries = load(path)

    def _stat(self) -> tuple[int, ...] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)

    @property
    def entries(self) -> list[Entry]:
        with self._lock:
            seen = self._stat()
            if seen != self._seen:
                try:
                    self._entries = load(self.path) if seen is not None else []
                except HindsightError as error:
                    log.warning("no token is accepted until the token file is fixed: %s", error)
                    self._entries = []
                self._seen = seen
            return self._entries
