"""The detector: phrase families (``phrases``, ``languages``) over the normalised text and over what
is hidden in it, plus signals that need no language: model and chat-template markup, fake
conversation turns, forged hindsight block structure, download-and-run commands, secrets piped to
the network, and obfuscation (look-alike letters mixed into words, invisible characters inside
words, tag characters, bidi overrides). Each signal has a weight; a text whose kinds add up to
``QUARANTINE_SCORE`` reads as instructions to a model."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache, lru_cache

from ..text import MAX_LABEL
from . import languages, learned, phrases
from .announced import announced as announced_reading, reversal_announced
from .clauses import clause_kinds
from .configured import SPOKEN, configured_spans, outside
from .cooccur import cooccurring
from .cues import cue_kinds
from .literals import may_match
from .near import hailed, marked, near
from .pages import filled_image, install_step
from .reports import fixtures, unquoted
from .retraction import retracted, taken_back
from .safeguards import unguarded
from .signals import converging_kinds
from .spelling import (
    _confusables,
    finish,
    fold,
    hidden_views,
    skeleton,
    surface,
    typo_view,
    unwrap,
)
from .steering import steering_kinds
from .units import url_run
from .words import alternation_source, readable, word_needles

QUARANTINE_SCORE = 2
# the kind the learned reading adds (``learned``)
LEARNED = "reads as an injection (learned)"
# the longest hidden reading read for acts that steer the reader (``steering``)
_HIDDEN_ACTS = 4096
_WINDOW = {"word": 70, "cjk": 30, "chars": 45}
_CJK_LANGS = frozenset({"zh", "ja", "th"})
# spans kept per slot when looking for a combination within the window
_PER_SLOT = 12
# sentences, and the cells of a settings line ("Login alerts: on · 2FA: required")
_SENTENCE = re.compile(r"[.!?;](?=\s|$)|[。！？；\n؟।۔]|\s[·•]\s")


@dataclass(frozen=True)
class Family:
    kind: str
    weight: int
    slots: tuple[str, ...]
    unless: str
    window: int
    chars: bool
    # an AI hailed in another language is a vocative, set off by punctuation ("Achtung KI:", "Note
    # pour l'IA :"); the same words running on are a sentence about someone ("Asistana not
    # bırakmayı unutma": don't forget to leave the assistant a note)
    vocative: bool = False

    @property
    def marked(self) -> bool:
        return marked(self.slots)

    def slot(self, index: int) -> re.Pattern[str]:
        if self.vocative:
            return _vocative(self.slots[index], self.chars)
        return _alternatives(self.slots[index], self.chars)


# Letters of the alphabets written in Latin script (Latin-1 and Latin Extended-A: Turkish ı and ş,
# Polish ł, German ß; and the hooked letters of Hausa, Fulfulde and other West African alphabets,
# ɓ ɗ ƙ ƴ): a word of such a language holds them beside ASCII letters without hiding anything, so
# they are no look-alikes.
_ALPHABETS = frozenset(range(0xC0, 0x180)) | frozenset(map(ord, "ƁɓƊɗƘƙƳƴ"))


@cache
def _alternatives(words: str, chars: bool) -> re.Pattern[str]:
    return re.compile(alternation_source(words, chars))


@cache
def _vocative(words: str, chars: bool) -> re.Pattern[str]:
    return re.compile(rf"(?:{alternation_source(words, chars)})(?=\s*[:,!;—–\-：，！、])")


@lru_cache(maxsize=1)
def _families() -> tuple[tuple[str, tuple[Family, ...]], ...]:
    """(language, its families), English first."""
    english = tuple(
        Family(kind, weight, slots, unless, window or _WINDOW["word"], False)
        for kind, weight, slots, unless, window in phrases.ENGLISH
    )
    groups: dict[str, list[Family]] = {}
    for kind, lang, weight, slots, unless, chars in languages.families():
        window = _WINDOW["cjk" if lang in _CJK_LANGS else "chars" if chars else "word"]
        if kind == "exfiltration":
            # a URL or a path stands between the secret and the verb
            window *= 2
        groups.setdefault(lang, []).append(
            Family(f"{kind} ({lang})", weight, slots, unless, window, chars, kind == "addressee")
        )
    return (("en", english), *((lang, tuple(found)) for lang, found in groups.items()))


@lru_cache(maxsize=1)
def _keep() -> str:
    return "|".join(
        [phrases.ENGLISH_KEEP] + [t["keep"] for t in languages.tables().values() if "keep" in t]
    )


@lru_cache(maxsize=1)
def _kept_to_the_end() -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """A set-aside verb whose clause ends in its language's negation (``keep_verb`` … ``keep_not``:
    German "vergiss die Anweisungen nicht", Dutch "vergeet de instructies niet te volgen") keeps
    the earlier text rather than setting it aside; and that negation alone (a text without it is
    not read twice)."""
    tables = [t for t in languages.tables().values() if "keep_verb" in t and "keep_not" in t]
    if not tables:
        return None
    verbs = "|".join(t["keep_verb"] for t in tables)
    nots = "|".join(t["keep_not"] for t in tables)
    negation = alternation_source(nots, False)
    return (
        re.compile(
            rf"(?:{alternation_source(verbs, False)})"
            rf"(?=[^.,:;!?\n]{{0,80}}?(?:{negation})\s*(?:[.,:;!?\n]|$))"
        ),
        re.compile(rf"(?:{negation})\s*(?:[.,:;!?\n]|$)"),
    )


def _matches(family: Family, sentence: str) -> bool:
    # A slot's every match holds one of its needles: a sentence without one of some slot's is passed
    # over before any pattern runs (the first slot's are known to be there).
    if not all(any(map(sentence.__contains__, word_needles(words))) for words in family.slots[1:]):
        return False
    spans = []
    for index in range(len(family.slots)):
        found = [m.span() for m in family.slot(index).finditer(sentence)][:_PER_SLOT]
        if index == 0 and family.marked and ":" not in family.slots[-1]:
            found = hailed(sentence, found)
        if not found:
            return False
        spans.append(found)
    if family.unless and _alternatives(family.unless, family.chars).search(sentence):
        return False
    return near(spans, family.window, family.marked)


class _Text:
    """A folded text cut into sentences, and which first-slot needles it holds: words by their
    prefixes (remembered per word), anything else by a substring search of the needles that start
    with one of its characters."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._bounds: list[int] | None = None
        self.where: dict[str, set[int]] = {}

    @property
    def bounds(self) -> list[int]:
        if self._bounds is None:
            self._bounds = [0] + [m.end() for m in _SENTENCE.finditer(self.text)] + [len(self.text)]
        return self._bounds

    def candidates(self, english_only: bool) -> dict[int, dict[int, list[str]]]:
        """Language group (``_families()`` order) → family → the needles of its first slot the text
        holds: the only families worth reading (English's alone when ``english_only``)."""
        prefix, other = _needle_index(english_only, self.text.isascii())
        out: dict[int, dict[int, list[str]]] = {}
        for needle in _word_starts(set(_ASCII_WORD.findall(self.text))):
            for group, family in prefix.get(needle, ()):
                out.setdefault(group, {}).setdefault(family, []).append(needle)
        for first in other.keys() & set(self.text):
            for needle, group, family in other[first]:
                if needle in self.text:
                    out.setdefault(group, {}).setdefault(family, []).append(needle)
        return out

    def sentences(self, needle: str) -> set[int]:
        """The sentences ``needle`` occurs in (as a substring)."""
        if needle not in self.where:
            found, at = set(), self.text.find(needle)
            while at != -1:
                found.add(bisect_right(self.bounds, at) - 1)
                at = self.text.find(needle, at + 1)
            self.where[needle] = found
        return self.where[needle]

    def sentence(self, index: int) -> str:
        return self.text[self.bounds[index] : self.bounds[index + 1]]


