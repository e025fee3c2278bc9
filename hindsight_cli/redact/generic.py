"""The generic layer: secrets found by what surrounds them, whatever their format. Part of
``redact``.

- credentials in a URL's userinfo, any scheme (``amqp://u:p/a@ss@host``), and ``user:pass@host``
  without one;
- a value assigned to a secret-sounding name (``DB_PASS=…``, ``"api_key": "…"``,
  ``<password>…</password>``, ``Pwd=…;``), in code, config and connection strings, in any language's
  word for password;
- headers (Authorization, cookies), signed-URL parameters, .netrc and .pgpass lines, a PEM body on
  its own.
"""

from __future__ import annotations

from .lines import before_blanks
from .words import (
    KEY_WORDS,
    NAME_ONLY_WORDS,
    NAME_WORDS,
    PASSWORD_WORDS,
    SECRET_WORDS,
    app_password,
    classes,
    credential_like,
    dotted_numbers,
    ends,
    fold,
    high_entropy,
    inside_uri,
    is_reference,
    looks_random,
    name_word,
    not_a_value,
    public_before,
    random_printable,
    test_outcome,
    wordish,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_B64 = "A-Za-z0-9+/"
_PASSWORDS = frozenset(PASSWORD_WORDS + NAME_ONLY_WORDS)
_KEYS = frozenset(KEY_WORDS)
# a secret's word, in any language, as a whole value: a label, not a secret
_WORDS_ITSELF = frozenset(PASSWORD_WORDS + SECRET_WORDS + KEY_WORDS)
# Parts of a name that say its value is not the secret itself (password_hash, token_url, max_tokens,
# apiKeyHeader, secret_name, PASSWORD_STORE_DIR, client_key_file).
_NOT_SECRET_PARTS = frozenset(
    (
        "hash",
        "hashed",
        # a number used once, sent in clear (oauth_nonce, a Digest header's cnonce)
        "nonce",
        "cnonce",
        "fingerprint",
        "digest",
        "checksum",
        "sha1",
        "sha256",
        "md5",
        "uuid",
        "guid",
        "url",
        "uri",
        "urls",
        "path",
        "file",
        "dir",
        "name",
        "type",
        "count",
        "length",
        "len",
        "size",
        "limit",
        "max",
        "min",
        "ttl",
        "expiry",
        "expires",
        "expiration",
        "timeout",
        "endpoint",
        "host",
        # an address's names: authDomain, AUTH0_DOMAIN, auth_hostname (a tenant's host name)
        "domain",
        "hostname",
        "port",
        "enabled",
        "mode",
        "format",
        "scope",
        "scopes",
        "prefix",
        "header",
        "algorithm",
        "alg",
        "issuer",
        "audience",
        "public",
        "pub",
        "policy",
        "version",
        "usage",
        "budget",
        "rate",
        "cost",
        "tokenizer",
        "tokens",
        "reset",
        "strength",
        "hint",
        "label",
        "field",
        "ref",
        # a secret that exists elsewhere, named by the value (Helm's existingSecret: "pg-creds")
        "existing",
        "arn",
        "location",
        "manager",
        "helper",
        "validator",
        "validators",
        "hashers",
        # what computes or checks a password, named as code (PASSWORD_HASHER, password_encoder)
        "hasher",
        "encoder",
        "encoders",
        "backend",
        "backends",
        # a key that merges duplicate events or requests (dedup_key, idempotency_key)
        "dedup",
        "dedupe",
        "deduplication",
        "idempotency",
    )
)
# a page's cursor an API hands back to be sent again (nextToken, NextContinuationToken,
# next_page_token, pageToken): public to whoever may list. Only a name of these words and "token"
# alone: NEXT_AUTH_SECRET, CURSOR_API_KEY, PAGE_ACCESS_TOKEN name secrets
_PAGE_PARTS = frozenset(("next", "continuation", "pagination", "cursor", "page", "token"))
# a pattern a value is checked against, not the value, when the name ends in it (PASSWORD_RE =
# /^(?=.*\d).{12,}$/, API_KEY_REGEX, tokenPattern; not REGEX_API_KEY)
_PATTERN_ENDS = frozenset(("re", "regex", "regexp", "pattern"))


# Parts of ``_NOT_SECRET_PARTS`` that name a place or a holder: before a password's or a secret's
# word that ends the name they say whose it is (MAIL_HOST_PASSWORD, WEBHOOK_URL_SECRET).
_OWNER_PARTS = frozenset(
    ("host", "url", "uri", "urls", "endpoint", "port", "path", "file", "dir", "location", "manager")
    + ("domain", "hostname")
)


def not_secret_name(name: str) -> bool:
    """Whether a part of ``name`` says its value is not the secret (see ``_NOT_SECRET_PARTS``)."""
    import re

    if re.search(r"(?i)credentials?[_\-.]?id$", name):
        # credentialsId: which stored credential to use, a reference (Jenkins, Azure DevOps)
        return True
    ordered = [part.lower() for part in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)]
    parts = set(ordered)
    if "token" in parts and len(parts) > 1 and parts <= _PAGE_PARTS:
        return True
    if ordered and ordered[-1] in _PATTERN_ENDS:
        return True
    if parts & _OWNER_PARTS and words_in(name) in ("password", "secret"):
        # EMAIL_HOST_PASSWORD, KEYSTORE_FILE_PASSWORD: a place before the secret's word says whose
        # secret it is, not that the value is a place (that is PASSWORD_HOST, TOKEN_URL)
        parts -= _OWNER_PARTS
    return not parts.isdisjoint(_NOT_SECRET_PARTS)


