"""Secrets found by their value alone, and values that only stand in for one. Part of ``redact``.

A token of a format nobody listed, under a name no table knows (``MATTERMOST=…``, ``confluent: …``,
``Client("…")``, ``<license>…</license>``), is still a random token: 20 or more characters of
letters and digits with the entropy of random text. Such a value goes whatever its name, unless the
name says what else it is (an id, a hash, an address, a cursor: ``commit``, ``request_id``,
``wallet``) or the value reads as something else (a hex digest, a UUID, a path, a joined name, base64
of text, a version).

``placeholder`` is asked of every span any rule would replace: a value made to show a format
(``ghp_xxxxxxxxxxxx``, ``AKIAIOSFODNN7EXAMPLE``, ``glc_1111…``, ``sk-abcdefghijklmnop…``) is no secret,
whatever rule matched it.
"""

from __future__ import annotations

from .lines import lines_after
from .words import (
    HASH_WORDS,
    cache_key,
    dotted_numbers,
    ends,
    generated_name,
    inside_uri,
    is_reference,
    located_id,
    public_before,
    version_string,
    wordish,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# Parts of a name that say its value is an id, a digest, an address or data, not a credential.
_ID_PARTS = frozenset(
    HASH_WORDS
    | {
        "uid",
        "ulid",
        # sortable and short unique ids: KSUID, CUID, xid, Nano ID, a snowflake
        "ksuid",
        "cuid",
        "cuid2",
        "xid",
        "nanoid",
        "snowflake",
        "oid",
        # a certificate's or a device's serial number (openssl's serial=, "serialNumber")
        "serial",
        # what a value was made with, not the value: "Signature Algorithm: sha256WithRSAEncryption"
        "algorithm",
        # a content id (IPFS)
        "cid",
        "nonce",
        "salt",
        "iv",
        "state",
        "cursor",
        "page",
        "next",
        "continuation",
        "data",
        "content",
        "body",
        "payload",
        "image",
        "icon",
        "avatar",
        "src",
        "srcset",
        "integrity",
        "address",
        "addr",
        "wallet",
        "account",
        "mint",
        "program",
        "pubkey",
        "tx",
        "txid",
        "txn",
        "block",
        "node",
        "slug",
        "name",
        "title",
        "label",
        "user",
        "username",
        "login",
        "email",
        "owner",
        "author",
        "customer",
        "order",
        "invoice",
        "payment",
        "charge",
        "subscription",
        "price",
        "product",
        "sku",
        "container",
        "instance",
        "volume",
        "snapshot",
        "cluster",
        "pod",
        "job",
        "run",
        "task",
        "pipeline",
        "workflow",
        "release",
        "tag",
        "branch",
        "video",
        # a playlist's id (YouTube's list=PL…, Spotify's playlist/…)
        "list",
        "playlist",
        "track",
        "doc",
        "document",
        "file",
        "path",
        "url",
        "uri",
        "link",
        "reference",
        "tracking",
        "confirmation",
        "booking",
        "correlation",
        # an event's key for merging duplicates (PagerDuty's dedup_key), a request's
        "dedup",
        "dedupe",
        "deduplication",
        "idempotency",
        "session_name",
        "thumbprint",
        "serial_number",
        "model",
        "checksum",
        # a signature is checked, not kept secret (a presigned URL's is read by the query rule)
        "signature",
        # who signs or pays for a transaction, and a mint's authority: public keys (Solana's
        # "Signer: …", "Fee payer: …", "Mint authority: …")
        "signer",
        "signers",
        "payer",
        "authority",
        # a PKCE challenge is a hash of the verifier, sent in the authorize URL
        "challenge",
        "message",
        "msg",
        "event",
        "error",
        "warning",
        "status",
        "result",
        # go.sum's hash scheme: golang.org/x/crypto v0.21.0 h1:…=
        "h1",
        # a revision or a pinned digest: SRCREV_moby = "43fc…", base: 9f8e…
        "srcrev",
        "head",
        "base",
        "parent",
        "sum",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "pin",
        "pinned",
        "lock",
        "cache",
        "hex",
    }
)


def placeholder(value: str) -> bool:
    """A value made to show a format, not to work: mostly runs of one character (``ghp_xxxxxx…``,
    ``glc_1111…``, ``A3-XXXXXX-XXXX…``), a short pattern said over and over (``GR1348941123123123123…``),
    a run of eight in alphabet or counting order (``abcdefgh``, ``12345678``), or a stand-in word
    (``EXAMPLE``, ``YOUR…HERE``). A real token may hold a run (a Twitter bearer token starts with
    twenty ``A``), not mostly runs."""
    if len(value) < 12 or "://" in value:
        # a URL's host may be example.com; its token is judged by the rule that found it
        return False
    value = ends(value)
    if value.isascii():
        # what ``_runs_or_order`` counts, in C: the runs of four or more, and an ordered run of
        # eight (a character, then seven letters or digits each one past the one before)
        import re

        in_runs = sum(len(run.group()) for run in re.finditer(_RUNS, value))
        if in_runs >= 0.4 * len(value) or any(run in value for run in _ORDERED_RUNS):
            return True
    elif _runs_or_order(value):
        return True
    if _repeats(value) or value in _PUBLISHED_SAMPLES:
        return True
    upper = value.upper()
    return any(word in upper for word in _STAND_INS)


def _runs_or_order(value: str) -> bool:
    """Mostly runs of one character (four or more in a row), or eight in alphabet or counting
    order."""
    import itertools

    run = ordered = best = 1
    in_runs = 0
    for before, char in itertools.pairwise(value):
        if char == before:
            run += 1
        else:
            in_runs += run if run >= 4 else 0
            run = 1
        ordered = ordered + 1 if ord(char) == ord(before) + 1 and char.isalnum() else 1
        best = max(best, ordered)
    in_runs += run if run >= 4 else 0
    return in_runs >= 0.4 * len(value) or best >= 8


# runs of one character, four or more (any character, line breaks too)
_RUNS = r"(?s)(.)\1{3,}"
# every ASCII stretch ``_runs_or_order`` counts as eight in order: seven consecutive letters or
# digits of one range after the character just before the first of them ("/0123456", "abcdefgh")
_ORDERED_RUNS = tuple(
    "".join(chr(c) for c in range(start - 1, start + 7))
    for first, last in (("0", "9"), ("A", "Z"), ("a", "z"))
    for start in range(ord(first), ord(last) - 5)
)


def _repeats(value: str) -> bool:
    """Two to four characters, not all one, repeated four times or more in a row
    (``123123123123``)."""
    import re

    return re.search(r"((.)(?!\2).{1,3})\1{3,}", value) is not None


def joined_words(value: str) -> bool:
    """Words joined where a token format wants random characters: every part between ``-``, ``_``
    and ``.`` short or camelCase (``hf_requiredCharacteristicTypesForDisplayMetadata``,
    ``xoxb-my-bot-token``), as ``wordish`` reads them."""
    import re

    if not wordish(value):
        return False
    return all(
        len(part) <= 10 or re.fullmatch(r"[A-Z]?[a-z]+(?:[A-Z][a-z]+)+", part)
        for part in re.split(r"[-_.]", value)
    )


# Secrets a specification or a well-known page publishes as its example, which every reader of it
# has: the Key Uri Format's TOTP secret (Google Authenticator's wiki), RFC 4226's and RFC 6238's
# test key in base32 ("12345678901234567890")
_PUBLISHED_SAMPLES = frozenset(("JBSWY3DPEHPK3PXP", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
_STAND_INS = ("EXAMPLE", "PLACEHOLDER", "YOUR_", "YOUR-", "_HERE", "-HERE", "TOKENHERE", "KEYHERE")


def token_like(value: str) -> bool:
    """A random token: 20 to 4,096 characters (an access token may be long), letters and at least
    two digits (one in 24 characters that mix both cases), the entropy of random text, and not a
    UUID, a short or prefixed hex id, a path or reference, a joined name, a version, a ``sha…-``
    digest or base64 that decodes to text. A bare hex string of 32 or more is a key here: the name
    has already said when it is a digest (``commit``, ``sha256``, ``etag``), except at a SHA's own
    length."""
    import re

    from .words import _FILE_MAGIC, _entropy, classes

    bare = value.rstrip("=")
    if not 20 <= len(bare) <= 4096 or value.startswith(_FILE_MAGIC):
        return False
    if re.fullmatch(r"[0-9a-f]{32,}|[0-9A-F]{32,}", bare) and len(bare) not in (40, 64, 96, 128):
        # 40, 64, 96 and 128 are the lengths of SHA-1, SHA-256, SHA-384 and SHA-512: a pod's or a
        # lock file's checksum, a static file's cache-buster (app.css?v=<128 hex>)
        return _entropy(bare) >= 3.3
    if re.fullmatch(r"(?:[a-z]{1,12}-)?[0-9a-fA-F\-]+", bare) or re.match(
        r"(?i)(?:sha\d*|md5)[-:_]", bare
    ):
        # a digest, a UUID, a resource id (subnet-1f35…, i-0ab1…)
        return False
    # two digits; one is enough in 24 characters that mix both cases
    digits = sum(c.isdigit() for c in bare)
    if digits < (1 if len(bare) >= 24 and classes(bare) >= 3 else 2) or not any(
        c.isalpha() for c in bare
    ):
        return False
    if wordish(bare) or is_reference(value) or re.match(r"v?\d+\.\d+", bare):
        return False
    if version_string(bare) or cache_key(bare):
        # a version banner, a platform string (Sphinx-3.5.0+/b19bce971, macOS-12.4-arm64-arm-64bit),
        # a CI cache's key (Linux-pip-<sha256>)
        return False
    if dotted_numbers(bare) or generated_name(bare) or located_id(bare):
        # a runner's, a pod's name (gha-runner-btotd-3Itk5)
        return False
    if re.fullmatch(r"[A-Z]{2}[0-9a-f]{32}", bare) and not bare.startswith("SK"):
        # a Twilio resource's SID (AC… account, MG… messaging service, CA… call, VA… verify
        # service): an id; SK… names an API key, a credential's half
        return False
    if re.fullmatch(r"(?:[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?\.){2,}[a-z]{2,24}", bare):
        # a host's name (pkc-4r297.europe-west1.gcp.confluent.cloud): lower case, three labels
        return False
    if re.search(r"[\w-]\.[a-z]{2,4}(?:\.[a-z]{2,3})?$", bare) or "xn--" in bare:
        # a file's name (build-c841….tar.gz), a punycode domain
        return False
    if all(re.fullmatch(r"[A-Za-z]*\d{0,3}|\d{1,4}", part) for part in re.split(r"[-_./]", bare)):
        # a name made of words, each with a few digits at most: Xenova/ms-marco-MiniLM-L-4-v2
        return False
    if _entropy(bare) < 3.5:
        return False
    return not _text_in_base64(value)


def _text_in_base64(value: str) -> bool:
    """Whether ``value`` is base64 of readable text (a cursor, an encoded name or JSON)."""
    decoded = _base64_text(value)
    return decoded is not None and not encoded_secret(decoded)


def base64_of_secret(value: str) -> bool:
    """Whether ``value`` is base64 of text that gives a secret (``encoded_secret``): whatever the
    words before it say of it ("(base64 of user:pass): c3ZjX3Jl…")."""
    decoded = _base64_text(value)
    return decoded is not None and encoded_secret(decoded)


def _base64_text(value: str) -> str | None:
    """The readable text ``value`` is base64 of, if it is."""
    import base64
    import binascii

    body = value.replace("-", "+").replace("_", "/").rstrip("=")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in raw)
    if len(raw) < 8 or printable < 0.9 * len(raw):
        return None
    return raw.decode("utf-8", "replace")


def encoded_secret(decoded: str) -> bool:
    """Whether text decoded from base64 is a secret, not a cursor or a name: one password-shaped
    word (``Copper-Lotus-8841!``, base64'd "so the bot doesn't scrape it"), or text that gives a
    secret's word a password-shaped value ("neues VPN-Passwort: Maple$Harbor42",
    ``{"password":"Tz81-Kelp-Nova"}``)."""
    import re

    from .words import credential_like

    word = decoded.strip()
    if 8 <= len(word) <= 64 and not any(c.isspace() for c in word):
        # a Basic credential, "user:password" ("svc_reports:Qu4rtz!Mantle#82"): the password's
        # shape after one colon
        user, colon, password = word.partition(":")
        if colon and user and ":" not in password and re.fullmatch(r"[\w.@\-]{1,48}", user):
            return credential_like(password, strict=True)
        return credential_like(word, strict=True)
    return any(
        credential_like(found.group(1).rstrip(".,;"), strict=False)
        for found in re.finditer(
            r"(?i)(?:pass(?:word|wort|wd)?|pw|pwd|kennwort|mot[ \t]+de[ \t]+passe|contrase[ñn]a"
            r"|senha|secret|token|api[_\-]?key)[\"']?[^\n]{0,20}?(?:[:=]|\bis\b|\best\b|\bes\b"
            r"|\bist\b|\bé\b)[ \t\"']*([^\s\"',;]{6,64})",
            decoded[:4096],
        )
    )


def api_uuid(name: str, value: str) -> bool:
    """A UUID given to an API key's or a secret's name (``heroku.api.key = 574beadc-…``): Heroku's,
    HubSpot's and others' keys are UUIDs, where a bare ``id`` is not one."""
    import re

    found = [p.lower() for p in re.findall(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])", name)]
    if not found or found[-1] in ("id", "ids", "uuid", "guid"):
        # api_key_id: which key, not the key
        return False
    return bool(set(found) & {"api", "apikey", "secret", "token", "auth"}) and (
        re.fullmatch(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", value) is not None
    )


def id_name(name: str) -> bool:
    """Whether a part of ``name`` says its value is an id, digest, address or data (``_ID_PARTS``)."""
    import re

    parts = [p.lower() for p in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)]
    # a compound written as one word whose last part names a digest: blockhash, txhash, filehash
    return (
        any(p in _ID_PARTS or p.endswith(_DIGEST_ENDS) for p in parts) or name.lower() in _ID_PARTS
    )


_DIGEST_ENDS = ("hash", "digest", "checksum", "fingerprint")


def _any_name(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A random token given to a name that does not say it is an id or public."""
    import re

    if label:
        # a label's colon is a namespace (``build:…``), not an assignment
        return None
    name = match.group("name")
    if id_name(name) or inside_uri(match.string, match.start()):
        return None
    if match.groupdict().get("q0") and not _maker(name):
        # a later argument only of a client's maker: Client("AC…", "<token>"), not split("~", …)
        return None
    if public_before(match.string, match.start()):
        # "Public key: 7xKX…", "commit token: …"
        return None
    if match.string[max(0, match.start() - 2) : match.start()].endswith(("${", "$", "%")):
        return None
    value = match.group("secret")
    if (
        re.fullmatch(r"[A-Za-z_][\w.]*", value)
        and match.string[match.end() : match.end() + 1] == "("
    ):
        # a call: code (applicationServerKey: urlBase64ToUint8Array('…'))
        return None
    if match.groupdict().get("q0") and _later_key(value):
        # a maker's later argument after an id: new Pusher("<app id>", "<key>", "<20 hex>")
        return match.span("secret")
    return match.span("secret") if token_like(value) else None


def _key_id_user(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A user name that is a key's id: letters and a digit mixed as random ones are (no words, the
    entropy of random text), with a password given on its line or the next two."""
    from .words import _entropy

    value = match.group("secret")
    if label or not any(c.isdigit() for c in value) or sum(c.isalpha() for c in value) < 3:
        return None
    after = lines_after(match.string, match.end())
    if _entropy(value) < 3.0 or wordish(value) or not any("password" in x.lower() for x in after):
        return None
    return match.span("secret")


def _later_key(value: str) -> bool:
    """Hex of 20 or more with the entropy of a key, not at a SHA's length: what a client's maker
    is given after an id (Pusher's secret is 20 hex, Algolia's admin key 32)."""
    import re

    from .words import _entropy

    return (
        re.fullmatch(r"[0-9a-f]{20,128}|[0-9A-F]{20,128}", value) is not None
        # SHA-1's and SHA-256's lengths: a commit, a digest (Commit("fix typo", "<sha>"))
        and len(value) not in (40, 64)
        and _entropy(value) >= 3.0
    )


def _maker(name: str) -> bool:
    """Whether a call's name makes a client or logs in (``Client``, ``twilio.Client``,
    ``Api.new``, ``connect``, ``login``)."""
    parts = name.split(".")
    last = parts[-1].lower() if parts[-1] != "new" or len(parts) == 1 else parts[-2].lower()
    return name[:1].isupper() or parts[-1][:1].isupper() or last.endswith(_MAKERS)


# … and a search service's client maker: algoliasearch(…), meilisearch(…)
_MAKERS: tuple[str, ...] = ("client", "connect", "login", "auth", "authenticate", "init")
_MAKERS += ("setup", "configure", "search", "sdk")


def _may_hold_token(text: str) -> bool:
    """The rules' gate, without ``re``: a word of 20 characters or more with letters and digits,
    a path's parts read one by one (``/tmp/pytest-of-root/pytest-12/…`` holds no token). Asked by
    three rules of the same text in a row, so the last answer is kept (under the text's hash: the
    text itself, which may hold a secret, is not kept), as one tuple, read and replaced whole, so
    threads redacting at once never read each other's answer."""
    key = (len(text), hash(text))
    last = _LAST[0]
    if last[0] != key:
        last = (key, any(map(_token_word, (w for w in text.split() if len(w) >= 20))))
        _LAST[0] = last
    return last[1]


# a URL's query and fragment separators, read as its path's: a token the rules redact is a run of
# token characters, never across them (``items?token=abc123XYZ`` holds no word of 20)
_URL_PARTS = str.maketrans("?&=#;", "/////")


def _token_word(word: str) -> bool:
    word = word.strip("\"'`([{<,;")
    if "://" in word:
        pieces = word.translate(_URL_PARTS).split("/")
    elif word.startswith(("/", "~", ".")):
        pieces = word.split("/")
    else:
        pieces = [word]
    return any(len(piece) >= 20 and _mixed(piece) for piece in pieces)


def _mixed(piece: str) -> bool:
    """Letters and two digits, or one digit among both cases (as ``token_like`` asks)."""
    digits = sum(c.isdigit() for c in piece)
    if digits >= 2:
        return any(c.isalpha() for c in piece)
    return digits == 1 and any(c.islower() for c in piece) and any(c.isupper() for c in piece)


_LAST: list[tuple[tuple[int, int] | None, bool]] = [(None, False)]


def _prefixed(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A token that carries its service's prefix (``apify_api_…``, ``nvapi-…``, ``xkeysib-…``):
    30 or more random characters after it, not hex (build and cache names end in a digest)."""
    import re

    from .words import _entropy, classes

    body = match.group("body")
    if re.match(r"(?:sha\d*|md5|blake\d*|sha3)[_-]", match.group()) or cache_key(match.group()):
        # sha512-…: an integrity digest; node-cache-Linux-x64-npm-<sha256>: a CI cache's key
        return None
    prefix = set(re.split(r"[_-]", match.group()[: match.start("body") - match.start()]))
    hex_body = re.fullmatch(r"[0-9a-fA-F]+", body) is not None
    if hex_body and not prefix & _KEY_MARKS:
        # build-<digest>, cache-<digest>; shippo_live_<hex> is a key
        return None
    if max(len(part) for part in re.split(r"[-_]", body)) < 16:
        # words and short ids joined: a pod's, a build's name
        return None
    if _entropy(body) < (3.5 if hex_body else 4.0) or classes(body) < 2:
        return None
    if (
        wordish(body)
        or placeholder(body)
        or sum(c.isdigit() for c in body) < 2
        or (any(_text_in_base64(part) for part in re.split(r"[-_]", body) if len(part) >= 16))
    ):
        # names joined in camel case hold a digit or none (…SubsK2ClickPagination); base64 of a
        # name (bedrock-api-key-<base64 of a host>)
        return None
    return match.span()


# A prefix's part that says what follows is a key (shippo_live_…, lob test_…), hex or not.
_KEY_MARKS = frozenset(("live", "test", "prod", "sandbox", "sbox", "sk", "secret", "key", "token"))


def _seed_phrase(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A wallet's seed phrase after its label: 12, 15, 18, 21 or 24 words (BIP 39), or 25
    (Monero's and Algorand's)."""
    import re

    words = re.findall(r"[a-z]+", match.group("secret"))
    if not set(words).isdisjoint(_PROSE_WORDS):
        # "the seed is used to derive all the keys and …": a sentence, not a wallet's words
        return None
    if len(set(words)) * 4 < len(words):
        # drawn at random from 2,048 words, few repeat: one word said over and over is a test
        # vector or a tool's published default (Hardhat's and Anvil's "test test … junk", BIP 39's
        # "abandon abandon … about")
        return None
    return match.span("secret") if len(words) in (12, 15, 18, 21, 24, 25) else None


# common English words that no BIP 39 list holds
_PROSE_WORDS = frozenset(
    "the and for with you your from that this are not was were will has have its can "
    "into then than they them when what which".split()
)


_TOKEN = r"[A-Za-z0-9+/_\-.~]{20,4096}={0,2}"
_END = r"(?![\w+/=.\-~])"


def _spelled(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Characters listed one by one (``{ 'F','j','o','r','d','-','7','7','!', 0 }``): written so to
    stay out of a binary's strings and a grep, so a password-shaped or random string they spell
    goes whatever it is named (``k``); an alphabet, a table of digits or a mode's letters stays."""
    import re

    from .words import classes, high_entropy

    spelled = "".join(re.findall(r"[\"']([^\"'\\])[\"']", match.group()))
    if placeholder(spelled) or len(set(spelled)) < 6:
        return None
    if (len(spelled) >= 8 and classes(spelled) >= 3) or high_entropy(spelled):
        return match.span()
    return None


def _encoded_data(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A data URI's base64 that decodes to a secret (``encoded_secret``); an image's, a font's or
    a page's stays."""
    import base64
    import binascii

    body = match.group("secret")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return match.span("secret") if encoded_secret(decoded) else None


def _encoded_hex(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Hex of text that gives a secret (``encoded_secret``): "user:pass" written as hex "so nobody
    shoulder-surfs it" (``RSYNC_CRED_HEX=7273…``, ``bytes.fromhex("…")``), whatever the name
    says; a digest's or a key's hex decodes to bytes that are no text, and hex of a path or a
    sentence to text that gives no secret."""
    body = match.group("secret")
    raw = bytes.fromhex(body)
    if sum(32 <= b < 127 for b in raw) < len(raw):
        return None
    return match.span("secret") if encoded_secret(raw.decode("ascii")) else None


_HEX_DIGITS = "0123456789abcdefABCDEF"


def _may_hold_hex(text: str) -> bool:
    """Whether ``text`` holds 24 hex digits in a row: without ``re``, which a recording hook loads
    only for a text that holds a rule's word (tests/test_hooks.py), and most texts are passed over
    by their count of hex digits alone."""
    if sum(map(text.count, _HEX_DIGITS)) < 24:
        return False
    run = 0
    for char in text:
        run = run + 1 if char in _HEX_DIGITS else 0
        if run >= 24:
            return True
    return False


RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    # hex of text that gives a secret: 12 to 256 bytes, one case, pairs whole
    (
        "secret",
        r"(?<![0-9A-Za-z])(?P<secret>(?:[2-7][0-9a-f]){12,256}+|(?:[2-7][0-9A-F]){12,256}+)"
        r"(?![0-9A-Za-z])",
        (),
        _encoded_hex,
        _may_hold_hex,
    ),
    # a data URI of text whose base64 holds a secret: a link that "downloads" a note with the
    # VPN's password (``data:text/plain;base64,SGFsbG8g…``)
    (
        "secret",
        r"(?i)\bdata:(?:text/[\w.+\-]+|application/(?:json|x-sh|octet-stream)|)(?:;[\w.+\-]+=[\w.+\-]+)*"
        r";base64,(?P<secret>(?-i:[A-Za-z0-9+/]{12,}={0,2}))",
        ("data:",),
        _encoded_data,
        None,
    ),
    # NAME=value, name: value, "name": "value", name => 'value'
    (
        "secret",
        r"(?<![\w.\-$%])(?P<name>[A-Za-z_][\w.\-]{0,60})[\"'\]]?[ \t]*(?:=>|:=|[:=：＝])(?!//)[ \t]*"
        rf"(?P<q>[\"'`]?)(?P<secret>{_TOKEN}){_END}(?P=q)",
        (),
        _any_name,
        _may_hold_token,
    ),
    # Client("value"), new Api('value'), set_key(value)
    (
        "secret",
        # a name may start with a digit (8x8.Client) when it holds a letter
        # … and strings before it: Client("AC<sid>", "<auth token>")
        rf"(?<![\w.])(?P<name>(?=\d*[A-Za-z_])[\w][\w.]{{0,60}})\([ \t]*"
        rf"(?:(?P<q0>[\"'])[^\"'\n]{{0,200}}(?P=q0)[ \t]*,[ \t]*){{0,3}}(?P<q>[\"'`]?)"
        rf"(?P<secret>{_TOKEN}){_END}(?P=q)[ \t]*[,)]",
        (),
        _any_name,
        # a mark the pattern cannot match without first (not compiled for a text without one)
        lambda text: "(" in text and _may_hold_token(text),
    ),
    # a string spelled one character at a time, in any language's list or array: the characters'
    # quotes and commas only (64 at most), whatever holds them and whatever ends them ('\\0', 0)
    (
        "secret",
        r"([\"'])[^\"'\\\n]\1(?:[ \t]*+,[ \t]*+([\"'])[^\"'\\\n]\2){5,63}(?![ \t]*,[ \t]*[\"'][^\"'])",
        (),
        _spelled,
        lambda text: text.count("',") + text.count('",') >= 5,
    ),
    # seed phrase: witch collapse practice … (after a colon, as a label gives it, a clause or two
    # between them: "Wallet seed, written down once here and then I'll delete this note: …")
    (
        "private_key",
        # a wallet's, a ledger's or a backup's words too
        # (a name's part too, in any case style: DEPLOYER_MNEMONIC=, seedPhrase:, recovery_words:)
        r"(?i)(?<![^\W_])(?:(?:seed|mnemonic|recovery)(?:[ \t_\-.]?(?:phrase|words?))?"
        r"|(?:wallet|ledger|trezor|backup|secret)[ \t_\-.]?(?:phrase|words))\b[^:=\n]{0,120}?"
        # the words on one line or one per line, numbered or not (1. witch 2. collapse …)
        r"(?:[:=]|[ \t](?:is|are|was))[ \t]*(?:\r?\n[ \t]*)?[\"'`]?"
        r"(?P<secret>(?:(?:\d{1,2}[.):]?[ \t]*)?[a-z]{3,8},?"
        r"(?:[ \t]+|[ \t]*\r?\n[ \t]*)){11,24}(?:\d{1,2}[.):]?[ \t]*)?[a-z]{3,8})(?![\w-])",
        ("seed", "mnemonic", "recovery", "phrase", "words"),
        _seed_phrase,
        None,
    ),
    # a token with its service's prefix, anywhere: apify_api_…, nvapi-…, xkeysib-…
    (
        "secret",
        r"(?<![\w.\-/:@])[a-z][a-z0-9]{1,9}[_-](?:[a-z0-9]{1,8}[_-]){0,2}"
        r"(?P<body>[A-Za-z0-9](?:[A-Za-z0-9]|[-_](?=[A-Za-z0-9])){29,200})(?![\w\-+/=])",
        (),
        _prefixed,
        _may_hold_token,
    ),
    # a key's id given as the user name beside its secret (Confluent Cloud's SASL login:
    # username="<16 upper-case letters and digits>" password="…"): the pair is the credential
    (
        "secret",
        r"(?i)(?<![\w.\-])(?:sasl[._]|kafka[._])?user(?:name)?[\"']?[ \t]*[:=][ \t]*(?P<q>[\"']?)"
        r"(?P<secret>(?-i:[A-Z0-9]{16,32}))(?P=q)(?![\w\-])",
        ("user",),
        _key_id_user,
        lambda text: "pass" in text.lower(),
    ),
    # <license>value</license>
    (
        "secret",
        rf"<(?P<name>[\w:.\-]+)(?:\s[^<>]*)?>[ \t\r\n]*(?P<secret>{_TOKEN}){_END}[ \t\r\n]*</(?P=name)>",
        (),
        _any_name,
        lambda text: "</" in text and _may_hold_token(text),
    ),
]