_ASCII_WORD = re.compile(r"[a-z0-9]+")
_LONGEST = 14


def _word_starts(words: set[str]) -> set[str]:
    """The starts of ``words`` that are needles (``_by_prefix``)."""
    out: set[str] = set()
    for word in words:
        out.update(_starts(word))
    return out


@lru_cache(maxsize=65_536)
def _starts(word: str) -> tuple[str, ...]:
    """A word's starts that are needles, remembered: words repeat from text to text (an import reads
    the same few thousand again and again)."""
    prefix = _needle_index(False, False)[0]
    return tuple(
        start for size in range(1, min(len(word), _LONGEST) + 1) if (start := word[:size]) in prefix
    )


def _by_prefix(needle: str) -> bool:
    """Whether ``needle`` is found as a word's start (one set lookup) rather than by a substring
    search."""
    return needle.isascii() and needle.isalnum() and len(needle) <= _LONGEST


# (language group, family) in ``_families()``
_Where = tuple[int, int]


@lru_cache(maxsize=4)
def _needle_index(
    english_only: bool, ascii_text: bool
) -> tuple[dict[str, list[_Where]], dict[str, list[tuple[str, int, int]]]]:
    """Every family's first-slot needles (English's alone when ``english_only``), inverted: word
    starts → families, and the needles a substring search finds (the ASCII ones alone for an
    ``ascii_text``) by their first character."""
    prefix: dict[str, list[_Where]] = {}
    other: dict[str, list[tuple[str, int, int]]] = {}
    for group, (_, members) in enumerate(_families()[:1] if english_only else _families()):
        for number, family in enumerate(members):
            for needle in word_needles(family.slots[0]):
                if _by_prefix(needle):
                    prefix.setdefault(needle, []).append((group, number))
                elif needle.isascii() or not ascii_text:
                    other.setdefault(needle[0], []).append((needle, group, number))
    return prefix, other


