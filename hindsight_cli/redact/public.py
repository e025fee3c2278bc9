"""Values that are public by what their name or their own shape says. Part of ``redact``.

Random-looking public values sit under key-like names as often as secrets do: a Stripe publishable
key, a reCAPTCHA site key, a WireGuard peer's public key, a DKIM record's or a JWK's public key, an
age recipient, a donation address, a SealedSecret's or a SOPS file's ciphertext. The generic rules
judge a value by its name and its randomness, so they would take these too; ``public`` is asked of
every span a generic rule would replace (as ``values.placeholder`` is) and keeps the value when

- the name it is given (the words just before it on its line) holds a word of the public vocabulary
  (``publishable``, ``public``, ``site``, ``recipient``, ``fingerprint``, ``checksum``…) and no word
  that makes it a secret (``secret``, ``private``, ``password``…): ``RECAPTCHA_SITE_KEY`` is public,
  ``RECAPTCHA_SECRET_KEY`` is not;
- the value carries a public key's or an address's own prefix (``pk_live_``, ``pk.eyJ``,
  ``age1``, ``bc1q``, ``npub1``, ``0x`` and 40 hex digits), or a Monero address's or an IPFS
  content id's shape (``Qm…``, ``bafy…``);
- it is the public half of a key's structure: ``p=`` in a DKIM record, ``n``/``e``/``x``/``y`` in a
  JWK (never ``d``, ``p``, ``q``: a private JWK's primes);
- a parent key above it in YAML says it is ciphertext, a digest or public (``encryptedData:``,
  ``checksums:``, ``public_keys:``);
- it is Supabase's anon key (a JWT whose payload's role is ``anon``), or
- it is base64 of a JSON object that holds no secret (a JWT's header alone, a page's cursor), a
  field's declared type after its name (``password: SecretStr = Field(…)``, ``password: string;``),
  or what follows a ``::`` (``tests/test_auth.py::test_login…[case-…]``, ``auth::password::…``).

Provider formats are never kept this way: a token of a secret format under a public name is still
that secret (the JWT rule asks ``anon_jwt`` itself).
"""

from __future__ import annotations

from .lines import holds

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

# Words of a name that say the value is public, a digest or ciphertext.
PUBLIC_PARTS = frozenset(
    (
        "public",
        "pub",
        "publishable",
        "site",
        "sitekey",
        "recipient",
        "recipients",
        # a WireGuard peer is named by its public key (wg show: "peer: …")
        "peer",
        "fingerprint",
        "donate",
        "donation",
        "donations",
        "checksum",
        "integrity",
        "etag",
        "ciphertext",
        "encrypted",
        "sealed",
        "onion",
        "vapid",
        "measurement",
        # a request's own id, sent so a retry is not done twice or to follow it through logs
        "idempotency",
        "correlation",
        "dedup",
        "deduplication",
    )
)
# Words of a name that make it a secret whatever else it says (RECAPTCHA_SECRET_KEY,
# WG_PRIVATE_KEY, SITE_PASSWORD).
_SECRET_PARTS = frozenset(
    (
        "secret",
        "secrets",
        "private",
        "priv",
        "password",
        "passwd",
        "pass",
        "pwd",
        "passphrase",
        "seed",
        "mnemonic",
        "credential",
        "credentials",
        "preshared",
        "psk",
        "sk",
    )
)
_PUBLIC_PREFIXES = (
    *("pk_live_", "pk_test_", "pk.ey", "age1", "npub1", "bc1q", "bc1p", "tb1q"),
    # a wallet's extended public keys
    *("xpub", "ypub", "zpub", "tpub", "vpub", "upub"),
)
# an Ethereum address; a Monero address (standard or integrated, base58)
# an IPFS content id, a hash of public content: v0 (Qm and 44 base58), v1 in lower-case base32
# (bafy…, bafk…, bafz…, bafyrei…: lower case and digits)
_ADDRESS = (
    r"0x[0-9a-fA-F]{40}|[48][1-9A-HJ-NP-Za-km-z]{94}(?:[1-9A-HJ-NP-Za-km-z]{11})?"
    r"|Qm[1-9A-HJ-NP-Za-km-z]{44}|baf[a-z][a-z0-9]{52,}"
    # the same base32 in capitals, after the lower-case multibase and codec prefix or with it
    r"|baf[a-z]{4}[A-Z2-7]{52,}|BAF[A-Z][A-Z2-7]{52,}"
)
# Words of a name that say its value is a digest (of whatever else the name says: a Helm chart's
# ``checksum/secret`` annotation, ``secret_sha256``), when the value has a digest's length in hex
_DIGEST_PARTS = frozenset(("checksum", "digest", "hash", "sha", "md"))
_DIGEST_LENGTHS = (32, 40, 64, 96, 128)
# ... given to that name (``checksum/secret:``, ``secret_sha256 =``), not a key file's type before
# its key (ntp.keys' ``1 SHA1 <key>``)
_DIGEST_NAME = r"(?i)(?:checksum|digest|hash|sha\d*|md5)[\w/.\-]{0,40}[\"']?[ \t]*[:=][ \t]*[\"']?$"
# what names an OpenPGP key's id or fingerprint (8, 16 or 40 hex digits): git's
# ``user.signingkey``, gpg's ``--default-key``, ``--local-user``, ``--recv-keys``, a ``keyid``
_KEY_ID_NAME = r"(?i)(?:signing_?key|key_?id|default-key|local-user|recv-keys?|fingerprint)\W{0,4}$"
# a parent whose children are messages about a field, not its value (a form's errors)
_MESSAGE_PARENTS = frozenset(("errors", "error", "messages", "warnings", "hints", "validation"))
# the public members of a JWK: RSA modulus and exponent, an EC point
_JWK_PUBLIC = frozenset(("n", "e", "x", "y", "crv", "kid", "kty", "alg", "use"))
# characters of the value's line that are read around it
_VIEW = 256


