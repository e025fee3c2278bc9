"""Secrets said, not assigned, in the ways chats, notes and comments give them. Part of ``redact``;
its rules run among ``contexts``'s (``contexts.RULES`` holds them where they stood).

- the answers to security questions after their topics ("mother's maiden name "…", first pet
  "…"") near words that say they are answers;
- a secret spelled in the phonetic alphabet ("Tango Hotel Echo Seven Niner …") on a line that
  names a secret;
- a value said to be hidden by a trivial cipher ("ROT13'd so the scanner ignores it: …");
- a secret's later part ("second half: …", "part 2 of the key: …") after a secret's word or one
  already redacted;
- a passphrase said word for word ("the master password is literally purple monkey dishwasher
  42, yes with spaces");
- a key read out in groups, then what it is ("I538 D1JY C8GY IY13 — that's the licence
  activation secret");
- the answer, on a later line of a chat, to a question that asks for a secret ("can you send me
  the db pass?" then "sure, it's …");
- (round t12) an opening code's digits before what they open ("974826 — that's the alarm disarm
  code"), typed into it ("tape 9518B au digicode"), in Norwegian, Danish and Swedish ("koden til
  nøkkelboksen er …"); recovery and backup codes listed ("the backup codes are 4443-3853, 1428-3145
  and …"); a value spelled out a character at a time ("F 7 k ! m e r 9 Q z"); a Wi-Fi's key in the
  clause after its name ("the wifi is "Birchwood-Guest" and it's …"); a password given after a
  dash and "it is" in the sentence that names it ("… står ikke på ruteren lenger – det er …"); a
  passphrase's words, then a warning to keep them ("… är gul cykel springer över Vättern i maj –
  skriv inte ner det").
"""

from __future__ import annotations

from .lines import LINE_REACH, line_around
from .words import credential_like, high_entropy, is_reference, keyword_argument

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# words of a sentence that a passphrase's random words are unlikely to hold
SENTENCE_WORDS = frozenset(
    "of to in on at by is be it or as an if so we me my pick use using list like".split()
    + "der die das und ist ein eine le la les et un une de el los y es".split()
)


