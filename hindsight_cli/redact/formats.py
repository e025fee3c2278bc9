"""Secrets handed to code and to CI rather than assigned: a setter's or a function's argument when
the function's name says it takes a secret (``setPassword("…")``, ``PASSWORD('…')``,
``keyring.set_password("svc", "bob", "…")``, ``withApiToken("…")``), and a value a CI runner is told
to mask (``::add-mask::…``). Part of ``redact``.
"""

from __future__ import annotations

from .values import id_name
from .words import credential_like, high_entropy, is_reference, name_word

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# A function that reads, looks up or names a secret takes the secret's name, not the secret:
# getPassword("db"), os.environ.get("TOKEN"), keyring.get_password("svc", "bob").
_READERS = ("get", "read", "load", "fetch", "find", "lookup", "has", "is", "del", "remove", "env")
# The words a setter's name holds (matched inside names: setPassword, set_api_key, withToken).
_CALL_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "credential",
)


def _setter(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The last quoted argument of a call whose name says it takes a secret, when it is
    password-shaped (a password's name) or random (a token's, a key's, a secret's)."""
    import re

    callee = match.group("name").rsplit(".", 1)[-1]
    found = name_word(callee)
    low = callee.lower().lstrip("_")
    if label or found is None or not found[1] or low.startswith(_READERS):
        # count_tokens("…"), check_password_hash(…): the word does not end the name
        return None
    password = found[0] in ("password", "passwd", "passphrase", "pwd", "pass", "pw")
    args, base = match.group("args"), match.start("args")
    for quoted in reversed(list(re.finditer(r"([\"'])([^\"'\n]{4,200})\1", args))):
        value = quoted.group(2)
        keyword = re.search(r"([A-Za-z_]\w*)[ \t]*[:=][ \t]*$", args[: quoted.start()])
        if is_reference(value) or (
            keyword and (name_word(keyword.group(1)) is None or id_name(keyword.group(1)))
        ):
            # another argument's value: usernamePassword(credentialsId: '<uuid>', …)
            continue
        if credential_like(value, strict=True) or (not password and high_entropy(value)):
            return base + quoted.start(2), base + quoted.end(2)
    return None


def _masked(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """What follows ``::add-mask::`` is a secret by the writer's own word, unless it only names one
    (``${{ secrets.TOKEN }}``, ``$TOKEN``)."""
    return None if is_reference(match.group("secret")) else match.span("secret")


RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    (
        "secret",
        r"(?i)(?<![\w.])(?P<name>[A-Za-z_][\w.]{0,60})[ \t]*\((?P<args>[^()\n]{4,300})\)",
        _CALL_WORDS,
        _setter,
        lambda text: "(" in text,
    ),
    (
        "secret",
        r"::add-mask::[ \t]*(?P<secret>[^\s\"'`]{4,})",
        ("::add-mask::",),
        _masked,
        None,
    ),
]