def _names_a_key(name: str, value: str) -> bool:
    """``existingSecretPasswordKey: redis-password``: a name ending in "key" whose value is
    lower-case words, one of them a secret's word, names the key that holds the secret."""
    import re

    value = value.rstrip("`'\"),.;")
    if not re.search(r"(?:[a-z]K|[_\-.]k)ey$", name) or not re.fullmatch(
        r"[a-z]+(?:[-_.][a-z]+)+", value
    ):
        return False
    return any(
        part in _PASSWORDS or part in ("secret", "token") for part in re.split(r"[-_.]", value)
    )


def words_in(name: str) -> str:
    """The class of the secret word that ends ``name``: "password", "secret", "key"; "inside" for a
    secret word elsewhere in it (SECRET_KEY_BASE, TOKEN_PROD); "" for none."""
    found = name_word(name)
    if found is None:
        return ""
    word, at_end = found
    if not at_end:
        return "inside"
    if word in _KEYS and any(w in name.lower() for w in ("wifi", "wireless", "wlan", "wpa")):
        # a Wi-Fi network's key is its passphrase (uci's wireless.radio0.key='…')
        return "password"
    return "password" if word in _PASSWORDS else "key" if word in _KEYS else "secret"


def _value(match: re.Match[str]) -> tuple[str, tuple[int, int]]:
    group = "qsecret" if match.groupdict().get("qsecret") is not None else "secret"
    value, span = match.group(group), match.span(group)
    if group == "secret":
        value, span = _through_marks(match.string, span)
    # the sentence's full stop
    if (
        group == "secret"
        and value.endswith((".", ","))
        and not value.endswith("..")
        and len(value) > 1
    ):
        value, span = value[:-1], (span[0], span[1] - 1)
    return value, span


# how far ``_through_marks`` reads a value's word before it decides (a password is far shorter)
_MARKS_REACH = 256


def _through_marks(text: str, span: tuple[int, int]) -> tuple[str, tuple[int, int]]:
    """An unquoted value read on over the marks that end it (``;`` ``,`` ``<`` ``>`` quotes) when
    the whole word reads as random printable characters and holds no ``=`` (``password:
    8X(h>u2;Lq5e}Wm9``): a password half redacted is a leak; ``Password=x;User=y`` is two fields
    and ``Keywords: automation,flake8`` a list."""
    end = span[1]
    # the word's rest, read up to _MARKS_REACH characters: read to its end, each value of a run
    # with no space (``/p:="/p:="…``) read the whole run, character by character (16,000
    # characters took 26 s)
    ahead = text[end : end + _MARKS_REACH + 1]
    word = "" if not ahead or ahead[0].isspace() else ahead.split(None, 1)[0]
    rest = word[:_MARKS_REACH].rstrip(".,;")
    if (
        rest
        and "=" not in rest
        and "&" not in rest
        # an element's value ends at its closing tag (``<password>…</password><user>…``)
        and not rest.startswith("</")
        and random_printable(text[span[0] : end] + rest)
    ):
        if len(word) > _MARKS_REACH:
            # a random run longer than that goes whole, as far as it runs
            import re

            stop = re.compile(r"\S*").match(text, end)
            rest = text[end : stop.end() if stop else end].rstrip(".,;")
        end += len(rest)
    return text[span[0] : end], (span[0], end)


def _wifi_line(text: str, start: int) -> bool:
    """Whether the line around ``start`` (at most 256 characters either side: each key of a long
    line read its whole line) names a wireless network."""
    line_start = max(text.rfind("\n", max(0, start - 257), start) + 1, start - 256)
    line_end = text.find("\n", start, start + 256)
    line = text[line_start : line_end if line_end >= 0 else min(len(text), start + 256)].lower()
    return any(word in line for word in ("wlan", "wifi", "wi-fi", "ssid", "wpa", "wireless"))


_CODE_WORDS = frozenset(
    ("new", "await", "this", "self", "null", "None", "nil", "undefined", "true", "false", "yield")
    + ("require", "function", "lambda", "typeof", "async")
)


def _not_a_literal(match: re.Match[str], name: str, value: str) -> bool:
    """A value that only names one, none at all, or code (``const token = new ethers.Contract(…)``,
    ``key = await vault.read(…)``)."""
    if is_reference(value) or not value.strip() or _names_a_key(name, value):
        return True
    if fold(value.strip()) in _WORDS_ITSELF:
        # a translation's or a form's label: "login.password": "Passwort", "mot de passe"
        return True
    from .words import names_a_secret

    # a YAML anchor or alias (x-db-pass: &dbpass …, DB_PASSWORD: *dbpass) names the value
    anchor = value[:1] in "&*" and value[1:].replace("-", "").replace("_", "").isalnum()
    return match.group("qsecret") is None and (
        _code_value(name, value) or names_a_secret(value) or anchor
    )


def _code_value(name: str, value: str) -> bool:
    """An unquoted value that is code, once what ends it in code is set aside (a call's ``)``,
    ``):``, a list's ``,``, a JSON string's ``\\n``): a code word (``nextToken=None):``), the
    name itself passed on (``auth=auth)``, ``self.auth = auth``, ``password: password,``,
    ``Token: token,``) or another name's attribute (``auth = parsed.auth\\n``)."""
    import re

    bare = re.sub(r"(?:\\[nrt])+$", "", value).rstrip(")]}:;,")
    if not bare or bare == value.rstrip(",;"):
        return value.rstrip(",;") in _CODE_WORDS or _same_name(name, value.rstrip(",;"))
    return bare in _CODE_WORDS or _same_name(name, bare) or is_reference(bare)