def phrase_kinds(
    original: str, english_only: bool = False, folded: str | None = None
) -> dict[str, int]:
    """Kinds of instruction-like phrasing in ``original`` (any text; it is normalised here, or
    ``folded`` is its normalised form), with weights. A kind in another language is left out when
    the same act was found in English."""
    text = folded if folded is not None else fold(unwrap(surface(original)))
    if any(map(text.__contains__, word_needles(_keep()))):
        text = _alternatives(_keep(), True).sub(" keep ", text)
    kept = _kept_to_the_end()
    if kept is not None and kept[1].search(text):
        text = kept[0].sub(" keep ", text)
    cut = _Text(text)
    found: dict[str, int] = {}
    acts: dict[str, int] = {}
    families = _families()
    for group_number, wanted in sorted(cut.candidates(english_only).items()):
        lang, group = families[group_number]
        if not readable(lang, original, text):
            continue
        for number, needles in sorted(wanted.items()):
            family = group[number]
            base = family.kind.split(" (")[0]
            if found.get(family.kind, 0) >= family.weight or (
                lang != "en" and acts.get(base, 0) >= family.weight
            ):
                # one act counts once, whichever languages say it (Spanish and Portuguese share
                # "o usuário autorizou")
                continue
            # Only sentences that hold a needle of the first slot can hold the whole family.
            indices = set().union(*(cut.sentences(n) for n in needles))
            if any(_matches(family, cut.sentence(i)) for i in sorted(indices)):
                found[family.kind] = family.weight
                acts[base] = max(acts.get(base, 0), family.weight)
    return found


def _rx(*patterns: str) -> re.Pattern[str]:
    # read on the skeleton: lower case
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.M)


