"""The hooks spool bound to this user's hooks (issue 31, review AE): each event line carries a tag
only a holder of the store's spool secret can make.

A project archive unpacked over a checkout (``tar``, ``unzip``, ``rsync``, ``cp -r`` of a template)
can replace any file in the store, its spool's ``events.jsonl`` and claimed files too; the hooks'
ingestion then read the author's lines as the user's own events. The secret is kept under
``HINDSIGHT_HOME`` beside the store's approval (``allowed/<id>.spool``, 32 random bytes in hex, mode
0600), made at the first append; ``hindsight deny`` removes it with the approval. Each event line is
the JSON object the hooks wrote with one more field, ``sig``: an HMAC-SHA256 of the line's exact
bytes without it, the store's id bound in. The field goes last, so readers that parse the line see
one more key and rewrites that keep a line's bytes (hard forget, ``scrub``, claims) keep it valid.

HMAC (RFC 2104) is computed here over the interpreter's built-in SHA-256 rather than ``import
hmac``, which loads OpenSSL's ``_hashlib`` and ``hashlib``: 3.5 ms of a recording hook's 50 ms
(``tests/test_spool_tags.py`` checks the two agree). Standard library and ``safefs`` only: the
recording hooks use it.
"""

from __future__ import annotations

import os

from .. import safefs
from ..errors import InvalidInput, UnsafeLocation
from . import _write_all, creating, records, trust

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

SUFFIX = trust.SPOOL_SUFFIX
# the field a tagged line ends with: ``,"sig":"<64 hex>"}``
FIELD = "sig"
_TAIL = f'"{FIELD}":"'
_HEX = 64
# a tagged line's last characters: the field, its value and the object's end
_TAGGED = len(_TAIL) + _HEX + 2
# the global store lives under HINDSIGHT_HOME and may have no id: one name for it
_GLOBAL = "global"
_CONTEXT = b"hindsight spool v1\n"
NO_TAG = (
    "not written by this user's hooks for this store (the line carries no tag: spooled by a "
    "hindsight from before spool tags, which tagged none, or brought from elsewhere, a project "
    "archive or a copy of another spool); nothing of it was stored"
)
WRONG_TAG = (
    "not written by this user's hooks for this store (its tag is not one this store's secret "
    "makes: brought from elsewhere, a project archive, a template or another store's spool, or "
    "spooled before `hindsight deny`); nothing of it was stored"
)


def _sha256() -> Callable[[bytes], Any]:
    """The interpreter's own SHA-256 module (``_sha2`` from Python 3.12, ``_sha256`` before: only
    the one this version has is asked for, as a failed import searches every path entry), else
    hashlib's."""
    import sys

    try:
        found: Callable[[bytes], Any] = __import__(
            "_sha2" if sys.version_info >= (3, 12) else "_sha256"
        ).sha256
    except (ImportError, AttributeError):
        from hashlib import sha256

        return sha256
    return found


class Key:
    """A store's spool secret, with the store's id it binds: tags lines and checks them."""

    def __init__(self, name: str, secret: bytes) -> None:
        self._sha = _sha256()
        block = secret.ljust(64, b"\0")
        self._inner = bytes(b ^ 0x36 for b in block)
        self._outer = bytes(b ^ 0x5C for b in block)
        self._bound = _CONTEXT + name.encode("ascii") + b"\n"

    def mac(self, body: bytes) -> str:
        """HMAC-SHA256 of ``body`` with the store's id bound in, in hex."""
        inner = self._sha(self._inner + self._bound + body).digest()
        return str(self._sha(self._outer + inner).hexdigest())

    def tag(self, body: str) -> str:
        """``body`` (one JSON object, no newline) with its tag as its last field."""
        mac = self.mac(body.encode("utf-8", "surrogatepass"))
        return body[:-1] + ("," if body != "{}" else "") + f'{_TAIL}{mac}"}}'

    def check(self, line: str) -> str | None:
        """Why ``line`` is not one this key tagged (``NO_TAG``, ``WRONG_TAG``), or None."""
        from _operator import _compare_digest

        body = untagged(line)
        if body is None:
            return NO_TAG
        mac = self.mac(body.encode("utf-8", "surrogatepass"))
        return None if _compare_digest(mac, line[-_HEX - 2 : -2]) else WRONG_TAG


