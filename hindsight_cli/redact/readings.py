"""Another reading of a text, for secrets written to be read past the rules. Part of ``redact``.

A secret hidden from a scanner is still read as a secret by a person or a model: a name with a
zero-width character in it (``DB_PASSWORD\\u200b=…``), look-alike letters (``pаssword`` with a
Cyrillic ``а``), HTML entities (``&#112;assword=``), a percent-encoded query (``password%3D…``),
JSON escaped once more (``{\\"password\\":\\"…\\"}``), a line continuation (``SECRET_KEY=\\`` then the
value), letters spaced out (``P A S S W O R D : …``), compatibility forms (``ＴＯＫＥＮ＝…``), ``\\u``
and ``\\x`` escapes (``\\u0070assword``), a secret's word in leet or with its letters set apart
(``p@ssw0rd``, ``pa$$word``, ``p_a_s_s_w_o_r_d``, ``P*A*S*S*W*O*R*D``, ``Pass Word``), a string
cut in two and joined in any language's way (``+``, ``&``, ``.``, ``..``, ``||``, side by side,
``concat!(…)``, ``.append(…)``) and put in parentheses (``API_SECRET = ("…" "…")``) or spelled
one character at a time, letters or digits set apart by blanks, ``/``, ``|`` or commas, base64
(once or twice) or hex of a secret's assignment, a value
handed to a decoder (``$(echo … | base64 -d)``, ``atob("…")``), percent-encoding twice or of every
byte, a string's ``b``/``r`` prefix, bash's ``$'…'``, and a Markdown table row that gives a
variable its value (``| DB_PASS | … |``).
``reading`` undoes all of them at once; the engine runs the rules on that reading too and keeps it
when it shows more secrets. Each step runs only when the text holds what it undoes, so an ordinary
text costs a few ``in`` tests.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# Format characters that change nothing a reader sees: zero-width, soft hyphen, bidi controls.
_INVISIBLE = dict.fromkeys(
    map(
        ord,
        "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
        "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
    )
)
# Cyrillic and Greek letters drawn like Latin ones, read as those inside a word that mixes them
# with Latin letters (a Russian or Greek word is left as it is).
_LOOKALIKES = str.maketrans(
    "аеорсухіјѕԁһԛԝАВЕКМНОРСТХЅІЈοαειµνρτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdhqwABEKMHOPCTXSIJoaeiuvptuxABEZHIKMNOPTYX",
)


def cut_by_invisible(redacted: str) -> bool:
    """Whether a redacted text holds a marker joined to more of a token by an invisible character
    (``xoxb-…\u200b-…-lG8L…\u200b4XA4…`` came out as two markers and a tail): the token was cut,
    not two secrets found, and what follows the cut is its rest."""
    if "[REDACTED:" not in redacted or redacted.isascii():
        return False
    import re

    invisible = "".join(map(chr, _INVISIBLE))
    return (
        re.search(rf"(?:\][{invisible}]+[\w\-\[]|[\w\-][{invisible}]+\[REDACTED:)", redacted)
        is not None
    )


def reading(text: str) -> str:
    """``text`` with every trick above undone (itself when it holds none)."""
    if not text.isascii():
        import unicodedata

        text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
        text = " ".join(_fold_word(word) for word in text.split(" "))
    if "&" in text and ";" in text:
        import html

        text = html.unescape(text)
    for _ in range(2):
        # percent-encoded once, or twice (``%253D`` is ``%3D`` encoded again), or every byte of a
        # value (``%53%61%74…``)
        if "%" in text and (
            any(code in text.lower() for code in _PERCENT_CODES)
            or any("%%%%" in text[i::3] for i in range(3))
        ):
            import urllib.parse

            text = urllib.parse.unquote(text)
    if '\\"' in text:
        # JSON escaped once (``\\"``) or more (``\\\\\\"``)
        import re

        text = re.sub(r'\\+"', '"', text)
    if "\\\n" in text:
        text = text.replace("\\\r\n", "").replace("\\\n", "")
    for sep, least in _APART:
        # letters set apart: "T i g e r 9 !", "Z/k/3/q/P", "Q . u . a"; by dots, dashes or
        # underscores only a long run (A.K.I.A.E.C.C.K…, g-h-p-_-…, x_o_x_b_-_…), not an acronym
        # or a version (U.S.A., 1.2.3), each part any one character but the separator
        if text.count(sep) >= least and sum(len(word) == 1 for word in text.split(sep)) >= least:
            import re

            one = _ONE if least < 12 else rf"[^\s{re.escape(sep)}]"
            text = re.sub(
                rf"(?<![^\s:=\"'])(?:{one}{re.escape(sep)}){{{least - 1},}}{one}(?![^\s,;\"'])",
                lambda m, sep=sep: m.group().replace(sep, ""),  # type: ignore[misc]
                text,
            )
    if (
        text.count(" ") >= 3
        and any(prefix in text for prefix in _TOKEN_PREFIXES)
        and any(w.startswith(_TOKEN_PREFIXES) for w in text.split())
    ):
        # a token read out in groups: "ghp_1eBKOP SjPqh6 3ZHbex …", "AKIA IOSF ODNN …"
        import re

        grouped = (
            r"(?<![\w\-])(?:"
            + "|".join(re.escape(p) for p in _TOKEN_PREFIXES)
            + r")[A-Za-z0-9_\-.]{0,12}(?: [A-Za-z0-9_\-]{3,8}){3,}(?![\w\-])"
        )
        text = re.sub(grouped, lambda m: m.group().replace(" ", ""), text)
    from hindsight_cli.redact import transforms

    return _disguised(transforms.undone(text))


# Token formats' own prefixes, before groups of a token's characters set apart by blanks
_TOKEN_PREFIXES = (
    *("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "glptt-", "sk-", "sk_live_"),
    *("rk_live_", "sk_test_", "xoxb-", "xoxp-", "xoxa-", "xoxe", "xapp-", "AKIA", "ASIA", "npm_"),
    *("pypi-", "hf_", "dop_v1_", "shpat_", "shpss_", "SG.", "AIza", "glsa_", "dapi", "sntrys_"),
)


# separators of characters set apart, and how many single characters make a run
_APART = ((" ", 4), ("/", 4), ("|", 4), (", ", 4), (" . ", 4), (".", 12), ("-", 12), ("_", 12))
# one character of a value set apart: a letter, a digit or a password's symbol
_ONE = r"[\w!#$%&*+=?@^~]"
_PERCENT_CODES = ("%3d", "%3a", "%26", "%22", "%253d", "%253a", "%2526", "%2522")


def _disguised(text: str) -> str:
    """The steps for escapes, leet words, cut strings and base64 (see the module docstring); ``re``
    only for a text that holds what one of them undoes."""
    low = text.lower()
    steps = (
        ("\\u" in text or "\\x" in text, _ESCAPE, _escaped),
        # a string's prefix in Python and others: SECRET = b"…", key = r'…'
        (any(m in text for m in _PREFIXED), r"([=:(,][ \t]*)[bBrRuUfF]{1,2}(?=[\"'])", r"\1"),
        # bash's $'…' quoting, whose escapes the step before read
        ("$'" in text, r"\$'", "'"),
        # a string spelled one character at a time: ['T','i','g',…] or "T","i","g"
        (text.count("',") + text.count('",') >= 5, _CHARS, _chars),
        # and the array they were listed in, given to a name: char[] PASS = {'L', 'o', …},
        # charArrayOf('T', …), char pw[] = {'W', …, '\0'}
        (text.count("',") + text.count('",') >= 5, _CHAR_ARRAY, r"\1\2"),
        (any(mark in low for mark in _LEET_MARKS), _LEET_WORD, _word),
        (any(mark in text for mark in _CUT_MARKS), _CUT, ""),
        # a string in parentheses, as Python wraps a long one: API_SECRET = ("…" "…"), joined by
        # the step before, read as API_SECRET = "…"
        (any(mark in text for mark in ("= (", "=(", ": (")), _GROUPED, r"\1\2"),
        ("concat" in low, _CONCAT, _concat),
        # a list of strings joined with nothing between them, over lines too: "".join([…]),
        # [….].join(""), implode('', […]), strings.Join([]string{…}, "")
        (any(mark in text for mark in _JOIN_MARKS), _JOIN, _joined),
        # a Markdown table's cells in code spans: | `DB_PASS` | `…` |
        ("| `" in text, r"(\|[ \t]*)`([^`|\n]+)`(?=[ \t]*\|)", r"\1\2"),
        # and a row that gives a variable its value: | DB_PASS | … |, read as DB_PASS=…
        (text.count("|") >= 3, _TABLE_ROW, r"\1\2=\3 "),
        (any(f"pass {w}" in low for w in ("word", "phrase", "code")), _SPLIT_WORD, r"\1\2"),
        ("base64" in low or "atob(" in text, _DECODE_CALL, _decode_call),
        # ([Text.Encoding]::UTF8.GetString("…")) around what the step before decoded
        ("GetString(" in text, _GET_STRING, r"\1"),
        ("hex" in low or any(mark in low for mark in _HEX_MARKS), _HEX, _unhexed),
        (any(mark in text for mark in _BASE64_MARKS), r"[A-Za-z0-9+/]{16,}={0,2}", _decoded),
    )
    for wanted, pattern, replace in steps:
        if wanted:
            import re

            text = re.sub(pattern, replace, text)
    return text


_PREFIXED: tuple[str, ...] = (
    '= b"',
    "= b'",
    '=b"',
    "=b'",
    '= r"',
    "= r'",
    '= br"',
    "= rb'",
    '(b"',
    "(b'",
)
_PREFIXED += ('= f"', "= f'", '=f"', "=f'")
_ESCAPE = r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})"
_LEET_WORD = r"(?i)(?<![\w@$])[a-z@$0-9](?:[._*\-]?[a-z@$0-9|!]){3,16}(?![\w@$])"
# "abc…" + "def…" and the other languages' joins (``&``, ``.``, ``..``, ``||``), over a line
# break too; two literals side by side (Python, C) with a space or a line break between them
_CUT = (
    r"([\"'])(?:[ \t]*(?:\+|&|\.\.?|\|\||\)\.(?:append|concat)\()[ \t]*"
    r"(?:\r?\n[ \t]*)?"
    r"|[ \t]*\r?\n[ \t]*|[ \t]+)\1(?=[^\s\"',;)\]}])"
)
_GROUPED = r"([=:][ \t]*)\(\s*+(\"[^\"\n]*+\"|'[^'\n]*+')\s*+\)"
# concat!("abc…", "def…") (Rust), CONCAT('abc…', 'def…') (SQL), concat("…", "…")
_CONCAT = r"(?i)\bconcat!?\([ \t]*((?:([\"'])[^\"'\n]*\2[ \t]*,[ \t]*)+([\"'])[^\"'\n]*\3)[ \t]*\)"


def _concat(match: re.Match[str]) -> str:
    """A concatenation's strings, as the one string they make (quoted)."""
    import re

    return '"' + "".join(re.findall(r"[\"']([^\"'\n]*)[\"']", match.group(1))) + '"'


