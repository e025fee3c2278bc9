"""Another reading of a text, for secrets written to be read past the rules. Part of ``redact``.

A secret hidden from a scanner is still read as a secret by a person or a model: a name with a
zero-width character in it (``DB_PASSWORD\\u200b=…``), look-alike letters (``pаssword`` with a
Cyrillic ``а``), HTML entities (``&#112;assword=``), a percent-encoded query (``password%3D…``),
JSON escaped once more (``{\\"password\\":\\"…\\"}``), a line continuation (``SECRET_KEY=\\`` then the
value), letters spaced out (``P A S S W O R D : …``), and compatibility forms (``ＴＯＫＥＮ＝…``).
``reading`` undoes all of them at once; the engine runs the rules on that reading too and keeps it
when it shows more secrets. Each step runs only when the text holds what it undoes, so an ordinary
text costs a few ``in`` tests.
"""

from __future__ import annotations

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


def reading(text: str) -> str:
    """``text`` with every trick above undone (itself when it holds none)."""
    if not text.isascii():
        import unicodedata

        text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
        text = " ".join(_fold_word(word) for word in text.split(" "))
    if "&" in text and ";" in text:
        import html

        text = html.unescape(text)
    if "%" in text and any(code in text.lower() for code in ("%3d", "%3a", "%26", "%22")):
        import urllib.parse

        text = urllib.parse.unquote(text)
    if '\\"' in text:
        text = text.replace('\\"', '"')
    if "\\\n" in text:
        text = text.replace("\\\r\n", "").replace("\\\n", "")
    if sum(len(word) == 1 for word in text.split()) >= 4:
        import re

        text = re.sub(
            r"(?<!\S)(?:[^\W\d_] ){3,}[^\W\d_](?!\S)",
            lambda m: m.group().replace(" ", ""),
            text,
        )
    return text


def _fold_word(word: str) -> str:
    """A word's look-alike letters as the Latin ones they imitate, when it mixes the two."""
    if word.isascii() or not any("a" <= c.lower() <= "z" for c in word):
        return word
    folded = word.translate(_LOOKALIKES)
    return folded if folded != word else word