def untagged(line: str) -> str | None:
    """The line as it was before it was tagged, or None when it carries no tag."""
    if len(line) < _TAGGED + 1 or not line.endswith('"}'):
        return None
    start = len(line) - _TAGGED
    if line[start : start + len(_TAIL)] != _TAIL:
        return None
    head = line[:start]
    if head == "{":
        return "{}"
    return head[:-1] + "}" if head.endswith(",") else None


def _name(store: str | os.PathLike[str]) -> str | None:
    """The name a store's secret is kept under (its id; the global store's, one for it)."""
    if trust.builtin(store):
        return _GLOBAL
    return trust.store_id(store)


def path_of(store: str | os.PathLike[str]) -> str | None:
    """Where the spool secret of ``store`` is kept, or None for a store with no id (never
    trusted)."""
    name = _name(store)
    return None if name is None else _path(name)


def _path(name: str) -> str:
    return os.path.join(trust.allowed_dir(), name + SUFFIX)


# what ``_read`` answers for a file that is there, read whole, and holds no secret
_DAMAGED = b""


def _read(path: str) -> bytes | None:
    """The secret at ``path``; None when there is none or it cannot be read now, ``_DAMAGED`` when
    the file read holds none (cut short, or another text)."""
    try:
        text = safefs.read_trusted(path, "The spool secret")
    except (UnicodeDecodeError, InvalidInput):
        return _DAMAGED
    except (OSError, UnsafeLocation):
        return None
    if text is None:
        return None
    value = text.strip()
    if not records.hex_digits(value, _HEX):
        return _DAMAGED
    return bytes.fromhex(value)


def _create(path: str, damaged: bool = False) -> None:
    """Write a new secret at ``path`` unless one is there: written whole to a temporary file, then
    linked to the name (a hook running at the same time reads one or the other, never half). With
    ``damaged`` (a file is there that holds no secret), the new one takes its place."""
    safefs.private_dir(os.path.dirname(path), "The allow-list directory")
    temp = f"{path}.{os.getpid()}-{os.urandom(6).hex()}.tmp"
    data = (os.urandom(32).hex() + "\n").encode("ascii")
    try:
        fd = safefs.open_nofollow(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            # whole: one write a full disk cuts short linked half a secret, read as damaged and
            # replaced, and the event it was made for refused (review AX, low)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if damaged:
            os.replace(temp, path)
            return
        try:
            os.link(temp, path)
        except FileExistsError:
            pass
        except OSError:
            # a file system without hard links: created in place (a hook racing this one may read
            # it still empty and replace it; one of their lines is then set aside, never all)
            creating.create_private(path, data)
    finally:
        # (a full disk fails the write: the temporary file goes too)
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass


def of(store: str | os.PathLike[str], create: bool = False) -> Key | None:
    """The spool key of ``store`` (one small file read); None when it has none (with ``create``,
    a new one is made first: the first append), or when the store has no id."""
    name = _name(store)
    if name is None:
        return None
    path = _path(name)
    secret = _read(path)
    if not secret and create:
        # a file there that holds no secret (cut short by a kill or a full disk as it was made where
        # links fail, or damaged since) is replaced: kept, it refused every event for good, each
        # hook failing with nothing said but in its log (review AK); lines it tagged are set aside
        _create(path, damaged=secret is _DAMAGED)
        secret = _read(path)
    return Key(name, secret) if secret else None


def tagged(store: str | os.PathLike[str], text: str) -> str:
    """``text``, an event's line, tagged with ``store``'s spool key (made at the first append)."""
    key = of(store, create=True)
    if key is None:
        path = path_of(store)
        raise trust.UntrustedStore(
            trust.why(store)
            or (
                f"The store {store} has no id: hooks leave it alone."
                if path is None
                else f"The spool secret {path} cannot be read (a link, or not yours alone): "
                "remove it and the next event makes a new one."
            )
        )
    return key.tag(text)


def refusal(key: Key | None, line: str) -> str | None:
    """Why ``line`` is not one ``key`` (a store's, None when it has none yet) tagged, or None."""
    if key is not None:
        return key.check(line)
    return NO_TAG if untagged(line) is None else WRONG_TAG