_LITERALS = r"(?:\"[^\"\n]*+\"|'[^'\n]*+')(?:\s*+,\s*+(?:\"[^\"\n]*+\"|'[^'\n]*+')){1,63}\s*+,?\s*+"
_JOIN = (
    rf"(?:(?P<q1>[\"'])(?P=q1)\.join\(\s*+[\[(]\s*+{_LITERALS}[\])]\s*+\)"
    rf"|\[\s*+{_LITERALS}\]\.join\(\s*+(?P<q2>[\"'])(?P=q2)\s*+\)"
    rf"|\bimplode\(\s*+(?P<q3>[\"'])(?P=q3)\s*+,\s*+(?:\[|array\()\s*+{_LITERALS}[\])]\s*+\)"
    rf"|\bstrings\.Join\(\s*+\[\]string\{{\s*+{_LITERALS}\}}\s*+,\s*+(?P<q4>[\"'`])(?P=q4)\s*+\))"
)
_JOIN_MARKS = ('"".join(', "''.join(", '].join("")', "].join('')", "implode(", "strings.Join(")


def _joined(match: re.Match[str]) -> str:
    """A join's strings, as the one string they make (quoted)."""
    import re

    return '"' + "".join(re.findall(r"[\"']([^\"'\n]*)[\"']", match.group())) + '"'


