"""Secrets found by the shape of the line they sit in, whatever their format. Part of ``redact``.

- ``NAME value`` with a blank for a separator (``SetEnv DB_PASSWORD …``, ``ENV API_TOKEN …``,
  ``setx OPENAI_KEY …``, ``git config github.token …``, ``… : PSK "…"``), and ``NAME for staging:
  value``: a random value, or a password-shaped one when the name is a password's;
- network device configuration: ``password 7 …``, ``key …``, ``pre-shared-key …``,
  ``snmp-server community …``;
- lists: a YAML or JSON list under a secret-named key (``api_keys:\\n  - …``, ``"tokens": […]``)
  whose items are random, and a key written as a list of byte values (a Solana keypair file);
- webhook URLs: a known webhook host (Zapier, Teams, Google Chat, IFTTT, Make, Pipedream, Feishu,
  DingTalk, WeCom…) or a ``/hooks/`` or ``/webhook/`` path that ends in a random id;
- a password named after its value ("S3cret!x is the new root password").
"""

from __future__ import annotations

from .lines import line_around
from .spoken import SENTENCE_WORDS, SPOKEN
from .words import (
    NAME_WORDS,
    PASSWORD_WORDS,
    credential_like,
    high_entropy,
    is_reference,
    keyword_argument,
    not_a_value,
    public_before,
    wordish,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


def random_value(value: str) -> bool:
    """A value no one would type: a random token, or a password-shaped string of 12 or more."""
    return high_entropy(value) or (
        len(value) >= 12
        and not any(c.isspace() for c in value)
        and credential_like(value, strict=True)
    )


def _not_reference(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    return None if is_reference(match.group("secret")) else match.span("secret")


def _named_value(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``NAME value``: the name must name a secret and not say the value is something else."""
    from .generic import cookie_pairs, not_secret_name, words_in

    name = match.group("name")
    group = "qsecret" if match.group("qsecret") is not None else "secret"
    value = match.group(group).rstrip(".,")
    kind = words_in(name)
    if not kind or not_secret_name(name) or is_reference(value) or not_a_value(value):
        return None
    if cookie_pairs(name, value) or keyword_argument(value):
        # "since we pass evaluate=False": another name's value
        return None
    if public_before(match.string, match.start()):
        return None
    if "/" in name and not name.startswith("//"):
        # a path (~/.ssh/deploy_key user@host); "//registry…/:_authToken" is npm's name
        return None
    if name.isalpha() and name.islower() and kind != "password":
        # a word in prose ("key 3f2a…", "token abc…"): the prose rules read those
        return None
    span = match.start(group), match.start(group) + len(value)
    if kind == "password":
        return span if credential_like(value, strict=group == "secret") else None
    if kind in ("key", "inside"):
        # a secret word inside the name (Author-email, SECRET_KEY_BASE): a random value only
        return span if high_entropy(value) else None
    return span if random_value(value) else None


def _snmp_secret(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """An SNMP line's community or pass phrases (both of a ``createUser``, from the first's start to
    the second's end, the privacy word between them kept inside): not a reference, nor a default
    community (``public``, ``private``), which every device ships with."""
    if match.group("secret") is not None:
        value = match.group("secret")
        if is_reference(value) or value in ("public", "private"):
            return None
        return match.span("secret")
    if is_reference(match.group("auth")):
        return None
    end = match.end("priv") if match.group("priv") is not None else match.end("auth")
    return match.start("auth"), end


def _device(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A network device's secret: any value after a "7" (Cisco's reversible type 7), else a
    password-shaped or random one."""
    value, kind = match.group("secret"), match.groupdict().get("type")
    if kind in ("5", "8", "9"):
        # a hash with its salt ("$9$<salt>$<hash>"), not "$" and a variable's name
        return match.span("secret") if value.count("$") >= 3 else None
    if is_reference(value) or (not_a_value(value) and not kind):
        return None
    # the line up to the word (a match may start at the blank that indents it: " key 0 …")
    line = line_around(match.string, match.start(), match.end("secret"), after=False)
    head = match.group().lstrip().lower()
    if head.startswith("key") and not head.startswith("key-string") and not _device_line(line):
        # "gpg: key 3F2A… imported", "idempotency key …": not a device's key
        return None
    if kind in ("7", "ascii-text") or credential_like(value, strict=True):
        return match.span("secret")
    return match.span("secret") if high_entropy(value) else None


# The commands a network device's key follows (Cisco IOS and ASA, Juniper, FortiOS, strongSwan).
# the words of a device's secret setting; a bare " key" besides them counts on a device's line only
_DEVICE_WORDS = (
    "password",
    "secret",
    "key-string",
    # a Cisco WLC's PSK: config wlan security wpa akm psk set-key ascii …
    "set-key",
    "community",
    "pre-shared",
    "psk",
    "authentication",
    "message-digest-key",
)


def _device_line(line: str) -> bool:
    """Whether a line starts as a device's configuration does: its first word (its letters before a
    digit or a sign: ``ikev2``, ``tacacs-server``, ``wpa-psk``) is one of ``_DEVICE_LINES``, not a
    longer word that starts alike (``KeyError:``, ``settings``)."""
    low = line.lstrip().lower()
    if low.startswith("pre-shared"):
        return True
    end = 0
    while end < len(low) and "a" <= low[end] <= "z":
        end += 1
    return low[:end] in _DEVICE_LINES


_DEVICE_LINES = (
    "crypto",
    "tacacs",
    "radius",
    "ntp",
    "key",
    "set",
    "snmp",
    "aaa",
    "ikev",
    "server",
    "host",
    "wpa",
)


def _items(text: str) -> list[str]:
    import re

    return [i.strip(" \t\"'") for i in re.split(r"[,\n]|^[ \t]*-[ \t]", text, flags=re.M)]


def _secret_list(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A list under a secret-named key: all of it, when one of its items is random."""
    from .generic import not_secret_name, words_in

    # "tokens", "api_keys": a list of them ("max_tokens" is still a count)
    whole = match.group("name").strip("\"'")
    name = whole[:-1] if whole.lower().endswith("s") else whole
    if not words_in(name) or not_secret_name(name) or not_secret_name(whole):
        # PASSWORD_HASHERS, AUTH_PASSWORD_VALIDATORS: the plural's own word says it
        return None
    items = [i.lstrip("- \t") for i in _items(match.group("secret"))]
    if any(is_reference(i.strip("\"'")) for i in items if i.strip("\"'")):
        # a reference, quoted or not ("django.contrib.auth.hashers.Argon2PasswordHasher")
        return None
    span = match.span("secret")
    body = match.group("secret")
    end = span[0] + len(body.rstrip("\r\n"))
    return (span[0], end) if any(random_value(i) for i in items) else None


def _block_scalar(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A YAML block scalar under a secret-named key: all of it, when it is a password's or random."""
    from .generic import not_secret_name, words_in

    name = match.group("name")
    kind = words_in(name)
    body = match.group("secret").rstrip("\r\n")
    value = "".join(body.split())
    if not kind or not_secret_name(name) or is_reference(value):
        return None
    if kind != "password" and not high_entropy(value) and "PRIVATE KEY" not in body:
        return None
    start = match.start("secret")
    return start, start + len(body)


def _byte_list(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """32 or more byte values, most of them large (random bytes are, a list of counts or colours is
    not): a key written as numbers."""
    values = [int(v) for v in match.group("secret").replace(" ", "").split(",") if v.strip()]
    if len(values) < 32 or max(values) > 255:
        return None
    return match.span() if sum(v >= 100 for v in values) >= len(values) // 3 else None


def _webhook(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A known webhook host's URL with something after its fixed part; any host's ``/hooks/`` or
    ``/webhook/`` URL whose id is random (not a docs page such as ``/webhooks/incoming/``)."""
    import re

    url = match.group().rstrip(".,;:")
    rest = match.group("rest") or ""
    if (
        "<" in url
        or "${" in url
        or "{{" in url
        or (rest.strip("/") and is_reference(rest.strip("/")))
    ):
        return None
    parts = [p for p in re.split(r"[/?&=.@#]", rest) if p]
    known = match.group("known") is not None
    if known and (match.group("host_id") or any(len(p) >= 4 for p in parts)):
        return match.start(), match.start() + len(url)
    if any(re.fullmatch(_UUID, p) or (len(p) >= 16 and high_entropy(p)) for p in parts):
        return match.start(), match.start() + len(url)
    return None


# Labels whose value is public or not a secret ("Commit: …", "Image: …", "Integrity: …").
_PUBLIC_LABELS = frozenset(
    ("integrity", "image", "version", "tag", "branch", "url", "path", "file", "date", "time")
)


def _labelled(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """ "<label>: <value>" ending a line, in any language: a value with all four kinds of character
    (lower and upper case, digits, symbols) that reads as no name, version, requirement, address,
    path, hash or blob. What a password looks like when its label is in a language no table has."""
    import re

    from .words import HASH_WORDS, classes, generated_name, located_id, version_string

    if label:
        # a label's colon is a namespace (``build:00000A.a``, ``auth:oauth2``), not a language's
        # "password:"
        return None
    value = match.group("secret").rstrip(".,;")
    words = match.group("label").lower()
    if classes(value) < 4 or not credential_like(value, strict=True) or "://" in value:
        return None
    if version_string(value):
        # a version banner, a platform string (Sphinx-5.0.0b1, macOS-12.4-arm64-arm-64bit)
        return None
    if any(c in value for c in "/\\\"'`()[]{}<>") or "=" in value.rstrip("="):
        # a path, code, a requirement (Sphinx>=9.1), a blob, a query
        return None
    # an address: bob@example.org, a Matrix id (!room:matrix.org)
    if re.fullmatch(r"[!#@+$]?[\w.+\-]+[@:][\w\-]+(?:\.[\w\-]+)+", value) or re.match(
        r"(?i)(?:sha\d*|md5)[-:]", value
    ):
        return None
    if all(re.fullmatch(r"[A-Za-z]+\d*|\d+[A-Za-z]{0,2}", p) for p in re.split(r"[-_.]", value)):
        # words joined, each with a number at most after it: a network's or a host's name
        # (Acme-Guest-5G), not a password (Tiger-Riv3r-88)
        return None
    if generated_name(value) or located_id(value):
        return None
    if value.endswith("=") and len(value) % 4 == 0 and re.fullmatch(r"[A-Za-z0-9+]+=+", value):
        # base64 of something (a config blob), whole
        return None
    found = set(re.findall(r"[a-z0-9]+", words))
    if len(words.split()) > 5 or found & (HASH_WORDS | _PUBLIC_LABELS):
        return None
    if re.search(r"(?:^|[\s,;|])(?:arn|urn)$", words) and value.count(":") >= 2:
        # an ARN's or a URN's parts (db,arn:aws:secretsmanager:…:secret:db-AbC123)
        return None
    start = match.start("secret")
    return start, start + len(value)


def _may_be_device(text: str) -> bool:
    """``_device``'s gate, without ``re``: a bare " key" counts only on a line that starts as a
    device's does (what ``_device`` then asks), so "no key in the fixture" compiles nothing."""
    from .words import fold

    low = fold(text)
    if any(word in low for word in _DEVICE_WORDS):
        return True
    return any(_device_line(line) for line in low.split("\n") if " key" in line)


def _may_be_labelled(text: str) -> bool:
    """``_labelled``'s gate, without ``re``: a colon, and a word of 8 characters or more that mixes
    all four kinds, as the value it looks for must (the value is part of a word, so the word mixes
    them too). An error line, ``ModuleNotFoundError: No module named 'x'``, has none, and a recording
    hook does not pay for compiling the rule."""
    if ":" not in text and "：" not in text:
        return False
    from .words import classes

    return any(len(word) >= 8 and classes(word) == 4 for word in text.split())


# English words that join a sentence and say no "is": an English line is no label in a language
# the tables lack ("refund created for cus_… on pi_…")
_GLUE = frozenset(
    "for on in at to of by with from into as via per and or the a an than then after before over "
    "under since until about this that these those".split()
)


def _copula_labelled(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``_labelled`` with a short word for its colon, unless the line reads as English."""
    from .words import COPULAS

    words = match.group("label").lower().split()
    copula = match.group("cop").lower()
    if not words:
        # a table's row, indented: "  event      evt_3ozr…" names an object, its id beside it
        return None
    if any(w in _GLUE for w in words) or (copula in _GLUE and copula not in COPULAS):
        return None
    return _labelled(match, label)


def _has_password_shape(text: str) -> bool:
    """A word of 8 characters or more that mixes all four kinds, without ``re``."""
    from .words import classes

    return any(len(word) >= 8 and classes(word) == 4 for word in text.split())


def _named_after(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """ "<value> is the new password": the value before the word, password-shaped."""
    value = match.group("secret")
    if is_reference(value) or wordish(value) or not credential_like(value, strict=True):
        return None
    return match.span("secret")


def _named_first(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``_named_after`` for a value that opens its sentence: words joined with two digits or more
    and a capital too (``Tortuga_Verde_88 — esa es la clave``), as people make passwords; an
    identifier is lower case (``config_v2``), a version has a dotted number (``Sphinx-3.5.0``);
    a word that opens a sentence has no digit."""
    import re

    from .words import version_string

    value = match.group("secret")
    if not value.isascii() or not any(c.isdigit() for c in value):
        # a sentence's first word ("¿Olvidaste tu contraseña?", "Внимание: … пароль"): a
        # password made by a person holds a digit
        return None
    if (
        not is_reference(value)
        and not version_string(value)
        and sum(c.isdigit() for c in value) >= 2
        and not re.search(r"\d\.\d", value)
        and any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c in "_-.!#%&*+=?@^~$" for c in value)
        and credential_like(value, strict=False)
    ):
        return match.span("secret")
    return _named_after(match, label)


def _answer(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The answer after a security question's words: password-shaped, or quoted."""
    import re

    text = match.string
    rest = text[match.end() : match.end() + 160].partition("\n")[0]
    found = re.search(
        r"(?i)\b(?:answer(?:ed)?|antwort|réponse|reponse|respuesta|risposta|resposta)\b"
        r"(?:[ \t]+(?:is|ist|est|es|è|é))?[ \t]*[:=：—–-]?[ \t]*"
        r"(?:(?P<q>[\"'“])(?P<qv>[^\"'”\n]{4,64})[\"'”]|(?P<v>[^\s\"',;()]{4,64}))",
        rest,
    )
    if found is None:
        return None
    group = "qv" if found.group("qv") else "v"
    value = found.group(group).rstrip(".,;:)")
    digits = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    if is_reference(value) or not (
        found.group("qv") or digits or credential_like(value, strict=True)
    ):
        # an answer of letters and digits (Pepper8592), quoted or password-shaped; not "the
        # answer is case-sensitive"
        return None
    start = match.end() + found.start(group)
    return start, start + len(value)


def _words_value(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A passphrase's words, not a sentence ("pick four random words from a list")."""
    import re

    from .values import _PROSE_WORDS

    words = set(re.split(r"[ \t\-_.]+", match.group("secret").lower()))
    if words & _PROSE_WORDS or words & SENTENCE_WORDS:
        return None
    before = match.string[max(0, match.start("secret") - 16) : match.start("secret")].lower()
    if re.search(
        r"(?:example|e\.g\.|such as|z\.b\.|par exemple|por ejemplo)[ \t]*:?[ \t]*[\"'`]?$", before
    ):
        # an example of one: "four random words (for example: correct horse battery staple)"
        return None
    return match.span("secret")


def _codes(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Recovery codes: each of them holds a digit and none is a word (not "codes: none, later")."""
    import re

    block = match.group("secret")
    codes = re.findall(r"[A-Za-z0-9]{4,10}(?:[- ][A-Za-z0-9]{4,10})?", block)
    if len(codes) < 2 or not all(any(c.isdigit() for c in code) for code in codes):
        return None
    start, end = match.span("secret")
    while end > start and match.string[end - 1] in " \t\r\n,":
        end -= 1
    return start, end


def _four_kinds(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A value with all four kinds of character (lower and upper case, digits, symbols), no path,
    no address, no format string."""
    from .words import classes, is_path

    group = "secret" if match.group("secret") is not None else "s2"
    value = match.group(group)
    if classes(value) < 4 or is_reference(value) or is_path(value) or "%" in value:
        return None
    if is_reference(value) or wordish(value) or not credential_like(value, strict=True):
        return None
    return match.span(group)


def _login_pair(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The password of "<login word> … <user> / <password>", password-shaped, less the sentence's
    mark after it."""
    found = _named_after(match, label)
    if found is None:
        return None
    start, end = found
    while end > start and match.string[end - 1] in ".,;:)":
        end -= 1
    return (start, end) if end - start >= 8 else None


# A host added here needs one of the webhook rule's words below (most hold "hook"), or the rule is
# never asked to read its URLs.
_KNOWN_HOSTS = (
    r"hooks\.zapier\.com/hooks/|(?:[\w\-]+\.)?webhook\.office\.com/|outlook\.office(?:365)?\.com/webhook/"
    r"|chat\.googleapis\.com/v1/spaces/|maker\.ifttt\.com/(?:trigger|use)/"
    r"|hook\.(?:[\w\-]+\.)?(?:make|integromat)\.com/|(?P<host_id>[a-z0-9]{12,})\.m\.pipedream\.net"
    r"|open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/|oapi\.dingtalk\.com/robot/"
    r"|qyapi\.weixin\.qq\.com/cgi-bin/webhook/|hooks\.glip\.com/|[\w\-]+\.logic\.azure\.com(?::\d+)?/workflows/"
    r"|events\.pagerduty\.com/integration/|webhook\.site/|api\.flock\.com/hooks/|hooks\.nylas\.com/"
)
# Account names a password follows in notes ("admin → …", "root / …").
_USERS = (
    "admin",
    "administrator",
    "root",
    "postgres",
    "ubuntu",
    "deploy",
    "svc",
    "service",
    "guest",
    "user",
    "superuser",
    "sysadmin",
)
# The password words a value said before its word is read with ("… is the new root password",
# "…, c'est le mot de passe du wifi"): English's single words and a few languages' (a short list:
# the rule's pattern is compiled for each set of them a text holds; folded, as the rules fold a
# text: a final sigma is read as σ)
_BEFORE_WORDS = (
    *(w for w in PASSWORD_WORDS if w.isascii() and " " not in w),
    *("mot de passe", "contraseña", "hasło", "lösenord", "пароль", "κωδικόσ", "jelszó"),
)
# "log in" and "sign in" as the rules below read them
_SIGN_IN = tuple(
    f"{verb}{sep}{particle}"
    for verb in ("log", "sign")
    for sep in ("", " ", "-")
    for particle in ("in", "on")
)
# Words for a login's details, before "<user> / <password>", in a few languages.
_LOGIN_WORDS = (
    "login",
    "logins",
    "log-in",
    "sign-in",
    "access",
    "creds",
    "credentials",
    "zugang",
    "zugangsdaten",
    "anmeldung",
    "anmeldedaten",
    "acceso",
    "accesso",
    "accès",
    "acces",
    "acesso",
    "identifiants",
    "credenciales",
    "credenziali",
    "inloggning",
    "dostęp",
    "доступ",
    "логин",
)
_HOOK_PATH = r"(?:hooks?|webhooks?|webhookb2|incoming-webhooks?|incoming)/"
_NAME = r"(?<![\w.\-/:$%{])(?P<name>[A-Za-z_/][\w.\-/:]*)"
_VALUE = r"(?:(?P<q>[\"'])(?P<qsecret>[^\"'\n]{6,})(?P=q)|(?P<secret>[^\s\"',;<>{}()\[\]]{6,}))"

# Before the generic rules: a webhook URL goes whole, not only its ``?token=``.
WEBHOOKS: list[tuple[str, str, tuple[str, ...], object, object]] = [
    (
        "webhook",
        rf"(?i)\bhttps?://(?:(?P<known>(?:[\w\-]+\.)*?(?:{_KNOWN_HOSTS}))"
        rf"|[\w.\-]+(?::\d+)?/(?:[\w.\-~]+/)*?{_HOOK_PATH})(?P<rest>[^\s\"'<>)\]}}]*)",
        # every host and path above holds one of these (most "hook"): a URL without any is not
        # read by this pattern, nor is it compiled for one (a recording hook's milliseconds)
        (
            "hook",
            "incoming/",
            "chat.googleapis.com",
            "ifttt.com",
            "pipedream.net",
            "open-apis/bot",
            "dingtalk.com",
            "logic.azure.com",
            "pagerduty.com",
        ),
        _webhook,
        lambda text: "://" in text,
    ),
]
RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    # NAME value, the value last on its line or followed by more words
    (
        "secret",
        rf"(?i){_NAME}[\"']?[ \t]+(?={_VALUE}(?=[ \t]*(?:$|[;,)\n]|[ \t]\S)))",
        NAME_WORDS,
        _named_value,
        None,
    ),
    # DJANGO_SECRET_KEY for staging: …
    (
        "secret",
        rf"(?i){_NAME}[ \t]+(?:for|in|on|of|at|from|für|pour|para|per|voor)[ \t]+[\w.\-]+"
        rf"(?:[ \t]+[\w.\-]+)?[ \t]*[:=][ \t]*{_VALUE}",
        NAME_WORDS,
        _named_value,
        None,
    ),
    (
        "password",
        r"(?im)(?:(?:^|[ \t])(?:wpa2?-)?(?:password|secret|key-string|set-key|community|"
        r"pre-shared-key|psksecret|psk|"
        r"authentication-key[ \t]+\d+[ \t]+md5|message-digest-key[ \t]+\d+[ \t]+md5|"
        r"authentication(?:-key)?(?:[ \t]+(?:text|simple|plain-text|md5|cleartext))?)|[ ]key)"
        # the form before the value: "ascii 0", "hex", "7" (Cisco's reversible type 7), "5", "8",
        # "9" (a hash: its salt with it, "$9$<salt>$<hash>", not the part after the salt alone)
        r"(?:[ \t]+(?:ascii|hex|raw))?"
        r"(?:[ \t]+(?P<type>0|7|ascii-text|plain-text|unencrypted|[589](?=[ \t]+\$)))?"
        r"[ \t]+(?P<q>[\"']?)(?!(?:key-string|set-key)\b)(?P<secret>[^\s\"']{4,})(?P=q)",
        (*_DEVICE_WORDS, " key"),
        _device,
        _may_be_device,
    ),
    # ipsec.secrets: carol : EAP "…", : XAUTH "…", : RSA key.pem "passphrase"
    (
        "password",
        r"(?m)^[^\n:\"]*:[ \t]*(?:EAP|XAUTH|NTLM|PSK|PIN(?:[ \t]+%\S+)?"
        # a key file's passphrase: the file's name first
        r"|(?:P12|RSA|ECDSA|PKCS8|PKCS12)[ \t]+[^\s\"]+\.\w+)"
        r"[ \t]+\"(?P<secret>[^\"\n]{3,})\"[ \t]*$",
        ("EAP", "XAUTH", "NTLM", "PSK", "PIN", "P12", "RSA", "ECDSA", "PKCS"),
        _not_reference,
        None,
    ),
    # a Wi-Fi QR code: WIFI:T:WPA;S:name;P:password;; (not its format's stand-in, P:<password>,
    # nor a template's, P:{password}); 64 fields of 256 characters before it at most (each
    # `WIFI:` of a line of them read every field to the line's end, review BD)
    (
        "password",
        r"(?i)\bWIFI:(?:[^;\n]{0,256};){0,64}?P:(?P<secret>(?:\\;|[^;\n])+)",
        ("wifi:",),
        _not_reference,
        None,
    ),
    # a login's word, then any user and its password: "der Zugang zum Kibana ist elastic / …",
    # "el acceso a la VPN es mgarcia / …", "the login for grafana is viewer / …"
    (
        "password",
        r"(?i)(?<![\w/.\-])(?:{words})(?![\w/])[^\n/]{0,60}?[ \t]"
        r"[\w.@+\-]{2,40}[ \t]+/[ \t]+(?P<secret>[^\s\"'`]{8,64})",
        _LOGIN_WORDS,
        _login_pair,
        lambda text: " / " in text,
    ),
    # a user, then its password: "admin → S3cr3t!x", "login: root / S3cr3t!x"
    (
        "password",
        rf"(?i)(?<![\w/.\-])(?:{'|'.join(_USERS)})(?:[ \t]*(?:→|->|=>|⇒)|[ \t]+/)[ \t]+"
        r"(?P<secret>[^\s\"'`]{8,})",
        _USERS,
        _named_after,
        # "root" and "user" are in most paths: the arrow or the spaced slash first
        lambda text: any(a in text for a in ("→", "->", "=>", "⇒", " / ")),
    ),
    (
        "password",
        r"(?m)^(?P<label>[^\n:：=;{}()<>\[\]\"'`]{1,40}?)[ \t]*[:：][ \t]*(?P<secret>\S{8,64})"
        r"(?:[ \t]+\S+){0,3}[ \t]*$",
        (),
        _labelled,
        _may_be_labelled,
    ),
    # the same with a short word for a colon, in a language no table has: "ijambobanga rya wifi ni
    # …", "an phasfhocal ná …", "tunnussana on …" (a copula of one to five letters in any script)
    (
        "password",
        r"(?m)^(?P<label>[^\n:：=;{}()<>\[\]\"'`]{1,40}?)[ \t]+(?P<cop>[^\W\d_]{1,5})[ \t]+"
        r"(?P<secret>\S{8,64})(?:[ \t]+\S+){0,3}[ \t]*$",
        (),
        _copula_labelled,
        _has_password_shape,
    ),
    # SNMPv3: … auth sha <password> priv aes 128 <password>
    (
        "password",
        r"(?i)\b(?:auth[ \t]+(?:md5|sha\d*)|priv[ \t]+(?:des|3des|aes)(?:[ \t]+\d+)?)[ \t]+"
        r"(?P<secret>[^\s\"']+)",
        ("auth ", "priv "),
        _device,
        None,
    ),
    # SNMP's other lines that hold a secret by position: a Cisco trap or inform host's community
    # (snmp-server host <address> [traps|informs] [version 1|2c] <community>; version 3 names a
    # user there), and Net-SNMP's v3 user with its authentication and privacy pass phrases
    # (createUser [-e <engine id>] <user> SHA "…" AES "…", in snmpd.conf and snmptrapd.conf)
    (
        "password",
        r"(?im)^[ \t]*snmp-server[ \t]+host[ \t]+\S+(?:[ \t]+(?:traps|informs))?"
        r"(?:[ \t]+vrf[ \t]+\S+)?(?:[ \t]+version[ \t]+(?:1|2c))?[ \t]+"
        r"(?!(?:version|traps|informs|vrf)\b)(?P<q>[\"']?)(?P<secret>[^\s\"']{4,})(?P=q)"
        r"|\bcreateUser[ \t]+(?:-e[ \t]+\S+[ \t]+)?\S+[ \t]+(?:MD5|SHA[\w-]{0,8})[ \t]+"
        r"(?P<aq>[\"']?)(?P<auth>[^\s\"']{4,})(?P=aq)"
        r"(?:[ \t]+(?:DES|AES[\w-]{0,8})[ \t]+(?P<pq>[\"']?)(?P<priv>[^\s\"']{4,})(?P=pq))?",
        ("snmp-server", "createuser"),
        _snmp_secret,
        None,
    ),
    # a YAML block scalar under a secret's name: password: |\n    …
    (
        "secret",
        r"(?m)^(?P<indent>[ \t]*)(?P<name>[\w.\-]+)[ \t]*:[ \t]*[|>][-+]?[ \t]*\r?\n"
        r"(?P<secret>(?:(?P=indent)[ \t]+\S[^\n]*(?:\r?\n|$))+)",
        NAME_WORDS,
        _block_scalar,
        None,
    ),
    # redis-cli: AUTH [user] password
    (
        "password",
        r"(?im)(?:^|>[ \t]*)auth[ \t]+(?:\S+[ \t]+)?(?P<q>[\"']?)(?P<secret>[^\s\"']+)(?P=q)[ \t]*$",
        ("auth ",),
        _device,
        None,
    ),
    (
        "secret",
        r"(?i)(?<![\w.\-])(?P<name>[\w.\-]+)[\"']?[ \t]*[:=][ \t]*\[(?P<secret>[^\[\]\n]{16,})\]",
        NAME_WORDS,
        _secret_list,
        # a mark the pattern cannot match without (so it is not compiled for a text without one)
        lambda text: "[" in text,
    ),
    (
        "secret",
        r"(?im)^(?P<indent>[ \t]*)(?P<name>[\w.\-]+)[ \t]*:[ \t]*\r?\n"
        r"(?P<secret>(?:(?P=indent)[ \t]*-[ \t]+\S[^\n]*(?:\r?\n|$))+)",
        NAME_WORDS,
        _secret_list,
        lambda text: "\n" in text and "-" in text,
    ),
    # its end's blanks read once (split every way around a comma, 64 KB took 5 s; review AQ)
    (
        "private_key",
        r"\[(?P<secret>[ \t\r\n]*\d{1,3}(?:[ \t\r\n]*,[ \t\r\n]*\d{1,3}){31,})[ \t\r\n]*+(?:,[ \t\r\n]*+)?\]",
        (),
        _byte_list,
        lambda text: text.count(",") >= 31,
    ),
    # a value used to log in, unlock or decrypt, no password word needed: "just use … to log in to
    # the test VM", "type … to unlock the laptop", "enter … to decrypt the backup"
    (
        "password",
        r"(?i)\b(?:use|using|enter|type|try|paste|copy|input|insert|submit|key[ \t]+in|einfügen"
        r"|kopier|coller|colle|pegar|pega|incolla|nimm|nutze|verwende|gib|utilise|utilisez|tape|usa"
        r"|utiliza|introduce|usa|digita|inserisci)[ \t]+"
        # what the value is called, between: "use 'hunter-style' phrase '…'", "type the word …"
        r"(?:(?:the|this|that|a|an|le|la|das|die|den|el|[\"'`][^\"'`\n]{1,30}[\"'`])[ \t]+)?"
        r"(?:(?:word|phrase|passphrase|string|code|text|combo|mot|phrase|wort|satz|frase|palabra"
        r"|parola)[ \t]+)?[\"'`]?(?P<secret>[^\s\"'`]{8,64})[\"'`]?"
        r"[ \t]+(?:to|when|for|zum|zur|um|pour|para|per)[ \t]+(?:(?:you[ \t]+)?(?:log|sign)[ \t\-]?"
        r"(?:in|on)|login|unlock|decrypt|authenticate|connect[ \t]+to|get[ \t]+in|entsperren"
        r"|einloggen|anmelden|entschlüsseln|(?:te|vous|se)[ \t]+connecter|déverrouiller"
        r"|d[ée]chiffrer|entrar|iniciar[ \t]+sesi[óo]n|desbloquear|descifrar|accedere|sbloccare"
        r"|decifrare)\b",
        _SIGN_IN
        + ("unlock", "decrypt", "authenticate", "connect to", "get in", "entsperren")
        + ("einloggen", "anmelden", "entschlüsseln", "connecter", "déverrouiller", "dechiffrer")
        + ("déchiffrer", "entrar", "iniciar sesión", "iniciar sesion", "desbloquear")
        + ("descifrar", "accedere", "sbloccare", "decifrare"),
        _named_after,
        None,
    ),
    # … or after the verb: "log in with … and the username on the sticker", "log in as admin
    # with …", "sign in to the portal using …"
    (
        "password",
        r"(?i)\b(?:log|sign)[ \t\-]?(?:into[ \t]+(?:the[ \t]+)?[\w.@\-]{1,40}|(?:in|on)"
        r"(?:[ \t]+(?:as|to)[ \t]+(?:the[ \t]+)?[\w.@\-]{1,40})?)"
        r"[ \t]+(?:with|using)[ \t]+[\"'`]?"
        r"(?P<secret>[^\s\"'`]{8,64})[\"'`]?(?![^\s,.;])",
        _SIGN_IN,
        _login_pair,
        None,
    ),
    # a security question's answer: "security question "first pet's name", answer Pepper8592",
    # "Sicherheitsfrage …, Antwort: …"
    (
        "password",
        r"(?i)\b(?:security|secret|secure)[ \t]+question|sicherheitsfrage|geheimfrage"
        r"|question[ \t]+secr[eè]te|pregunta[ \t]+(?:de[ \t]+seguridad|secreta)"
        r"|domanda[ \t]+segreta|pergunta[ \t]+(?:de[ \t]+seguran[cç]a|secreta)",
        ("question", "sicherheitsfrage", "geheimfrage", "pregunta", "domanda", "pergunta"),
        _answer,
        None,
    ),
    *SPOKEN,
    # a passphrase said to be words, then its words: "The passphrase is four words, all lowercase
    # with spaces: tangerine quarry velvet oboe", "three words with dashes: copper-lantern-meadow"
    (
        "password",
        # the words written out, not "{words}": one pattern, compiled once
        r"(?i)\b(?:passphrase|password|pass[ \t]+phrase|passwort|mot[ \t]+de[ \t]+passe|contraseña"
        r"|senha|wachtwoord|hasło|heslo)\b[^\n:：]{0,80}?\b(?:words?|wörter|wortes?|mots|palabras"
        r"|parole)\b"
        r"[^\n:：]{0,60}[:：][ \t]*[\"'`]?"
        r"(?P<secret>(?-i:[a-zà-ÿ]{2,12}(?:(?:[ \t\-_]+|\.(?=[a-z]))[a-zà-ÿ]{2,12}){2,9}))"
        r"(?![\w\-])",
        ("passphrase", "password", "pass phrase", "passwort", "mot de passe", "contraseña")
        + ("senha", "wachtwoord", "hasło", "heslo"),
        _words_value,
        None,
    ),
    # … or its words, then what they are: "The disk passphrase is correct orchid walrus lantern
    # ember (five words, all lowercase, spaces between)", "Die Passphrase lautet grüne wolke
    # hammer fenster (vier Wörter, klein geschrieben)"
    (
        "password",
        r"(?i)\b(?:passphrase|password|pass[ \t]+phrase|passwort|kennwort|mot[ \t]+de[ \t]+passe"
        r"|contraseña|senha|wachtwoord|hasło|heslo)\b[^\n:：]{0,80}?(?:\bis|\bwas|\bist|\blautet"
        r"|\best|\bes|\bé|\bè|\bjest|[:：=])[ \t]+[\"'`]?"
        r"(?P<secret>(?-i:[a-zà-ÿ]{2,12}(?:[ \t\-_]+[a-zà-ÿ]{2,12}){2,9}))[\"'`]?[ \t]*"
        r"(?=[(,;—–\-][^\n]{0,30}?\b(?:words?|wörter|mots|palabras|parole|palavras|spaces?"
        r"|leerzeichen|espaces?|lower[ \t\-]?case|klein\w*|minuscules?|minúsculas?)\b)",
        ("passphrase", "password", "pass phrase", "passwort", "kennwort", "mot de passe")
        + ("contraseña", "senha", "wachtwoord", "hasło", "heslo"),
        _words_value,
        None,
    ),
    # recovery, backup or scratch codes under their label, one a line or listed with commas
    (
        "password",
        r"(?i)(?:\b(?:recovery|backup|scratch|emergency|2fa|mfa|one-time|wiederherstellungs)"
        r"[ \t\-]*codes?\b|\b(?:c[óo]digos?|codes?|codici|kody)[ \t]+(?:de[ \t]+|di[ \t]+)?"
        r"(?:recuperaci[óo]n|recupera[çc][ãa]o|secours|r[ée]cup[ée]ration|backup|riserva"
        r"|recupero|zapasowe|odzyskiwania|respaldo))[^\n]{0,80}?(?:[:：][ \t]*|\n)"
        r"(?P<secret>(?:[ \t]*(?:[-*•]|\d{1,2}[.)])?[ \t]*[A-Za-z0-9]{4,10}(?:[- ][A-Za-z0-9]{4,10})?"
        r"[ \t]*(?:,[ \t]*|\r?\n|$)){2,20})",
        ("recovery", "backup", "scratch", "emergency", "2fa", "mfa", "one-time")
        + ("wiederherstellungs", "recuperación", "recuperacion", "recuperação", "recuperacao")
        + ("secours", "récupération", "recuperation", "riserva", "recupero", "zapasowe")
        + ("odzyskiwania", "respaldo"),
        _codes,
        None,
    ),
    # a value set in quotes after "changed it to", "reset it to", "set it to", all four kinds of
    # character: "I changed it to 'CopzgdFA630^' for now, we can rotate it"
    (
        "password",
        r"(?i)\b(?:changed|reset|set|rotated|updated|switched)[ \t]+(?:it|them|that|this)[ \t]+"
        r"(?:back[ \t]+)?to[ \t]+(?P<q>[\"'`])(?P<secret>[^\s\"'`]{8,64})(?P=q)",
        ("changed", "reset", "set", "rotated", "updated", "switched"),
        _four_kinds,
        # a quoted value after " to ": what the pattern cannot match without
        lambda text: " to " in text and any(f" to {q}" in text for q in "\"'`"),
    ),
    # … and with the verb last: "ich habe es auf "…" geändert", "l'ho cambiato in "…""
    (
        "password",
        r"(?i)\b(?:es|ihn|sie|das)[ \t]+auf[ \t]+[\"'`„“‚‘](?P<secret>[^\s\"'`“”‘’]{8,64})"
        r"[\"'`“”‘’][ \t]+(?:geändert|gesetzt|zurückgesetzt|umgestellt)"
        r"|\b(?:cambiat[oa]|cambiad[oa]|changé|modifié|mudad[oa]|alterad[oa])[ \t]+(?:in|en|a|para)"
        r"[ \t]+[\"'`«“](?P<s2>[^\s\"'`“”»]{8,64})[\"'`»”]",
        ("geändert", "gesetzt", "zurückgesetzt", "umgestellt", "cambiato", "cambiata")
        + ("cambiado", "cambiada", "changé", "modifié", "mudado", "mudada", "alterado", "alterada"),
        _four_kinds,
        lambda text: any(q in text for q in "\"'`„“«"),
    ),
    (
        "password",
        r"(?i)(?<![\w\-])(?P<secret>[^\s\"'`]{8,256})(?:(?:[ \t]*[—–,:]|[ \t]+-)[ \t]*(?:that'?s|that[ \t]+is"
        r"|this[ \t]+is|it'?s|which[ \t]+is|c['’]est|das[ \t]+ist|ist[ \t]+das|es|è|é|это)"
        r"|[ \t]+(?:is|was|will[ \t]+be|becomes))[ \t]+"
        r"(?:(?:le|la|l['’]|mon|ma|notre|das|der|die|unser|el|mi|nuestro|il|lo|mio|nostro|o|a)"
        r"[ \t]*)?"
        r"(?:(?:the|my|our|your|his|her|their|new|current|old|temporary|default|admin|root|wifi|wi-fi|"
        r"db|database|server|master|shared|account|login|user|staging|prod|production|guest|office"
        r"|home|vpn|e?mail|team|router|kiosk|test|demo|service|api|app|sudo|backup|vault|disk"
        r"|laptop|phone|bank|encryption|network)[ \t]+){0,4}"
        r"(?:{words})(?!\w)",
        _BEFORE_WORDS,
        _named_after,
        None,
    ),
    # … in any language: the value opens its line or sentence, then a few words of any script
    # (no comma, no full stop), then a password's word, a compound's last part too
    # ("Sonnenblume!Kiel2019 ist das neue WLAN-Kennwort", "… — esa es la clave del router",
    # "… é a nova senha do Wi-Fi"); the value's strict shape is the cue a word list is not
    (
        "password",
        r"(?im)(?:^|(?<=[.!?。] ))[ \t]*(?P<secret>[^\s\"'`]{8,64})(?:[ \t]*[—–:]|[ \t]+-)?"
        r"(?:[ \t]+[^\s.,;:!?。\"`]{1,24}){0,5}?[ \t]+(?:\w{1,24}-)?(?:{words})(?!\w)",
        PASSWORD_WORDS,
        _named_first,
        None,
    ),
]
