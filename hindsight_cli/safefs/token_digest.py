"""The token file an approval records (review AE): a store's ``mcp-tokens.json`` lets in only the
tokens ``hindsight mcp token`` wrote into it, not whatever file sits there later.

``hindsight mcp token`` (make, ``--revoke``) records the SHA-256 of the exact bytes it wrote, after
the file's rename, beside the store's allow-list entry (``<entry>.tokens``, under
``HINDSIGHT_HOME``: never in the store, where an archive can replace anything). A store approved
with no token file records ``none``. A project archive unpacked over a checkout (``tar``, ``unzip``,
``rsync``, ``cp -r`` of a template) holding its author's token file replaces the file and keeps the
store's id and path: its digest is not the one recorded, and no token of it is accepted until the
user makes a new file (``hindsight mcp token AGENT``) or adopts that one (``hindsight allow
--adopt-tokens``: a plain ``allow`` leaves it out, review AL).

An approval from before this record (none beside the entry) keeps the older rule, any token file
of the user's own; the owner's next write, ``mcp token`` or ``allow`` records the file then there.

Standard library and ``safefs`` only, as ``ledger_key``: ``trust`` uses it.
"""

from __future__ import annotations

import os

from .. import paths, safefs
from ..errors import UnsafeLocation
from . import records

# beside an allow-list entry: the digest of the token file the approval lets in
SUFFIX = ".tokens"
# recorded for a store approved with no token file: one that appears later is refused
NONE = "none"


def of(text: str) -> str:
    """The digest of a token file's text: the SHA-256 of its bytes (``read_trusted`` decodes
    them as strict UTF-8, so the text encodes back to exactly the bytes read)."""
    # imported here: the recording hooks import this module (through ``trust``) and never hash
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _valid(value: str) -> bool:
    return value == NONE or records.hex_digits(value, 64)


def recorded(entry: str) -> str | None:
    """What the allow-list entry ``entry`` records: a digest, ``NONE``, None when it records
    nothing (an approval from before token records), "" when what it holds is not a record
    hindsight wrote (it matches no file)."""
    return records.read_record(entry + SUFFIX, "The allow-list entry", _valid)


def holds(entry: str, text: str) -> bool:
    """Whether a token file holding ``text`` is the one the approval at ``entry`` lets in: the
    one recorded, or, for an approval from before token records, any."""
    wanted = recorded(entry)
    return wanted is None or wanted == of(text)


def record(entry: str, digest: str) -> None:
    """Record ``digest`` (``of``, or ``NONE``) as the token file the approval at ``entry`` lets
    in."""
    if not _valid(digest):
        raise ValueError("not a token file digest")
    safefs.write_private(entry + SUFFIX, digest + "\n", durable=True)


def current(store: str | os.PathLike[str]) -> str | None:
    """The digest of the token file now in ``store`` (``NONE`` without one), or None when it
    cannot be read as this user's own (its readers refuse it whatever is recorded)."""
    try:
        text = safefs.read_trusted(os.path.join(store, paths.TOKENS_FILE), "The token file")
    except (OSError, UnicodeDecodeError, UnsafeLocation, ValueError):
        return None
    return NONE if text is None else of(text)


def why(path: str | os.PathLike[str], store: str | os.PathLike[str]) -> str:
    """Why the token file at ``path`` lets no token in, and what to do, in one line."""
    return (
        f"The token file {os.fspath(path)} is not the one `hindsight mcp token` wrote for the "
        f"store {os.fspath(store)}: a file unpacked or copied over it (a project archive, a "
        "template) brings its author's tokens, so none of its tokens is accepted. Run "
        "`hindsight mcp token AGENT` to make a new one (the file's tokens are dropped), or, if "
        f"you wrote that file and trust it, `hindsight allow --adopt-tokens {os.fspath(store)}`."
    )