_TABLE_ROW = r"(?m)(^[ \t]*\|[ \t]*)([A-Z][A-Z0-9_]*[A-Z0-9])[ \t]*\|[ \t]*([^\s|`]+)[ \t]*(?=\|)"
# "Pass Word", "pass phrase"
_SPLIT_WORD = r"(?i)\b(pass) (word|phrase|code)\b"
_HEX = r"\b(?:0x)?(?:[0-9a-fA-F]{2}){8,}\b"
_CUT_MARKS: tuple[str, ...] = ('").append("', '").concat("', '" +', "' +", '"+', "'+", '" &')
_CUT_MARKS += ("' .", '" .', "' ||", '"\n', "'\n", '" "', "' '")
# a value handed to a decoder: ``$(echo … | base64 -d)``, ``atob("…")``, ``b64decode("…")``,
# ``Buffer.from("…", "base64")``, ``[Convert]::FromBase64String("…")``
_DECODE_CALL = (
    r"(?i)\$\(\s*echo\s+(?:-n\s+)?[\"']?([A-Za-z0-9+/]{8,}={0,2})[\"']?\s*\|\s*base64\s+"
    r"(?:-d|--decode|-D)\s*\)"
    r"|(?:\[(?:System\.)?Convert\]::)?(?:atob|b64decode|FromBase64String|Buffer\.from)\(\s*b?[\"']([A-Za-z0-9+/]{8,}={0,2})[\"']"
    r"(?:\s*,\s*[\"']base64[\"'])?\s*\)"
)


