"""A value handed to a transform, read as what the transform gives. Part of ``redact``'s readings.

A person or a tool that hides a secret in code or a shell line often writes it through a step that
gives it back: a shell substitution (``$(echo '…' | rev)``, ``| base32 -d``, ``| xxd -r -p``,
``| tr 'A-Za-z' 'N-ZA-Mn-za-m'``, ``$(printf '\\121\\165…')``), a call (``bytes.fromhex("…")``,
``b32decode("…")``, ``strrev('…')``, ``str_rot13('…')``, ``codecs.decode('…', 'rot13')``), a
reversing slice (``"…"[::-1]``, ``.split("").reverse().join("")``), character codes
(``String.fromCharCode(84,105,…)``, ``"".join(chr(c) for c in [67, 111, …])``, ``-join
[char[]](…)``, ``{ 0x50, 0x65, … }``), octal escapes (``\\124\\151…``), hex bytes set apart
(``5a 65 70 …``), a template literal's literal parts (```${"…"}${"…"}```) and quoted-printable
(``password=3D…``). ``undone`` reads each as the quoted string it gives, so the rules see
``DB_PASSWORD="…"``. Each step runs only when the text holds its mark.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# a byte's code: decimal 32-126 or 0x20-0x7e, six or more in a list
_CODE = r"(?:0[xX][0-9a-fA-F]{2}|\d{2,3})"
_CODES = rf"{_CODE}(?:[ \t]*,[ \t]*{_CODE}){{5,}}"
# what wraps a list of codes into a string, in the languages that write one so
_CODES_CALL = (
    r"(?:(?:String::from_utf8(?:_lossy)?\()?vec!\[|String\.fromCharCode\("
    r"|(?:-join[ \t]*)?\[char\[\]\][ \t]*\(|bytes\(\[|bytearray\(\[|"
    r"\[\]byte\{|\[byte\[\]\][ \t]*\(|new[ \t]+(?:byte|char)\[\][ \t]*\{|"
    r"([\"'])\1\.join\([ \t]*(?:map\([ \t]*chr[ \t]*,|chr\(\w+\)[ \t]+for[ \t]+\w+[ \t]+in)[ \t]*[\[(]"
    r"|\{|\[|\()"
)
# what a list of character codes is handed to, so that an ordinary list runs no pattern
_CODE_MARKS = (
    "fromCharCode",
    "chr",
    "char[]",
    "bytes(",
    "bytearray(",
    "byte",
    "vec![",
    "0x",
    "pack(",
)
_CODES_END = (
    r"(?:[ \t]*,[ \t]*0)?[ \t]*[\])}]\)?(?:\)?\.decode\(\)|\)?\.toString\(\)|\.unwrap\(\))?"
)
# "$(echo '…' | cmd)", $(printf '…'), and echo … | cmd standing alone
# (the blanks before echo are read from a run's start only, none when it starts at echo, and those
# after its value once: tried from every blank of a run, or split between two runs before a
# missing ")", 64 KB of blanks took about 18 s; found after review AQ)
_SHELL = (
    r"(?P<o>\")?(?P<s>\$\()?(?:(?<![ \t])[ \t]*+|(?=echo|printf))"
    r"(?:echo(?:[ \t]+-[neE]+)*|printf)[ \t]+(?P<q>[\"']?)"
    r"(?P<v>[^\s\"'|)]{4,})(?P=q)[ \t]*+(?:\|[ \t]*(?P<cmd>(?:base32|base64|rev|tr|xxd)\b"
    r"[^)\n|;&>]{0,60}(?:\|[ \t]*(?:base32|base64|rev|tr|xxd)\b[^)\n|;&>]{0,60}){0,2}))?"
    r"[ \t]*+(?(s)\))(?(o)\")"
)
# a call whose name (its whole dotted path) says it decodes, unhexes, rotates or reverses, in any
# language: bytes.fromhex, hex.DecodeString, Base64.decode64, Base64.getDecoder().decode,
# Buffer.from(…, "hex"), b32decode, strrev, str_rot13, codecs.decode(…, "rot13"). The name is read
# from its path's start only, never from inside a word or after a part's dot (a name matched from
# there matches from its start too; a part starts with any letter, so ``éx.decode`` is read from
# ``é``, and only a name that starts with a digit, which no language has, is not read): tried from
# every letter, 64 KB of one word (``_``, or ``AKIA`` keys read in groups and joined) was read to its
# end from each, about three minutes a field (found in review AU)
_CALL = (
    r"(?:\[[\w.]+\]::)?(?<!\w)(?<!\w\.)(?<!\w\(\)\.)"
    r"(?P<fn>(?:[^\W\d]\w*(?:\(\))?\.)*[^\W\d]\w*)\([ \t]*b?"
    r"(?P<q>[\"'])(?P<v>[^\"'\n]{4,})"
    r"(?P=q)(?:[ \t]*,[ \t]*[\"'](?P<codec>[\w\-]+)[\"'])?[ \t]*\)"
    r"(?:\)?\.(?:decode|toString)\((?:[\"'][\w\-]*[\"'])?\))?"
)
# strings in a list joined with nothing: "".join(["…", "…"]), ["…", "…"].join(""), -join ('…', '…')
# (PowerShell), listOf("…", "…").joinToString("") (Kotlin). A list is read to its first bracket,
# open or closed, never past an opening one to a closing one further on: 64 KB of ``[``,
# ``-join (`` or ``listOf(`` with none closed was read to the line's end from each, 7 s a field
# (review AU)
_JOINED_LIST = (
    r"([\"'])\1\.join\(\[([^\[\]\n]*+)\]\)|\[([^\[\]\n]*+)\]\.join\(([\"'])\4\)"
    r"|(?i:-join)[ \t]*\(([^()\n]*+)\)"
    r"|(?:listOf|arrayOf|List\.of|Arrays\.asList|setOf)\(([^()\n]*+)\)"
    r"\.joinToString\(([\"'])\7\)"
)
_REVERSED = (
    r"(?P<q>[\"'])(?P<v>[^\"'\n]{6,})(?P=q)(?:\[::-1\]|\.split\([\"']{2}\)\.reverse\(\)"
    r"\.join\([\"']{2}\)|\.reverse(?:d\(\))?\b)"
)
_MARKS: tuple[str, ...] = (
    "$(echo",
    "$(printf",
    "| base32",
    "| base64",
    "| rev",
    "| tr",
    "| xxd",
    "fromhex",
    "unhexlify",
    "hex2bin",
    "b32decode",
    "base32_decode",
    # a decoder's call, not an error's name (UnicodeDecodeError): its parenthesis or its dot
    "ecode(",
    "ecode64(",
    "ase64.",
    "ase64String(",
    "ase32",
    "Buffer.from",
    "hex.",
    "Hex(",
    "hex(",
)
_MARKS += ("strrev", "StrReverse", "str_rot13", "codecs.decode", "reversed(", "[::-1]", ".reverse")
_ROT13 = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)


_REVERSED_WORDS = ("drowssap", "dwssap", "nekot", "terces", "yek_ipa", "yekipa", "yek-ipa")
# an env dump or a mapping with an odd separator: DB_PASSWORD;…, API_TOKEN | …, NAME -> …
_ODD = ("->", "→", "⇒", "=>", "::", ";", ",", "|", "\t")
_DUMP_LINE = (
    r"(?m)^([ \t]*[A-Za-z][A-Za-z0-9]*(?:[_.\-][A-Za-z0-9]+)+|[ \t]*[A-Z][A-Z0-9]{3,})"
    r"[ \t]*(?:->|→|⇒|=+>|::|[;,|\t])[ \t]*([^\s;,|]+)(?:[ \t]*[;,|\t][^\n]*)?[ \t]*$"
)


def undone(text: str) -> str:
    """``text`` with every transform above read as the string it gives (itself when none)."""
    low = text.lower()
    if any(word in low for word in _REVERSED_WORDS):
        # a line written backwards: "55!Tbm8ztrauQ :drowssap"
        text = "\n".join(
            line[::-1] if any(w in line.lower() for w in _REVERSED_WORDS) else line
            for line in text.split("\n")
        )
    marked = any(mark in text for mark in _MARKS)
    steps = (
        (_dump_line(text), _DUMP_LINE, r"\1=\2"),
        # a shell's or Spring's default: ${DB_PASSWORD:-…}, ${DB_PASSWORD:…}, read as the value
        (
            "${" in text,
            r"(\")?\$\{[A-Za-z_]\w*(?::?[-=]|:)([^}\s:?+\"][^}\s\"]{0,512})\}(?(1)\")",
            r'"\2"',
        ),
        # a name or a value in a Markdown code span: `password`=`…`
        ("`" in text, r"`([\w.\-]+)`(?=[ \t]*[:=])", r"\1"),
        ("`" in text, r"([:=][ \t]*)`([^`\s]+)`", r'\1"\2"'),
        # a label, then its value alone in a code fence
        (
            "```" in text,
            r"(?m)^([^\n`]*[:：])[ \t]*\r?\n(?:[ \t]*\r?\n)?[ \t]*```\w*[ \t]*\r?\n"
            r"[ \t]*([^\s`]+)[ \t]*\r?\n[ \t]*```",
            r"\1 \2",
        ),
        # strings in a list joined with nothing
        ("join" in text or "Join" in text, _JOINED_LIST, _joined),
        # an f-string's literal parts: f"{'…'}{'…'}"
        ('f"{' in text or "f'{" in text, r"\{[ \t]*([\"'])([^\"'{}\n]*)\1[ \t]*\}", r"\2"),
        ("=3D" in text, r"=3D", "="),
        ("=\n" in text and "=3D" in text, r"=\r?\n", ""),
        ('${"' in text or "${'" in text, r"\$\{[ \t]*([\"'])([^\"'\n]*)\1[ \t]*\}", r"\2"),
        (text.count("\\") >= 4, r"(?:\\[0-3]?[0-7]{1,2}){4,}", _octal),
        (
            text.count(",") >= 5 and any(mark in text for mark in _CODE_MARKS),
            _CODES_CALL + r"[ \t]*(?P<codes>" + _CODES + ")" + _CODES_END,
            _codes,
        ),
        (
            _spaced_hex(text),
            r"(?<![\w:])(?:[0-9a-fA-F]{2}[ ]){7,}[0-9a-fA-F]{2}(?![\w:])",
            _hex_run,
        ),
        # one character a line (a value written downwards), a separator alone on its line, and
        # base64 wrapped at 76 or 64 characters, each read joined. The last line may end in "\r"
        # as the others do: one that had to end at "\n" alone made a CRLF text of such lines fail
        # at its end from each of its lines, in its square (review BT: 32 KB of "x\r\n" 17 s)
        (
            text.count("\n") >= 6,
            r"(?m)\r?\n(?:[ \t]*\S[ \t]*\r?\n){5,}[ \t]*\S[ \t]*(?=\r?$)",
            _downwards,
        ),
        ("\n=\n" in text or "\n:\n" in text, r"[ \t]*\r?\n[ \t]*([=:])[ \t]*\r?\n[ \t]*", r" \1 "),
        (
            _wrapped(text),
            r"(?m)(?<![A-Za-z0-9+/])((?:[A-Za-z0-9+/]{76}|[A-Za-z0-9+/]{64}))\r?\n(?=[A-Za-z0-9+/])",
            r"\1",
        ),
        # character codes one call each: CHAR(83)+CHAR(97)+… (SQL), chr(80) & chr(97) (VB, Python)
        ("CHAR(" in text.upper() or "CHR(" in text.upper(), _CHAR_CALLS, _char_calls),
        # a YAML anchor before its value: x-db-pass: &dbpass …
        (": &" in text, r"(:[ \t]*)&[\w\-]+[ \t]+(?=\S)", r"\1"),
        # a key read out in groups of four: AKIA B33S 0FW5 17LS 7XP5
        (
            _grouped(text),
            r"\b[A-Z0-9]{4}(?: [A-Z0-9]{4}){3,}\b",
            lambda m: m.group().replace(" ", ""),
        ),
        (marked, _SHELL, _shell),
        (marked, _CALL, _call),
        (marked, _REVERSED, lambda m: f'"{m.group("v")[::-1]}"'),
        # a string made a string again: new String("…"), String.valueOf("…"), str("…")
        ("tring(" in text or "str(" in text, _RESTRING, r"\1"),
    )
    for wanted, pattern, replace in steps:
        if wanted:
            import re

            text = re.sub(pattern, replace, text)
    return _resolved(text) if text.count("$") >= 2 and "=" in text else text


def _dump_line(text: str) -> bool:
    """``_DUMP_LINE``'s gate, without ``re``: a line whose first word is a name with an odd
    separator right after it."""
    for line in text.split("\n"):
        head = line.lstrip()
        name = head.split(None, 1)[0] if head else ""
        for sep in _ODD:
            name = name.split(sep, 1)[0]
        rest = head[len(name) :].lstrip()
        if len(name) >= 4 and (not name.isalnum() or name.isupper()) and rest.startswith(_ODD):
            return True
    return False


# a name given a value made of two or more variables (``TOKEN="${A}${B}"``). The name is read from its
# start, not again from after each dot of it: 64 KB of ``a.a.…`` was read to its end from each,
# seconds a field (review AU)
_USED = r"(?<![\w$])(?<!\w\.)([A-Za-z_][\w.]*+)([=:][ \t]*)\"?((?:\$\{?[A-Za-z_]\w*\}?){2,})\"?(?=[\s;]|$)"


def _resolved(text: str) -> str:
    """A value made of variables the same text defines (``A=…; B=…; export TOKEN="${A}${B}"``), as
    what they make, each part's own line named for it (``A_TOKEN=…``)."""
    import re

    defined = dict(re.findall(r"(?<![\w$])([A-Za-z_]\w*)=([^\s;'\"$]+)", text))
    use = re.search(_USED, text)
    if not use:
        return text
    names = re.findall(r"\$\{?([A-Za-z_]\w*)\}?", use.group(3))
    if not all(name in defined for name in names):
        return text
    joined = "".join(defined[name] for name in names)
    text = text[: use.start(3)] + joined + text[use.end(3) :]
    for name in set(names):
        text = re.sub(rf"(?<![\w$]){name}=", f"{name}_{use.group(1)}=", text)
    return text


