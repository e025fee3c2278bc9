"""A value given to a service's name alone, and a random token standing bare in prose. Part of
``redact``.

``CIRCLECI: <40 hex>``, ``"cloudinary": "<64 hex>"``, ``newrelic: <uuid>``, ``vonage: <16
characters>``: a config line that gives a value to one bare word names a service, and a service's
value there is its credential. The general value rule (``values``) leaves such values alone where
their shape is also an id's (a SHA's length, a UUID, a short token); here the name is one word
that is no id, digest, entity or public word, and the line holds nothing but the name and the value.

A token in prose with no name at all (``I pasted <40 characters> into the dashboard``) goes when it
is long and as random as a generated key: 24 or more letters and digits mixing both cases and
digits, nothing else, no word inside it; after a short prefix and its dot too (``sl.…``), in parts
cut by dots, or in base64's own alphabet (``+``, ``/``). Base64 of a JSON object goes when the
object holds a random value, a private key or a password's value (``eyJhIjoi…``, a service
account's JSON).
"""

from __future__ import annotations

from .lines import alone_on_line, holds
from .public import PUBLIC_PARTS
from .values import id_name
from .words import HASH_WORDS, keyword_argument, wordish

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# One-word names that name a thing, not a service: their values are ids or digests.
_ENTITIES = frozenset(
    (
        # a record's or a run's own id (terraform state's "lineage", a workflow's "execution")
        *("lineage", "serial", "execution", "stack", "deployment", "child", "operation", "batch"),
        *("step", "ticket", "incident", "alert", "check", "dashboard", "report", "network"),
        *("subnet", "vpc", "checkpoint", "migration", "upload", "attempt", "chunk", "monitor"),
        "tenant",
        "project",
        "workspace",
        "org",
        "organization",
        "team",
        "app",
        "application",
        "client",
        "device",
        "environment",
        "env",
        "region",
        "zone",
        "space",
        "group",
        "folder",
        "directory",
        "dataset",
        "table",
        "database",
        "db",
        "schema",
        "collection",
        "index",
        "bucket",
        "queue",
        "topic",
        "channel",
        "room",
        "server",
        "service",
        "resource",
        "item",
        "entity",
        "record",
        "row",
        "member",
        "host",
        "machine",
        "agent",
        "session",
        "transaction",
        "player",
        "game",
        "post",
        "comment",
        "thread",
        "note",
        "board",
        "card",
        "category",
        "key",
        "value",
        "expected",
        "actual",
        "got",
        "received",
        "old",
        "new",
        "before",
        "after",
        "upstream",
        "origin",
        "remote",
        "local",
        "latest",
        "current",
        "previous",
        "source",
        "target",
        "from",
        "to",
        "in",
        "at",
        "see",
        "fixed",
        "merged",
        "reverted",
        "hex",
        "base",
        "color",
        "colour",
        "accessor",
        # package managers, build and version-control tools: their hex values are digests
        "yarn",
        "npm",
        "pnpm",
        "pip",
        "cargo",
        "go",
        "gem",
        "bundler",
        "composer",
        "nuget",
        "maven",
        "gradle",
        "docker",
        "git",
        "hg",
        "svn",
        "nix",
        "brew",
        "conda",
        "poetry",
        "layer",
        "manifest",
        "tarball",
        "archive",
        "artifact",
        "asset",
        "download",
        "package",
        "module",
        "lockfile",
        # the name of a network, a host, a place for data
        "ssid",
        "essid",
        "hostname",
        "host",
        "realm",
        "domain",
        "bucket",
        "queue",
        "topic",
        "channel",
        "database",
        "schema",
        "namespace",
        "repo",
        "repository",
    )
)


