"""Whose a secret is, as prose says it between a secret's word and its value. Part of ``redact``.

A qualifier ("for the staging db", "(prod)", "du compte admin", "от сервера") starts with one of
``PREPOSITIONS``; in a language whose prepositions no table holds, a few words that read as a noun
phrase stand there instead ("nenosiri la wifi ya ofisi ni …", "codul PIN al cardului e …"), and
only a value that cannot be a word is taken after them (``prose``).
"""

from __future__ import annotations

PREPOSITIONS = (
    "for",
    "of",
    "on",
    "at",
    "in",
    "from",
    "to",
    "für",
    "von",
    "vom",
    "zum",
    "zur",
    "pour",
    "du",
    "des",
    "de",
    "del",
    "da",
    "do",
    "di",
    "della",
    "dello",
    "van",
    "voor",
    "för",
    "til",
    "dla",
    "pro",
    "na",
    "для",
    "от",
    "до",
    "per",
    "po",
    "за",
    # articles of a genitive and more prepositions: "die Geheimzahl der EC-Karte lautet …",
    # "il codice al server è …", "a senha do banco no servidor é …", "ang password ng wifi ay …"
    "der",
    "dieser",
    "unserer",
    "meiner",
    "zu",
    "bei",
    "auf",
    "am",
    "im",
    "para",
    "al",
    "alla",
    "allo",
    "au",
    "aux",
    "à",
    "sur",
    "chez",
    "bij",
    "op",
    "till",
    "på",
    "hos",
    "od",
    "w",
    "ke",
    "u",
    "к",
    "в",
    "на",
    "у",
    "dos",
    "das",
    "no",
    "nos",
    "em",
    "ng",
    "sa",
    "ya",
    "wa",
    "kwa",
    "untuk",
    "dari",
    # Greek, Romanian, Slovak, Vietnamese, Turkish-free: "ο κωδικός για το email του γραφείου
    # είναι …", "parola pentru contul …", "heslo pre účet …", "mật khẩu cho tài khoản … là …"
    "για",
    "του",
    "της",
    "των",
    "στο",
    "στη",
    "στην",
    "στον",
    "σε",
    "από",
    "pentru",
    "pre",
    "cho",
    "của",
)


def qualifier_ok(text: str) -> bool:
    """What may stand between the word and a separator: nothing, "(prod)", or a short phrase that
    starts with a preposition ("for the staging db", "du compte admin", "от сервера")."""
    stripped = text.strip()
    if not stripped:
        return True
    if "'s" in stripped or "’s" in stripped:
        # a possessive opens no quote: "(mother's maiden name)"
        import re

        stripped = re.sub(r"(?<=\w)['’]s\b", "s", stripped)
    if "'" in stripped or '"' in stripped:
        # what is named in quotes: "for key '/home/bob/.ssh/id_ed25519'"
        import re

        stripped = re.sub(r"(?<!\w)'[^'\s]{1,80}'|\"[^\"\s]{1,80}\"", "x", stripped)
    if len(stripped) > 64 or any(c in stripped for c in ".?!\"'`"):
        return False
    if stripped[0] in "(（" and stripped[-1] in ")）":
        return True
    words = stripped.split()
    if any(word.lower() in CLAUSE_WORDS for word in words[1:]):
        # a clause, no qualifier: "auth from the URL before passing it to `urllib3`"
        return False
    return len(words) <= 8 and (words[0].lower() in PREPOSITIONS or clitic(words[0]))


def ends_clause(rest: str, end: int) -> bool:
    """Whether a value that ends at ``end`` ends its clause: a mark or the line's end follows, past
    two short words at most, a chat's particle and whom it speaks to ("… 93959314 nha anh,", "…
    4821 ạ.", "… 7730 po."); "… 2024 years old" and "… 1024 on this package" go on."""
    import re

    after = rest[end : end + 40]
    return (
        re.match(r"(?:[ \t]++[^\W\d_]{1,3}+){0,2}+[ \t]*+(?:$|[.,;:!?()—–\-。，、])", after)
        is not None
    )


def noun_phrase(text: str) -> bool:
    """A few words of any script that may say whose a secret is, when no table knows their
    preposition: six at most, no sentence's mark, no clause's word, no verb's ending in "-ing"
    or "-ed" (English says what happened in them: "password reset email sent to …")."""
    words = text.split()
    if not words or len(words) > 6 or len(text) > 64 or any(c in text for c in ".?!\"'`,;:()"):
        return False
    return not any(w.lower() in CLAUSE_WORDS or w.lower().endswith(("ing", "ed")) for w in words)


# English words that open a clause, which a qualifier ("for the staging db") never holds
CLAUSE_WORDS = frozenset(
    ("before", "after", "when", "while", "if", "because", "since", "until", "unless", "whether")
)


def clitic(word: str) -> bool:
    """An Arabic or Hebrew preposition written as part of its word (للبطاقة, לבנק, בבית)."""
    return len(word) > 2 and (word.startswith(("لل", "ل", "ب")) or word.startswith(("ל", "ב")))