def public(text: str, start: int, end: int) -> bool:
    """Whether the value at ``text[start:end]`` is public (see the module's docstring)."""
    import re

    value = text[start:end]
    if value.startswith(_PUBLIC_PREFIXES) or re.fullmatch(_ADDRESS, value):
        return True
    if value.startswith("eyJ") and (_plain_json(value) or anon_jwt(value) or sample_jwt(value)):
        return True
    if declared_type(text, start, end):
        return True
    if value.startswith(":") and text[start - 1 : start] == ":":
        # a value cut at "::", which joins a path's parts, no assignment: a test's id
        # (tests/test_auth.py::test_…[case-…]), a Rust, C++, Ruby or PHP path (auth::password::…);
        # a token holding "::" whole (K10…::server:…) is no such cut
        return True
    # the line's start if it is within _VIEW characters (one before them when it is not: the value
    # is then read as on a longer line): found across the whole line, a long line of values was
    # read back to its start for each (review BT)
    low = max(0, start - _VIEW - 1)
    line_start = text.rfind("\n", low, start) + 1 or low
    # what is read before the value: the line's last _VIEW characters, from a word's start. Read
    # whole, every value of a line like "Authorization: Bearer …" repeated read the whole line
    # before it (30,000 characters of it took 4.4 s).
    view_start = max(line_start, start - _VIEW)
    if view_start > line_start and not text[view_start - 1].isspace():
        # the view begins inside a word: it begins after that word
        cut = re.search(r"\s", text[view_start:start])
        view_start = view_start + cut.start() if cut else start
    before = text[view_start:start]
    # the name: the last two words before the value, flags left out (curl --digest --user a:b)
    named = [w for w in before.split() if any(c.isalnum() for c in w)][-2:]
    parts = _parts(" ".join(w for w in named if not w.startswith("-")))
    # a name cut by the view may have lost the word that makes it secret: it keeps no value
    whole = view_start == line_start or len(named) == 2
    if whole and parts & PUBLIC_PARTS and not parts & _SECRET_PARTS and not _leaf_key(named):
        return True
    if _digest_or_key_id(value, before, parts) or _said_public(before):
        return True
    if "key" in parts and not parts & _SECRET_PARTS and _client_key(text, start, parts):
        return True
    if _key_structure(text, before, line_start, start, end):
        return True
    return view_start == line_start and (
        _ciphertext_parent(text, before, line_start)
        or _message_parent(text, before + value.split("\n", 1)[0], line_start)
    )


def _digest_or_key_id(value: str, before: str, parts: set[str]) -> bool:
    """A digest under a name that says so (``checksum/secret: <64 hex>``, ``secret_sha256``), or an
    OpenPGP key's id or fingerprint after what names one (``signingkey = 3AA5C34371567BD2``)."""
    import re

    hexed = value[2:] if value.startswith("0x") else value
    if not hexed or not all(c in "0123456789abcdefABCDEF" for c in hexed):
        return False
    if (
        len(hexed) in _DIGEST_LENGTHS
        and parts & _DIGEST_PARTS
        and re.search(_DIGEST_NAME, before) is not None
    ):
        return True
    # a private key's id (a service account's ``private_key_id``) is not a public key's
    return (
        len(hexed) in (8, 16, 40)
        and not parts & _SECRET_PARTS
        and re.search(_KEY_ID_NAME, before) is not None
    )