def _same_name(name: str, value: str) -> bool:
    """``value`` is ``name``'s last part (``self.auth = auth``, ``opts.token = token``)."""
    import re

    last = re.split(r"[.:>\-]+", name.strip("\"'"))[-1]
    return bool(last) and value.isidentifier() and value.lower() == last.lower()


def _referenced(match: re.Match[str], sep: str) -> bool:
    """``${RABBIT_PASS:?set it}``: a reference's default, not an assignment (``$pw = "…"``, a
    literal, is one in PHP, Perl and PowerShell)."""
    before = match.string[max(0, match.start() - 2) : match.start()]
    literal = match.group("qsecret") is not None and sep in ("=", "=>", ":=")
    return before.endswith(("${", "%")) or (before.endswith("$") and not literal)


# the most of an unquoted assigned value the pattern reads; one that runs on is judged by these
# and, when it goes, goes as far as it runs (``_run_on``). Read to its end, each "NAME=" of a run
# like "PIN=PIN=…" read the run to its end: 120,000 characters took 12 s.
_LONGEST = 512
# a character of an unquoted assigned value (the assignment rule's and ``_run_on``'s)
_UNQUOTED = r"[^\s'\",;<>]"
# the last run ``_run_on`` read to its end: (text, start, end)
_LAST_RUN: tuple[str, int, int] = ("", 0, 0)


def _run_on(match: re.Match[str], span: tuple[int, int]) -> tuple[int, int]:
    """``span`` reaching to the end of its value's run when the pattern read ``_LONGEST``
    characters of it and stopped (less a sentence's full stop, as ``_value`` leaves it)."""
    global _LAST_RUN
    secret = match.groupdict().get("secret")
    if secret is None or len(secret) < _LONGEST or span[1] < match.end("secret") - 1:
        return span
    text, at = match.string, match.end("secret")
    # every value of one run ends where the run does: read once (one tuple, read and written
    # whole, so threads redacting other texts at once only miss it)
    last = _LAST_RUN
    if last[0] is text and last[1] <= at <= last[2]:
        end = last[2]
    else:
        import re

        found = re.compile(f"{_UNQUOTED}*").match(text, at)
        end = found.end() if found else at
        _LAST_RUN = (text, at, end)
    if text[end - 1 : end] == "." and text[end - 2 : end] != "..":
        end -= 1
    return span[0], max(span[1], end)


def _assignment(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``NAME = value``: how much the value must look like a secret depends on the name and the
    separator."""
    span = _assigned(match, label)
    return _run_on(match, span) if span else None


def _assigned(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    from .formats import in_template

    name, sep = match.group("name"), match.group("sep").strip()
    if _referenced(match, sep) or in_template(match.string, match.start(), match.end()):
        return None
    if sep == ":" and inside_uri(match.string, match.start()):
        # arn:aws:secretsmanager:…:secret:prod/db
        return None
    value, span = _value(match)
    # a long value is judged by its ends; the whole of it goes (each value of "/pwd:-/pwd:-…"
    # reached the run's end, and every reading of it read it all)
    value = ends(value)
    kind = words_in(name)
    if kind == "key" and any(w in name.lower() for w in ("pass", "pwd")):
        # a key named a password too: Splunk's pass4SymmKey
        kind = "password"
    if (
        kind == "key"
        and _wifi_line(match.string, match.start())
        and credential_like(value, strict=True)
    ):
        # netsh wlan set hostednetwork ssid=Lab key=…: a network's key is its passphrase
        kind = "password"
    if value != value.strip():
        # "password:" { send …: the quotes around a value hold no blanks at its ends
        return None
    if name.lower() in ("pwd", "oldpwd") and value.startswith(("/", "~")):
        # the shell's working directory
        return None
    if _not_a_literal(match, name, value) or test_outcome(
        match.string, match.start(), name, span[1]
    ):
        return None
    quoted = match.group("qsecret") is not None
    if kind == "password" and not quoted:
        # "application password: AbC3 EfGh 1234 …": groups a blank apart
        grouped = app_password(match.string, span[0])
        if grouped:
            return grouped
    if not kind or not_secret_name(name) or cookie_pairs(name, value):
        return None
    if kind in ("key", "inside"):
        # a secret word inside the name (SECRET_KEY_BASE, TOKEN_PROD, client-key-data): a random
        # value only, and not a key said to be public ("Public key: 7xKX…")
        from .values import api_uuid

        random = (
            high_entropy(value) or api_uuid(name, value) or _keyed_password(kind, value, quoted)
        )
        if sep == "is" and kind == "key" and not random:
            # "the kanban key is Q8325KKGPC7O": a service's key said in prose
            from .services import service_credential

            random = service_credential(value)
        return span if random and not public_before(match.string, match.start()) else None
    if sep == "=" or sep == "=>" or sep == ":=" or (quoted and not label):
        if kind == "secret" and value.isdigit() and len(value) < 12:
            # max_token=4096
            return None
        return span
    if not_a_value(value) and not (kind == "password" and value.isdigit()):
        return None
    if label or len(value) < (4 if kind == "password" else 8):
        return span if credential_like(value, strict=True) else None
    if kind == "secret" and wordish(value):
        # "auth: token-based"
        return None
    return span if looks_random(value) else None


def _keyed_password(kind: str, value: str, quoted: bool) -> bool:
    """A quoted string given to a key's name that reads as a password, all four kinds of character
    and none of a path's, an address's or a sentence's (``char key[] = {'N', 'i', …}`` read as
    ``key = "Nimbus7Quartz!4"``, ``const KEY = 'Tiger-88!Rv'``): too short for a random key's
    test, not a name, a header or a template (``key = "Content-Type"``, ``"user:{id}"``)."""
    from .words import classes

    return (
        kind == "key"
        and quoted
        and 8 <= len(value) <= 64
        and classes(value) == 4
        and not any(c in value for c in " /:{}<>@$%")
        and credential_like(value, strict=True)
    )


def _url_password(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    import re

    value, user = match.group("secret"), match.group("user")
    if not value or is_reference(value, paths=False):
        return None
    if ("." in user or user == "localhost") and re.match(r"\d{1,5}(?:[/?#]|$)", value):
        # host:port/path@… is a path with an "@" in it, not a password
        return None
    return match.span("secret")


def _scheme_less(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``user:pass@host`` with no scheme: only a password-shaped value (``mailto:bob@x`` is an
    address)."""
    value, user = match.group("secret"), match.group("user").lower()
    if user in ("mailto", "tel", "sip", "xmpp", "http", "https") or is_reference(
        value, paths=False
    ):
        return None
    return match.span("secret") if looks_random(value) and not value.isdigit() else None