_GET_STRING = r"\(?\[(?:System\.)?Text\.Encoding\]::\w+\.GetString\((\"[^\"\n]*\")\)\)?"


def _escaped(match: re.Match[str]) -> str:
    return chr(int(match.group(1) or match.group(2), 16))


# what a leet or set-apart secret word holds, so that an ordinary text runs no pattern for it
_LEET_MARKS = (
    "p@",
    "pa$",
    "p4s",
    "p4$",
    "pa55",
    "pas5",
    "w0rd",
    "s3cr",
    "5ecr",
    "$ecr",
    "t0k",
    "tok3",
    "pass-w",
    "p_a_",
    "p.a.",
    "p*a*",
    "p-a-",
    "s_e_",
    "s.e.",
    "s*e*",
    "t_o_",
    "t.o.",
    "t*o*",
)
_LEET = str.maketrans("@4$503!|7", "aassoeilt")
_WORDS = frozenset(
    ("password", "passwd", "passphrase", "passcode", "secret", "token", "apikey", "credentials")
)
_DECODED_WORDS = (*_WORDS, "api_key", "api-key")
# base64 of "password", "secret", "token" and "api_key" in either case, at each of the three places
# a word can start in base64's groups of three bytes
_BASE64_MARKS = (
    "cGFzc3dvcm",
    "Bhc3N3b3Jk",
    "wYXNzd29yZ",
    "UEFTU1dPUk",
    "BBU1NXT1JE",
    "QQVNTV09SR",
    "c2VjcmV0",
    "NlY3Jld",
    "zZWNyZX",
    "U0VDUkVU",
    "NFQ1JFV",
    "TRUNSRV",
    "dG9rZW",
    "Rva2Vu",
    "0b2tlb",
    "VE9LRU",
    "RPS0VO",
    "UT0tFT",
    "YXBpX2tle",
    "FwaV9rZX",
    "hcGlfa2V5",
    "QVBJX0tFW",
    "FQSV9LRV",
    "BUElfS0VZ",
    # base64 of base64 of a text that starts with one of those words (or with '{"' and one)
    "Y0dGemMz",
    "YzJWamNt",
    "ZEc5clpX",
    "WVhCcFgy",
    "VUVGVFUx",
    "VTBWRFVr",
    "VkU5TFJV",
    "UVZCSlgw",
    "ZXlKd1lY",
    "ZXlKelpX",
    "ZXlKMGIy",
    "ZXlKaGNH",
    # base64 of a connection string (postgres, mysql, redis, amqp, mongodb, mssql, http, ftp,
    # smtp, ldap, nats, kafka URLs) from its start, read when it holds a user's password
    *("cG9zdGdy", "bXlzcWw6", "cmVkaXM6", "cmVkaXNz", "YW1xcDov", "YW1xcHM6", "bW9uZ29k"),
    *("bXNzcWw6", "aHR0cHM6", "aHR0cDov", "ZnRwOi8v", "c2Z0cDov", "c210cDov", "bGRhcDov"),
    *("bmF0czov", "a2Fma2E6"),
)