def _said_public(before: str) -> bool:
    """A label whose parenthesis says its value is public (``Recipient wallet (public address, safe
    to share): …``), read whole where the name is its last two words; no secret's word and no
    negation in it."""
    import re

    label = re.fullmatch(r"[^:=()\n]{0,80}\(([^()\n]{1,80})\)[ \t]*:[ \t]*", before)
    if label is None:
        return False
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", label.group(1))}
    return (
        bool(words & PUBLIC_PARTS)
        and not _parts(before) & _SECRET_PARTS
        and not words & {"not", "never", "no", "don", "do"}
    )


# Type names a field is declared with (Python, TypeScript, GraphQL, Rust, Java, SQL, schemas)
_TYPE_NAMES = frozenset(
    (
        *("str", "string", "String", "SecretStr", "SecretBytes", "bytes", "int", "integer"),
        *("number", "bool", "boolean", "Boolean", "any", "unknown", "text", "varchar", "char"),
        *("Text", "Any", "object", "Optional", "Option", "None", "null", "undefined", "ID"),
    )
)


def declared_type(text: str, start: int, end: int) -> bool:
    """A field's declared type after its name's colon, not its value: ``password: SecretStr =
    Field(…)``, ``password: string;``, ``password: String!``, ``token?: Optional[str]``,
    ``api_key: ApiKey = None`` (a class's name with a default after it)."""
    import re

    if not re.search(r"\w\??:[ \t]*$", text[max(0, start - 64) : start]):
        return False
    value = text[start:end]
    plain = re.sub(r"[!?;,)}]+$", "", value)
    if re.split(r"[\[<|]", plain, maxsplit=1)[0] in _TYPE_NAMES:
        return True
    return (
        re.fullmatch(r"[A-Z][a-z]+(?:[A-Z][a-z]+)+", plain) is not None
        and re.match(r"[ \t]*=(?!=)", text[end : end + 8]) is not None
    )


def _plain_json(value: str) -> bool:
    """Base64 of a JSON object that holds no secret: a JWT's header alone (``eyJhbGciOi…``), a
    page's cursor, a key's envelope. Not a JWT (its parts cut by dots) and not an object holding a
    random value, a key or a password (a Cloudflare tunnel token, a service account's JSON)."""
    import base64
    import binascii
    import json

    if len(value) > 700:
        # more than a header or a cursor (a service account's JSON)
        return False
    body = value.replace("-", "+").replace("_", "/")
    try:
        decoded = base64.b64decode(body + "=" * (-len(body) % 4), validate=True).decode()
        parsed = json.loads(decoded)
    except (binascii.Error, ValueError):
        return False
    if not isinstance(parsed, dict):
        return False
    return not _holds_secret(parsed)


def anon_jwt(value: str) -> bool:
    """A JWT whose payload gives the role ``anon``: Supabase's anon key, made to ship in every
    browser beside row-level security, as a publishable key is (its ``service_role`` key is a
    secret)."""
    import base64
    import binascii
    import json

    parts = value.split(".")
    if len(parts) != 3 or len(parts[1]) > 2048:
        return False
    body = parts[1]
    try:
        claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(claims, dict) and claims.get("role") == "anon"


# The keys jwt.io's debugger signs its sample tokens with until the user types another: a token
# signed with one is a documentation sample (the debugger's own, or one made there), no credential
_SAMPLE_SECRETS = {"HS256": "your-256-bit-secret", "HS384": "your-384-bit-secret"}
_SAMPLE_SECRETS["HS512"] = "your-512-bit-secret"


def sample_jwt(value: str) -> bool:
    """A JWT whose HMAC signature is made with jwt.io's placeholder key (``your-256-bit-secret``):
    the debugger's sample or a token made there to show claims, which anyone can forge."""
    import base64
    import binascii
    import hashlib
    import hmac
    import json

    parts = value.split(".")
    if len(parts) != 3 or len(parts[0]) > 200 or len(parts[1]) > 2048:
        return False
    try:
        header = json.loads(base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4)))
    except (binascii.Error, ValueError):
        return False
    alg = header.get("alg") if isinstance(header, dict) else None
    key = _SAMPLE_SECRETS.get(alg) if isinstance(alg, str) else None
    if alg is None or key is None:
        return False
    digest = getattr(hashlib, "sha" + alg[2:])
    signed = hmac.new(key.encode(), f"{parts[0]}.{parts[1]}".encode(), digest).digest()
    return hmac.compare_digest(base64.urlsafe_b64encode(signed).rstrip(b"=").decode(), parts[2])


