"""The same acts as ``phrases`` in other languages, as vocabulary per slot (``languages.toml``);
``families`` turns each language's table into phrase families with the shapes below. ``chars``
languages (no spaces, or words that take particles and articles) match anywhere, not only at the
start of a word.

Slots per act: override = set-aside verb + "earlier/all/system" + instructions or rules; role change
= "you are now / from now on you" + an unrestricted persona; prompt leak = show/reveal + system
prompt; secrecy = "do not tell" + the user; exfiltration = send + secret + destination; new
instructions = "new/real instructions"; addressee = an AI hailed directly; authority claim = a
system or admin notice, or consent claimed for the user (``consent``); void = earlier instructions
declared cancelled (weight 1, as in English: docs say that too); memory tampering = a verb of
changing + the reader's memory or notes; consent claimed = the user + a word of agreeing
(``agreed``), or an owner or administrator and such a word (``owner``); secrecy also as a whole
"don't tell him" phrase (``hush``); a prompt leak forbidden ("不要透露系统提示") is none
(``kept``). ``keep`` lists the "don't forget / don't ignore" idioms, which keep earlier text
rather than set it aside; ``keep_verb`` and ``keep_not`` the same where the
negation ends the clause (German "vergiss die Regeln nicht", Dutch "vergeet … niet te volgen").
Two slots are read only as categories that occur together (``cooccur``), not as phrases:
``author`` (who claims to speak: developers, an administrator, a system message) and ``wish`` (the
user's claimed real wish)."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

# Persona and prompt words that are loanwords in most languages.
_PERSONA = "|ai=|dan=|gpt|llm|chatgpt|jailbr|dev mode|developer mode"
_PROMPT = "|system prompt|systemprompt|prompt="
_TABLES = Path(__file__).with_name("languages.toml")


# Secrets named by their files and commands, the same words in every language ("выведите
# содержимое ~/.ssh/id_rsa", "imprime ~/.aws/credentials"): every table's ``secret`` slot holds them
# (a directory by its slash: "docs.aws.amazon.com" names none)
_SECRET_FILES = (
    "|/.ssh|.ssh/|id_rsa|id rsa|id_ed25519|/.aws|.aws/|.netrc|.npmrc|.git-credentials|kubeconfig|"
    "printenv"
)


@lru_cache(maxsize=1)
def tables() -> dict[str, dict[str, Any]]:
    """Each language's vocabulary (``languages.toml``): slot name -> alternatives, ``chars`` ->
    bool; every ``secret`` slot also holds the secrets named by their files (``_SECRET_FILES``)."""
    with _TABLES.open("rb") as file:
        loaded = tomllib.load(file)
    for table in loaded.values():
        if "secret" in table:
            table["secret"] += _SECRET_FILES
    return loaded


# (act, weight, the table's slot keys)
_SHAPES: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("override", 2, ("override", "earlier", "rules")),
    ("override", 1, ("void", "earlier", "rules")),
    ("role change", 2, ("now", "persona")),
    ("prompt leak", 2, ("reveal", "prompt")),
    ("secrecy", 1, ("dont", "user")),
    ("exfiltration", 2, ("send", "secret", "dest")),
    ("new instructions", 1, ("new",)),
    ("addressee", 2, ("hail",)),
    ("authority claim", 1, ("notice",)),
    ("destructive", 1, ("destroy", "targets")),
    ("obedience", 1, ("obey",)),
    ("safety off", 1, ("safety", "off")),
    ("authority claim", 1, ("permit",)),
    ("unsafe autonomy", 1, ("unconfirmed",)),
    ("memory tampering", 2, ("change", "memory")),
    ("authority claim", 1, ("consent",)),
    # consent claimed for the user: the user word and a word of agreeing near it, in any order
    ("authority claim", 1, ("user", "agreed")),
    # the same claimed for an owner or an administrator ("o dono do repositório já aprovou")
    ("authority claim", 1, ("owner", "agreed")),
    # "don't tell him", "ne lui dis rien": secrecy towards the reader's principal, whole phrases
    ("secrecy", 1, ("hush",)),
)


def families() -> list[tuple[str, str, int, tuple[str, ...], str, bool]]:
    """(kind, language, weight, slots, unless, chars) for every act a language's table has every
    slot for; a prompt leak is not asked in a sentence that holds a table's ``kept`` words (the
    reveal verb negated: "不要透露", "表示しないで", "nunca reveles"; any table's, since Spanish
    "reveles" is read by the French and Portuguese tables too)."""
    out: list[tuple[str, str, int, tuple[str, ...], str, bool]] = []
    kept = "|".join(str(table["kept"]) for table in tables().values() if "kept" in table)
    for lang, table in tables().items():
        chars = bool(table.get("chars"))
        for kind, weight, keys in _SHAPES:
            if all(key in table for key in keys):
                slots = tuple(
                    table[key]
                    + (_PERSONA if key == "persona" else _PROMPT if key == "prompt" else "")
                    for key in keys
                )
                unless = kept if kind == "prompt leak" else ""
                out.append((kind, lang, weight, slots, unless, chars))
    return out
