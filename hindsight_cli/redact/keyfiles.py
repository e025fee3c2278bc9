"""Secrets found by the structure of the file that holds them. Part of ``redact``.

A key file says where its secret is whatever the service calls it: the body of any armoured block
whose label names a key, a seed or a credential (``-----BEGIN OpenVPN Static key V1-----``,
``-----BEGIN USER NKEY SEED-----``; a public key's or a certificate's armour is kept), and the
content of a file shown with ``cat`` or written with ``echo … >`` when the file's name says it
holds a secret (``~/.erlang.cookie``, ``config/master.key``, a MongoDB keyfile), and a password on
one of the first lines of such a file, or of one named for a login (``/etc/openvpn/auth.txt``: the
user, then the password; OpenVPN's inline ``<auth-user-pass>`` the same), and the one word a
command prints after its prompt when the command says it reads or makes a secret (``$ pass show
mail``, ``$ wg genkey``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# words of an armour's label or a file's name that say it holds a secret
_SECRET_LABEL = r"(?i:KEY|SEED|SECRET|CREDENTIALS?|TOKEN|PASSWORD|COOKIE|JWT|LICEN[CS]E)"
# the words of an armour's label either side of the word that makes it secret: a label is a few
# words (RFC 7468); unbounded, every "-----BEGIN " of a run of them read to the run's end (30,000
# characters of it took 5.7 s)
_LABEL_WORDS = r"[A-Za-z0-9 _.\-]{0,64}?"
_PUBLIC_LABEL = ("PUBLIC", "CERTIFICATE", "SIGNATURE", "MESSAGE", "SIGNED", "REQUEST", "CRL")


def _armoured(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The body of an armoured key, seed or credential; not a public key's or a certificate's."""
    head = match.group("label").upper()
    if any(word in head for word in _PUBLIC_LABEL):
        return None
    body = match.group("secret").strip()
    if "LICEN" in head:
        # a licence's block: the holder's name and the seats first, then the key's lines (Sublime
        # Text's and Sublime Merge's groups of 8 hex, a licence file's base64): from the first
        # line of a key's characters with a digit, 16 or more of them, to the armour's end
        return _licence_key(match)
    if len(body) < 16 or " " in body.replace("\n", ""):
        return None
    return match.span("secret")


def _licence_key(match: re.Match[str]) -> tuple[int, int] | None:
    """The key's lines of a licence's armoured block (see ``_armoured``)."""
    start = match.start("secret")
    for line in match.group("secret").splitlines(keepends=True):
        key = "".join(line.split())
        if (
            len(key) >= 16
            and key.isascii()
            and all(c.isalnum() or c in "+/=" for c in key)
            and any(c.isdigit() for c in key)
        ):
            return start, match.start("secret") + len(match.group("secret").rstrip(" \t\r\n"))
        start += len(line)
    return None


def _file_content(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A random value written to or shown from a file whose name says it holds a secret."""
    from .words import high_entropy

    value = match.group("secret")
    if len(value) < 12 or (not high_entropy(value) and not _cookie(value)):
        return None
    return match.span("secret")


def _cookie(value: str) -> bool:
    """An Erlang cookie: 20 upper-case letters (and digits), not a word."""
    return len(value) >= 16 and value.isupper() and len(set(value)) >= 10


_FILE = rf"[\w./~\-]*(?i:{_SECRET_LABEL[4:-1]}|keyfile|master\.key|\.pem|\.key)[\w.\-]*"
_LOGIN_FILE = rf"[\w./~\-]*(?i:{_SECRET_LABEL[4:-1]}|auth|pass|passwd|creds?)[\w.\-]*"


def _password_line(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The first of a file's first lines that is password-shaped (a user name above it is not)."""
    import re

    from .words import credential_like, is_reference

    for line in re.finditer(r"[^\n]+", match.group("secret")):
        value = line.group().strip()
        if value.startswith(("$", "#", ">")) or " " in value or "=" in value or ":" in value:
            # the next prompt, a comment, a setting (the rules for settings read those)
            return None
        if credential_like(value, strict=True) and not is_reference(value):
            start = match.start("secret") + line.start() + line.group().find(value)
            return start, start + len(value)
    return None


# what a command says when it prints a secret: its words, or a tool that prints one
_PRINTERS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "api-key",
    "api_key",
    "credential",
    "genkey",
    "privkey",
    "private",
    "pass show",
    "gopass",
    "pwgen",
    "openssl rand",
    "op read",
    "apg ",
)
_UUID_PRINTERS = ("auth:token", "auth token", "token create", "api-key", "apikey", "api_key")
# what says the output is public or a digest
_NOT_PRINTED = (
    "public",
    "pub",
    "fingerprint",
    "hash",
    "sha",
    "digest",
    "rev-parse",
    "git log",
    "id",
)


