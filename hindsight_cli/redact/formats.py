"""Secrets handed to code and to CI rather than assigned: a setter's or a function's argument when
the function's name says it takes a secret (``setPassword("…")``, ``PASSWORD('…')``,
``keyring.set_password("svc", "bob", "…")``, ``withApiToken("…")``), and a value a CI runner is told
to mask (``::add-mask::…``); a cell in a table's column named for a secret (a Markdown or CSV
table of logins, ``/etc/ppp/chap-secrets`` under its ``# client server secret IP`` comment); a
line of an NTP or chrony keys file (``1 SHA1 HEX:…``: the key's number, its type, the key).
Part of ``redact``.
"""

from __future__ import annotations

from .values import id_name
from .words import credential_like, fold, high_entropy, is_reference, name_word, wordish

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re


def in_template(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is inside a template's ``{{ … }}`` on its line (Ansible's
    ``{{ lookup('hashi_vault', 'secret=secret/data/db:password') }}``): code that fetches a value,
    whose arguments say where it is kept, not what it is."""
    # 200 characters either side: a long line of assignments is not read again for each
    opened = text.rfind("{{", max(0, start - 200), start)
    if opened < 0 or text.find("}}", opened, start) >= 0 or "\n" in text[opened:start]:
        return False
    line_end = text.find("\n", end, end + 200)
    return text.find("}}", end, end + 200 if line_end < 0 else line_end) >= 0


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
    if found[0] not in _CALL_WORDS and found[0] not in ("pass", "pw", "credentials"):
        # f.encrypt(b"…"), sign_with_key(…): what is encrypted or signed, not a secret
        return None
    password = found[0] in ("password", "passwd", "passphrase", "pwd", "pass", "pw")
    args, base = match.group("args"), match.start("args")
    for quoted in reversed(list(re.finditer(r"([\"'])([^\"'\n]{4,200})\1", args))):
        value = quoted.group(2)
        keyword = re.search(r"([A-Za-z_]\w*)[ \t]*[:=][ \t]*$", args[: quoted.start()])
        if (
            " " in value
            or is_reference(value)
            or (keyword and (name_word(keyword.group(1)) is None or id_name(keyword.group(1))))
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


# The words a table's column is named by when it holds secrets.
_COLUMN_WORDS = (*_CALL_WORDS, "api key", "api-key", "pin", "passcode")
_HEADERS: dict[str, tuple[str, int, int] | None] = {}


def _header(line: str) -> tuple[str, int, int] | None:
    """A table's header: its separator, the column named for a secret and how many columns, or
    None. Kept (the same header is asked of every row)."""
    found = _HEADERS.get(line)
    if found is None and line not in _HEADERS:
        if len(_HEADERS) > 256:
            _HEADERS.clear()
        found = _HEADERS[line] = _parse_header(line)
    return found


def _parse_header(line: str) -> tuple[str, int, int] | None:
    stripped = line.strip()
    sep = next((s for s in ("|", "\t", ",", ";") if s in stripped), "")
    if not sep and not stripped.startswith("#"):
        # columns apart by blanks only in a config file's comment: prose has blanks too
        return None
    cells = [c.text for c in _cells(stripped.lstrip("#"), sep)]
    # a Markdown table of one column, `| password |`, is a table by its bars; one cell apart by
    # commas or tabs is any line's
    fewest = 1 if sep == "|" and stripped.startswith("|") and stripped.endswith("|") else 2
    if len(cells) < (fewest if sep else 3) or any(len(c) > 30 or len(c.split()) > 3 for c in cells):
        return None
    for index, cell in enumerate(cells):
        name = "_".join(cell.strip("*`'\"").split())
        if not any(word in fold(name).replace("_", " ") for word in _COLUMN_WORDS):
            # "| Key | Default |": a settings table's key column
            continue
        found = name_word(name)
        if found and found[1] and not id_name(name):
            return sep, index, len(cells)
    return None


class _Cell:
    __slots__ = ("start", "text")

    def __init__(self, text: str, start: int) -> None:
        self.text, self.start = text, start


def _cells(line: str, sep: str) -> list[_Cell]:
    """The cells of a row, each stripped, with its place in the line (a Markdown row's outer bars
    hold no cell)."""
    import re

    pattern = r"\S+" if not sep else f"[^{re.escape(sep)}]+"
    pieces = list(re.finditer(pattern, line))
    if sep == "|" and line.strip().startswith("|"):
        first, last = line.find("|"), line.rfind("|")
        pieces = [p for p in pieces if first < p.start() and p.end() <= last]
    out = []
    for piece in pieces:
        text = piece.group()
        body = text.strip()
        start = piece.start() + len(text) - len(text.lstrip())
        out.append(_Cell(body, start))
    return out


def _table_cell(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A row's cell under a column named for a secret, the header being the first line of the
    block (lines with no blank line between) the row is in."""
    text, start = match.string, match.start()
    blank = text.rfind("\n\n", max(0, start - 4000), start)
    top = blank + 2 if blank >= 0 else (text.rfind("\n", 0, max(0, start - 4000)) + 1)
    head_end = text.find("\n", top)
    if label or head_end < 0 or head_end >= start:
        return None
    found = _header(text[top:head_end])
    row = match.group()
    if found is None or row.lstrip().startswith(("#", "|-", "|:", "---")):
        return None
    sep, column, width = found
    cells = _cells(row, sep)
    if len(cells) <= column or (sep and len(cells) != width):
        return None
    cell = cells[column]
    value = cell.text.strip("`'\"")
    if " " in value or len(value) < 6 or wordish(value) or not credential_like(value, strict=False):
        # default_agent, n/a, see vault: a name or a note, not a password
        return None
    begin = match.start() + cell.start + cell.text.find(value)
    return begin, begin + len(value)