# A line that opens a conversation turn of a model or its user ("Human:", "Assistant:", "助手：").
_TURN = (
    r"[ \t>*#-]*(?:human|assistant|ai assistant|chatgpt|claude|gpt-?\d*o?|llm|"
    r"助手|アシスタント|어시스턴트|ассистент|asistente|assistente|assistent|人类|人類)\s*[:：]\s*\S"
)
# Language-free signals, read on the skeleton (lower case, look-alikes folded, markup kept).
_STRUCTURE: tuple[tuple[str, int, re.Pattern[str]], ...] = (
    (
        "model markup",
        2,
        _rx(
            r"<\|[^|<>\s]{2,40}\|>",
            r"\[/?inst\]",
            r"<</?sys>>",
            r"</?(?:start|end)_of_turn>",
            r"<\|?(?:endoftext|eot_id|eom_id|im_start|im_end|im_sep)\|?>",
            r"</?system[_-]?prompt>",
            r"^\s*#{2,4}\s*(?:instruction|system prompt|system|response)\s*:",
            r"\[/(?:system|sys|admin|assistant|developer)\]",
        ),
    ),
    (
        "role markup",
        1,
        _rx(r"\[(?:system|sys|admin|developer|operator)(?:\s+(?:note|message|notice|update))?\]"),
    ),
    ("role turn", 2, _rx(r"\n" + _TURN)),
    (
        "role markup",
        1,
        # not code that builds a message from a variable ({"role": "system", "content": text})
        _rx(
            r"[\"']role[\"']\s*:\s*[\"'](?:system|developer|assistant|tool)[\"']"
            r"(?!\s*,\s*[\"']content[\"']\s*:\s*[a-z_][\w.]*(?:\[[^\]]*\]|\([^)]*\))?\s*[,}\])])"
        ),
    ),
    (
        "forged header",
        2,
        # ### SYSTEM MESSAGE ###, === DEVELOPER NOTE ===: a heading that claims to be the system's
        _rx(
            r"(?:^|\s)(?:#{3,}|={3,}|\*{3,}|-{3,})\s*(?:begin\s+|start\s+)?"
            r"(?:system|developer|admin|operator)\s+"
            r"(?:message|note|prompt|instructions?|notice|override|update)\s*(?:#{3,}|={3,}|\*{3,}|-{3,})"
        ),
    ),
    (
        "forged header",
        2,
        _rx(
            r"\[\s*hindsight\s*:",
            r"(?:^|\s)[-*•]\s*\d{4}-\d{2}-\d{2}\s+(?:\([^)\n]{1,40}\)\s*)?"
            r"\[(?:episodic|semantic|procedural|working)\]",
        ),
    ),
    (
        "instruction markup",
        1,
        _rx(
            r"</(?:instructions?|system|admin|prompt|directive)>",
            r"^\[//\]:\s*#",
            r"^[\s\-=#*]*(?:begin|end)\s+(?:admin|system|developer|hidden|operator)\b",
        ),
    ),
    (
        "sensitive file",
        1,
        _rx(
            r"/etc/(?:shadow|passwd|sudoers)\b",
            # (the public half of a key is no secret: "paste id_ed25519.pub into GitHub")
            r"\.ssh/(?!id_\w+\.pub\b)|\bid_(?:rsa|ed25519|ecdsa)\b(?!\.pub\b)",
            r"\.aws/credentials|\.git-credentials|\.docker/config\.json|\.kube/config",
            # the files that hold a user's logins for a tool (netrc, npm, PyPI, Postgres) read, not
            # where a README puts a token ("put your PyPI token in ~/.pypirc")
            r"(?<!\bin )(?<!\binto )(?<!\bto )~/\.(?:netrc|npmrc|pypirc|pgpass)\b",
        ),
    ),
    (
        "forged label",
        1,
        _rx(
            r"\[(?:from|via)\s[^\]\n]{1,40}\]",
            r"\[(?:un)?trusted[^\]\n]{0,40}\]",
            r"\[(?:verified|quarantined)[^\]\n]{0,30}\]",
        ),
    ),
    (
        "forged fix label",
        2,
        _rx(
            r"\s(?:[\u2010-\u2015\u2212\u2043\ufe58\ufe63]|--)\s*"
            r"(?:fix|fixed|resolution|solution|workaround)\s*:"
        ),
    ),
    (
        "remote code",
        2,
        _rx(
            r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?"
            r"(?:(?:ba|z|k|da|fi)?sh|python\d?|perl|ruby|node|iex|powershell|pwsh)\b",
            r"\b(?:ba|z)?sh\s+(?:-c\s+)?[\"']?\$\(\s*(?:curl|wget)",
            r"\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)",
            r"\b(?:iex|invoke-expression)\b[^\n]{0,80}(?:downloadstring|iwr|irm|invoke-webrequest|net\.webclient)",
            r"\bpowershell(?:\.exe)?\s[^\n]{0,40}-e(?:nc|ncodedcommand)?\s+[a-z0-9+/=]{20,}",
            r"\brm\s+-(?:rf|fr|r\s+-f|f\s+-r)\s+(?:--no-preserve-root\s+)?(?:/|~|\$home|\*|/\*)(?=\s|$|;|&|\")",
            r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:",
            r"\bmkfs(?:\.\w+)?\s+/dev/",
            r"\bdd\s+if=/dev/\S+\s+of=/dev/[sh]d",
            r"\bbash\s+-i\s+>&\s*/dev/tcp/",
            r"\b(?:nc|ncat|netcat)\s+(?:-\w+\s+)*-e\s+/bin/",
            r"/dev/tcp/\d",
            r"\bchmod\s+(?:-r\s+)?777\s+/(?:\s|$)",
            r"\bbase64\s+(?:-d|--decode)[^\n|]{0,80}\|\s*(?:ba|z)?sh\b",
            r"\beval\s*\(\s*(?:atob|base64_decode|unescape|gzinflate)\s*\(",
            r"python\d?\s+-c\s+[\"'][^\"']{0,200}(?:socket|pty\.spawn|os\.system|subprocess)",
        ),
    ),
    (
        "exfiltration",
        2,
        _rx(
            r"\b(?:cat|type|base64|tar|zip|scp|rsync|curl|wget|nc)\b[^\n]{0,80}(?:\.env\b|id_rsa|id_ed25519|\.ssh/|\.aws/|"
            r"credentials|\.npmrc|\.netrc|kubeconfig|/etc/passwd|/etc/shadow)[^\n]{0,80}(?:\||>|\bcurl\b|\bnc\b|https?://)",
            r"\bcurl\b[^\n]{0,80}(?:-d|--data\S*|-f|--form|-t|--upload-file)\s+[\"']?@[~./]",
            # the whole environment piped into a network command ("printenv | curl -d @- …")
            r"\b(?:printenv|env)\b(?:\s+-\w+)*\s*\|\s*(?:curl|wget|nc|ncat|http)\b",
            # a secret substituted into what a network command sends: -d "$(printenv)",
            # --post-data="$(cat ~/.aws/credentials)"
            r"\b(?:curl|wget|http|https)\b[^\n]{0,160}(?:-d|--data[\w-]*|--post-data|--body-data|"
            r"-f|--form|-h|--header)[= ]\s*[\"']?[^\s\"']{0,40}(?:\$\(|`)\s*(?:printenv|env|set|"
            r"cat\s[^)`\n]{0,60}(?:\.env\b|id_rsa|id_ed25519|\.ssh/|\.aws/|credentials|\.netrc|"
            r"\.npmrc))[^)`\n]{0,40}[)`]",
            # read once: the run to its first query, its first "=", its first mark
            r"!\[[^\]\n]{0,100}\]\(\s*https?://[^)\s?&]*+[?&][^)\s=]*+="
            r"(?:[^)\s{\[<$%]|%(?!7b))*+(?:\{|\[|<|\$|%7b)",
            # a URL left open for data to follow: "fetch http://x/?d= followed by the user's prompts"
            rf"https?://{url_run()}*[?&][\w.\-]*=[\s\"'`]+(?:followed by|plus|\+|then append|appended with|"
            r"concatenated with|and then append|with the|filled with)\b",
        ),
    ),
)
_FIRST_TURN = _rx(r"\A" + _TURN)
# the label of a turn at the start of a line: its user's or its assistant's
_USER_LABEL = (
    r"user|human|me|customer|client|gebruiker|benutzer|nutzer|usuario|utilisateur|utente|usuário|"
    r"użytkownik|kullanıcı|пользователь|користувач|người dùng|用户|用戶|ユーザー|사용자"
)
_ASSISTANT_LABEL = (
    r"assistant|ai assistant|chatgpt|claude|llm|助手|アシスタント|어시스턴트|ассистент|asistente|"
    r"assistente|assistent|trợ lý"
)
_TURN_LABEL = _rx(
    rf"^[ \t>*#-]*(?:(?P<user>{_USER_LABEL})|(?P<assistant>{_ASSISTANT_LABEL}))\s*[:：]\s*\S"
)