def _topic_answer(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A security question's topic and its quoted answer, within 300 characters after words that
    name security questions or answers: not "my favourite editor "vim"" in a chat."""
    text = match.string
    around = text[max(0, match.start() - 300) : match.start()].lower()
    cues = (
        *("security question", "secret question", "answers", "answer:", "recovery question"),
        *("sicherheitsfrage", "antwort", "question secrète", "réponse", "pregunta", "respuesta"),
    )
    if match.group("secret").lower().strip() in _TOPIC_NOUNS or is_reference(match.group("secret")):
        # a form's field: a first pet "name", a favourite "colour"
        return None
    return match.span("secret") if any(cue in around for cue in cues) else None


# what a text that gives security answers says (the rule's gate, before its pattern compiles)
_ANSWER_GATES = ("answer", "question", "frage", "antwort", "réponse", "pregunta", "respuesta")
_TOPIC_NOUNS = frozenset(
    ("name", "colour", "color", "answer", "value", "text", "city", "street", "school", "model")
)


# a letter's or a digit's word in the phonetic (NATO, ICAO) alphabet, digits in English and the
# radio's own (niner, tree, fife), "uno" as some say one
_PHONETIC = (
    r"(?:alpha|alfa|bravo|charlie|delta|echo|foxtrot|golf|hotel|india|juliett?|kilo|lima|mike"
    r"|november|oscar|papa|quebec|romeo|sierra|tango|uniform|victor|whiske?y|x-?ray|yankee|zulu"
    r"|zero|one|two|three|four|five|six|seven|eight|nine|niner|tree|fife|uno|capital|lower(?:case)?"
    r"|upper(?:case)?|dash|hyphen|underscore|dot|period|exclamation(?:[ \t]+mark)?|hash|at"
    # DIN 5009, German's spelling alphabet, and German digits
    r"|anton|berta|cäsar|dora|emil|friedrich|gustav|heinrich|ida|julius|kaufmann|ludwig|martha"
    r"|nordpol|otto|paula|quelle|richard|samuel|siegfried|theodor|ulrich|wilhelm|xanthippe"
    r"|ypsilon|zacharias|zeppelin|null|eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun)"
)


# the phonetic alphabet's letters, as ``_spelled_secret`` counts them
_LETTER_WORDS = (
    *("alpha", "alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"),
    *("juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra"),
    *("tango", "uniform", "victor", "whisk", "ray", "yankee", "zulu"),
    *("anton", "berta", "cäsar", "dora", "emil", "friedrich", "gustav", "heinrich", "ida"),
    *("julius", "kaufmann", "ludwig", "martha", "nordpol", "otto", "paula", "quelle", "richard"),
    *("samuel", "siegfried", "theodor", "ulrich", "wilhelm", "xanthippe", "ypsilon", "zacharias"),
)


def _spelled_secret(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Phonetic words on a line that names a secret (a password, a key, a PIN, a code, a token),
    at least three of them a letter's: a secret read out, not "one two three four five six"."""
    import re

    line = line_around(match.string, match.start(), match.end()).lower()
    letters = re.findall("|".join(_LETTER_WORDS), match.group().lower())
    secret = re.search(r"\b(?:pass\w*|pw|pin|key|code|secret|token|wi-?fi|wlan|spell\w*)\b", line)
    return match.span("secret") if len(letters) >= 3 and secret else None


# the words of the cipher rule below, a trivial cipher's or a reversal's, in a few languages
_REVERSED_CUES = (
    *("rot13", "rot-13", "rot47", "rot-47", "caesar", "reversed", "backwards", "in reverse"),
    *("right to left", "rückwärts", "von hinten", "l'envers", "l’envers", "al revés"),
    *("al contrario", "de trás para frente", "omgekeerd", "baklänges", "baglæns", "baklengs"),
)


def _ciphered(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A password-shaped value (its shape survives ROT13 and reversal) after a trivial cipher's
    name: not "rot13 of hello: uryyb"."""
    value = match.group("secret").rstrip(".,;)")
    if not credential_like(value, strict=True):
        return None
    return match.start("secret"), match.start("secret") + len(value)


def _numbered(text: str) -> bool:
    """Whether ``text`` may hold a part's number out of its count (``1/3``, ``[2 / 2]``): a digit,
    no letter, digit, ``/`` or ``.`` before it, then ``/`` and a digit of 2 to 9 that ends there,
    blanks allowed around the ``/``. The gate of the numbered-parts rule, so that a path with a
    digit before a slash (``/tmp/pytest-675/``, ``python3.11/``), which most errors and every
    hook's working directory hold, compiles nothing: a recording hook imports no ``re`` for it
    (tests/test_hooks.py)."""
    at = text.find("/")
    while at != -1:
        before = at - 1
        while before >= 0 and text[before] in " \t":
            before -= 1
        after = at + 1
        while after < len(text) and text[after] in " \t":
            after += 1
        if (
            before >= 0
            and text[before] in "123456789"
            and (before == 0 or not (text[before - 1].isalnum() or text[before - 1] in "_/."))
            and after < len(text)
            and text[after] in "23456789"
            and (
                after + 1 == len(text)
                or not (text[after + 1].isalnum() or text[after + 1] in "_/.")
            )
        ):
            return True
        at = text.find("/", at + 1)
    return False


def _second_part(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A random or password-shaped value given as a secret's later part, when the 400 characters
    before name a secret or hold one already redacted."""
    import re

    value = match.group("secret").rstrip(".,;)")
    if not (high_entropy(value) or credential_like(value, strict=True)):
        return None
    before = match.string[max(0, match.start() - 400) : match.start()].lower()
    if "[redacted:" not in before and not re.search(
        r"\b(?:token|key|secret|password|passphrase|pw|credential)s?\b", before
    ):
        return None
    return match.start("secret"), match.start("secret") + len(value)


def _verbatim(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """What follows "literally": a password-shaped value, or words with a digit among them or
    said to be words ("with spaces", "all lowercase") that hold no sentence's words."""
    import re

    from .values import _PROSE_WORDS

    value = match.group("secret").strip()
    if credential_like(value, strict=True) and " " not in value:
        return match.start("secret"), match.start("secret") + len(match.group("secret").rstrip())
    words = value.lower().split()
    # ``LINE_REACH`` characters of the line after it (the rest of the line read for each value of
    # a long line, 256 KiB of "password is literally horse battery, " 14 s, its square; review BP)
    after = match.string[match.end() : match.end() + LINE_REACH].partition("\n")[0].lower()
    hinted = any(c.isdigit() for c in value) or re.search(
        r"spaces|lower ?case|words|leerzeichen|kleinbuchstaben|wörter|espaces|minuscules|espacios"
        r"|minúsculas|palabras",
        after,
    )
    if len(words) < 2 or not hinted or set(words) & (_PROSE_WORDS | SENTENCE_WORDS):
        return None
    if any(w in ("characters", "chars", "long", "letters", "digits") for w in words):
        return None
    return match.start("secret"), match.start("secret") + len(match.group("secret").rstrip())


def _grouped_key(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Groups that read as a key's, not words: most of them hold a digit and a letter."""
    groups = match.group("secret").split()
    mixed = sum(any(c.isdigit() for c in g) and any(c.isalpha() for c in g) for g in groups)
    return match.span("secret") if mixed * 2 > len(groups) else None


def _asks(lowered: str) -> bool:
    """The cheap test before a chat's reply is looked for: a secret's word in the text (every word
    ``_asked_for`` needs one of)."""
    return any(w in lowered for w in _ASKED)


def _may_ask(text: str) -> bool:
    """The chat rules' gate: a secret's word (``_asks``) and a question or a request
    (``_requests``), both of which ``_asked_for`` needs, read on the text lowered once."""
    lowered = text.lower()
    return _asks(lowered) and _requests(lowered)


def _requests(lowered: str) -> bool:
    """The cheap test that a chat may ask for something (``_asked_for`` reads the question or the
    request itself): a question mark, or a word of ``_REQUEST``'s. A recording hook redacts every
    failure's text, and "KeyError: … (no key in the fixture)" holds a secret's word on a line of its
    own: without this, the pattern compiled (and ``re`` was imported) for every such error."""
    return "?" in lowered or any(word in lowered for word in _REQUEST_WORDS)


_REQUEST_WORDS = (
    *("can you", "could you", "pls", "please", "plz", "send", "give", "share", "dm", "need"),
    *("what", "kannst", "schick", "gib", "brauche", "hast du", "envoie", "passe", "donne"),
    *("tu peux", "pasas", "pásame", "pasame", "mándame", "manda"),
)


def _opens(lowered: str) -> bool:
    """The cheap test before an opening code's pattern compiles: a word of ``_OPENING_CODES``
    (a failure's "Exit code 2" names no such code)."""
    return any(word in lowered for word in _OPENING_WORDS)


_OPENING_WORDS = (
    *("kode", "koden", "kod ", "kodl"),
    *("unlock", "host", "participant", "conference", "meeting", "moderator", "attendee"),
    *("leader", "chair", "bridge", "dial", "pairing", "activation", "access", "entry", "lock"),
    *("phone", "laptop", "device", "sim", "admin", "master", "pin", "passcode", "entsperr"),
    *("zugangs", "freischalt", "geräte", "desbloque", "acces", "acesso", "accès", "verrouillage"),
    "sblocco",
)


# a secret's words as ``_asks`` looks for them, a few languages'
_ASKED = (
    *("pass", "pw", "pin", "token", "key", "secret", "cred", "login", "kennwort", "mot de passe"),
    *("contraseña", "senha", "hasło", "wachtwoord", "lösenord", "пароль", "mdp", "clave"),
    # a code's words, for its digits (``_asked_for_code``)
    *("code", "código", "codice", "kode", "код"),
)


def _asked_for(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A password-shaped value given on a line after one of the two lines before asks for a
    secret (a question with a password's, a PIN's, a token's or a key's word)."""
    import re

    value = match.group("secret").rstrip(".,;!)")
    if value.isdigit():
        # a PIN's or a code's digits, given when a question asked for a PIN or a code
        return _asked_for_code(match, value)
    if not credential_like(value, strict=True) or "/" in value or keyword_argument(value):
        # a path; code's arguments (`coord`=None, `dim`=None)
        return None
    if all(part.isalpha() for part in re.split(r"[-_.]", value) if part):
        # words joined, in any script (Configuración-Seguridad-Cuenta): a setting's place
        return None
    asked = _asking_lines(match)
    if not re.search(
        r"\b(?:pass(?:word|wd|phrase|code|wort)?s?|pw|pwd|pin|token|key|secret|creds?|credentials"
        r"|login|kennwort|mot[ \t]+de[ \t]+passe|contraseña|senha|hasło|wachtwoord|lösenord|пароль)"
        r"\b[^?\n]*\?",
        asked,
    ) and not re.search(_REQUEST, asked):
        # "what if `coord` is passed as `None`?": the verb asks for nothing
        return None
    return match.start("secret"), match.start("secret") + len(value)


def _asking_lines(match: re.Match[str]) -> str:
    """Where a reply's question may be, lower case: the two lines before the reply's, and its own
    line up to its last "?" ("Hast du das Passwort noch? — Ja, ist …")."""
    text, start = match.string, match.start()
    # ``LINE_REACH`` characters of each line (read whole, a long line of questions and replies was
    # read again for each reply on it; review BM)
    low = max(0, start - LINE_REACH)
    line_start = text.rfind("\n", low, start)
    own = text[line_start + 1 if line_start >= 0 else low : start].lower()
    asked = own[: own.rfind("?") + 1]
    if line_start >= 0:
        top = max(0, line_start - 2 * LINE_REACH)
        previous = text.rfind("\n", top, line_start)
        first = top if previous < 0 else text.rfind("\n", top, previous) + 1 or top
        asked = text[first:line_start].lower() + "\n" + asked
    return asked


def _asked_for_code(match: re.Match[str], value: str) -> tuple[int, int] | None:
    """Four to eight digits given after one of the two lines before asks for a PIN or a code that
    opens something ("can you confirm the 4-digit telephone PIN?" / "sure, it's 7351"; "what's
    the garage code again?" / "Ana: 5540"), not an error's, a zip's or a status's code."""
    import re

    if not 4 <= len(value) <= 8:
        return None
    question = re.search(_CODE_QUESTION, _asking_lines(match))
    if question is None or question.group("kind") in _NOT_OPENING:
        return None
    return match.start("secret"), match.start("secret") + len(value)


# a question that asks for a PIN or a code ("what's the garage code again?", "can you confirm the
# 4-digit telephone PIN?", "wie lautet der PIN?"), not about one ("how many PIN attempts are left?")
_CODE_QUESTION = (
    r"\b(?:what|what'?s|which|confirm|send|give|tell|share|need|remind|read|type|enter|wie|was"
    r"|welche[rn]?|cuál|cual|qué|que|quel|quelle|qual|какой|какая)\b[^?\n]{0,40}?"
    r"\b(?:(?P<kind>[\w\-]+)[ \t]+)?(?:pin|passcode|code|kode|código|codice|код)s?\b[^?\n]{0,40}\?"
)
# what a code is when it opens nothing: an error's, a zip's, a status's, a product's
_NOT_OPENING = frozenset(
    "error exit status zip postal post area country http response return promo discount coupon"
    " product source qr bar iso currency language tracking verification confirmation".split()
)


# a request for a secret with no question mark, as chats type it: "can you send me the jenkins
# pw", "pls share the db password", "schick mir mal das Passwort", "passe-moi le mot de passe"
_REQUEST = (
    r"(?m)\b(?:can[ \t]+you|could[ \t]+you|pls|please|plz|send|give|share|dm|need|what'?s"
    r"|kannst[ \t]+du|schick|gib|brauche|hast[ \t]+du|envoie|passe|donne|tu[ \t]+peux"
    r"|me[ \t]+pasas|pásame|pasame|mándame|manda)\b[^\n]{0,40}?\b(?:the[ \t]+|me[ \t]+|das[ \t]+"
    r"|le[ \t]+|la[ \t]+)?(?:[\w\-]+[ \t]+){0,3}?(?:pass(?:word|wd|phrase|code|wort)?|pw|pwd|pin"
    r"|token|creds?|credentials|login|kennwort|mot[ \t]+de[ \t]+passe|mdp|contraseña|clave|senha)"
    r"\b[^\n?]*$"
)


def _digits_or_words(text: str) -> bool:
    """A digit, or four digits' words (``_DIGIT_WORDS``), without ``re``."""
    if any(c.isdigit() for c in text):
        return True
    words = text.lower().replace(",", " ").replace("-", " ").split()
    return sum(word in _DIGIT_NAMES for word in words) >= 4


_DIGIT_NAMES = frozenset(
    "zero oh one two three four five six seven eight nine null eins zwei drei vier fünf sechs"
    " sieben acht neun zéro un deux trois quatre cinq sept huit neuf cero uno dos tres cuatro"
    " cinco seis siete ocho nueve due tre quattro cinque sei sette otto nove".split()
)


def _code_digits(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Four digits or more in all, or four digits' words: "PIN 13" of a board, "code 42" are no
    code."""
    secret = match.group("secret")
    digits = sum(c.isdigit() for c in secret) or len(
        secret.replace(",", " ").replace("-", " ").split()
    )
    return match.span("secret") if 4 <= digits <= 16 else None


# a code's digits read out one by one, set apart by blanks, dots, dashes or middle dots, four to
# sixteen of them ("8 · 3 · 0 · 5 · 1 · 9", "4 - 7 - 1 - 9", "2 5 8 0")
_DIGITS_APART = (
    r"\d(?:[ \t]{0,2}[·•.\-–][ \t]{0,2}\d|[ \t]\d){3,15}(?![ \t]{0,2}[·•.\-–]?[ \t]{0,2}\d)"
)


# ... or said in words, as a voice transcript writes them ("nine four four one zero", "vier acht
# eins fünf", "quatre deux sept un"): four to sixteen digits' words in English, German, French,
# Spanish, Italian
_DIGIT_WORD = (
    r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|null|eins|zwei|drei|vier|fünf"
    r"|sechs|sieben|acht|neun|zéro|un|deux|trois|quatre|cinq|sept|huit|neuf|cero|uno|dos|tres"
    r"|cuatro|cinco|seis|siete|ocho|nueve|due|tre|quattro|cinque|sei|sette|otto|nove)"
)
_DIGIT_WORDS = _DIGIT_WORD + r"(?:[ \t]{0,2}[,\-]?[ \t]{1,2}" + _DIGIT_WORD + r"){3,15}(?!\w)"


# one code of a list of recovery codes: letters and digits, a digit among them, in one group or
# two (4443-3853, 8261 3390, be259-23ba8)
_LISTED_CODE = (
    r"(?<![\w\-])(?=[\w\-]{0,10}\d)[A-Za-z0-9]{4,10}(?:-[A-Za-z0-9]{4,10}|[ ]\d{4,10})?(?![\w\-])"
)


# a code of a printed set: two groups of four to six letters and digits joined by "-"
_LINE_CODE = r"[A-Za-z0-9]{4,6}-[A-Za-z0-9]{4,6}"


def _code_lines(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Codes one a line: each with a letter and a digit, all of one case and one shape (the
    groups' lengths), as a service prints a set; not words joined or numbers (dates, parts)."""
    codes = match.group("secret").split()
    shapes = {tuple(len(group) for group in code.split("-")) for code in codes}
    if len(shapes) != 1 or not (
        all(code.lower() == code for code in codes) or all(code.upper() == code for code in codes)
    ):
        return None
    if not all(any(c.isdigit() for c in code) and any(c.isalpha() for c in code) for code in codes):
        return None
    return match.span("secret")


def _kept_words(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Words a passphrase is made of, not where a password is kept or what became of it: the
    first is no preposition, article, participle or negation ("stored in the vault", "sparat i
    Bitwarden", "im Tresor hinterlegt", "not set yet")."""
    words = match.group("secret").lower().split()
    if words[0] in _NOT_FIRST or any(w in _NOT_FIRST for w in words[1:2]):
        return None
    return match.span("secret")


# the first words of a sentence about a password, not of its words
_NOT_FIRST = frozenset(
    "in im i on at på the a an det den der die das le la el il stored saved kept sparat sparad"
    " sparade lagret lagra lagrad gespeichert hinterlegt stocké enregistré guardado guardada"
    " salvato not nicht inte ikke pas no non changed geändert ändrat endret expired abgelaufen"
    " set reset written shared same still now only also just in:".split()
)


def _network_key(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A password's shape (``credential_like``, strict), a full stop after it set aside (a
    network's key, a password said after "it is")."""
    value = match.group("secret").rstrip(".!")
    start = match.start("secret")
    return (start, start + len(value)) if credential_like(value, strict=True) else None


def _spelled_out(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Characters set apart that, joined, read as a password (``credential_like``, strict), a
    letter and a digit among them: not an equation's or a grid's single characters."""
    joined = match.group("secret").replace(" ", "")
    if not (any(c.isalpha() for c in joined) and any(c.isdigit() for c in joined)):
        return None
    return match.span("secret") if credential_like(joined, strict=True) else None


def _listed_codes(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Codes, not words: every one of them holds a digit."""
    import re

    codes = re.findall(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?", match.group("secret"))
    codes = [c for c in codes if c.lower() not in ("and", "und", "y", "et", "e", "en", "och", "og")]
    return match.span("secret") if all(any(ch.isdigit() for ch in c) for c in codes) else None


def _opening_named(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The words after the digits name what the code opens (``_opens_place``)."""
    return match.span("secret") if _opens_place(match.group("what").lower()) else None


def _names_code(lowered: str) -> bool:
    """The value-first rule's gate: a code's word and a word of what it opens."""
    return any(word in lowered for word in ("code", "combination", "combo", "kode", "kod ")) and (
        _opens_place(lowered)
    )


def _names_password(lowered: str) -> bool:
    """A password's word in a few languages (the gate of the rules that read a sentence about a
    password)."""
    return any(word in lowered for word in _PASSWORD_STEMS)


# what a code is typed into (a blank before a short word: " door" is not in "indoor")
_KEYPADS = (
    *("digicode", "keypad", "key pad", " panel", " door", " gate", "tastenfeld", "zahlenschloss"),
    *("tür", " tor ", "portero", " portal", "teclado", "tastiera", "citofono", "interphone"),
    *("interfono", "lockbox", "intercom", "clavier", "boîtier", "kodlås", "nøkkelboks", " alarm"),
    *(" safe", "tresor", "coffre", "caja fuerte"),
)
# the words of recovery and backup codes, as the list rule's pattern starts
_RECOVERY_WORDS = (
    *("recovery", "backup", "back-up", "scratch", "emergency", "2fa", "mfa"),
    *("wiederherstellungscode", "sicherungscode", "de secours", "récupération", "recuperation"),
    *("sauvegarde", "respaldo", "recuperaci", "recupera", "codici di", "herstelcode"),
    *("reservekode", "reservkod", "återställningskod", "gjenopprettingskode", "gendannelseskode"),
)
_PASSWORD_STEMS = (
    *("password", "passwort", "passwd", "passord", "lösenord", "wachtwoord", "kennwort", "pw"),
    *("salasana", "contraseña", "senha", "hasło", "heslo", "jelszó", "parola", "parool"),
    *("mot de passe", "passphrase", "adgangskode"),
)
_NETWORK_KEY_WORDS = (
    *("it's", "it is", "key", "schlüssel", "schluessel", "clé", "cle ", "clave", "chiave"),
    *("chave", "nyckel", "nøkkel", "nøgle", "sleutel"),
)


def _opens_place(lowered: str) -> bool:
    """A word of a thing a code opens or arms: a door, a gate, an alarm, a safe, a keypad."""
    return any(word in lowered for word in _PLACES)


_PLACES = (
    *("door", "gate", "alarm", "disarm", "safe", "keypad", "lockbox", "garage", "entry"),
    *("intercom", "buzzer", "digicode", "tür", "tor", "tresor", "porte", "puerta", "portón"),
    *("porta", "cancello", "allarme", "cassaforte", "coffre", "dør", "dörr", "port", "larm"),
    *("boks", "lås", "unlock", "lock", "access", "entsperr", "zugang"),
)


# what a code that opens something is called: a phone's or a laptop's unlock code, a conference
# call's host or participant code, a door's or a device's access code, German's compounds
_OPENING_CODES = (
    r"(?:(?:unlock|host|participant|conference|meeting|moderator|attendee|leader|chair|bridge"
    r"|dial-?in|pairing|activation|access|entry|lock[ \t-]?screen|screen[ \t-]?lock|phone"
    r"|laptop|device|sim|admin|master)[ \t-]?(?:code|pin|passcode)|pin|passcode"
    r"|[a-zäöü]*(?:entsperr|zugangs|freischalt|geräte)code"
    # Spanish, Portuguese, French, Italian: código de desbloqueo, code de déverrouillage…
    r"|c[óo]digo[ \t]+(?:de[ \t]+)?(?:desbloqueo|desbloqueio|acceso|acesso)"
    r"|code[ \t]+(?:de[ \t]+)?(?:déverrouillage|deverrouillage|d'accès|d'acces)"
    r"|codice[ \t]+(?:di[ \t]+)?(?:sblocco|accesso)"
    # Norwegian, Danish, Swedish: "koden til nøkkelboksen", "alarmkoden", "portkoden"
    r"|kod(?:en?|e)[ \t]+(?:til|till|for|för)[ \t]+[\wæøåäö]*(?:boks|boksen|lås|låset|dør|døra"
    r"|døren|dörr|dörren|port|porten|alarm|alarmen|larm|larmet|skap|skapet|safe|safen)"
    r"|[\wæøåäö]*(?:alarm|larm|port|dør|dörr|boks|lås)kod(?:en|e)?)"
)

# a security question's topic, before its answer (the quoted and the unquoted rules below)
_TOPICS = (
    r"(?:maiden[ \t]+name|first[ \t]+(?:pet|pet's[ \t]+name|car|school|teacher|job"
    r"|boss|concert|street)|pet'?s[ \t]+name|city[ \t]+of[ \t]+birth|birth[ \t]?place"
    r"|favou?rite[ \t]+[a-z]+|childhood[ \t]+[a-z]+|street[ \t]+you[ \t]+grew[ \t]+up[ \t]+on"
    # German, French, Spanish: Geburtsname der Mutter, erstes Haustier, nom de jeune fille…
    r"|geburtsname(?:[ \t]+der[ \t]+mutter)?|mädchenname(?:[ \t]+der[ \t]+mutter)?"
    r"|erste[sr]?[ \t]+(?:haustier|auto|schule)|nom[ \t]+de[ \t]+jeune[ \t]+fille"
    r"|premi(?:er|ère)[ \t]+(?:animal|voiture|école)|nombre[ \t]+de[ \t]+soltera"
    r"|primer[ao]?[ \t]+(?:mascota|coche|escuela))"
)
_TOPIC_WORDS = (
    ("maiden", "first ", "pet", "birth", "favorite", "favourite", "childhood", "grew up")
    + ("geburtsname", "mädchenname", "erste", "jeune fille", "premier", "première")
    + ("soltera", "primer")
)

# what a code opens, for the rules that read a door's code with no code's word ("Gate: #2580",
# "the lockbox opens with 0925"): not "port", "access", "lock" (Port: 5432, Tor's port)
_DOORS = (
    *("door", "gate", "lockbox", "keypad", "garage", "intercom", "buzzer", "digicode", "tür"),
    *("tresor", "porte", "puerta", "portón", "portail", "cancello", "cassaforte", "coffre", "dør"),
    *("dörr", "safe", "alarm", "schlüsselk", "nøkkelboks", "kodlås", "portão", "portone"),
)
# typographic quotes, which prose uses and code does not
_PROSE_QUOTES = "“„«「『‹"


def _names_door(lowered: str) -> bool:
    """The door rule's gate: a digit and a door's word (the text lowered once)."""
    return any(door in lowered for door in _DOORS) and any(d in lowered for d in "0123456789")


def _door_code(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Digits given to a door, a gate or a lockbox by a label's colon or by "opens with": the
    label's last word, or the words just before the verb, name it."""
    import re

    what = match.group("what") or match.string[max(0, match.start() - 60) : match.start()]
    if match.group("what"):
        # a door's name, and its last part says the value is the code: alarm_code, doorCode, gate;
        # not gate_timeout, door_count, alarm_delay (a door's settings), nor error_code
        last = re.split(r"[_\-]|(?<=[a-z])(?=[A-Z])", what)[-1].lower()
        if last in _CODE_PARTS and any(door in what.lower() for door in _DOORS):
            return match.span("secret")
        what = last
    lowered = what.lower()
    return match.span("secret") if any(door in lowered for door in _DOORS) else None


# the last part of a door code's name (alarm_code, GATE_PIN, doorCombo)
_CODE_PARTS = frozenset(("code", "pin", "combo", "combination", "passcode", "kod", "kode", "koden"))


def _prose_quoted(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A value in typographic quotes that reads as a made-up password: ASCII, two capitals, two
    small letters and two digits at least, no word's or name's shape ("iPhone15", "RTX4090",
    "config_v2.yaml" and "E_ACCESSDENIED" stay)."""
    from .words import version_string, wordish

    value = match.group("secret")
    counts = [sum(test(c) for c in value) for test in (str.isupper, str.islower, str.isdigit)]
    if not value.isascii() or min(counts) < 2 or "." in value:
        return None
    if wordish(value) or version_string(value) or is_reference(value):
        return None
    return match.span("secret") if credential_like(value, strict=True) else None


_MARKS = frozenset("!#*+?")


def _may_hold_four_kinds(text: str) -> bool:
    """``_four_kinds``' gate, without ``re``: one of a password's marks, then a word of eight to 64
    characters with one, a capital, a small letter and a digit."""
    if not any(mark in text for mark in _MARKS):
        return False
    return any(
        8 <= len(word) <= 64
        and not _MARKS.isdisjoint(word)
        and any(c.isupper() for c in word)
        and any(c.islower() for c in word)
        and any(c.isdigit() for c in word)
        for word in text.split()
    )


def _four_kinds(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A made-up password standing as a word in a sentence, whatever its language: all four kinds
    of character (a capital, a small letter, a digit, a mark), ASCII, no name's, path's, address's,
    version's or code's shape, on a line of three words or more ("SommkliOM3781* is what I set on
    the shared vault")."""
    from .words import version_string, wordish

    value = match.group("secret").rstrip("!?.")
    if label or len(value) < 8 or not value.isascii():
        return None
    marks = [c for c in value if not c.isalnum()]
    # a password's marks ("-" and "_" alone join an id's or a generated name's parts: ch_3Nx…,
    # gha-runner-…-3Itk5; ".", "/", "@", ":", "=", brackets and quotes are a path's, an
    # address's or code's)
    if not set(marks) & _MARKS or not set(marks) <= _MARKS | {"-", "_"}:
        return None
    kinds = (str.isupper, str.islower, str.isdigit)
    if not all(any(test(c) for c in value) for test in kinds):
        return None
    # words and numbers joined by marks ("PROJ-1234#comment-88") are a name, not a password
    joined = "".join("-" if c in marks else c for c in value)
    if wordish(joined) or version_string(value) or is_reference(value):
        return None
    line_start = match.string.rfind("\n", max(0, match.start() - 200), match.start()) + 1
    line = match.string[max(line_start, match.start() - 200) : match.end() + 200].split("\n", 1)[0]
    if sum(word.isalpha() for word in line.split()) < 3:
        return None
    start = match.start("secret")
    return (start, start + len(value)) if credential_like(value, strict=True) else None


SPOKEN: list[tuple[str, str, tuple[str, ...], object, object]] = [
    # a made-up password of all four kinds standing in a sentence, in any language
    (
        "password",
        # (each kind asked for within the word before the word is read: most words have none)
        r"(?<![^\s])(?=\S{0,63}?[A-Z])(?=\S{0,63}?[a-z])(?=\S{0,63}?\d)(?=\S{0,63}?[!#*+?])"
        r"(?P<secret>[A-Za-z0-9][^\s]{7,63}+)(?![^\s,;])",
        (),
        _four_kinds,
        _may_hold_four_kinds,
    ),
    # a door's code with no code's word: "Gate: #2580", "Building door: #4471", "the lockbox on
    # the railing opens with 0925", "das Tor geht mit 4412 auf"
    (
        "pin",
        r"(?i)(?:(?P<what>[^\W\d_][\w\-]{1,30})[\"']?[ \t]*(?::|(?<=code)=|(?<=pin)=)[ \t]*[\"']?#?"
        r"|\b(?:opens?|öffnet|geht|s['’]ouvre|se[ \t]+abre|si[ \t]+apre|åpnes|öppnas)[ \t]+"
        r"(?:with|mit|avec|con|med)[ \t]+(?:(?:the[ \t]+)?code[ \t]+)?#?)"
        r"(?P<secret>(?<![\w.])\d{4,8})(?![\w:/\-]|[.,]\d)",
        (),
        _door_code,
        lambda text: _names_door(text.lower()),
    ),
    # a made-up password in prose's own quotes, whatever the language around it says: "共有フォル
    # ダに入るときは「…」を入れてください", "einfach „…“ eintippen", "tape « … » et c'est bon"
    (
        "password",
        r"[“„«「『‹][ \t\u00a0]?(?P<secret>[^\s“”„«»「」『』‹›\"'`]{8,64})[ \t\u00a0]?[”“»」』›]",
        (),
        _prose_quoted,
        # the quotes are not ASCII: an ASCII text (most) is passed over without a look
        lambda text: not text.isascii() and any(quote in text for quote in _PROSE_QUOTES),
    ),
    # a password's word as the sentence's subject, then its value after a dash or a comma and
    # "it is" in the sentence's language: "wifi-passordet står ikke på ruteren lenger – det er …",
    # "the wifi password isn't on the router anymore - it's …", "das Passwort hat sich geändert,
    # es ist jetzt …"
    (
        "password",
        # (a compound's parts bounded: "\w*" before the word read a long word again from each of
        # its characters)
        r"(?i)(?:(?<!\w)\w{0,24}?(?:password|passwort|passwd|passord|lösenord|wachtwoord|kennwort"
        r"|salasana|contraseña|senha|hasło|heslo|jelszó|parola|parool)\w{0,24}|\bpw\b|\bpwd\b"
        r"|\bmot[ \t]+de[ \t]+passe)"
        r"[^\n.!?]{0,80}?(?:[–—,;]|[ \t]-)[ \t]*(?:it'?s|it[ \t]+is|det[ \t]+er|det[ \t]+är|es[ \t]+ist"
        r"|das[ \t]+ist|c'est|c’est|es|è|é|het[ \t]+is|to[ \t]+jest|je[ \t]+to)[ \t]+"
        r"(?:(?:now|jetzt|nu|nå|maintenant|ahora|agora|adesso|nun)[ \t]+)?[\"'“„]?"
        r"(?P<secret>[^\s\"'“”,;()]{8,64})",
        ("it's", "its", "it is", "det er", "det är", "es ist", "das ist", "c'est", "c’est", " es ")
        + (" è ", " é ", "het is", "to jest", "je to"),
        _network_key,
        lambda text: _names_password(text.lower()),
    ),
    # a passphrase's words, then a warning to keep them: "Lösenordet till krypterade disken är gul
    # cykel springer över Vättern i maj – skriv inte ner det", "the disk passphrase is purple otter
    # sings under the bridge - don't write it down" (not "is stored in the vault – don't …")
    (
        "password",
        r"(?i)\b(?:password|passphrase|passwort|kennwort|pass|pw|mot[ \t]+de[ \t]+passe|contraseña"
        r"|senha|lösenord(?:et)?|passord(?:et)?|adgangskode(?:n)?|wachtwoord|salasana|hasło)\b"
        r"[^\n]{0,40}?(?:\bis|\bwas|\bist|\best|\bes|\bär|\ber|\bon|\bjest|:)[ \t]+"
        r"(?P<secret>[^\W\d_]{1,40}(?:[ \t]+[^\W\d_]{1,40}){3,9})[ \t]*(?:[–—,(]|[ \t]-)[ \t]*"
        r"(?P<warn>(?:please[ \t]+|bitte[ \t]+)?(?:don'?t|do[ \t]+not|never|skriv[ \t]+inte|dela[ \t]+inte"
        r"|ikke|skriv[ \t]+ikke|del[ \t]+ikke|nicht|nirgends|niemals|ne[ \t]+l[’']|ne[ \t]+pas|no[ \t]+lo"
        r"|non[ \t]+l|nunca|nie))",
        ("don't", "dont", "do not", "never", "inte", "ikke", "nicht", "nirgends", "niemals", "ne l")
        + ("no lo", "non l", "nunca", "nie"),
        _kept_words,
        lambda text: _names_password(text.lower()),
    ),
    # a Wi-Fi's name, then its key as the sentence's next clause: "the wifi is "Birchwood-Guest"
    # and it's …", "das neue WLAN heißt "Lager-IoT", Schlüssel ist …" (a password's shape)
    (
        "password",
        r"(?i)\b(?:wi-?fi|wlan|ssid|wireless|netzwerk|réseau|red)\b[^\n,;]{0,80}?"
        r"(?:[\"'“„][^\"'“”\n]{1,40}[\"'”“]|(?<![^\s\"'“„])[^\s,;]{1,64}+)[ \t]*"
        r"(?:,|;|\band\b|\bund\b|\bet\b|\by\b|\be\b)[ \t]*"
        r"(?:(?:the|its|der|die|das|le|la|el|il|sein|son)[ \t]+)?(?:it'?s|it[ \t]+is"
        r"|(?:key|schlüssel|schluessel|clé|cle|clave|chiave|chave|nyckel|nøkkel|nøgle|sleutel)[ \t]*"
        r"(?:is|ist|lautet|est|c'est|es|è|é|er|är|:|=)?)[ \t]+[\"'“„]?"
        r"(?P<secret>[^\s\"'“”,;()]{8,64})",
        ("wifi", "wi-fi", "wlan", "ssid", "wireless", "netzwerk", "réseau", " red "),
        _network_key,
        lambda text: any(word in text.lower() for word in _NETWORK_KEY_WORDS),
    ),
    # a value spelled out one character at a time, so that autocorrect or a scanner leaves it:
    # "spell it out so autocorrect doesn't eat it: F 7 k ! m e r 9 Q z" (joined, a password's
    # shape: three kinds of character, a letter and a digit among them)
    (
        "password",
        r"(?<!\S)(?P<secret>(?:[\w!#$%&*+=?@^~] ){7,63}[\w!#$%&*+=?@^~])(?!\S)",
        (),
        _spelled_out,
        lambda text: text.count(" ") >= 7 and sum(len(w) == 1 for w in text.split(" ")) >= 8,
    ),
    # the digits first, then that they open something: "974826 — that's the alarm disarm code for
    # the office", "4471 is the door code", "40775, that's the safe combination" (a zip code, an
    # error code: no such word before "code")
    (
        "pin",
        r"(?i)(?<![\w.\-/:#])(?P<secret>\d{4,10}[#*]?|\d{3,8}[a-z]|"
        + _DIGITS_APART
        + r")(?![\w\-/:]|[.,]\d)[ \t]*"
        r"(?:[—–,:]|[ \t]-)?[ \t]*(?:that'?s|that[ \t]+is|this[ \t]+is|it'?s|is|das[ \t]+ist|ist"
        r"|c'est|es|è|er|är)[ \t]+(?:the|our|my|der|die|das|le|la|el|il|den|det)?"
        r"(?P<what>(?:[ \t]+[\w\-']+){0,3}?[ \t]+[\w\-]*(?:code|combination|combo|kode|koden|kod|pin))\b",
        ("that's", "thats", "that is", "this is", "it's", " is ", "das ist", " ist ", "c'est")
        + (" es ", " è ", " er ", " är "),
        _opening_named,
        lambda text: any(c.isdigit() for c in text) and _names_code(text.lower()),
    ),
    # typed into what opens: "tape 9518B au digicode", "punch 6394# into the keypad", "Gib 6564 am
    # Tastenfeld ein", "marca 5431 en el portero"
    (
        "pin",
        r"(?i)\b(?:tape[sz]?|tapez|compose[sz]?|entre[sz]?|saisis|type|enter|punch(?:[ \t]+in)?"
        r"|key[ \t]+in|dial|gib|tipp(?:e|en)?|drück|marca|teclea|introduce|digita|inserisci|skriv"
        r"|tast)[ \t]+(?P<secret>\d{3,10}[#*]?|\d{3,8}[a-z])(?![\w\-/:])[ \t]+(?:au|on|at|into|in|am"
        r"|an|auf|en|no|na|sul|nel|på|i|p[åa])[ \t]+(?:the[ \t]+|le[ \t]+|la[ \t]+|l'|dem[ \t]+|der[ \t]+"
        r"|el[ \t]+|o[ \t]+|a[ \t]+|il[ \t]+)?(?:[\w\-]+[ \t]+){0,2}?(?:"
        + "|".join(word.strip() for word in _KEYPADS)
        + r")",
        _KEYPADS,
        _code_digits,
        lambda text: any(c.isdigit() for c in text),
    ),
    # codes one a line, three or more of one shape, whatever the words above them say, in any
    # language ("メモ：GitHub のリカバリーコード" then s2oy1-3qyof, 2ayue-zn0ha, …): a printed set
    # of recovery codes is its own cue
    (
        "secret",
        r"(?m)^[ \t]*+(?P<secret>"
        + _LINE_CODE
        + r"(?:[ \t]*+\r?\n[ \t]*+"
        + _LINE_CODE
        + r"){2,15})"
        r"[ \t]*+$",
        (),
        _code_lines,
        lambda text: text.count("-") >= 3 and text.count("\n") >= 2,
    ),
    # recovery and backup codes, listed: "the backup codes for the Proton account are 4443-3853,
    # 1428-3145 and 9080-0327", "Wiederherstellungscodes: 3054-9425 und 8442-6660" (the list whole)
    (
        "secret",
        r"(?i)(?:\b(?:recovery|backup|back-up|scratch|emergency|2fa|mfa)[ \t-]+codes?"
        r"|wiederherstellungscodes?|backup-codes?|sicherungscodes?"
        r"|codes?[ \t]+de[ \t]+(?:secours|récupération|recuperation|sauvegarde)"
        r"|c[óo]digos?[ \t]+de[ \t]+(?:respaldo|recuperaci[óo]n|recupera[çc][ãa]o|backup|seguran[çc]a)"
        r"|codici[ \t]+di[ \t]+(?:backup|recupero)|herstelcodes?"
        # the Nordic words with their endings (gjenopprettingskodene, återställningskoderna)
        r"|(?:reservekode|reservkod|återställningskod|gjenopprettingskode|gendannelseskode)\w{0,5})"
        r"\b[^\n:]{0,60}?(?:\bare\b|\bis\b|\bsind\b"
        r"|\bson\b|\bsont\b|\bsono\b|\bzijn\b|\bsão\b|\ber\b|\bär\b|:|=)[ \t]*(?:\r?\n[ \t]*)?"
        # side by side or one a line
        r"(?P<secret>" + _LISTED_CODE + r"(?:[ \t]*(?:,|;|\band\b|\bund\b|\by\b|\bet\b|\be\b"
        r"|\ben\b|\boch\b|\bog\b)?[ \t]*(?:\r?\n[ \t]*)?" + _LISTED_CODE + r"){0,15})",
        _RECOVERY_WORDS,
        _listed_codes,
        lambda text: any(c.isdigit() for c in text),
    ),
    # a code that opens something, then its digits, grouped or not, as said or typed: "the
    # conference PIN is 604 118 327", "host code is 5521", "laptop unlock code: 880214",
    # "Entsperrcode vom Diensthandy: 739104" (error, exit, status, zip and area codes are no
    # such code: their word is not one of these)
    (
        "pin",
        r"(?i)\b"
        + _OPENING_CODES
        + r"\b(?:[ \t]+(?:for|of|on|to|vom|von|für|des|du|de|del|da|på|til|till)[ \t]+[\w\-' ]{1,30}?)?"
        r"[ \t]*(?:\bis|\bwas|\bist|\best|\bes|é|\ber|\bär|:|=|-)?[ \t]*(?:now[ \t]+|jetzt[ \t]+)?"
        r"(?P<secret>(?<![\w.])(?:"
        + _DIGITS_APART
        + r"|\d{2,8}(?:[ \t.\-]\d{2,6}){0,4}|"
        + _DIGIT_WORDS
        + r"))(?![\w\-/:]|[.,]\d)",
        ("code", "pin", "passcode", "código", "codigo", "codice", "kode", "koden", "kod"),
        _code_digits,
        lambda text: _opens(text.lower()) and _digits_or_words(text),
    ),
    # the answers to security questions, each after its question's topic, quoted, on a line that
    # says they are ("Security question answers: mother's maiden name "Kowalczyk", first pet
    # "Pepper""); here and below, blanks read once (split every way around the mark, 64 KB after
    # a topic took 80 s; review AQ)
    (
        "password",
        r"(?i)\b"
        + _TOPICS
        + r"[ \t]*+(?:[:=][ \t]*+)?(?P<q>[\"'“])(?P<secret>[^\"'”\n]{2,64})[\"'”]",
        _TOPIC_WORDS,
        _topic_answer,
        lambda text: any(cue in text.lower() for cue in _ANSWER_GATES),
    ),
    # … or unquoted, a name's capitalised words up to a comma, a full stop or the line's end
    # ("mother's maiden name Krüger-Wendt, first pet Pfeffer.")
    (
        "password",
        r"(?im)\b" + _TOPICS + r"(?:[ \t]*+[:=])?[ \t]++"
        r"(?P<secret>(?-i:[A-ZÀ-Þ][\w'’\-]{1,30}(?:[ \t][A-ZÀ-Þ][\w'’\-]{1,30}){0,2}))"
        r"(?=[ \t]*(?:[,;.]|$))",
        _TOPIC_WORDS,
        _topic_answer,
        lambda text: any(cue in text.lower() for cue in _ANSWER_GATES),
    ),
    # a secret spelled in the phonetic alphabet, six words or more, on a line that names a
    # secret ("The Wi-Fi key spelled out: Tango Hotel Echo Seven Niner Bravo Lima Uno")
    (
        "password",
        r"(?i)(?<![\w\-])(?P<secret>"
        + _PHONETIC
        + r"(?:(?:[ \t]*+[,;\-])?[ \t]++"
        + _PHONETIC
        + r"){5,})"
        r"(?![\w\-])",
        ("alpha", "alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
        + ("india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec")
        + ("romeo", "sierra", "tango", "uniform", "victor", "whiskey", "whisky", "x-ray")
        + ("xray", "yankee", "zulu", "anton", "berta", "dora", "emil", "friedrich", "gustav")
        + ("heinrich", "julius", "ludwig", "martha", "nordpol", "paula", "siegfried", "theodor"),
        _spelled_secret,
        # three of its words at least: "echo" alone is in every other shell command
        lambda text: sum(word in text.lower() for word in _LETTER_WORDS) >= 3,
    ),
    # a value said to be hidden by a trivial cipher, after the colon or the arrow that follows:
    # "ROT13'd so the scanner ignores it: Snypba-Crccre-6672!", "caesar shift 3: …", "reversed: …",
    # "written backwards so … → …", "typed in reverse -> …", "rückwärts: …", "al revés -> …"
    (
        "password",
        r"(?i)(?<!\w)(?:rot-?13|rot-?47|caesar|reversed|backwards|in[ \t]+reverse|right[ \t]+to[ \t]+left"
        r"|rückwärts|von[ \t]+hinten|à[ \t]+l['’]envers|al[ \t]+revés|al[ \t]+contrario"
        r"|de[ \t]+trás[ \t]+para[ \t]+frente|omgekeerd|baklänges|baglæns|baklengs)(?!\w)"
        # or the parenthesis that holds the cue closes: "(written backwards, reverse it) …"
        r"[^\n:→]{0,80}?(?::|→|->|=>|⇒|\)(?=[ \t]))[ \t]*[\"'`]?(?P<secret>[^\s\"'`]{8,128})",
        _REVERSED_CUES,
        _ciphered,
        None,
    ),
    # a secret's parts numbered out of their count, one a line or side by side: "1/3 ghp_…",
    # "2/3 …", "[2/2] …", "Teil 2/2: …" (each judged as a later part is; the blanks after the count
    # read once: split between two runs, 64 KB of them before a short word took about a minute)
    (
        "secret",
        r"(?<![\w/.])[\[(]?[1-9][ \t]*/[ \t]*[2-9][\])]?(?![\w/.])[ \t]*+(?:[:.)][ \t]++|(?<=[ \t]))"
        r"[\"'`]?"
        r"(?P<secret>[^\s\"'`]{6,128})",
        (),
        _second_part,
        _numbered,
    ),
    # a secret's second part, sent after its first: "first half of the token: ghp_…" then
    # "second half: rLAKCdZJ58FN0qJBGx", "part 2 of the key: …", "the rest: …"
    (
        "secret",
        r"(?i)\b(?:(?:second|other|last|2nd)[ \t]+(?:half|part)|part[ \t]*(?:2|two|ii)\b|the[ \t]+rest"
        r"|rest[ \t]+of[ \t]+(?:it|the[ \t]+\w+))[^\n:]{0,40}:[ \t]*[\"'`]?(?P<secret>[^\s\"'`]{6,128})",
        ("half", "part", "rest"),
        _second_part,
        lambda text: ":" in text,
    ),
    # a passphrase said word for word after "literally", "exactly", "verbatim": "the master
    # password is literally purple monkey dishwasher 42, yes with spaces"
    (
        "password",
        r"(?i)\b(?:password|passphrase|passwort|kennwort|pass|pw|pwd|mot[ \t]+de[ \t]+passe|contraseña"
        r"|senha)\b[^\n]{0,40}?(?:\bis|\bwas|\bist|\bwar|\best|\bes|\bera|[:=])[ \t]+"
        r"(?:literally|exactly|verbatim|word[ \t]+for[ \t]+word|wörtlich|buchstäblich|genau"
        r"|littéralement|exactement|literalmente|exactamente|letteralmente)[ \t]*:?[ \t]+[\"'`]?"
        r"(?P<secret>[^\n,.;\"'`()]{4,80}?)[\"'`]?(?=[ \t]*(?:[,.;(—]|$))",
        ("literally", "exactly", "verbatim", "word for word", "wörtlich", "buchstäblich", "genau")
        + ("littéralement", "exactement", "literalmente", "exactamente", "letteralmente"),
        _verbatim,
        None,
    ),
    # a key read out in groups, then what it is: "I538 D1JY C8GY IY13 — that's the licence
    # activation secret for the build server"
    (
        "secret",
        r"(?i)(?<![\w\-])(?P<secret>[a-z0-9]{4,6}(?:[ \t][a-z0-9]{4,6}){2,7})[ \t]*(?:[—–,:]|[ \t]-)"
        r"[ \t]*(?:that'?s|that[ \t]+is|this[ \t]+is|it'?s|which[ \t]+is|esa?[ \t]+es|eso[ \t]+es"
        r"|das[ \t]+ist|c'est|ce[ \t]+sont|questa[ \t]+è|questo[ \t]+è)[ \t]+"
        r"(?:the|my|our|your|la|el|der|die|das|le|mein|meine|mi|ma|mon)?"
        r"(?:[ \t]+[\w\-]+){0,4}?[ \t]+(?:secret|key|password|passphrase|code|licen[cs]e|token|clave"
        r"|schlüssel|lizenz\w*|passwort|clé|licencia|contraseña|código|chiave|licenza)\b",
        ("that's", "thats", "that is", "this is", "it's", "which is", "esa es", "es es", "eso es")
        + ("das ist", "c'est", "ce sont", "questa è", "questo è"),
        _grouped_key,
        lambda text: any(c.isdigit() for c in text),
    ),
    # the answer to a question that asks for a secret, on a later line of a chat: "can you send
    # me the db pass?" then "sure, it's DragoxbgVC7810% but change it after the migration". The
    # blanks read once (split every way around the colon, 64 KB after "it's" took 76 s; review AQ)
    (
        "password",
        r"(?i)(?:\bit'?s|\bit[ \t]+is|\bhere(?:[ \t]+it[ \t]+is|[ \t]+you[ \t]+go)?|\bsure|\bes[ \t]+ist"
        r"|\bdas[ \t]+ist|\bklar|\bhier|\bc'est|\bvoil[àa]|\bvoici|\boui|\bclaro|\baqu[íi]|\bs[íi]"
        r"|\bja,?[ \t]+(?:ist|es[ \t]+ist)|\byes,?[ \t]+it'?s|\bsí,?[ \t]+es)"
        r"(?:[ \t]*+[:,])?[ \t]++[\"'`]?(?P<secret>[^\s\"'`]{8,64}|\d{4,8}(?![^\s.,;!)]))",
        ("it's", "its", "it is", "here", "sure", "es ist", "das ist", "klar", "hier", "c'est", "ja")
        + ("voilà", "voila", "voici", "oui", "claro", "aquí", "aqui", "sí"),
        _asked_for,
        lambda text: ("?" in text or "\n" in text) and _may_ask(text),
    ),
    # … or the reply is the value itself, after the chat's time and name ("[08:15] ria: <value>
    # — don't paste it in the channel", "> <value>")
    (
        "password",
        # the speaker as chats and IRC logs write them: "ria:", "<ria>"
        r"(?m)^(?:\[[^\]\n]{1,20}\][ \t]*)?(?:[\w.@\-]{1,24}:[ \t]+|<[\w.@\-]{1,24}>[ \t]+)?"
        r"(?:>[ \t]*)?[\"'`]?"
        r"(?P<secret>[^\s\"'`]{8,64}|\d{4,8}[.!]?)[\"'`]?(?=[ \t]|$)",
        (),
        _asked_for,
        lambda text: "\n" in text and _may_ask(text),
    ),
]