def _time_key(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A key of an NTP or chrony keys file: written with ``HEX:`` or ``ASCII:``, or in a text that
    names such a file (a digest's length alone reads as a checksum list's)."""
    import re

    value, form = match.group("secret"), match.group("form")
    low = match.string.lower()
    if label or is_reference(value):
        return None
    if form or any(name in low for name in ("ntp", "chrony", "trustedkey", ".keys")):
        return match.span("secret")
    return None if re.fullmatch(r"[0-9a-fA-F]+", value) else match.span("secret")


def _marked_sensitive(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A Terraform or OpenTofu state's attribute that the state itself marks sensitive in the 1,500
    characters after it (``"sensitive_attributes": [[{"type": "get_attr", "value": "result"}]]``
    of a ``random_password``, ``"sensitive_values": {"result": true}`` of ``terraform show
    -json``), whatever its name says."""
    import re

    if label or is_reference(match.group("secret")):
        return None
    after = match.string[match.end() : match.end() + 1500]
    marked = set(re.findall(r"\"get_attr\",[ \t]*+\"value\":[ \t]*+\"(\w++)\"", after))
    values = after.find('"sensitive_values"')
    if values >= 0:
        marked |= set(re.findall(r"\"(\w++)\":[ \t]*+true\b", after[values : values + 500]))
    return match.span("secret") if match.group("name") in marked else None


RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    # an attribute a Terraform state marks sensitive (a random_password's "result")
    (
        "secret",
        r"\"(?P<name>[A-Za-z_]\w{0,60})\"[ \t]*:[ \t]*\"(?P<secret>[^\"\\\n]{4,512})\"",
        ("sensitive_attributes", "sensitive_values"),
        _marked_sensitive,
        None,
    ),
    # a key's 64 hex handed to what makes a wallet or a signer from it (new ethers.Wallet("0x…"),
    # Account.from_key(…), privateKeyToAccount(…)); a hash of the same length goes elsewhere. The
    # name is found by its word alone (what was read before it, ``\b[\w.]*``, matched wherever the
    # word was, and was tried from every dot of a run: 4 KB of ``a.`` took 2 s, 64 KB minutes;
    # review AU)
    (
        "private_key",
        r"(?i)(?:wallet|signer|from_?key|fromprivatekey|privatekeytoaccount|fromsecretkey"
        r"|importprivkey)[ \t]*\([ \t]*[\"']?(?P<secret>(?:0x)?[0-9a-fA-F]{64})\b",
        ("wallet", "signer", "key", "importprivkey"),
        None,
        None,
    ),
    (
        "secret",
        r"(?i)(?<![\w.])(?P<name>[A-Za-z_][\w.]{0,60})[ \t]*\((?P<args>[^()\n]{4,300})\)",
        _CALL_WORDS,
        _setter,
        lambda text: "(" in text,
    ),
    (
        "secret",
        # GitHub's mask, Azure Pipelines' setsecret and secret variables (a variable's properties
        # 512 characters at most, read once: each `##vso[task.setvariable` of a line of them with
        # no `]` tried every `issecret=true` after it to the line's end, 32 KB took 56 s, review BD)
        r"(?:::add-mask::|##vso\[task\.setsecret\]|##vso\[task\.setvariable"
        r"(?=[^\]\n]{0,512}?issecret=true)[^\]\n]{0,512}+\])"
        r"[ \t]*(?P<secret>[^\s\"'`]{4,})",
        ("::add-mask::", "##vso[task.set"),
        _masked,
        None,
    ),
    (
        "secret",
        r"(?im)^[ \t]*\d{1,5}[ \t]+(?:m|md5|sha1|sha256|sha384|sha512|aes128cmac|aes256cmac)[ \t]+"
        r"(?P<form>hex:|ascii:)?(?P<secret>[^\s#]{8,128})[ \t]*(?:#[^\n]*)?$",
        ("md5", "sha1", "sha256", "sha384", "sha512", "cmac", " m "),
        _time_key,
        None,
    ),
    # a row of a table whose header names a secret's column
    (
        "password",
        r"(?im)^[^\n]*\S[^\n]*$",
        _COLUMN_WORDS,
        _table_cell,
        lambda text: "\n" in text,
    ),
]