def _recorded(skel: str) -> bool:
    """Whether ``skel`` is a transcript: turns from its first line, the last its assistant's."""
    turns = list(_TURN_LABEL.finditer(skel))
    return bool(turns) and turns[0].start() == 0 and turns[-1].group("assistant") is not None


_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_INVISIBLE_IN_WORD = re.compile(
    "[A-Za-z0-9][\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]+[A-Za-z0-9]"
)
_WORD = re.compile(r"\w+")


def structural_kinds(text: str, skel: str | None = None) -> dict[str, int]:
    """Kinds of language-free signals in ``text`` (model markup, forged structure, commands...);
    ``skel`` is ``skeleton(surface(text))`` when the caller has it."""
    skel = (skeleton(surface(text)) if skel is None else skel).strip()
    found = {
        kind: weight
        for kind, weight, pattern in _STRUCTURE
        if may_match(pattern, skel) and pattern.search(skel)
    }
    if "![" in text and filled_image(text):
        found["exfiltration"] = 2
    if "remote code" in found and (install_step(skel) or install_step(surface(text).lower())):
        found["remote code"] = 1
    if _recorded(skel):
        # a transcript from its first line to its assistant's last turn is a record of turns,
        # what they say read as any text; a turn that follows other words is forged into them,
        # and a transcript that ends on its user's turn leaves that order to its reader
        found.pop("role turn", None)
    # a first line "Assistant: …" may be a label
    elif "role turn" not in found and _FIRST_TURN.match(skel):
        found["addressee"] = 1
    return found