def _joined(match: re.Match[str]) -> str:
    """Strings in a list joined with nothing, as the one string they make (quoted)."""
    import re

    # an empty list (``[].join("")``, ``-join ()``) has nothing to join: it stays as it is (its
    # first non-empty group was looked for and not found, a StopIteration out of every redaction of
    # a text holding one; review AU)
    found = next((g for g in match.group(2, 3, 5, 6) if g), "")
    parts = re.findall(r"[\"']([^\"'\n]*)[\"']", found)
    return '"' + "".join(parts) + '"' if len(parts) >= 2 else match.group()


def _downwards(match: re.Match[str]) -> str:
    """Characters one a line, as the word they spell, on the line before them (its label's)."""
    return " " + "".join(match.group().split())


def _wrapped(text: str) -> bool:
    """A line of 64 or 76 characters followed by more: base64 wrapped, without ``re``."""
    lines = text.split("\n")
    return any(
        len(lines[i].rsplit(" ", 1)[-1]) in (64, 76) and lines[i + 1] for i in range(len(lines) - 1)
    )


_RESTRING = (
    r"(?<![\w.])(?:new[ \t]+String|String\.valueOf|String|string|str)\([ \t]*"
    r"(\"[^\"\n]*\"|'[^'\n]*')[ \t]*\)"
)
_CHAR_CALLS = (
    r"(?i)(?:n?char|chr)\((\d{2,3})\)"
    r"(?:[ \t]*(?:\+|\|\||&|\.|,)[ \t]*(?:n?char|chr)\((\d{2,3})\)){5,}"
)


