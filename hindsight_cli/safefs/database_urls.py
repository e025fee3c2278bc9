"""Database URLs as files and output may hold them: never with a password. A config file must hold
none (one may be read by anyone who can read the store, and a committed store is published), and
what a URL is shown as (an approval's record, an error) leaves it out.

Standard library only: the recording hooks reach it (``trust``).
"""

from __future__ import annotations

# libpq's parameters that hold a password: a URL may give one in its query (`?password=…`) as well
# as in its user part (`user:…@`), its name percent-encoded or not
_PASSWORD_PARAMS = frozenset({"password", "sslpassword"})
_USER_PASSWORD = r"(://[^:/@]*):([^@/]*)@"
_PARAM = r"([?&])([^=&#\s?]+)=([^&#\s]*)"


def _password_param(name: str) -> bool:
    from urllib.parse import unquote

    return unquote(name).strip().lower() in _PASSWORD_PARAMS


def url_password(url: str) -> str | None:
    """The password a database URL holds in clear text (in its user part or a ``password`` or
    ``sslpassword`` parameter), if any: a config file must hold none. The one rule for every reader
    and writer of a URL (``config``, ``storage.urls``, an approval's record)."""
    import re

    match = re.search(_USER_PASSWORD, url)
    if match and match.group(2):
        return match.group(2)
    for found in re.finditer(_PARAM, url):
        if found.group(3) and _password_param(found.group(2)):
            return found.group(3)
    return None


def without_password(text: str) -> str:
    """``text`` (a URL, or an error naming one) with every password ``url_password`` finds left
    out: ``postgresql://user@host/db?password=``, which libpq reads as none given."""
    import re

    text = re.sub(_USER_PASSWORD, r"\1@", text)
    return re.sub(
        _PARAM,
        lambda m: f"{m.group(1)}{m.group(2)}=" if _password_param(m.group(2)) else m.group(0),
        text,
    )
