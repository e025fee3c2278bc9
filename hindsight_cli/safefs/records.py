"""One-line records hindsight keeps under ``HINDSIGHT_HOME`` beside a store's approval (the key of
its ledger, the digest of its token file): one reader for both, so each is read with the same
checks and a damaged one means the same everywhere. The spool secret (``spool_key``) is checked
with the same digits, but tells a damaged file (replaced) from one it cannot read (left alone).

Standard library and ``safefs`` only: the recording hooks use it.
"""

from __future__ import annotations

from .. import safefs
from ..errors import InvalidInput, UnsafeLocation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def hex_digits(value: str, length: int) -> bool:
    """Whether ``value`` is ``length`` lowercase hex digits, as hindsight writes its keys."""
    return len(value) == length and all(c in "0123456789abcdef" for c in value)


def read_record(path: str, what: str, valid: Callable[[str], bool]) -> str | None:
    """The value a one-line record hindsight keeps under ``HINDSIGHT_HOME`` holds (a ledger key,
    a token file's digest: ``read_trusted``'s checks, stripped): None when there
    is no record, "" when what is there is not one hindsight wrote (unreadable, unsafe, or not
    ``valid``), so it matches nothing."""
    try:
        text = safefs.read_trusted(path, what)
    except (OSError, UnicodeDecodeError, UnsafeLocation, InvalidInput):
        return ""
    if text is None:
        return None
    value = text.strip()
    return value if valid(value) else ""