def _char_calls(match: re.Match[str]) -> str:
    """``CHAR(83)+CHAR(97)+…``, as the string the codes spell (quoted)."""
    import re

    codes = [int(code) for code in re.findall(r"\((\d{2,3})\)", match.group())]
    if any(not 32 < code < 127 for code in codes):
        return match.group()
    return _quoted("".join(map(chr, codes)), match.group())


def _grouped(text: str) -> bool:
    """Four words of four upper-case letters or digits in a row, without ``re``."""
    run = 0
    for word in text.split(" "):
        run = run + 1 if len(word) == 4 and word.isalnum() and word == word.upper() else 0
        if run >= 4:
            return True
    return False


def _spaced_hex(text: str) -> bool:
    """A run of eight two-character words: what hex bytes set apart hold, without ``re``."""
    run = 0
    for word in text.split(" "):
        run = run + 1 if len(word) == 2 else 0
        if run >= 8:
            return True
    return False


def _printable(decoded: str) -> bool:
    """A string a secret could be: printable, one word, letters with digits or signs."""
    return (
        decoded.isprintable()
        and decoded.isascii()
        and not any(c.isspace() or c in "\"'" for c in decoded)
        and any(c.isalpha() for c in decoded)
        and not decoded.isalpha()
    )


def _quoted(decoded: str, found: str) -> str:
    return f'"{decoded}"' if _printable(decoded) else found