# Services whose client key is public by design, shipped to every browser beside a secret kept on
# the server (Pusher's app key and app secret): a name's or a client's word for the service
_CLIENT_KEY_SERVICES = ("pusher",)


def _client_key(text: str, start: int, parts: set[str]) -> bool:
    """The public app key of a service in ``_CLIENT_KEY_SERVICES``: named for it
    (``VITE_PUSHER_APP_KEY``), or a bare ``key`` in the client's config or call a few lines above
    (``broadcaster: 'pusher'``, ``new Pusher('…', {cluster})``). Its secret is named so and goes."""
    if parts & set(_CLIENT_KEY_SERVICES):
        return True
    before = text[max(0, start - 240) : start].lower()
    return parts <= {"key", "app"} and any(service in before for service in _CLIENT_KEY_SERVICES)


def _holds_secret(value: object, depth: int = 0) -> bool:
    """Whether a decoded JSON value may hold a secret: a random string anywhere in it, or a key
    that names a secret (``password``, ``apiKey``, ``client_secret``), at any depth (the rule
    modules never call the engine back: what a key names is read by ``name_word``)."""
    from .words import high_entropy, name_word, random_printable

    if depth > 20:
        return True
    if isinstance(value, dict):
        return any(
            name_word(str(key)) is not None or _holds_secret(item, depth + 1)
            for key, item in value.items()
        )
    if isinstance(value, list):
        return any(_holds_secret(item, depth + 1) for item in value)
    return isinstance(value, str) and (high_entropy(value) or random_printable(value))


def _leaf_key(named: list[str]) -> bool:
    """Whether a dotted name's last part is a compound that names a key, with no public word in
    it: what the value is, whatever the sections above it say
    (``xpack.encryptedSavedObjects.encryptionKey``; ``recaptcha.site.key`` is the site's key)."""
    name = named[-1].strip(":=\"' ") if named else ""
    if "." not in name:
        return False
    leaf = _parts(name.rsplit(".", 1)[-1])
    return len(leaf) >= 2 and bool(leaf & {"key", "secret", "token"}) and not leaf & PUBLIC_PARTS


def _parts(name: str) -> set[str]:
    """The words of a name, split at case changes, digits and punctuation, lower case."""
    import re

    return {p.lower() for p in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)}


def _key_structure(text: str, before: str, line_start: int, start: int, end: int) -> bool:
    """``p=`` of a DKIM record; a public member of a JWK."""
    import re

    if re.search(r"\bp=[\"']?$", before):
        # the record's other tags on the key's line, within _VIEW characters either side of it
        line_end = text.find("\n", end, end + _VIEW)
        if line_end < 0:
            line_end = len(text)
        line = text[max(line_start, start - _VIEW) : min(line_end, end + _VIEW)]
        if re.search(r"(?i)\bv=DKIM1\b|\bk=(?:rsa|ed25519)\b", line):
            return True
    member = re.search(r"[\"']?(\w+)[\"']?\s*:\s*[\"']?$", before)
    return bool(member and member.group(1) in _JWK_PUBLIC and holds(text, '"kty"'))


# a parent key whose children are ciphertext, digests or public keys
_PUBLIC_PARENTS = PUBLIC_PARTS | {"checksums", "hashes", "hash", "digests", "sums", "shasums"}


def _ciphertext_parent(text: str, before: str, line_start: int) -> bool:
    """A YAML key whose parent (a line above, indented less) says its children are ciphertext,
    digests or public keys (``encryptedData:``, ``checksums:``, ``public_keys:``)."""
    parent = next(_parents(text, before, line_start), None)
    return parent is not None and bool(parent & _PUBLIC_PARENTS)


def _message_parent(text: str, line: str, line_start: int) -> bool:
    """A field under a parent of messages (``errors:`` / ``"errors": {``, at any depth above it): a
    form's messages about the password (``must be at least 12 characters``), not its value.
    ``line`` is the value's line up to its end or the line's (a YAML list's items start it)."""
    return any(parent & _MESSAGE_PARENTS for parent in _parents(text, line, line_start))


def _parents(text: str, before: str, line_start: int) -> Iterator[set[str]]:
    """The words of the keys above a line (each a line above indented less than the one before it,
    nearest first, 20 lines at most): its YAML or JSON parents."""
    indent = len(before) - len(before.lstrip(" "))
    end = line_start - 1
    seen = 0
    while indent and end > 0 and seen < 20:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        end, seen = start - 1, seen + 1
        stripped = line.lstrip(" ")
        if not stripped or len(line) - len(stripped) >= indent:
            continue
        indent = len(line) - len(stripped)
        yield _parts(stripped.split(":", 1)[0])