_CHARS = (
    r"(?:([\"'])\1\.join\(\[?)?([\"'])[^\"'\\]\2(?:[ \t]*,[ \t]*([\"'])[^\"'\\]\3){5,}"
    r"(?(1)\]?\)|(?:\]\.join\(([\"'])\4\))?)"
)


_CHAR_ARRAY = (
    r"(=[ \t]*)(?:charArrayOf|arrayOf|listOf|new[ \t]+[\w.]+(?:<[\w.]+>)?(?:\[\])?(?:\(\))?[ \t]*)?"
    r"[{\[(][ \t]*"
    r"(\"[^\"\n]{6,}\")[ \t]*(?:,[ \t]*'\\0'[ \t]*)?[}\])]"
)


def _chars(match: re.Match[str]) -> str:
    """Characters listed one by one, as the string they spell (quoted)."""
    import re

    return '"' + "".join(re.findall(r"[\"']([^\"'\\])[\"']", match.group())) + '"'


def _decode_call(match: re.Match[str]) -> str:
    """A decoder's call, as the text it decodes (in quotes) when that is printable."""
    import base64
    import binascii

    found = match.group(1) or match.group(2)
    try:
        decoded = base64.b64decode(found + "=" * (-len(found) % 4), validate=True).decode()
    except (binascii.Error, ValueError):
        return match.group()
    return f'"{decoded}"' if decoded.isprintable() and '"' not in decoded else match.group()


# hex of "password", "pass=", "secret", "token" and "api_key" in either case
_HEX_MARKS = (
    "70617373",
    "50415353",
    "736563726574",
    "534543524554",
    "746f6b656e",
    "544f4b454e",
    "6170695f6b6579",
    "4150495f4b4559",
)


def _unhexed(match: re.Match[str]) -> str:
    """Hex of a secret's assignment, as its text."""
    found = match.group()
    try:
        decoded = bytes.fromhex(found.removeprefix("0x")).decode("utf-8")
    except ValueError:
        return found
    low = decoded.lower()
    wanted = any(w in low for w in _DECODED_WORDS) or "pass=" in low or "pass:" in low
    # or a token on its own (a secret's word beside the hex says what it is)
    wanted = wanted or (len(decoded) >= 12 and not any(c.isspace() for c in decoded))
    return decoded if wanted and decoded.isprintable() else found


def _word(match: re.Match[str]) -> str:
    """A secret's word written in leet or with its letters set apart, as the word."""
    found = match.group()
    plain = found.replace(".", "").replace("_", "").replace("*", "").replace("-", "")
    plain = plain.translate(_LEET)
    return plain if plain.lower() in _WORDS and plain != found else found


def _decoded(match: re.Match[str]) -> str:
    """Base64 of a secret's assignment, as its text."""
    import base64
    import binascii

    found = match.group()
    try:
        raw = base64.b64decode(found + "=" * (-len(found) % 4), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return found
    low = decoded.lower()
    if not decoded.replace("\n", " ").replace("\t", " ").replace("\r", " ").isprintable():
        return found
    if "://" in decoded and "@" in decoded:
        import re

        if re.match(r"[a-z][a-z0-9+.\-]*://[^/\s:@]*:[^/\s@]+@", decoded):
            # a connection string with its password (mysql://root:…@db/app)
            return decoded
    if not any(w in low for w in _DECODED_WORDS):
        # base64 of base64: read again when that holds a secret's word
        inner = match.re.fullmatch(decoded)
        again = _decoded(inner) if inner else decoded
        return again if again != decoded else found
    return decoded


def _fold_word(word: str) -> str:
    """A word's look-alike letters as the Latin ones they imitate, when it mixes the two."""
    if word.isascii() or not any("a" <= c.lower() <= "z" for c in word):
        return word
    folded = word.translate(_LOOKALIKES)
    return folded if folded != word else word