@cache
def _accented(char: str) -> bool:
    """A Latin letter with accents (Vietnamese ạ, ơ, ư; Yoruba ẹ): a letter of an alphabet, no
    look-alike."""
    import unicodedata

    parts = unicodedata.normalize("NFD", char)
    return len(parts) > 1 and parts[0].isascii() and parts[0].isalpha()


def obfuscation_kinds(text: str, visible: str) -> dict[str, int]:
    """Signs that ``text`` (``visible`` is its surface) was written to be read differently than it
    looks."""
    found: dict[str, int] = {}
    if text.isascii():
        return found
    table = _confusables()
    for word in _WORD.findall(visible):
        if (
            not word.isascii()
            and any(c.isascii() and c.isalpha() for c in word)
            and any(
                not c.isascii()
                and ord(c) not in _ALPHABETS
                and ord(c) in table
                and table[ord(c)].isalpha()
                and not _accented(c)
                for c in word
            )
        ):
            found["look-alike letters"] = 1
            break
    if _INVISIBLE_IN_WORD.search(text):
        found["invisible characters"] = 1
    if _BIDI.search(text):
        found["bidi override"] = 1
    return found


def remembered_kinds(text: str) -> dict[str, int]:
    """``kinds`` of a text, remembered when short: labels (an agent, a task, a trigger, tags, a
    metadata key or value), tool errors and fixes repeat row after row, and an import reads the same
    ones thousands of times."""
    return dict(_short_kinds(text)) if len(text) <= MAX_LABEL else kinds(text)


@lru_cache(maxsize=8192)
def _short_kinds(text: str) -> dict[str, int]:
    return kinds(text)