def _octal(match: re.Match[str]) -> str:
    """Octal escapes (``\\124\\151…``), as the characters they name."""
    codes = [int(code, 8) for code in match.group().split("\\")[1:]]
    decoded = "".join(map(chr, codes))
    return decoded if _printable(decoded) else match.group()


def _codes(match: re.Match[str]) -> str:
    """A list of character codes in its call, as the string it makes."""
    codes = [
        int(code, 0) if code.lower().startswith("0x") else int(code)
        for code in match.group("codes").replace(" ", "").replace("\t", "").split(",")
    ]
    if any(not 32 < code < 127 for code in codes):
        return match.group()
    return _quoted("".join(map(chr, codes)), match.group())


def _hex_run(match: re.Match[str]) -> str:
    """Hex bytes set apart by blanks (``5a 65 70 …``), as their text."""
    try:
        decoded = bytes.fromhex(match.group()).decode("ascii")
    except ValueError:
        return match.group()
    return decoded if _printable(decoded) else match.group()


def _shell(match: re.Match[str]) -> str:
    """``$(echo '…' | cmd)`` and ``$(printf '…')``, as what the command prints (quoted)."""
    value, command = match.group("v"), (match.group("cmd") or "").strip()
    if value.startswith("$") or not (match.group("s") or command):
        return match.group()
    given = _through(value, command)
    if given is None or not _printable(given):
        return match.group()
    # echo … | base64 -d | docker login --password-stdin: still echoed into what follows
    return f'"{given}"' if match.group("s") else f'echo "{given}"'