def _token_user(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A URL whose user is a random token (a Sentry DSN's key, ``https://<token>@github.com``)."""
    return match.span("secret") if high_entropy(match.group("secret")) else None


def _line_password(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``password VALUE`` alone on its line (.netrc, redis.conf): a value that is not a plain
    word."""
    value = match.group("secret")
    return match.span("secret") if not is_reference(value) and looks_random(value) else None


def _cookie(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A Cookie header: all of it, when one of its values is a random token (a session id)."""
    import re

    values = re.findall(r"=([^;\s]+)", match.group("secret"))
    return match.span("secret") if any(_session_value(v) for v in values) else None


def cookie_pairs(name: str, value: str) -> bool:
    """Whether ``value`` is a cookie header's ``name=value`` pairs (``Cookie: _ga=…; sid=…``): the
    cookie rule reads them one by one, so a rule for a name's whole value leaves them."""
    return name.lower().rstrip(":").endswith("cookie") and "=" in value


def _session_value(value: str) -> bool:
    """A cookie's value that can be a session: random, and not numbers joined by dots after a short
    tag (an analytics id: ``GA1.2.1234567890.1698765432``, ``fb.1.1596403881668.1116446470``)."""
    return not dotted_numbers(value) and high_entropy(value)


def _query(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    value = match.group("secret")
    return (
        match.span("secret")
        if not is_reference(value) and (len(value) >= 16 or looks_random(value))
        else None
    )


def _pem_lines(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Lines of exactly 64 base64 characters, as PEM wraps a key: unless a known file's or a
    certificate's."""
    import re

    body = match.group().lstrip()
    if re.match(r"MII[\w+/]{3}CCA|iVBORw0KGgo|/9j/|R0lGOD|JVBERi|UEsDB|H4sI|PD94", body):
        return None
    armour = match.string[max(0, match.start() - 200) : match.start()]
    if re.search(
        r"BEGIN (?:CERTIFICATE|[A-Z ]*PUBLIC KEY|PGP (?:PUBLIC|SIGNATURE|MESSAGE)|[A-Z ]*REQUEST)",
        armour,
    ):
        # a certificate, a public key, a signature: public material
        return None
    return match.span() if classes(body.replace("\n", "")[:64]) >= 3 else None


def _b64_block(text: str) -> bool:
    return sum(len(line.strip()) == 64 for line in text.replace("\\n", "\n").split("\n")) >= 3


def _colon_at(text: str) -> bool:
    """Whether a chunk has a colon before an "@" (user:pass@host), not just an address."""
    return any("@" in chunk and ":" in chunk.split("@")[0] for chunk in text.split())


def _literal_pair(text: str) -> bool:
    if "," not in text:
        return False
    # define('AUTH_KEY',         '…'): aligned, any blanks after the comma
    squeezed = text.replace(" ", "").replace("\t", "")
    return any(pair in squeezed for pair in ('","', "','", "\",'", "',\""))


def _identified_by(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """SQL's ``IDENTIFIED BY <password>``: a quoted value, or one in a statement that makes or
    changes a user (``CREATE USER``, ``ALTER ROLE``, ``GRANT``), or written in SQL's capitals;
    not English ("Symbols are identified by name", "identified by their serial number")."""
    import re

    value = match.group("secret")
    if value[:1] in "'\"" or match.group().startswith("IDENTIFIED"):
        return match.span("secret")
    before = match.string[max(0, match.start() - 200) : match.start()].rpartition(";")[2]
    statement = r"(?i)\b(?:create|alter)[ \t]+(?:user|role|login)\b|\bgrant\b|\bset[ \t]+password\b"
    return match.span("secret") if re.search(statement, before) else None


def _not_reference(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The value, unless it stands in for one (``Bearer YOUR_TOKEN_HERE``)."""
    return None if is_reference(match.group("secret"), paths=False) else match.span("secret")


def _authorization(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """An Authorization header's credential. After a scheme no list names (``Splunk <uuid>``,
    ``GenieKey …``, ``DeepL-Auth-Key …``), only a value with digits that reads as no word, so that
    "Authorization: required for all endpoints" stays."""
    value = match.group("secret")
    if match.group("scheme") and (
        len(value) < 12 or not any(c.isdigit() for c in value) or wordish(value)
    ):
        return None
    return _not_reference(match, label)


def _user_password(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``user:password``'s second half, when it is password-shaped: not a port, a path
    (``git@github.com:org/repo``) or a reference."""
    value = match.group("secret").rstrip(".")
    if value.isdigit() or "/" in value or not credential_like(value, strict=True):
        return None
    return match.start("secret"), match.start("secret") + len(value)


def _address_colon(text: str) -> bool:
    """``_user_password``'s gate for addresses, without ``re``: a word with a colon after an "@"."""
    return "@" in text and any(":" in word.partition("@")[2] for word in text.split())


def _credential(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    value = match.group("secret")
    return match.span("secret") if credential_like(value, strict=label) else None


def _literal(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A literal after a secret-named literal: only a credential-shaped one ("password", "Passwort"
    is i18n)."""
    if before_blanks(match.string, match.start()) == ":":
        # the name is a JSON key's value, the literal after it the next key ("team":"T0JKS4K4YPW",
        # "bot_id": an id holding "PW", then a name): a pair only at a list's or a call's start
        return None
    found = _named(match, label)
    value = _value(match)[0]
    if _describes(value):
        # ['token', 'quoted value'], ('password', 'retype password'): a list of words, a field's
        # label
        return None
    return found if found and credential_like(value, strict=label) else None


# nouns that say what kind of value a phrase is about, not a value
_KIND_NOUNS = frozenset(
    ("value", "values", "literal", "string", "text", "keyword", "word", "words", "name", "field")
    + ("label", "comment", "whitespace", "number", "identifier", "operator")
)


def _describes(value: str) -> bool:
    """Lower-case words, two to four, one of them a kind of value's noun or a secret's word:
    a phrase that says what something is ("quoted value", "retype password")."""
    parts = value.split(" ")
    return (
        2 <= len(parts) <= 4
        and all(part.isalpha() and part.islower() for part in parts)
        and any(part in _KIND_NOUNS or name_word(part) is not None for part in parts)
    )


def _named(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A value given to a secret-named thing (<password>…</password>, key="Password" value="…",
    name: DB_PASSWORD / value: …): any value, or a random one when the word is a key's or inside the
    name."""
    kind, (value, span) = words_in(match.group("name")), _value(match)
    if not kind or is_reference(value) or not_secret_name(match.group("name")):
        return None
    return span if kind not in ("key", "inside") or high_entropy(value) else None


def _next_line(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A value alone on the line after its secret-named name and a ``:`` or ``=`` (YAML's plain
    scalar continued on the next line, a value pasted under ``password =``): password-shaped, or
    random for a key's name; a mapping's next key (``required:``) is not a value."""
    import re

    name, value = match.group("name"), match.group("secret")
    kind = words_in(name)
    if not kind or not_secret_name(name) or is_reference(value):
        return None
    named = re.match(r"([A-Za-z_][\w.\-]*)[ \t]*[:=：＝]", value)
    if named and not (re.fullmatch(r"[\w\-+/]+={1,2}", value) and _padded(named.group(1))):
        # the next line is a name of its own: an empty value (`API_KEY=` in a .env example); not
        # a random value ending in base64's padding (`dGhp…Nzg=`, review AX: left in clear)
        return None
    if kind in ("key", "inside"):
        public = public_before(match.string, match.start())
        return match.span("secret") if high_entropy(value) and not public else None
    return match.span("secret") if credential_like(value, strict=True) else None


def _padded(body: str) -> bool:
    """Whether ``body``, before a value's closing ``=``, is a secret's (random or password-shaped),
    not a name's (``API_KEY``, ``required``)."""
    return high_entropy(body) or credential_like(body, strict=True)


_SEPARATOR = r"[ \t]*(?:=>|:=|\?=|\|\|=|[:=：＝])[ \t]*|[ \t]+is[ \t]+"
_QUOTED = r"(?P<q>[\"'])(?P<qsecret>(?:(?!(?P=q))[^\n]){3,}?)(?P=q)"

RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    # a JAAS entry's users: PlainLoginModule required user_admin="…" user_app="…"; a user's name
    # 256 characters at most (``user_.user_.…`` was read to its end from each ``user_``)
    (
        "password",
        r"(?i)\buser_[\w.\-]{1,256}+[ \t]*=[ \t]*\"(?P<secret>[^\"\n]+)\"",
        ("loginmodule",),
        _not_reference,
        None,
    ),
    # login=ops:S3cret, --creds bot:…, stats auth admin:…: a user, a colon, its password
    (
        "password",
        r"(?i)(?<![\w\-])(?:login|auth|creds?|credentials|userpass|basic[_\-]?auth)[\"']?"
        r"(?:[ \t]*[=:][ \t]*|[ \t]+)[\"']?[\w.@+\-]{1,64}:(?P<secret>[^\s\"'<>,;]{4,})",
        ("login", "auth", "cred", "userpass"),
        _user_password,
        lambda text: ":" in text,
    ),
    # alice@example.com:S3cret!x (sasl_passwd, a list of logins): an address, a colon, a password
    (
        "password",
        r"(?<![\w.+\-])[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+:(?P<secret>[^\s\"'<>,;]{6,})",
        (),
        _user_password,
        _address_colon,
    ),
    (
        "authorization",
        r"(?i)(?:authorization|proxy-authorization)[\"']?\s*[:=]\s*[\"']?(?:(?:basic|bearer|token|digest|bot|apikey|"
        r"api-key|sso-key|ssws|negotiate|ntlm|hmac|key|jwt|oauth)\s+"
        # a scheme no list names: Splunk <uuid>, GenieKey …
        r"|(?P<scheme>[A-Za-z][\w.\-]{1,30})[ \t]+)?"
        # "@" and "!" too: Proxmox's "PVEAPIToken=user@realm!tokenid=<uuid>" read to its end
        r"(?P<secret>[A-Za-z0-9._~+/\-=:,@!]{8,})",
        ("authorization",),
        _authorization,
        None,
    ),
    (
        "bearer_token",
        r"(?i)\bbearer\s+(?P<secret>(?:\d{1,9}\|)?(?=[A-Za-z0-9._~+/\-]*\d)[A-Za-z0-9._~+/\-]{16,}=*)",
        ("bearer",),
        _not_reference,
        None,
    ),
    (
        "cookie",
        # a cookie header's value, 8 KiB either side of an "=" at most: unbounded, each "cookie:"
        # of a long line read it to its end and back (32,000 characters took 0.5 s)
        r"(?i)\b(?:set-)?cookie[\"']?\s*[:=]\s*[\"']?(?P<secret>[^\n\"']{0,8192}=[^\n\"']{0,8192})",
        ("cookie",),
        _cookie,
        None,
    ),
    (
        "signature",
        r"(?i)[?&;](?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|x-goog-credential"
        r"|code|access_token|id_token|refresh_token|client_secret|apikey|api_key|auth|token|key|secret)="
        r"(?P<secret>[^&\s#\"'<>]{8,})",
        ("sig=", "signature=", "code=", "token=", "key=", "secret=", "auth="),
        _query,
        None,
    ),
    (
        "password",
        # the user may be an address itself (smtps://ops@acme.io:…@smtp.acme.io). The password is
        # read to the next URL's "://" at most: read on to the text's last "@" from every URL of a
        # run, 32 KB of "http://a." beside an address took 5 s, 64 KB 20 s a field (review AU)
        r"(?i)\b[a-z][a-z0-9+.\-]{0,20}://(?P<user>[^\s:/@'\"<>]*(?:@[\w.\-]+)?):"
        r"(?P<secret>(?:(?!://)[^\s'\"<>])*?)@"
        r"(?=[A-Za-z0-9\[][\w.\-\[\]:%]*(?:[/?#\s'\"<>),;]|$))",
        ("://",),
        _url_password,
        # each gate below is a mark its pattern cannot match without: with none, the pattern is
        # neither compiled nor run (a recording hook compiles only what may match)
        lambda text: "@" in text,
    ),
    (
        "password",
        r"(?i)\b[a-z][a-z0-9+.\-]{0,20}://(?P<secret>[A-Za-z0-9._~%\-]{16,})@(?=[\w\-])",
        ("://",),
        _token_user,
        lambda text: "@" in text,
    ),
    (
        "password",
        r"(?<![\w.\-/:@\\])(?P<user>[A-Za-z0-9._\-\\/]{1,64}):(?P<secret>[^\s:/@'\"]{3,256}[^\s'\"@]{0,256})@"
        # Go's MySQL DSN too: user:pass@tcp(db:3306)/app, user:pass@(localhost:3306)/
        r"(?=[A-Za-z0-9][\w.\-]*(?::\d+)?(?:[/\s'\",;)]|$)|(?:tcp|unix)?\([\w.\-:/]+\))",
        ("@",),
        _scheme_less,
        _colon_at,
    ),
    # .pgpass: host:port:database:user:password; .netrc: machine … login … password …; redis.conf
    # requirepass.
    (
        "password",
        r"(?m)^[\w.\-*\[\]]+:(?:\d{1,5}|\*):[\w.\-*]+:[\w.\-*@]+:(?P<secret>\S+)[ \t]*$",
        (":*:", "pgpass", ":5432:"),
        None,
        None,
    ),
    (
        "password",
        r"(?i)\b(?:machine[ \t]+\S+|default)(?:[ \t]+(?:login|account|port)[ \t]+\S+)*[ "
        r"\t]+password[ \t]+"
        r"(?P<secret>\S+)",
        ("machine", "default"),
        # not a form shown in docs: machine <host> login <user> password <password>
        _not_reference,
        None,
    ),
    (
        "password",
        # (a separator alone is no value: `password =` with the value on the next line)
        r"(?im)^[ \t]*(?:password|passwd|requirepass|masterauth|rpcpassword)[ "
        r"\t]+(?![=:：＝]+[ \t]*$)(?P<secret>\S+)[ \t]*$",
        ("password", "passwd", "requirepass", "masterauth", "rpcpassword"),
        _line_password,
        None,
    ),
    (
        "password",
        # the user's name is no separator: ``user = "reporting"`` is an assignment of a name
        r"(?im)^[ \t]*user[ \t]+[^\s=:>]\S*[ \t]+(?P<secret>\S+)[ \t]*$",
        ("user ",),
        _line_password,
        lambda text: any(line.lstrip().startswith("user ") for line in text.splitlines()),
    ),
    (
        "password",
        r"(?i)\bpin(?:[ \t-]*code)?(?:[ \t]+[^\W\d]+){0,2}[ \t]*[:=：][ \t]*(?P<secret>\d{4,8})(?!\d)",
        ("pin",),
        None,
        None,
    ),
    # k8s env lists, JSON name/value pairs, CloudFormation parameters: - name: DB_PASSWORD / value:
    # "…"
    (
        "secret",
        r"(?i)\b(?:name|key|parameterkey)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<name>[\w.\-]+)[\"']?"
        r"[ \t]*(?:,|\r?\n)[ \t]*(?:-[ \t]*)?[\"']?(?:value|parametervalue)[\"']?[ \t]*[:=][ "
        r"\t]*(?:(?P<q>[\"'])"
        r"(?P<qsecret>[^\"'\n]+)(?P=q)|(?P<secret>[^\s,}\"']+))",
        ("value",),
        _named,
        None,
    ),
    (
        "password",
        r"(?i)\b(?:use|set|chose|choose|picked|with)[ "
        r"\t]+(?P<q>[\"']?)(?P<secret>[^\s\"']{4,})(?P=q)[ \t]+as[ \t]+"
        r"(?:(?:the|a|an|my|your|our|new|admin|root|its|their)[ \t]+){0,3}(?:{words})",
        PASSWORD_WORDS + SECRET_WORDS,
        _credential,
        lambda text: " as " in text.lower(),
    ),
    # A string literal right after a secret-named one: define('DB_PASSWORD', '…'), put("api_key",
    # "…"), and the third argument of connect(dsn, user, password).
    (
        "secret",
        r"(?i)(?P<q0>[\"'])(?P<name>[\w.\-]+)(?P=q0)[ \t]*,[ \t]*(?P<q>[\"'])"
        r"(?P<qsecret>[^\"'\n]{3,})(?P=q)",
        NAME_WORDS,
        _literal,
        _literal_pair,
    ),
    # a pair whose first element names a secret and is no string: {smtp_password, "…"} (Erlang),
    # (:api_key, "…"), [db_pass, '…']
    (
        "secret",
        r"(?i)[{(\[][ \t]*:?(?P<name>[A-Za-z_][\w.\-]*)[ \t]*,[ \t]*(?P<q>[\"'])"
        r"(?P<qsecret>[^\"'\n]{3,})(?P=q)",
        NAME_WORDS,
        _literal,
        lambda text: "," in text,
    ),
    # the first argument read once, its blanks with it (split every way, 64 KB took 10 s; review AQ);
    # the arguments one a line as well (Perl's DBI->connect(\n "dbi:Pg:…",\n "user",\n "…",), PDO,
    # getConnection), the blanks and line breaks between them possessive (a first argument of blanks
    # alone is the argument's, as it was); the call's name read once from its start to its end (read
    # from each "connect" in it to the end again, 32 KB of one word took 1 s, its square; review BG)
    (
        "password",
        r"(?i)\b(?:(?=\w*?connect)\w++|PDO)[ \t]*\((?:[ \t]*+\r?\n)?[^,()\n]++,"
        r"[ \t]*+\r?\n?[ \t]*+([\"'])[^\"'\n]*\1[ \t]*+,[ \t]*+\r?\n?[ \t]*+"
        r"(?P<q>[\"'])(?P<qsecret>[^\"'\n]+)(?P=q)",
        ("connect", "pdo", "getconnection"),
        None,
        None,
    ),
    # expect scripts: expect "password:" … send "S3cret\r". Each line read once from each expect:
    # the prompt (of at most 200 characters) up to its first password word, then on to its quote or
    # its last character before blanks, the blanks possessive. Read every way (each password word,
    # each end of the prompt, each split of its blanks), 4 KB of "expect pass send " took 5 s, its
    # cube, and 16 KB of blanks 10 s (review AQ).
    (
        "password",
        r"(?i)\bexpect[ \t]++[\"']?"
        r"(?>[^\"'\n]{0,200}?(?:pass|passwort|passphrase|contraseña|senha))"
        r"(?:[^\"'\n]{0,200}[\"']|[^\"'\n]{0,200}[^\"'\n \t{])?[ \t{]*+\r?\n?[ \t]*+"
        r"send[ \t]++(?:--[ \t]++)?[\"'](?P<secret>[^\"'\n]+?)(?:\\r|\\n)?[\"']",
        ("send",),
        None,
        None,
    ),
    # "set VERCEL_TOKEN to …", "set the DB_PASSWORD to …"
    (
        "secret",
        r"(?i)\bset[ \t]+(?:the[ \t]+)?(?P<name>[\w.\-]+)[ \t]+to[ \t]+(?P<secret>[^\s\"',;]+)",
        ("set ",),
        _literal,
        lambda text: " to " in text.lower(),
    ),
    # HCL blocks: variable "db_password" { default = "…" } (its first 1,024 characters: each
    # `"a" {` of a line of them read the line to its end, 64 KB 20 s, review BD)
    (
        "secret",
        r"(?i)(?P<q0>[\"'])(?P<name>[\w.\-]+)(?P=q0)[ \t]*\{[^}\n]{0,1024}?\b(?:default|value)[ \t]*=[ "
        r"\t]*"
        r"(?P<q>[\"'])(?P<qsecret>[^\"'\n]+)(?P=q)",
        ("default", "value"),
        _named,
        None,
    ),
    (
        "password",
        r"(?i)\bidentified[ \t]+(?:with[ \t]+\w+[ \t]+)?by[ \t]+(?:password[ "
        r"\t]+)?(?P<secret>'[^'\n]*'|"
        r"\"[^\"\n]*\"|[^\s;'\"]+)",
        ("identified",),
        _identified_by,
        None,
    ),
    (
        "password",
        # (any name ending in auth: ``\b[\w.]*auth`` matched wherever ``auth`` was, and read 64 KB
        # of ``a.`` from every dot to its end; review AU)
        r"(?i)(?:auth|\b(?:httpbasicauth|httpdigestauth|basicauth|digestauth|pscredential|networkcredential"
        r"|usernamepasswordcredentials?|passwordauthentication|login|authenticate|credentials?))"
        r"\s*(?:=\s*)?\(\s*"
        # the second argument, unless its keyword names a user ("login(page, user="carol", …)")
        r"(?:[\w.]+\s*=\s*)?(?:[\"'][^\"'\n]*[\"']|[\w.]+)\s*,\s*"
        r"(?!(?:user(?:_?name)?|login|email|account|uid|name|host|url|domain)\s*=)"
        r"(?:[\w.]+\s*=\s*)?(?P<q>[\"'])(?P<qsecret>[^\"'\n]+)(?P=q)",
        ("auth", "credential", "login"),
        None,
        None,
    ),
    (
        "secret",
        r"(?i)<(?P<name>[\w:.\-]+)(?:\s[^<>]*)?>(?P<secret>[^<\n]{3,}?)</(?P=name)>",
        ("</",),
        _named,
        None,
    ),
    # <key>Password</key><string>…</string> (a plist), <name>…</name><value>…</value>, and an
    # element named for a secret whose child holds the value (unattend.xml's <Value>)
    (
        "secret",
        r"<(?:key|name)>(?P<name>[^<>\n]{1,60})</(?:key|name)>\s*<(?:string|value)>"
        r"(?P<secret>[^<>\n]+)</(?:string|value)>",
        ("</key>", "</name>"),
        _named,
        None,
    ),
    (
        "secret",
        r"<(?P<name>[\w:.\-]{1,60})>\s*<[Vv]alue>(?P<secret>[^<>\n]+)</[Vv]alue>",
        ("<value>", "<Value>"),
        _named,
        None,
    ),
    (
        "secret",
        # and an HTML or XML element's name="…" with its value="…" (<param name="db_password"
        # value="…"/>), 16 other attributes between them at most (each `key="a"` of a line of
        # them read every attribute after it, 64 KB 17 s, review BD)
        r"(?i)\b(?:key|name)\s*=\s*[\"'](?P<name>[\w.:\-]+)[\"']"
        r"(?:\s+[\w:\-]+\s*=\s*[\"'][^\"'\n<>]{0,512}[\"']){0,16}?\s+value\s*=\s*[\"']"
        r"(?P<secret>[^\"'\n]+)[\"']",
        ("value",),
        _named,
        None,
    ),
    (
        "secret",
        # $config['db_pass'] = …: a subscript's closing bracket
        rf"(?i)(?<![\w.\-])(?P<name>[\w.\-]+)(?:\[\]|[\"']?\]?)(?P<sep>{_SEPARATOR})"
        # the value in a
        rf"(?=(?:{_QUOTED}|(?P<secret>{_UNQUOTED}{{3,{_LONGEST}}})))",
        NAME_WORDS,
        _assignment,
        None,
    ),
    (
        "secret",
        # the value alone on the next line (review AU: `password =` and the value under it left it
        # in clear, as YAML's `password:` with the value indented below)
        # (the value in a lookahead: a name rejected, `db:` above `password:`, hides no other;
        # a blank line or two between them too, as a value pasted under its name: review AX)
        # (the name in bold, `**Password:**`, told, `the password is:`, said whose, `password for
        # staging:`, `password (prod):`, or an element's, `<password>`; a comment after it or after
        # the value, a `>` quoting the value: review BA)
        rf"(?im)(?<![\w.\-])(?P<name>[\w.\-]+)(?:[\"']|\*\*)?"
        rf"(?:[ \t]+(?:for|of)[ \t]+[\w .'\-]{{1,40}}?|[ \t]*\([\w .'\-]{{1,40}}\))?"
        rf"(?:[ \t]*(?:=>|:=|[:=：＝])|[ \t]+is(?:[ \t]*:)?|[ \t]+-|>)"
        # (a comment stops at the next "#": read to the line's end, each name of a 64 KB line of
        # `password - # ` read the rest of it again, 32 KB took 3 s, review BD)
        # (three blank lines at most between them, and a statement's `;` after the value)
        rf"(?:\*\*)?(?:[ \t]+#[^\r\n:=#]*+)?[ \t]*(?=(?:\r?\n[ \t]*){{1,4}}(?:>[ \t]*)?"
        # (quoted or not: YAML's `'…'` under its name, review AX; in backticks or bold, review BA)
        rf"(?P<nq>[\"'`]|\*\*|)(?P<secret>{_UNQUOTED}{{4,{_LONGEST}}})(?P=nq);?"
        rf"(?:[ \t]+#[^\r\n]*)?[ \t]*\r?$"
        # (not the first of a list of codes one a line, which another rule reads whole)
        rf"(?!\r?\n[ \t]*{_UNQUOTED}+[ \t]*\r?$))",
        NAME_WORDS,
        _next_line,
        None,
    ),
    # lookahead: a rejected match (Environment="API_SECRET=…") must not hide the assignment inside
    # its value
    (
        "private_key",
        rf"(?m)(?:^[ \t]*[{_B64}]{{64}}[ \t]*(?:\r?\n|\\n)){{3,}}(?:[ "
        rf"\t]*[{_B64}]{{1,64}}={{0,2}})?",
        (),
        _pem_lines,
        _b64_block,
    ),
]