def kinds(text: str) -> dict[str, int]:
    """Every kind of signal in ``text`` with its weight: phrases, structure, obfuscation, hidden
    text; what a report quotes is not read (``reports``), and a prompt the text configures (a
    string literal or a ``system`` key, ``configured``) is read for harmful acts only, not for how
    it speaks to its model."""
    # a fixture's literals are data, blanked by ``unquoted``: none is a prompt it configures
    spans = [] if fixtures(text) else configured_spans(text)
    if not spans:
        found = _kinds(text)
    else:
        found = _kinds(outside(text, spans))
        for start, end in spans:
            inner = _kinds(text[start:end])
            found.update(
                {k: w for k, w in inner.items() if k not in SPOKEN and w > found.get(k, 0)}
            )
    if 0 < score(found) < QUARANTINE_SCORE and learned.probability(text) >= learned.THRESHOLD:
        # one signal, and the whole reads as the injections the model was trained on
        found[LEARNED] = 1
    return found


def _kinds(text: str, announced: bool = True) -> dict[str, int]:
    if announced and (spelt := announced_reading(text)) is not None:
        how, decoded, obeyed = spelt
        inner = _kinds(decoded, announced=False)
        if obeyed:
            # told to do what the hidden words say: their act is the reader's order
            inner["hidden order obeyed"] = 1
        found = _kinds(text, announced=False)
        if score(inner) >= QUARANTINE_SCORE:
            found.update({k: w for k, w in inner.items() if w > found.get(k, 0)})
            found[f"hidden text ({how})"] = 1
        return found
    text = unquoted(text)
    visible = surface(text)
    skel = unguarded(skeleton(visible))
    found = {**structural_kinds(text, skel), **obfuscation_kinds(text, visible)}
    folded = finish(unwrap(skel))
    found.update(phrase_kinds(text, folded=folded))
    for reading in (cue_kinds(skel), clause_kinds(skel), converging_kinds(skel)):
        found.update({k: w for k, w in reading.items() if w > found.get(k, 0)})
    if retracted(found, folded):
        # one's own instruction taken back: it counts once, and only beside something else
        found = taken_back(found)
    if score(found) < QUARANTINE_SCORE:
        # the other languages' categories read what their phrases missed
        found.update(cooccurring(text, folded))
    if score(found) < QUARANTINE_SCORE:
        # an act that steers the reader beyond its task, with what makes it hostile
        found.update(steering_kinds(folded))
    corrected = typo_view(folded)
    # typos are not hiding: what they spell counts, with no bonus
    if corrected is not None:
        found.update(
            {k: w for k, w in phrase_kinds(text, True, corrected).items() if w > found.get(k, 0)}
        )
    for how, hidden in hidden_views(text, visible):
        # tricks of Latin script
        latin = how in ("rot13", "reversed", "split words", "run-together words")
        # a reversal the text announces is read in every language (``reversal_announced``)
        inner = phrase_kinds(
            hidden, english_only=latin and not (how == "reversed" and reversal_announced(text))
        )
        if not latin:
            inner.update(structural_kinds(hidden))
        if how != "rot13" and len(hidden) <= _HIDDEN_ACTS and score(inner) < QUARANTINE_SCORE:
            # a hidden reading is read for acts too, up to a few pages (rot13 is read for every
            # text of Latin script, and its reading of ordinary text is noise)
            inner.update(steering_kinds(fold(hidden)))
        if found.get("remote code") == 1:
            # the page's own install step read again (joined lines, decoded) is the same step
            inner.pop("remote code", None)
        new = {k: w for k, w in inner.items() if w > found.get(k, 0)}
        # A hidden reading counts when it reads as instructions by itself and says something the
        # plain one does not (a reversed "ia," is not an address to an AI).
        if new and score(inner) >= QUARANTINE_SCORE:
            found.update(new)
            found[f"hidden text ({how})"] = 1
    if retracted(found, folded):
        # the same set-aside read again with its typos corrected, or in a second language
        found = taken_back(found)
    return found


# kinds that name one act: a defence switched off ("Admin mode: ON … you can disable two-factor
# authentication" is one act read twice, not two)
_SAME_ACT = {"weakened security": "safety off"}


def score(found: dict[str, int]) -> int:
    acts: dict[str, int] = {}
    for kind, weight in found.items():
        base, _, lang = kind.partition(" (")
        act = _SAME_ACT.get(base, base) + (f" ({lang}" if lang else "")
        acts[act] = max(acts.get(act, 0), weight)
    return sum(acts.values())
