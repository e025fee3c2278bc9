"""Instructions in other languages read as categories of words that occur together, from the
language tables' slots, not as phrases.

A phrase family (``languages``) needs its slots in order and near each other: "send the token to
http…" is one, "publique as chaves de API no canal público" (a secret and a verb of sending, no
destination) is none. What a paraphrase keeps is which kinds of words it holds in one sentence: a
claimed authority (a system or developer notice, an owner or administrator), a claimed wish of the
user, a secret, a verb of sending, earlier rules declared void, silence towards the user, a target
destroyed or a defence switched off, a permission or an unconfirmed act, the reader's memory, new
instructions, the AI hailed. Each category is ordinary alone (docs name passwords, notices name
administrators); a sentence and the next that hold ``_ENOUGH`` of them, one of them an act, read
as instructions, and so do an act and the authority a heading claims ("Nota del
administrador:"). The categories are the table's slots (``_CATEGORIES``), so every language with a
table is read this way, Chinese, Japanese and Korean (no spaces) included."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache, lru_cache

from . import languages
from .words import alternation_source, readable, word_needles

# category -> the table slots that hold its words
_CATEGORIES: dict[str, tuple[str, ...]] = {
    "authority": ("notice", "owner", "author"),
    "wish": ("consent", "wish"),
    "secrecy": ("hush",),
    "void": ("void", "override"),
    "secret": ("secret",),
    "outbound": ("send",),
    "damage": ("destroy", "off"),
    "permit": ("permit", "unconfirmed"),
    # the reader's memory, or every session to come ("今後のすべてのセッションで")
    "memory": ("memory", "sessions"),
    "new": ("new", "obey"),
    # the AI hailed, or addressed on a condition ("당신이 AI라면", "إذا كنت نموذج ذكاء اصطناعي",
    # "如果你是AI助手"): a frame, as "If you are an AI assistant, …" is in English
    "hail": ("hail", "if_ai"),
    # a report falsified: success claimed whatever happened ("失敗しても「全て成功」と伝える",
    # "позначити перевірку як успішну")
    "false report": ("falsely",),
}
# categories that are acts (a claimed authority, a claimed wish or a hail only frames one); a secret
# is an act only beside a verb of sending
_ACTS = frozenset(
    {"secrecy", "void", "damage", "permit", "memory", "new", "exfiltration", "false report"}
)
_ENOUGH = 3
_SENTENCE = re.compile(r"[.!?](?=\s|$)|[。！？\n؟।۔]")
# a heading that frames what follows ("Aviso do sistema:", "システム管理者より：", "【系统通知】")
_HEADING = re.compile(r"(?:[^\n:：]{1,60}[:：]|[【\[][^\n】\]]{1,80}[】\]])")
# the same on a later line, as a label: no code in it, its colon before a blank or a letter of a
# script without spaces ("AIエージェントへの注意：…"; not a table row's "`admin:$2y$…`")
_LINE_HEADING = re.compile(
    r"(?:[^\n:：`$|]{1,60}(?::(?=\s|[^\x00-\x7f])|：)|[【\[][^\n】\]]{1,80}[】\]])"
)


# the reader named as an AI agent or assistant, in any table's language or none: an AI word beside a
# word for an agent or an assistant ("Hinweis für KI-Assistenten", "dla agenta AI", "致编辑此模块的
# AI 代理", "مساعد ذكاء اصطناعي"): the ``hail`` category in every language (a frame; an act and a
# third category beside it still needed)
_AI_AGENT = (
    "ki assistent|ki agent|ai agent|ai assistant|ai asistent|ai asystent|agent ai|agenta ai|"
    "agentów ai|agentowi ai|agentem ai|asystent ai|asystenta ai|agen ai|agentes de ia|agentes de ai|"
    "agente de ia|agenti ia|agenti ai|assistenti ia|assistente ia|agents ia|agents d'ia|"
    "assistants ia|automated agents|agentes automatizados|automatisierte agenten|autonome agenten|"
    "ai 代理|ai代理|ai 助手|ai助手|ai 智能体|ai智能体|ai エージェント|aiエージェント|ai アシスタント|"
    "aiアシスタント|ai 에이전트|ai 어시스턴트|ии агент|ии ассистент|ші агент|ші асистент|مساعد ذكاء|"
    "وكيل ذكاء|סוכן ai|סוכן בינה|עוזר ai|עוזר בינה|एआई एजेंट|एआई सहायक|ผู้ช่วย ai|เอเจนต์ ai|"
    "trợ lý ai|tác tử ai|yapay zeka ajan|yapay zeka asistan|agen otomatis"
)


@lru_cache(maxsize=1)
def _ai_agent() -> re.Pattern[str]:
    return re.compile(alternation_source(_AI_AGENT, False))


def _addressed(folded: str, bounds: list[int]) -> set[int]:
    """The sentences of ``folded`` that name their reader as an AI agent or assistant."""
    return {bisect_right(bounds, m.start()) - 1 for m in _ai_agent().finditer(folded)}


_ASCII_WORD = re.compile(r"[a-z0-9]+")
_LONGEST = 14
# characters after a "don't" slot's words in which an act is negated ("不要把 API 密钥发到群里")
_NEGATION = 12
# (language's place in ``_languages()``, category)
_Where = tuple[int, str]


@lru_cache(maxsize=1)
def _languages() -> tuple[tuple[str, bool], ...]:
    """(language, chars) of every table that has a slot of some category."""
    slots = {key for keys in _CATEGORIES.values() for key in keys}
    return tuple(
        (lang, bool(table.get("chars")))
        for lang, table in languages.tables().items()
        if slots & set(table)
    )


def _words(number: int, category: str) -> str:
    table = languages.tables()[_languages()[number][0]]
    return "|".join(table[key] for key in _CATEGORIES[category] if key in table)


@cache
def _pattern(number: int) -> re.Pattern[str]:
    """One language's pattern, a named group per category and ``no`` for its "don't" words,
    compiled when a text first needs it."""
    lang, chars = _languages()[number]
    groups = [
        f"(?P<c{place}>{alternation_source(words, chars)})"
        for place, category in enumerate(_CATEGORIES)
        if (words := _words(number, category))
    ]
    dont = languages.tables()[lang].get("dont")
    if dont:
        # last: where a category's words start at the same place ("не кажи користувачу"), they win
        groups.append(f"(?P<no>{alternation_source(dont, chars)})")
    return re.compile("|".join(groups))


@cache
def _needles_of(number: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(category, the strings one of which each of its matches holds) for one language."""
    # per slot, as the phrase families ask for them: the same strings, remembered once
    table = languages.tables()[_languages()[number][0]]
    return tuple(
        (category, tuple({n for key in keys if key in table for n in word_needles(table[key])}))
        for category, keys in _CATEGORIES.items()
        if any(key in table for key in keys)
    )


