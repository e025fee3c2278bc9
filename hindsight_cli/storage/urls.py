"""Database URLs of postgres stores: checked before anything is written, shown without passwords."""

from __future__ import annotations

import re

from ..config import password_of
from ..errors import InvalidInput

_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def check_target(url: str, schema: str) -> None:
    """Refuse, before anything is written, a URL that is not PostgreSQL's or a schema name that is
    not plain."""
    if not url.startswith(("postgresql://", "postgres://")):
        raise InvalidInput(
            f"{redact_url(url)!r} is not a PostgreSQL URL; give postgresql://user@host:5432/db."
        )
    if not _SCHEMA_NAME.match(schema):
        raise InvalidInput(
            f"[storage] schema {schema!r} is not a plain lower-case SQL name; use e.g. "
            '"hindsight" or "team_memory".'
        )


def redact_url(url: str) -> str:
    """The URL with any password removed (``postgresql://user@host/db``), for output and errors."""
    from ..safefs.database_urls import without_password

    return without_password(url)


__all__ = ["check_target", "password_of", "redact_url"]