def _through(value: str, command: str) -> str | None:
    """What ``command`` prints for ``value`` on its stdin, for the commands that undo a disguise (a
    pipe of them too: ``rev | base64 -d``)."""
    if "|" in command:
        for step in command.split("|"):
            given = _through(value, step.strip())
            if given is None:
                return None
            value = given
        return value
    return _one(value, command)


def _one(value: str, command: str) -> str | None:
    import base64
    import binascii

    words = command.split()
    name = words[0] if words else ""
    try:
        if not command:
            return value
        if name == "rev":
            return value[::-1]
        if name == "tr" and "n-za-m" in command.lower():
            return value.translate(_ROT13)
        if name in ("base32", "base64") and set(words[1:]) & {"-d", "--decode", "-D"}:
            decode = base64.b32decode if name == "base32" else base64.b64decode
            return decode(
                value + "=" * (-len(value) % 8 if name == "base32" else -len(value) % 4)
            ).decode()
        if name == "xxd" and "-r" in words:
            return bytes.fromhex(value).decode()
    except (binascii.Error, ValueError):
        return None
    return None


def _call(match: re.Match[str]) -> str:
    """A call that decodes, reverses or rotates its literal, as what it returns (quoted)."""
    fn = match.group("fn").lower().replace("_", "")
    value = match.group("v")
    codec = (match.group("codec") or "").lower().replace("_", "").replace("-", "")
    is_hex = len(value) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in value)
    if "rot13" in fn + codec:
        command = "tr n-za-m"
    elif "rev" in fn:
        command = "rev"
    elif "32" in fn:
        command = "base32 -d"
    elif (is_hex and ("hex" in fn + codec or "unhexlify" in fn)) or fn.endswith("hex2bin"):
        command = "xxd -r"
    elif "base64" in fn + codec or "b64" in fn or ("decode" in fn and not is_hex):
        command = "base64 -d"
    else:
        return match.group()
    given = _through(value, command)
    return _quoted(given, match.group()) if given is not None else match.group()