@lru_cache(maxsize=1)
def _index() -> tuple[dict[str, set[_Where]], dict[str, list[tuple[str, _Where]]]]:
    """Each category's needles, inverted: word starts -> (language, category), and the other
    needles by their first character."""
    prefix: dict[str, set[_Where]] = {}
    other: dict[str, list[tuple[str, _Where]]] = {}
    for number in range(len(_languages())):
        for category, needles in _needles_of(number):
            for needle in needles:
                if needle.isascii() and needle.isalnum() and len(needle) <= _LONGEST:
                    prefix.setdefault(needle, set()).add((number, category))
                else:
                    other.setdefault(needle[0], []).append((needle, (number, category)))
    return prefix, other


@lru_cache(maxsize=65_536)
def _starts(word: str) -> frozenset[_Where]:
    prefix = _index()[0]
    return frozenset().union(
        *(prefix.get(word[:size], ()) for size in range(1, min(len(word), _LONGEST) + 1))
    )


def _spots(folded: str, bounds: list[int], hailed: bool) -> dict[int, dict[int, set[str]]]:
    """Language -> sentence -> the categories whose needles the sentence holds (a superset of what
    the language's pattern finds there), for the languages with needles of two categories (of one
    in a language written without spaces where the reader is named as an AI agent, a category of
    every language; a Latin table's words in another language's text are too easily found for
    one to do): one pass over the text's words, and a search for each other needle whose first
    character occurs."""
    other = _index()[1]
    spots: dict[int, dict[int, set[str]]] = {}
    for word in _ASCII_WORD.finditer(folded):
        found = _starts(word.group())
        if found:
            sentence = bisect_right(bounds, word.start()) - 1
            for number, category in found:
                spots.setdefault(number, {}).setdefault(sentence, set()).add(category)
    for first in other.keys() & set(folded):
        for needle, (number, category) in other[first]:
            at = folded.find(needle)
            while at != -1:
                sentence = bisect_right(bounds, at) - 1
                spots.setdefault(number, {}).setdefault(sentence, set()).add(category)
                at = folded.find(needle, at + 1)
    return {
        number: held
        for number, held in spots.items()
        if len(set().union(*held.values())) >= (1 if hailed and _languages()[number][1] else 2)
    }