def _service_name(name: str) -> bool:
    """One word of letters and digits, no id, digest, entity or public word."""
    low = name.lower()
    if not name.isalnum() or not any(c.isalpha() for c in name) or len(name) < 3:
        return False
    if low in _ENTITIES or low in HASH_WORDS or low in PUBLIC_PARTS or id_name(name):
        return False
    # one word: all lower, all upper or capitalised (no camelCase parts: runId, buildSha)
    return name.islower() or name.isupper() or name[1:].islower()


def _service_value(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    if label or not _service_name(match.group("name").split(".")[0]):
        return None
    if keyword_argument(match.group("secret")):
        # "DEBUG2: member=_private_method_2,": a log's field, not the name's value
        return None
    return match.span("secret") if service_credential(match.group("secret")) else None


def service_credential(value: str) -> bool:
    """A value that is a credential when a service's name is all it is given: hex of 24 or more
    (a SHA's lengths too), a UUID, a short random token (12 to 19 letters and digits), or a longer
    one mixing three kinds of character (``7|…``, ``u+2n…``)."""
    import re

    from .words import _entropy, classes, is_reference

    if re.fullmatch(r"[0-9a-f]{24,128}|[0-9A-F]{24,128}", value):
        return _entropy(value) >= 3.0
    if re.fullmatch(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", value):
        return True
    if wordish(value) or is_reference(value) or re.match(r"v?\d+\.\d+", value):
        return False
    from .values import _text_in_base64

    if len(value) >= 16 and _text_in_base64(value):
        # base64 of text: a cursor, a JWT's header (a key packed as JSON: _json_token)
        return False
    if (
        re.fullmatch(r"[a-z]{1,12}-[0-9a-f]{6,}|[0-9a-f]+(?:-[0-9a-f]+){3,}", value)
        or "--" in value
    ):
        # a resource id: subnet-0a1b…, i-0ab1…; a chain of hex ids (a traceparent: 00-…-…-01);
        # punycode (xn--knigsgchen-b4a3dun)
        return False
    letters, digits = sum(c.isalpha() for c in value), sum(c.isdigit() for c in value)
    if value.isalnum() and len(value) < 20:
        mixed = classes(value) == 3 or digits >= 3
        return len(value) >= 12 and mixed and letters >= 4 and _entropy(value) >= 3.2
    return (
        len(value) >= 20
        and classes(value) >= 3
        and digits >= 1
        and _entropy(value) >= 3.5
        and "/" not in value.strip("/")[:-1]
        and ".." not in value
    )


def _signify_public(value: str) -> bool:
    """A signify or minisign public key (``minisign -P RWQ…``, an OpenBSD release's ``.pub``):
    base64 of "Ed", an eight-byte key id and 32 bytes, 56 characters; their secret keys are longer
    and start otherwise."""
    import base64
    import binascii

    if len(value) != 56 or not value.startswith("RW"):
        return False
    try:
        return base64.b64decode(value, validate=True)[:2] == b"Ed"
    except (binascii.Error, ValueError):
        return False


_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _base58_public(value: str) -> bool:
    """Base58 of 32 bytes, 32 to 44 characters: an Ed25519 public key, a Solana address (``solana
    balance 7c1H…``), said bare; a keypair's secret is 64 bytes (87 or 88 characters), a WIF key
    37 or 38 (51 or 52)."""
    if not 32 <= len(value) <= 44 or not set(value) <= set(_BASE58):
        return False
    number = 0
    for c in value:
        number = number * 58 + _BASE58.index(c)
    zeros = len(value) - len(value.lstrip("1"))
    return zeros + (number.bit_length() + 7) // 8 == 32


def _bare_token(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    import re

    from .values import _text_in_base64, base64_of_secret
    from .words import _FILE_MAGIC, _entropy

    value = match.group("secret")
    if label or _entropy(value) < (4.3 if len(value) >= 32 else 4.1) or wordish(value):
        return None
    if re.match(r"(?:nonce|sha256|sha384|sha512)-", value):
        # a Content-Security-Policy source ('nonce-…', 'sha256-…'): public in the page
        return None
    if value.startswith(_FILE_MAGIC) or _signify_public(value) or _base58_public(value):
        # an image's or an SSH public key's base64 (ssh-ed25519 AAAAC3Nza…)
        return None
    if any(_text_in_base64(part) for part in re.split(r"[-_]", value) if len(part) >= 20):
        # base64 of a name, alone or after words (bedrock-api-key-<base64 of a host>)
        return None
    text = match.string
    # the line's start where a list's label may stand before the value (400 characters), and
    # whether the value stands alone on its line, each read over what it needs only: the whole line
    # copied for each token on it made a long line of tokens quadratic (review BP)
    low = max(0, match.start() - 401)
    line_start = text.rfind("\n", low, match.start()) + 1 or low
    alone = alone_on_line(text, *match.span("secret"))
    if alone and (
        (len(value) in (60, 64, 76) and "-" not in value and "_" not in value)
        or holds(text, "-----BEGIN")
    ):
        # a line of a wrapped base64 body (PEM, PGP, MIME; no "-" or "_" there)
        return None
    before = text[max(0, match.start() - 40) : match.start()].split()[-2:]
    if value.endswith("=") and alone:
        # a wrapped base64 body's last line, padded
        return None
    if base64_of_secret(value):
        return match.span("secret")
    if _said_public(text[match.end() : match.end() + 80]):
        # "<address> (my public wallet address, not the private key)"
        return None
    if any(id_name(w.strip(":=\"'")) or w.strip(":").lower() in PUBLIC_PARTS for w in before):
        # "wallet address …", "commit …", "public key: …"
        return None
    listed = match.start() - line_start <= 400 and re.match(
        r"[ \t]*([\w \-]{1,30}):[ \t]+(?:[^\s,]++,[ \t]*+)++$", text[line_start : match.start()]
    )
    if listed and id_name(listed.group(1)):
        # a later item of a list after its label ("Signers: <key>, <key>")
        return None
    above = text[max(0, match.start() - 80) : match.start()].lower()
    if any(word in above for word in ("public key", "pubkey", "fingerprint", "certificate")):
        # "untrusted comment: minisign public key <id>" on the line above
        return None
    if _joined(value) or sum(c.isdigit() for c in value) < 2 or _object_id(value):
        return None
    return match.span("secret")


def _said_public(after: str) -> bool:
    """Whether the parenthesis right after a value says what it is, an address, an id or a public
    key, in its first clause (before a comma, a dash or "not": "(that's my public wallet address,
    not the keypair)")."""
    import re

    from .values import id_name

    # (a verb may stand between: "Bitte auf <address> überweisen (das ist meine … Adresse)")
    said = re.match(r"[ \t]*+(?:[^\s()]{1,20}[ \t]+){0,2}\(([^)\n,;:—–]{1,60})", after)
    if said is None:
        return False
    words = re.split(r"[^\w]+", said.group(1).lower().split(" not ")[0])
    return any(w in PUBLIC_PARTS or w in _PUBLIC_SAID or (len(w) > 2 and id_name(w)) for w in words)


# "public" and "address" in the languages the public parts' table lacks
_PUBLIC_SAID = frozenset(
    "öffentliche öffentlicher adresse publique pública público dirección endereço indirizzo"
    " pubblico pubblica adres openbaar publiczny".split()
)


def _object_id(value: str) -> bool:
    """An API object's id: a short type prefix, ``_``, 14 to 28 letters and digits (Stripe's
    ``we_…``, ``cus_…``, ``pi_…``), unless the prefix says key or secret (``sk_``, ``rk_``)."""
    head, _, body = value.partition("_")
    return (
        2 <= len(head) <= 6
        and head.islower()
        and head.isalpha()
        and head not in ("sk", "rk", "whsec", "key", "secret", "token", "pat", "api")
        and 14 <= len(body) <= 28
        and body.isalnum()
    )


def _dotted_token(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A bare token in parts cut by dots, its first and last parts long and random (a signed
    token not in a JWT's ``eyJ`` form, a session's ``<data>.<signature>``): the bare rule reads a
    dot as the end of a sentence."""
    import re

    from .words import _entropy, classes

    value = match.group("secret")
    parts = value.split(".")
    if label or len(value) < 40 or min(len(parts[0]), len(parts[-1])) < 16:
        return None
    if classes(value.replace(".", "")) < 3 or sum(c.isdigit() for c in value) < 2:
        return None
    long_parts = [p for p in parts if len(p) >= 16]
    if any(_entropy(p) < 3.7 or wordish(p) or _joined(p) for p in long_parts):
        return None
    before = match.string[max(0, match.start() - 40) : match.start()].split()[-2:]
    if any(id_name(w.strip(":=\"'")) or w.strip(":").lower() in PUBLIC_PARTS for w in before):
        return None
    return match.span("secret") if not re.search(r"\.(?:com|net|org|io)\b", value) else None


def _json_token(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Base64 of a JSON object that holds a random value, a private key or a value under a
    password's or a secret's name (a Cloudflare tunnel's token ``eyJhIjoi…``, a Grafana key
    ``eyJrIjoi…``, a service account's JSON): a credential packed as JSON; a cursor (``{"page":
    2}``) or a JWT's header holds none."""
    import base64
    import binascii
    import re

    from .values import token_like

    body = match.group("secret").replace("-", "+").replace("_", "/")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    from .words import NAME_ONLY_WORDS, PASSWORD_WORDS, SECRET_WORDS, name_word

    text = raw.decode("utf-8", "replace")
    if "PRIVATE KEY" in text:
        # a service account's JSON, whole
        return match.span("secret")
    pairs = re.findall(r"\"([^\"]{1,40})\"\s*:\s*\"([^\"]{4,})\"", text)
    if any(
        token_like(value)
        or (
            _secret_word(name_word(name), PASSWORD_WORDS + NAME_ONLY_WORDS + SECRET_WORDS)
            and not id_name(name)
        )
        for name, value in pairs
    ):
        return match.span("secret")
    return None


def _bare_base64(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A bare token in base64's own alphabet, ``+`` or ``/`` inside ("unseal with KVzo…/Fv…+ and
    two more"), which the bare rule reads as a path's parts: only with the entropy of random bytes
    and none of the bare rule's exceptions (an image, base64 of text, a line of a wrapped body)."""
    from .words import _entropy, is_path

    value = match.group("secret").rstrip("=")
    if label or _entropy(value) < 4.5 or is_path(value) or value.count("/") > len(value) // 8:
        return None
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value)):
        return None
    return _bare_token(match, label)


def _may_hold_base64(text: str) -> bool:
    """``_bare_base64``'s gate: a word of 30 or more in base64's alphabet alone, with ``+`` or
    ``/`` and two digits, not a path's start (``/tmp/pytest-of-root/…`` has "-" and "_" anyway)."""
    return any(
        len(word) >= 30
        and ("+" in word or "/" in word)
        and not word.startswith("/")
        and set(word) <= _BASE64_CHARS
        and sum(c.isdigit() for c in word) >= 2
        for word in (w.strip("\"'`()[]<>,;.!?") for w in text.split())
    )


_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def _secret_word(found: tuple[str, bool] | None, words: tuple[str, ...]) -> bool:
    """Whether a name's secret word (``name_word``'s answer) ends it and is one of ``words``."""
    return found is not None and found[1] and found[0] in words


def _may_hold_dotted(text: str) -> bool:
    """``_dotted_token``'s gate: a word of 40 characters or more with a dot and two digits."""
    return any(
        len(word) >= 40 and "." in word and sum(c.isdigit() for c in word) >= 2
        for word in text.split()
    )


def _joined(value: str) -> bool:
    """A joined name, not a generated key: a word, acronym or number inside it, its parts
    between ``-`` and ``_`` all short (a pod's name: api-7d9f8b6c4d-x2x9z), or its runs of one kind
    of character long on average (``TestFixture12ForUserAccounts``; a random token switches kind
    every two characters or so)."""
    import re

    single = value.lower() == value or value.upper() == value
    # in one case (a CID, a base32 id), a run of six letters is a word
    if re.search(r"[a-z]{6}|[A-Z]{6}|\d{6}" if single else r"[a-z]{10}|[A-Z]{10}|\d{6}", value):
        return True
    if max(len(part) for part in re.split(r"[-_]", value)) < 20:
        return True
    runs = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", value)
    return len(value) >= 3.2 * len(runs)


def _in_secret_block(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A random value under any name inside a block named for secrets (``tokens { initial_management
    = "<uuid>" }``, ``credentials:`` then ``  prod: …``): the block's name names its children."""
    from .public import PUBLIC_PARTS, _parts
    from .words import high_entropy, name_word

    value = match.group("secret")
    if label or not (service_credential(value) or high_entropy(value)):
        return None
    # the block's name on the same line (HCL's tokens { agent = "…" }) or on a line above
    parent = match.groupdict().get("parent") or _parent(match.string, match.start())
    if parent is None or name_word(parent) is None or _parts(parent) & PUBLIC_PARTS:
        return None
    own = match.string[match.start() : match.start("secret")].strip(" \t\"':=")
    if name_word(own) is None and id_name(own):
        # a child that names an id (an auth config's clientId, appId): not the block's secret
        return None
    return match.span("secret")


def _parent(text: str, start: int) -> str | None:
    """The name of the YAML key or HCL block the line holding ``start`` sits in: the nearest line
    above it indented less, ending in ``:`` or ``{``."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    indent = len(line) - len(line.lstrip(" \t"))
    end, seen = line_start - 1, 0
    while end > 0 and seen < 30:
        begin = text.rfind("\n", 0, end) + 1
        above, end, seen = text[begin:end], begin - 1, seen + 1
        body = above.strip()
        if not body or len(above) - len(above.lstrip(" \t")) >= indent:
            continue
        if not body.endswith((":", "{")):
            return None
        return body.rstrip(":{ \t=").strip("\"'")
    return None


def _may_hold_short(text: str) -> bool:
    """The service rule's gate, without ``re``: a separator and a word of 12 or more characters
    with letters and digits, a path's parts read one by one."""
    if ":" not in text and "=" not in text:
        return False
    return any(
        any(c.isdigit() for c in piece) and any(c.isalpha() for c in piece)
        for piece in _pieces(text, 12)
    )


def _may_hold_bare(text: str) -> bool:
    """The bare-token rule's gate: a run of 24 or more letters, digits, ``-`` and ``_``, two of them
    digits, after a short prefix and its dot or none."""
    return any(
        piece.rstrip("=").translate(_JOINERS).isalnum() and sum(c.isdigit() for c in piece) >= 2
        for piece in map(_unprefixed, _pieces(text, 24))
    )


def _unprefixed(piece: str) -> str:
    """A token without a short lower-case prefix and its dot (Dropbox's ``sl.…``)."""
    head, dot, tail = piece.partition(".")
    return tail if dot and len(head) <= 4 and head.isalpha() and head.islower() else piece


_JOINERS = str.maketrans("", "", "-_")


def _pieces(text: str, least: int) -> list[str]:
    """The parts of ``text``'s words of ``least`` characters or more, a path's or a URL's parts
    apart (``/tmp/pytest-of-root/pytest-12/…`` holds no token), quotes and brackets stripped."""
    found = []
    for word in text.split():
        if len(word) < least:
            continue
        for piece in word.translate(_SPLIT).split("/"):
            piece = piece.strip("\"'`([{<>}]),;.!?")
            if len(piece) >= least:
                found.append(piece)
    return found


_SPLIT = str.maketrans("?&=#;:", "//////")


RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    (
        "secret",
        r"(?m)(?:^[ \t]*|[{,][ \t]*)[\"']?(?P<name>[A-Za-z][A-Za-z0-9]{2,30})[\"']?[ \t]*[:=][ \t]*"
        r"[\"']?(?P<secret>(?:\d{1,6}\|)?[A-Za-z0-9\-+=_~]{12,128})[\"']?[ \t]*(?=[,}]|$)",
        (),
        _service_value,
        _may_hold_short,
    ),
    # a child of a block named for secrets (tokens {, credentials:)
    (
        "secret",
        r"(?m)^[ \t]+[\"']?[A-Za-z_][\w.\-]{0,40}[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?P<secret>[A-Za-z0-9+/=_\-.~|]{12,256})[\"']?[ \t]*,?[ \t]*$",
        (),
        _in_secret_block,
        lambda text: "\n" in text and _may_hold_short(text),
    ),
    # … on one line: acl { tokens { agent = "<uuid>" } }
    (
        "secret",
        r"(?P<parent>[A-Za-z_][\w\-]{1,40})[\"']?[ \t]*=?[ \t]*\{[ \t]*[\"']?[A-Za-z_][\w.\-]{0,40}"
        r"[\"']?[ \t]*[:=][ \t]*[\"']?(?P<secret>[A-Za-z0-9+/=_\-.~|]{12,256})[\"']?",
        (),
        _in_secret_block,
        lambda text: "{" in text and _may_hold_short(text),
    ),
    # captaindata.Client("…"), twist.Api('…'): a service's client given its key
    (
        "secret",
        r"(?<![\w.])(?P<name>[A-Za-z][A-Za-z0-9]{2,30}\.[A-Za-z_]\w{0,30})\([ \t]*(?P<q>[\"'])"
        r"(?P<secret>[A-Za-z0-9\-+=_~|]{12,128})(?P=q)[ \t]*[,)]",
        (),
        _service_value,
        lambda text: "(" in text and _may_hold_short(text.replace("(", " ")),
    ),
    (
        "secret",
        # (with base64's padding: "(base64 of user:pass …): c3ZjX3Jl…Mg==")
        r"(?:(?<=[\s\"'`(\[<>])|^)(?P<secret>(?:[a-z]{1,4}\.)?[A-Za-z0-9](?:[A-Za-z0-9]|[-_](?=[A-Za-z0-9])){23,511}"
        r"(?:={1,2}(?![\w=]))?)"
        r"(?=[\s\"'`)\]<>,;!?]|\.(?!\w)|$)",
        (),
        _bare_token,
        _may_hold_bare,
    ),
    (
        "secret",
        r"(?:(?<=[\s\"'`(\[<>])|^)(?P<secret>(?=[A-Za-z0-9]*[+/])[A-Za-z0-9][A-Za-z0-9+/]{29,511}"
        r"={0,2})(?=[\s\"'`)\]<>,;!?]|\.(?!\w)|$)",
        (),
        _bare_base64,
        _may_hold_base64,
    ),
    # base64 of a JSON object that holds a key: eyJhIjoi…, eyJrIjoi…
    (
        "secret",
        r"(?<![\w+/.\-])(?P<secret>eyJ[A-Za-z0-9+/_\-]{28,4096}={0,2})(?![\w+/=\-])",
        ("eyJ",),
        _json_token,
        None,
    ),
    (
        "secret",
        r"(?:(?<=[\s\"'`(\[<>])|^)(?P<secret>[A-Za-z0-9_\-]{16,}(?:\.[A-Za-z0-9_\-]{6,}){1,4})"
        r"(?=[\s\"'`)\]<>,;!?]|\.(?!\w)|$)",
        (),
        _dotted_token,
        _may_hold_dotted,
    ),
]
