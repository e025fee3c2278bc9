"""Secrets in prose, in any of the languages of ``words``.

A pattern finds a secret word; Python reads the rest of its line, because the value can come after a
qualifier and one of several separators ("the password for the admin account on prod is …": "on" is
a copula in Finnish, "is" one in English), and a regular expression stops at the first parse it
finds. In order: a quoted value right after the word; a value after ``:``, ``=``, a dash or a
copula, with an optional qualifier before it ("for the db", "(prod)", "für den Server"); a bare
value right after the word (then only a credential-shaped one); the second half of ``user / pass``.
"""

from __future__ import annotations

from .qualifiers import PREPOSITIONS, clitic, ends_clause, noun_phrase, qualifier_ok
from .words import (
    CJK_COPULAS,
    COPULAS,
    ENGLISH,
    HASH_WORDS,
    KEY_CODE_WORDS,
    KEY_WORDS,
    NAME_ONLY_WORDS,
    PASSWORD_WORDS,
    PROSE_WORDS,
    QUALIFIERS,
    SOV_COPULAS,
    app_password,
    closes_quote,
    credential_like,
    fold,
    high_entropy,
    inside_uri,
    is_reference,
    keyword_argument,
    not_a_value,
    public_before,
    random_printable,
    test_outcome,
    wordish,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

_PASSWORDS = frozenset(PASSWORD_WORDS + NAME_ONLY_WORDS)
_QUOTES = {
    '"': '"',
    "'": "'",
    "`": "`",
    "“": "”",
    "”": "”",
    "‘": "’",
    "’": "’",
    "«": "»",
    "»": "«",
    "「": "」",
    "『": "』",
}
# A separator between a password word (and its qualifier) and the value.
_SEP = (
    # "… changed, it's 4817 now": a comma, then "it's" and the value
    r"[ \t]*,[ \t]*(?=(?:it'?s|it[ \t]+is)[ \t]+\S)|"
    r"[ \t]*(?:[:：=＝]|->|=>|→|—|–)[ \t]*|[ \t]+(?:" + "|".join(COPULAS) + r")(?:[ \t]*:)?[ \t]+"
    r"|[ \t]*(?:" + "|".join(CJK_COPULAS) + r")[ \t]*"
)
# A value: printable ASCII but blanks, quotes, "," ";" ")" "]", and Latin, Greek and Cyrillic
# letters, so it stops at CJK text ("密码是Abc123，请…"). Small ranges: a class over all of Unicode
# compiles slowly.
_VALUE = "[!#-&(*+\\--:<-\\[\\\\^_a-~\u00a1-\u02ff\u0370-\u052f]+"
_TOKEN = r"(?<![A-Za-z0-9+/=\-.~:@%_])[A-Za-z0-9+/_\-.~]{16,}={0,2}(?![A-Za-z0-9+/=\-.~@%_])"
# where a ``_TOKEN`` can start
_TOKEN_START = r"(?<![A-Za-z0-9+/=\-.~:@%_])[A-Za-z0-9+/_\-.~]"


# a password's short forms: only a password-shaped value after them ("pass `--strict` to …")
_SHORT_FORMS = frozenset(("pass", "pw", "pwd"))
_CARD_CODES = frozenset(
    ("cvv", "cvv2", "cvc", "cvc2", "安全码", "安全碼", "セキュリティコード", "보안코드")
)
# a SIM's, a card's or a bank's personal codes, which take their digits with no separator
_PIN_CODES = frozenset(
    ("pin", "pin2", "puk", "puk2", "pincode", "pukcode", "pinkode", "pinkod", "pin-koodi")
    + ("mpin", "tpin")
    # Hindi's and Russian's PIN, Finnish's "identifying number" (a bank card's PIN), and PIN in the
    # other scripts of India and Georgian (words.PASSWORD_WORDS lists them)
    + ("पिन", "пин", "tunnusluku")
    + ("পিন", "પિન", "ਪਿੰਨ", "ਪਿਨ", "ପିନ", "పిన్", "ಪಿನ್", "პინ")
)


# Words between a separator and the value that say when: "it's now", "is still", "changed to".
_FILLER = (
    r"(?i)(?:it'?s[ \t]+|it[ \t]+is[ \t]+|that'?s[ \t]+)?"
    r"(?:now|still|currently|jetzt|nun|maintenant|ahora|agora|adesso|ora|nu)[ \t]*:?[ \t]+"
    r"|(?i:it'?s|it[ \t]+is)[ \t]+(?=\S)"
)

# the separators ``_starts`` tries after a word, at most
_MOST_SEPARATORS = 8


def _starts(rest: str, qualified: bool = False, pin: bool = False) -> Iterator[tuple[int, str]]:
    """Where a value may start in ``rest`` (the line after the word), and after what: "quote",
    "sep", "bare". A key's or a code's word ``qualified`` by what it opens takes any short phrase
    before its separator ("le code wifi de la maison : …")."""
    import re

    lead = len(rest) - len(rest.lstrip(" \t"))
    # "the token's scope, the user's name": a possessive's apostrophe opens no quote
    possessive = not lead and rest[:1] in "'’" and rest[1:2] in "sS" and not rest[2:3].isalnum()
    if rest[lead : lead + 1] in _QUOTES and not possessive:
        yield lead, "quote"
    for number, sep in enumerate(re.finditer(f"(?i:{_SEP})", rest)):
        if number == _MOST_SEPARATORS:
            # a qualifier is a few words: past so many separators none is left to find, and each
            # read the line before it again (30,000 characters of 'auth=="' took 3.2 s)
            break
        head = rest[: sep.start()]
        tag = head.rpartition("<")
        if tag[1] and tag[2].lstrip("/").replace("-", "").replace(".", "").isalnum():
            # a tag's namespace (`</ns:apiKey>`, `<x:password>`) is no separator
            continue
        if qualifier_ok(head) or (qualified and len(head.split()) <= 6 and "." not in head):
            yield sep.end(), "sep"
            # "door code changed: it's now 501559", "the PIN is now 4471"
            filler = re.compile(_FILLER).match(rest, sep.end())
            if filler:
                yield filler.end(), "sep"
        elif noun_phrase(head):
            # whose it is in a language whose prepositions no table holds: "nenosiri la wifi ya
            # ofisi ni …", "mật khẩu wifi quán cà phê của chị là …", "codul PIN al cardului e …"
            yield sep.end(), "phrase"
    if lead:
        yield lead, "bare"
    if pin:
        # a PIN's digits after a few words that say whose it is, with or without a verb: "PIN
        # του συναγερμού 8316", "codul PIN al decodorului e 6142" (not "… card ending 4242")
        phrase = re.match(r"((?:[ \t]+[^\W\d_]+){1,6})[ \t]+(?=\d{4,8}(?![\w.,]\d))", rest)
        if phrase and noun_phrase(phrase.group(1)):
            yield phrase.end(), "phrase"


def _value_at(rest: str, start: int) -> tuple[int, int, bool] | None:
    """The value starting at ``start``: (start, end, quoted)."""
    import re

    closing = _QUOTES.get(rest[start : start + 1])
    if closing:
        end = rest.find(closing, start + 1)
        return (start + 1, end, True) if end > start + 1 else None
    match = re.compile(_VALUE).match(rest, start)
    if match is None or rest[start] in "[(<{":
        return None
    end = (
        match.end() - 1
        if match.group().endswith((".", ",")) and match.end() - start > 1
        else match.end()
    )
    return start, end, False


def _acceptable(value: str, quoted: bool, after: str, word: str, label: bool) -> bool:
    import re

    password = " ".join(fold(word).split()) in _PASSWORDS
    if not value or value != value.strip() or is_reference(value) or keyword_argument(value):
        # "pass `left=0, right=1` to GridSpec": a call's arguments
        return False
    if fold(word) in _CARD_CODES and re.fullmatch(r"\d{3,4}", value):
        # a card's security code: three digits or four, after its word or a blank
        return True
    if set(fold(word).replace("-", " ").split()) & _PIN_CODES and re.fullmatch(r"\d{4,8}", value):
        # a PIN's or a PUK's digits right after its word: "PIN 2093, PUK 58120377", "online
        # banking PIN 53190" (four to eight: "pin 13" of a board is no PIN)
        return True
    if after == "phrase":
        # past a phrase no table reads, only what cannot be a word: a password's four kinds, or
        # a PIN's digits
        from .words import classes

        if set(fold(word).replace("-", " ").split()) & _PIN_CODES or value.isdigit():
            # a password's word too, past words of prose (``_prose``): "nenosiri la akaunti ya
            # M-Pesa ya ofisi ni 6110," (the digits end their clause: "… is 2024 years old" stays)
            return re.fullmatch(r"\d{4,8}", value) is not None
        # both cases and a digit at least, in a password's strict shape ("Parola de la contul de
        # Netflix e TigqsiKX7827z,"): a word of any script, an id's hex and dashes are none
        mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
        return (
            not quoted
            and (classes(value) == 4 or (mixed and any(c.isdigit() for c in value)))
            and credential_like(value, strict=True)
        )
    if quoted and after == "sep" and not label:
        return len(value) >= 3
    # "the token 'abc' is invalid"
    if quoted:
        # "pass `--strict` to …": after the verb, only a password-shaped value; 'with secret
        # "secret/data/db"': a secret's path in a store, its name
        if re.fullmatch(r"[a-z][a-z0-9_\-]*(?:/[a-z0-9_\-]+){2,}", value):
            return False
        return len(value) >= 4 and credential_like(
            value, strict=label or word.lower() in _SHORT_FORMS
        )
    if not_a_value(value) and not (password and value.isdigit() and len(value) >= 4):
        return False
    if not password and wordish(value):
        # "auth: token-based"
        return False
    if value[:1].isdigit() and re.fullmatch(_PRODUCT, value):
        # a product's name: "パスワードは1Passwordで管理"
        return False
    strict = (
        label
        or after == "bare"
        or (not password and len(value) < 8)
        or word.lower() in _SHORT_FORMS
    )
    return credential_like(value, strict=strict)


def _qualified(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A key's or a code's word read as a password's when what it opens stands right before it or
    among its first words after, past prepositions and articles ("wifi code: …", "la chiave del
    wifi è …", "kod do sejfu to …"); "code review for the wifi module: PR-12" stays."""
    import re

    # the few words around the match, folded: folding the whole text for each match made a long
    # run of one key word quadratic (16,000 characters of "código da porta " took 1.1 s)
    text = match.string
    before = fold(text[max(0, match.start() - 16) : match.start()]).split()[-1:]
    # past the stem's ending (kod-en, chiav-e)
    end = match.end() + _letters(text[match.end() : match.end() + 64])
    after = re.findall(r"[^\s:：=,.;!?]+", fold(text[end : end + 48]))
    if any(_opens(w) for w in before):
        return _prose(match, label, qualified=True)
    other = False
    for word in after[:5]:
        if _opens(word):
            found = _prose(match, label, qualified=True)
            if found is None or not other:
                return found
            # "combination for the key safe: 49-03-79": past another word, only a code of digits
            return found if re.fullmatch(_DIGIT_CODE, text[found[0] : found[1]]) else None
        if word not in PREPOSITIONS and word not in _ARTICLES and not clitic(word):
            if other:
                break
            other = True
    # what it opens named earlier in the sentence: "Pour le wifi de la salle : réseau « … », clé
    # …": then only a password-shaped value
    line_start = max(
        text.rfind("\n", max(0, match.start() - 97), match.start()) + 1, match.start() - 96
    )
    last = text[line_start : match.start()].rstrip()
    # … unless a word of its own says what the code is ("wifi driver error code: 0x8007001F")
    if not last or (
        last[-1].isalnum() and fold(last.split()[-1]) not in (*_ARTICLES, *PREPOSITIONS)
    ):
        return None
    head = fold(re.split(r"[.!?。]\s", last)[-1])
    if any(q in head for q in QUALIFIERS) and any(
        _opens(w) for w in re.findall(r"[^\s:：=,.;!?«»\"“”]+", head)
    ):
        found = _prose(match, label, qualified=True)
        if found and credential_like(text[found[0] : found[1]], strict=True):
            return found
    return None


# A code of digits, in groups or not: 501559, 49-03-79, 12 34 56 (no year: a date is no code)
_DIGIT_CODE = r"\d{3,8}#?|\d{1,3}(?:[- ]\d{1,3}){1,3}"


def _opens(word: str) -> bool:
    """Whether ``word`` names what a key or a code opens (``QUALIFIERS``; "הכספת" with its
    article, "sejfu" with its ending)."""
    if word.isascii():
        return word.startswith(QUALIFIERS)
    return any(q in word for q in QUALIFIERS)


# Articles before what a key opens: "the code to the door", "la chiave del wifi".
_ARTICLES = frozenset(
    ("the", "a", "an", "le", "la", "les", "l'", "il", "lo", "el", "los", "las", "o", "os", "as")
    + ("die", "das", "den", "dem", "het", "een", "my", "our", "your", "mein", "notre", "nhà")
    + ("ke", "k", "od", "ot", "של", "עבור", "لل", "من")
)


def _prose(match: re.Match[str], label: bool, qualified: bool = False) -> tuple[int, int] | None:
    """A password word, then its value (see the module docstring); a key's or a code's word
    ``qualified`` by what it opens is judged as a password's."""
    rest, base, word = match.group("rest"), match.start("rest"), match.group("word")
    if inside_uri(match.string, match.start()):
        return None
    ending = _letters(rest) if word[-1] < "\u0530" and fold(word) not in ENGLISH else 0
    # a stem's ending: şifre-si, hasł-a, salasana-si
    rest, base = rest[ending:], base + ending
    # a JSON key: "auth": {…}
    quoted_word = match.string[match.start() - 1 : match.start()] in _QUOTES or closes_quote(
        match.string, match.start(), rest
    )
    judged = "password" if qualified else word
    if fold(word) == "pass" and rest[:4].rstrip(" \t.,;:!?)`'\"").lower() in ("ing", "ed", "es"):
        # the verb: "before passing it to `urllib3`", "passed `strict=True`"
        return None
    pin = bool(set(fold(word).replace("-", " ").split()) & _PIN_CODES)
    for start, after in _starts(rest, qualified, pin):
        if after == "quote" and quoted_word:
            continue
        # (after a phrase too: "App-Passwort fürs Handy: q7rt 2kx9 …")
        grouped = app_password(rest, start) if after in ("sep", "phrase") else None
        if grouped:
            return base + grouped[0], base + grouped[1]
        found = _value_at(rest, start)
        if found is None:
            continue
        begin, end, quoted = found
        if after == "phrase" and rest[begin:end].isdigit() and not ends_clause(rest, end):
            # a PIN's digits past a phrase end their clause ("PIN του συναγερμού 8316."); "the
            # pin count is 1024 on this package" is a count
            continue
        if (
            after == "phrase"
            and not pin
            and rest[begin:end].isdigit()
            and (" ".join(fold(judged).split()) not in _PASSWORDS or _named_setting(rest[:begin]))
        ):
            # a password's digits past a phrase: words of prose, three at least, before them, not
            # a setting's name (PASSWORD_RESET_TIMEOUT=3600, password reset token ttl: 3600)
            continue
        if test_outcome(match.string, match.start(), word, base + end):
            # PASS: __init__ was included.
            return None
        if after == "bare" and rest[end:].strip().rstrip("।.!。").strip() in SOV_COPULAS:
            # the verb after the value: "पासवर्ड ghar1234 है"
            after = "sep"
        if _acceptable(rest[begin:end], quoted, after, judged, label):
            return base + begin, base + end
        # "creds: admin / S3cret!": the second half
        pair = rest[end:].lstrip(" \t")
        if not quoted and pair.startswith("/"):
            second = _value_at(rest, len(rest) - len(pair[1:].lstrip(" \t")))
            if second and _acceptable(rest[second[0] : second[1]], False, "sep", judged, label):
                return base + second[0], base + second[1]
    return None


def _named_setting(between: str) -> bool:
    """Whether what stands between a password's word and digits is a setting's name, not a phrase
    of prose: joined by ``_``, ``.`` or ``-``, given by ``=`` or ``:``, or under three words."""
    return any(c in between for c in "_=:.") or len(between.split()) < 3


def _letters(text: str) -> int:
    """How many alphabetic (Latin, Greek, Cyrillic) letters ``text`` starts with."""
    count = 0
    while count < len(text) and text[count].isalpha() and text[count] < "\u0530":
        count += 1
    return count


def tokens_near(text: str, base: int, end: int) -> Iterator[re.Match[str]]:
    """The ``_TOKEN``s of ``text[:end]`` that start within 64 characters after ``base``, in order,
    each read whole, as a search from ``base`` finds them: looked for only there (a search to the
    line's end for each secret word of a long line without a token, "key: key: key: …", made such a
    line quadratic), each matched where it can start."""
    import re

    token = re.compile(_TOKEN)
    for start in re.compile(_TOKEN_START).finditer(text, base, min(end, base + 65)):
        found = token.match(text, start.start(), end)
        if found is not None:
            yield found


def _nearby(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A random token a few words after a secret word, unless the words before it say it is a hash,
    an id or a public key ("token id 3f2a…", "in commit 3f2a…", "public key: ssh-ed25519 AAAA…")."""
    import re

    text, base = match.string, match.end()
    if public_before(text, match.start()):
        return None
    # the line's end looked for only where a token may start: a token holds no line break, and
    # looked for to the line's end for each word of a long line, the line was read again for each
    line_end = text.find("\n", base, base + 65)
    for token in tokens_near(text, base, line_end if line_end >= 0 else len(text)):
        gap = text[base : token.start()].lower()
        if set(re.findall(r"[a-z0-9]+", gap)) & HASH_WORDS or "://" in gap:
            return None
        value = token.group()
        if re.fullmatch(r"[0-9a-fA-F]+", value) is not None:
            # hex: 32+ characters, and a SHA-1 or SHA-256 only right after the word ("api key: <40
            # hex>", not "deploy key added in <40 hex>")
            if len(value) < 32 or (len(value) in (40, 64) and re.search(r"[^\W\d_]", gap)):
                continue
        before = text[max(0, match.start() - 24) : match.start()].lower().split()[-1:]
        if high_entropy(value) or (
            _uuid_key(match.group(), value, gap) and not set(before) & _DATA_KEYS
        ):
            return token.span()
    return _punctuated(text, base)


def _punctuated(text: str, base: int) -> tuple[int, int] | None:
    """A random run of printable characters with symbols in it a few words after a secret word,
    after a separator ("OCI auth token for the registry: 8X(h>u2;Lq5e}Wm9"), which ``_TOKEN``
    does not read."""
    import re

    rest = text[base : base + 80].partition("\n")[0]
    for token in re.finditer(r"\S{16,}", rest):
        gap = rest[: token.start()]
        if not re.search(r"[:=：]\s*$|\sis\s+$", gap) or len(gap) > 64:
            continue
        if set(re.findall(r"[a-z0-9]+", gap.lower())) & HASH_WORDS:
            return None
        value = token.group().rstrip(_TRAILING) or token.group()
        if random_printable(value):
            return base + token.start(), base + token.start() + len(value)
    return None


# The keys of data, not of access: "idempotency key <uuid>", "partition key <uuid>".
_DATA_KEYS = frozenset(
    (
        "idempotency",
        "cache",
        "primary",
        "foreign",
        "partition",
        "sort",
        "routing",
        "composite",
        "unique",
        "lookup",
        "dedup",
        "dedupe",
        "deduplication",
        "correlation",
        "tracking",
        "row",
        "index",
        "shard",
        "object",
        "message",
        "event",
        "entity",
        "record",
        "natural",
        "surrogate",
        "join",
        "group",
    )
)


def _uuid_key(word: str, value: str, gap: str) -> bool:
    """A UUID a few words after a key's or a token's word ("the mailgun key for staging is <uuid>",
    "auth:token says <uuid>": Heroku's, Mailgun's and others' keys are UUIDs), unless a word between
    says it names something ("key for the job <uuid>", "token of customer <uuid>")."""
    import re

    from .values import id_name

    if " ".join(fold(word).split()) in _PASSWORDS or not re.fullmatch(
        r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", value
    ):
        return False
    gap_words = re.findall(r"[A-Za-z]+", gap)
    return not any(id_name(w) or w.lower() in _UUID_HOLDERS for w in gap_words)


# what a UUID names in prose beside a token's word ("token refresh for session <uuid>"); not
# parts of ids' names (SESSION_SECRET is a secret)
_UUID_HOLDERS = frozenset(("session", "device", "tenant", "workspace", "project", "org", "team"))


_PRODUCT = r"\d{1,4}[A-Z]?[a-z]+(?:[A-Z][a-z]+)*"
_EMAIL = r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+"
# Closing punctuation a value does not end with in prose.
_TRAILING = ".,;:)]}>\"'`”’»」』。，、"


def _password_nearby(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A password-shaped word (eight or more characters, three kinds, not a name) among the few
    words after a password word, whatever stands between them: a qualifier, a copula, a particle,
    in any order ("heslo k wifi je …", "รหัสผ่าน wifi คือ …", "رمز عبور وای‌فای … است")."""
    import re

    text, base = match.string, match.end()
    # 80 characters of the line, read as such (the rest of a long line copied for each password
    # word on it, then cut: 1 MiB of "heslo " 74 s, each word's check slower the longer the line;
    # review BP)
    rest = text[base : base + 80].partition("\n")[0]
    if inside_uri(text, match.start()):
        return None
    for number, token in enumerate(re.finditer(r"\S+", rest)):
        if number >= 6:
            break
        gap = rest[: token.start()].lower()
        if set(re.findall(r"[a-z0-9]+", gap)) & HASH_WORDS or "://" in gap:
            return None
        # value="…": the attribute's value
        value = re.sub(r"^[A-Za-z_]+=", "", token.group()).lstrip("\"'`(“‘«「『„‚‹")
        value = value.rstrip(_TRAILING) or value
        start = base + token.start() + token.group().find(value)
        if (
            not token.start()
            or re.fullmatch(_EMAIL, value)
            or is_reference(value)
            or "://" in value
        ):
            # glued to the word (password-reset-2024, <password>), an address, a reference
            continue
        if re.fullmatch(_PRODUCT, value):
            # a product's name: 1Password
            continue
        if credential_like(value, strict=True):
            return start, start + len(value)
        if token.group()[-1:] in ".!?。！？" and value[-1:] not in "!?":
            # the sentence ended
            return None
    return _spelled_out(text, base) or _password_before(match)


def _spelled_out(text: str, base: int) -> tuple[int, int] | None:
    """A password said letter by letter, then whole, further on in the sentence: "the password is
    capital M, a, p, l, e, then the number 7 7, then exclamation mark — so Maple77!". Only when
    the words before it are mostly spelled characters, and only a value of all four kinds."""
    import re

    from .words import classes

    rest = text[base : base + 240].partition("\n")[0]
    if sum(len(word.strip(",;")) == 1 for word in rest.split()) < 4:
        # first, without re: too few single characters in the whole view
        return None
    end = re.search(r"[.?。？](?:\s|$)", rest)
    rest = rest[: end.start()] if end else rest
    tokens = list(re.finditer(r"\S+", rest))
    singles = sum(len(t.group().strip(",;")) == 1 for t in tokens)
    if singles < 4:
        return None
    for token in tokens:
        value = token.group().strip("\"'`“”‘’«»,;:()")
        if len(value) >= 8 and classes(value) == 4 and credential_like(value, strict=True):
            if is_reference(value) or "://" in value or re.fullmatch(_EMAIL, value):
                continue
            start = base + token.start() + token.group().find(value)
            return start, start + len(value)
    return None


_VALUE_VERBS = frozenset(("use", "using", "enter", "type", "try", "with", "is", "was", "be"))


def _password_before(match: re.Match[str]) -> tuple[int, int] | None:
    """A password-shaped word among the few words before a password word, in the same clause ("use
    S3cr3t!x when gpg asks for the passphrase")."""
    import re

    text = match.string
    # 80 characters of the line before the word (its start looked for across the whole line, for
    # each password word on it; review BP)
    head = text[max(0, match.start() - 80) : match.start()].rpartition("\n")[2]
    base = match.start() - len(head)
    tokens = list(re.finditer(r"\S+", head))[-8:]
    for index in reversed(range(1, len(tokens))):
        token = tokens[index]
        if tokens[index - 1].group().lower() not in _VALUE_VERBS:
            # only a value that is used or given: "use S3cr3t!x when … the passphrase"
            continue
        if token.group()[-1:] in ".;!?。！？" and token.end() < len(head):
            break
        value = token.group().strip("\"'`()[]{}<>,;:")
        if set(re.findall(r"[a-z0-9]+", head[token.end() :].lower())) & HASH_WORDS:
            return None
        if re.fullmatch(_EMAIL, value) or is_reference(value) or "://" in value:
            continue
        if credential_like(value, strict=True) and not re.fullmatch(
            r"\d{1,4}[A-Z]?[a-z]+(?:[A-Z][a-z]+)*", value
        ):
            start = base + token.start() + token.group().find(value)
            return start, start + len(value)
    return None


RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    (
        "password",
        r"(?i:(?P<word>{words}))(?=(?P<rest>[^\n]{0,400}))",
        # the short forms a chat uses too ("wifi pw for the cabin: …", "old pw was …")
        PROSE_WORDS + ("pass", "pw", "pwd"),
        _prose,
        None,
    ),
    ("secret", r"(?i:{words})", PROSE_WORDS + KEY_WORDS, _nearby, None),
    (
        "password",
        r"(?i:(?P<word>{words}))(?=(?P<rest>[^\n]{0,400}))",
        KEY_CODE_WORDS,
        _qualified,
        # what the key opens first: "Exit code 2" compiles nothing
        lambda text: any(word in text.lower() for word in QUALIFIERS),
    ),
    ("password", r"(?i:{words})", PASSWORD_WORDS, _password_nearby, None),
]