def _printed(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The one word a command prints when the command says it reads or makes a secret (``$ pass
    show mail``, ``$ heroku auth:token``, ``$ kubectl get secret … | base64 -d``, ``$ wg genkey``):
    a password-shaped, random or UUID value alone on the line after the prompt's."""
    import re

    from .words import credential_like, fold, high_entropy, is_path, is_reference

    # the command's own words, not a message it is given ("… the token had expired")
    command = re.sub(r"\"[^\"]*\"|'[^']*'", " ", fold(match.group("command")))
    value = match.group("secret")
    if label or not any(word in command for word in _PRINTERS):
        return None
    words = set(re.findall(r"[a-z0-9\-]+", command))
    if words & set(_NOT_PRINTED) or "git log" in command:
        return None
    if is_reference(value) or is_path(value) or "://" in value:
        return None
    # a UUID only from a command that makes or shows a token or a key (``heroku auth:token``); a
    # record's or a search's id otherwise
    if re.fullmatch(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", value):
        printed = any(word in command for word in _UUID_PRINTERS)
        return match.span("secret") if printed else None
    if credential_like(value, strict=True) or high_entropy(value):
        return match.span("secret")
    return None


def _may_print(text: str) -> bool:
    """``_printed``'s gate, without ``re``: a line break, a prompt's mark before a command and
    a word of a command that prints a secret."""
    if "\n" not in text or not any(mark in text for mark in ("$ ", "# ", "> ", "% ", "❯ ")):
        return False
    low = text.lower()
    return any(word in low for word in _PRINTERS)


RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    # a prompt, a command that prints a secret, then the secret alone on its line
    (
        "secret",
        r"(?m)^[ \t]*(?:[\w@.\-~:/]*[$#%>❯]|PS [^\n>]*>)[ \t]+(?P<command>[^\n]{3,300})\r?\n"
        r"[ \t]*(?P<secret>[^\s]{8,512})[ \t]*$",
        (),
        _printed,
        _may_print,
    ),
    (
        "private_key",
        rf"-{{4,5}} ?BEGIN (?P<label>{_LABEL_WORDS}{_SECRET_LABEL}{_LABEL_WORDS}) ?-{{4,6}}"
        r"[ \t]*\r?\n(?P<secret>(?:(?!-{4,6} ?END)[^\n]*\n){1,80}?)[ \t]*-{4,6} ?END",
        ("BEGIN",),
        _armoured,
        None,
    ),
    (
        "secret",
        rf"(?m)(?:\bcat[ \t]+{_FILE}[ \t]*\r?\n(?:[$#>][^\n]*\n)?[ \t]*"
        rf"|\becho[ \t]+(?:-n[ \t]+)?(?=[\"']?[^\s\"']+[\"']?[ \t]*>>?[ \t]*{_FILE}))"
        r"[\"']?(?P<secret>[A-Za-z0-9+/=_\-.:]{12,512})[\"']?",
        ("cat ", "echo "),
        _file_content,
        None,
    ),
    # a line that names a secret or private key (minisign's and signify's "untrusted comment: …
    # secret key", "# private key"), then a key's base64 alone on the next line
    (
        "private_key",
        r"(?im)^[^\n]{0,60}\b(?:secret|private)[ \t_\-]?key\b[^\n]{0,30}\r?\n"
        r"[ \t]*(?P<secret>[A-Za-z0-9+/]{40,}={0,2})[ \t]*$",
        ("secret key", "private key", "secret_key", "private_key", "secret-key", "private-key"),
        None,
        None,
    ),
    # OpenVPN's inline <auth-user-pass>: the user, then the password
    (
        "password",
        r"<auth-user-pass>[ \t]*\r?\n(?P<secret>(?:[^\n<]*\n){1,3})",
        ("<auth-user-pass>",),
        _password_line,
        None,
    ),
    (
        "password",
        rf"\bcat[ \t]+{_LOGIN_FILE}[ \t]*\r?\n(?P<secret>(?:[^\n]*(?:\n|$)){{1,3}})",
        ("cat ",),
        _password_line,
        None,
    ),
]