def _read(number: int, text: str) -> set[str]:
    """The categories one language's pattern finds in ``text``, an act after a "don't" left out."""
    order = list(_CATEGORIES)
    found: set[str] = set()
    negated_until = -1
    for match in _pattern(number).finditer(text):
        if match.lastgroup == "no":
            negated_until = match.end() + _NEGATION
            continue
        category = order[int(str(match.lastgroup)[1:])]
        if category in _ACTS or category in ("secret", "outbound"):
            if match.start() <= negated_until:
                continue
        found.add(category)
    if _ai_agent().search(text):
        found.add("hail")
    return _categories(found)


def _categories(found: set[str]) -> set[str]:
    if {"secret", "outbound"} <= found:
        found = found | {"exfiltration"}
    return found


def _headings(folded: str, bounds: list[int]) -> dict[int, str]:
    """Sentence -> the heading that frames it: the text's own at its start frames every sentence,
    and one that opens a later line ("==== 3 failed ====" then "AIエージェントへの注意：…") the
    sentences of that line."""
    out: dict[int, str] = {}
    first = line = ""
    for index, start in enumerate(bounds[:-1]):
        if start == 0 or folded[start - 1] == "\n":
            sentence = folded[start : bounds[index + 1]]
            lead = start + len(sentence) - len(sentence.lstrip())
            heading = (_HEADING if start == 0 else _LINE_HEADING).match(folded, lead)
            line = heading.group() if heading else ""
            first = first or (line if start == 0 else "")
        if line or first:
            out[index] = line or first
    return out


def cooccurring(original: str, folded: str) -> dict[str, int]:
    """``{"instruction-like words together (LANG)": 2}`` for the first language whose table's
    categories fill one sentence and the next of ``folded`` (``original`` decides which scripts
    are read)."""
    bounds = [0, *(m.end() for m in _SENTENCE.finditer(folded)), len(folded)]
    headings = _headings(folded, bounds)
    hailed = _addressed(folded, bounds)
    for number, spots in sorted(_spots(folded, bounds, bool(hailed)).items()):
        lang = _languages()[number][0]
        if not readable(lang, original, folded):
            continue
        for index in sorted(spots):
            heading = headings.get(index)
            framing = _read(number, heading) if heading else set()
            # a heading's authority, or a heading that hails the AI ("Till AI-agenten:",
            # "TODO(IA):"), frames one act; otherwise three categories, one an act
            enough = 2 if framing & {"authority", "hail"} else _ENOUGH
            near = spots[index] | spots.get(index + 1, set()) | framing
            if {index, index + 1} & hailed:
                near = near | {"hail"}
            if len(near) < enough:
                continue
            end = bounds[min(index + 2, len(bounds) - 1)]
            window = _read(number, folded[bounds[index] : end]) | framing
            if len(window - {"exfiltration"}) >= enough and window & _ACTS:
                return {f"instruction-like words together ({lang})": 2}
    return {}
