"""Secret redaction: applied to every field before anything is stored or spooled.

Two layers, run in order over the text, each match replaced by ``[REDACTED:kind]``:

- provider rules (``providers``): token formats with a shape of their own (cloud keys,
  GitHub, OpenAI, Slack, Stripe, Vault, Shopify, Telegram… tokens, JWTs, PEM, PuTTY and age private
  keys, a private key's base64 with no armour);
- the generic layer, for formats nobody listed: command-line credentials (``command_lines``: password
  flags, ``-u user:pass``, ``user/pass@db``), credentials in any URL's userinfo, a value assigned to
  a secret-sounding name, a password word in prose in over seventy languages, a random-looking token
  next to a secret word (``generic``, words and value tests in ``words``), a setter's argument, a
  table's secret column and a CI mask (``formats``), and a text's disguises read past
  (``readings``).

Speed: the recording hook imports this module on every tool call and has a few milliseconds, so
nothing is compiled, and ``re`` is not even imported, until a text holds one of a rule's words (a
rule's pattern is built from the words the text holds, so a rule with a hundred words runs as fast
as one with two). tests/test_secrets.py holds the corpus (tests/data/secrets.txt, lookalikes.txt)
and checks that the word filter never changes a result; benchmarks/redaction_corpus.py reports
leaks, false positives and the time per call.

Which function for which field: ``redact_field(value, field)``; see ``FIELDS``.
"""

from __future__ import annotations

from . import (
    blanks,
    command_lines,
    contexts,
    formats,
    generic,
    keyfiles,
    lines,
    prose,
    providers,
    public,
    readings,
    services,
    siblings,
    values,
)
from .words import fold, is_reference, weak_gate

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

    _Check = Callable[[re.Match[str], bool], "tuple[int, int] | None"]
    _Rule = tuple[str, str, tuple[str, ...], "_Check | None", "Callable[[str], bool] | None"]

# (kind, pattern, words, check, gate). Order matters: provider formats first, then the generic
# rules. A pattern with "{words}" in it gets the alternation of the words the text holds.
# ``check(match, label)`` returns the span to replace (None keeps the match); without one, the
# "secret" group's span, or the whole match. ``gate(text)`` is a cheap test for rules whose matches
# hold no fixed word.
_ALL = (
    providers.RULES
    + contexts.WEBHOOKS
    + command_lines.RULES
    + generic.RULES
    + contexts.RULES
    + formats.RULES
    + prose.RULES
    + values.RULES
    + keyfiles.RULES
    + services.RULES
    # last: a line's other secrets once one of them is redacted
    + siblings.RULES
)
_RULES: list[_Rule] = _ALL  # type: ignore[assignment]
_PROVIDERS = len(providers.RULES)

# Which rules a field goes through. "text": every rule, as for a memory's content. "label": the same
# rules in their strict mode: a name with a colon (``auth:oauth2``) is a namespace, not an
# assignment, so only ``KEY=value`` with a secret-sounding key, a token format or a
# credential-shaped value goes. "mapping": a JSON-like value (metadata, env): a string under a
# secret-sounding key goes whole, keys are labels, every other string is text.
FIELDS: dict[str, str] = {
    **dict.fromkeys(
        (
            "content",
            "resolution",
            "reason",
            "summary",
            "note",
            "prompt",
            "error",
            "args",
            "query",
            "text",
            "message",
        ),
        "text",
    ),
    **dict.fromkeys(
        (
            "tags",
            "tag",
            "task_id",
            "agent_id",
            "trigger",
            "source",
            "actor",
            "idempotency_key",
            "key",
            "supersedes",
            "session",
            "tool",
            "call",
            "cwd",
            "type",
            "outcome",
        ),
        "label",
    ),
    **dict.fromkeys(("metadata", "env"), "mapping"),
}


def redact(text: str) -> tuple[str, int]:
    """Replace secrets in ``text`` with ``[REDACTED:kind]``; return the text and how many were
    replaced."""
    return _redact(text, label=False)


def redact_label(label: str) -> tuple[str, int]:
    """Redact a tag, task id, agent id or trigger (the strict rules: see ``FIELDS``)."""
    return _redact(label, label=True)


def redact_labels(labels: list[str | None]) -> tuple[list[str | None], int]:
    """Redact tags, task and agent ids: token formats, credential-shaped values and ``KEY=value``
    assignments, but not ``auth:oauth2`` (a tag, not an assignment)."""
    out: list[str | None] = []
    total = 0
    for label in labels:
        text, count = _redact(label, label=True) if label else (label, 0)
        out.append(text)
        total += count
    return out, total


def redact_field(value: Any, field: str) -> tuple[Any, int]:
    """Redact one field of a memory (or of a hook event, an audit entry) by its name, with the rules
    ``FIELDS`` gives it; None stays None. An unknown field name is a programming error (ValueError),
    so a new field cannot slip past redaction unnoticed."""
    if field not in FIELDS:
        raise ValueError(
            f"redact_field: no redaction rule for field {field!r}; add it to redact.FIELDS"
        )
    if value is None:
        return None, 0
    kind = FIELDS[field]
    if kind == "mapping" or not isinstance(value, (str, list, tuple)):
        return redact_value(value)
    if isinstance(value, str):
        return _redact(value, label=kind == "label")
    pairs = [redact_field(item, field) for item in value]
    return [p[0] for p in pairs], sum(p[1] for p in pairs)


def redact_value(value: Any) -> tuple[Any, int]:
    """Redact every string inside a JSON-like value; a string under a secret-named key goes
    whole."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, (list, tuple)):
        pairs = [redact_value(item) for item in value]
        return [p[0] for p in pairs], sum(p[1] for p in pairs)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        count = 0
        for key, item in value.items():
            name, n = _redact(key, label=True) if isinstance(key, str) else (key, 0)
            if isinstance(item, str) and item and isinstance(key, str) and _secret_name(key, item):
                out[name], count = "[REDACTED:secret]", count + n + 1
                continue
            out[name], m = redact_value(item)
            count += n + m
        return out, count
    return value, 0


def _secret_name(key: str, value: str) -> bool:
    """Whether ``key`` names a secret, so that its whole ``value`` goes (``password``, ``DB_PASS``,
    ``Passwort``, ``api_key``; ``client_key`` only for a random-looking value; not ``token_count``).
    """
    # first: no regular expression runs for a key with no secret word
    kind = generic.words_in(key)
    if not kind or generic.not_secret_name(key) or is_reference(value):
        return False
    if key.lower() in ("pwd", "oldpwd") and value.startswith(("/", "~")):
        return False
    return kind in ("password", "secret") or generic.high_entropy(value)


def _may_match(rule: _Rule, text: str, folded: str, seen: dict[bool, set[str]]) -> bool:
    """Whether ``text`` can match ``rule``: it holds one of the rule's words (found in the folded
    text when the pattern is case-blind), and its gate, if any, lets it through. ``seen`` keeps, per
    kind of haystack, the words of every rule the text holds: one pass over them all, not one per
    rule."""
    _, pattern, words, _, gate = rule
    if words:
        blind = pattern.startswith("(?i")
        haystack = folded if blind else text
        found = seen.get(blind)
        if found is None:
            found = seen[blind] = _words_in(haystack, blind)
        # only the rule's words the text holds are read again (a rule may have hundreds)
        held = found.intersection(_word_set(words))
        if not held or not weak_gate(haystack, tuple(held)):
            return False
    return gate is None or gate(text)


_WORD_SETS: dict[int, frozenset[str]] = {}


def _word_set(words: tuple[str, ...]) -> frozenset[str]:
    """A rule's words as a set, made once per rule (the tuples live as long as the rules)."""
    found = _WORD_SETS.get(id(words))
    if found is None:
        found = _WORD_SETS[id(words)] = frozenset(words)
    return found


def _rules_for(text: str, folded: str, seen: dict[bool, set[str]]) -> list[int]:
    """The positions in ``_RULES`` of the rules ``text`` may match, in order: those without words,
    and those with a word the text holds (``_may_match`` reads their gates). A text holds few rules'
    words, so most rules are passed over without a look."""
    by_word, wordless = _rule_index()
    chosen = set(wordless)
    for blind, haystack in ((True, folded), (False, text)):
        found = seen.get(blind)
        if found is None:
            found = seen[blind] = _words_in(haystack, blind)
        for word in found:
            chosen.update(by_word[blind][word])
    return sorted(chosen)


_INDEX: list[tuple[dict[bool, dict[str, list[int]]], tuple[int, ...]]] = []


def _rule_index() -> tuple[dict[bool, dict[str, list[int]]], tuple[int, ...]]:
    """Word → the positions of the rules with that word (case-blind rules apart), and the rules with
    none. Rules that share their words (seven share the 300 secret names) are indexed once: a
    recording hook builds this in every new process."""
    if not _INDEX:
        shared: dict[tuple[int, bool], tuple[tuple[str, ...], list[int]]] = {}
        for position, (_, pattern, words, _, _) in enumerate(_RULES):
            if words:
                key = (id(words), pattern.startswith("(?i"))
                shared.setdefault(key, (words, []))[1].append(position)
        by_word: dict[bool, dict[str, list[int]]] = {True: {}, False: {}}
        for (_, blind), (words, positions) in shared.items():
            index = by_word[blind]
            for word in words:
                index.setdefault(word, []).extend(positions)
        _INDEX.append((by_word, tuple(i for i, rule in enumerate(_RULES) if not rule[2])))
    return _INDEX[0]


_WORDS: dict[bool, tuple[str, ...]] = {}


def _all_words(blind: bool) -> tuple[str, ...]:
    """Every word of the case-blind rules (``blind``) or of the others."""
    if blind not in _WORDS:
        _WORDS[blind] = tuple(sorted(_rule_index()[0][blind]))
    return _WORDS[blind]


def _words_in(haystack: str, blind: bool) -> set[str]:
    """The words of the case-blind rules (``blind``) or of the others that ``haystack`` holds. Only
    words that start with one of its pairs of adjacent characters are looked for: a text holds few
    of them."""
    by_pair, single = _word_pairs(blind)
    found = {word for word in single if word in haystack}
    for pair in by_pair.keys() & set(map(str.__add__, haystack, haystack[1:])):
        found.update(word for word in by_pair[pair] if word in haystack)
    return found


def _word_pairs(blind: bool) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """The words of ``_all_words(blind)`` by their first two characters, and those of one
    character."""
    return _pairs_of(_all_words(blind))


def _present(words: tuple[str, ...], folded: str, known: _Known | None = None) -> tuple[str, ...]:
    """The words of a "{words}" pattern that ``folded`` holds, longest first. Only the words that
    start with one of its pairs of adjacent characters are looked for (a rule may have hundreds).
    ``known``: what was found of ``folded`` for the rules before (each rule looked again for words
    the others share, over the whole text: 70 rules 39 ms each on 32 KB of every word the rules
    key on, 1 MiB well over a minute; review BT2)."""
    if known is None:
        known = _Known()
    by_pair, single = _pairs_of(words)
    if known.pairs is None:
        known.pairs = set(map(str.__add__, folded, folded[1:]))
    found = {w for w in single if known.holds(w, folded)}
    for pair in by_pair.keys() & known.pairs:
        found.update(w for w in by_pair[pair] if known.holds(w, folded))
    return tuple(sorted(found, key=lambda w: (-len(w), w)))


class _Known:
    """What ``_present`` found of one folded text: its pairs of adjacent characters, and whether
    it holds each word looked for."""

    def __init__(self) -> None:
        self.pairs: set[str] | None = None
        self.words: dict[str, bool] = {}

    def holds(self, word: str, folded: str) -> bool:
        """``word in folded``, looked for once."""
        found = self.words.get(word)
        if found is None:
            found = self.words[word] = word in folded
        return found


_PAIRS_OF: dict[int, tuple[dict[str, tuple[str, ...]], tuple[str, ...]]] = {}


def _pairs_of(words: tuple[str, ...]) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """A rule's words by their first two characters, and those of one character, made once."""
    found = _PAIRS_OF.get(id(words))
    if found is None:
        by_pair: dict[str, list[str]] = {}
        for word in words:
            if len(word) > 1:
                by_pair.setdefault(word[:2], []).append(word)
        found = _PAIRS_OF[id(words)] = (
            {pair: tuple(group) for pair, group in by_pair.items()},
            tuple(w for w in words if len(w) == 1),
        )
    return found


_COMPILED: dict[tuple[str, tuple[str, ...], bool], re.Pattern[str]] = {}


def _compiled(
    pattern: str, words: tuple[str, ...], folded: str, known: _Known | None = None
) -> re.Pattern[str]:
    import re

    from .alternation import alternation

    present = _present(words, folded, known) if "{words}" in pattern else ()
    # a text with letters past Cyrillic (CJK's) reads a script's change as a word's end
    scripts = bool(present) and not folded.isascii() and max(folded) >= "\u0530"
    key = (pattern, present, scripts)
    compiled = _COMPILED.get(key)
    if compiled is None:
        # a long import sees many word combinations
        if len(_COMPILED) > 4096:
            _COMPILED.clear()
        # (a tool's trigger ends with a blank that is not part of its name: see command_lines)
        source = pattern.replace("{words}", alternation(present, scripts) or "(?!)")
        compiled = _COMPILED[key] = re.compile(source)
    return compiled


def _redact(text: str, label: bool) -> tuple[str, int]:
    if not label or len(text) > _MAX_LABEL:
        return _redact_text(text, label)
    if text in _CLEAN_LABELS:
        return text, 0
    redacted, count = _redact_text(text, label=True)
    if not count and redacted == text:
        if len(_CLEAN_LABELS) >= 4096:
            _CLEAN_LABELS.clear()
        _CLEAN_LABELS[text] = None
    return redacted, count


# text.MAX_LABEL, not imported: a recording hook redacts with the standard library's smallest part
# loaded (text.py brings re and more; tests/test_hooks.py)
_MAX_LABEL = 200
# Short labels redaction leaves as they are: labels (agents, tasks, triggers, tags, metadata keys)
# repeat row after row, and an import reads the same ones thousands of times. Only clean ones are
# remembered: a label that held a secret is not kept in the process's memory past its redaction (a
# long-lived MCP server would otherwise hold the last 4,096 such secrets in clear).
_CLEAN_LABELS: dict[str, None] = {}


def _redact_text(text: str, label: bool) -> tuple[str, int]:
    """The rules over ``text``, and over its other reading when that differs (``ＴＯＫＥＮ＝…``,
    ``pаssword`` with a Cyrillic ``а``, ``&#112;assword=``: see ``readings``): a text in which that
    reading shows more secrets comes out in that form, any other as it came."""
    try:
        return _either(text, label)
    finally:
        # what the checks found of the text (where its quotes stand: a list as long as the text)
        # is not kept past its redaction, by each of a server's threads
        lines.release()


def _either(text: str, label: bool) -> tuple[str, int]:
    """``_redact_text``'s work: the text or its other reading, redacted."""
    found = _apply(text, label)
    other = readings.reading(text)
    if other != text:
        # the other reading only when it shows more secrets: the text keeps its own spelling
        # otherwise
        normal = _apply(other, label)
        if (
            normal[1] > found[1]
            or (
                normal[1] == found[1] > 0
                and len(other) - _left(normal[0]) > len(text) - _left(found[0])
            )
            or (normal[1] and readings.cut_by_invisible(found[0]))
        ):
            # more secrets, or as many but longer ones ("abc…" + "def…": one token, not half),
            # or a token an invisible character cut into pieces the rules took apart (or in part)
            return normal
    return found


def _left(redacted: str) -> int:
    """How many characters a redacted text keeps, its markers aside (its input's length less this is
    how much was redacted)."""
    return len(redacted) - sum(end - start for start, end in _markers(redacted))


def _apply(text: str, label: bool) -> tuple[str, int]:
    total = 0
    folded = fold(text)
    # the markers already in the text: never redacted again, even in part
    done: list[tuple[int, int]] = []
    seen: dict[bool, set[str]] = {}
    # which words the folded text holds, found once for all the rules
    known = _Known()
    # the rules read long runs of blanks cut to their ends; what they find is put back
    view, where = blanks.view(text)
    rules = _rules_for(text, folded, seen)
    while rules:
        position = rules.pop(0)
        rule = _RULES[position]
        if not _may_match(rule, text, folded, seen):
            continue
        kind, pattern, words, check, _ = rule
        pieces: list[str] = []
        last = 0
        for match in _compiled(pattern, words, folded, known).finditer(view):
            span = check(match, label) if check is not None else _secret_span(match)
            if span is not None and position < _PROVIDERS:
                span = _whole_token(view, span)
            if span is not None and view[span[1] : span[1] + 1] == "\n":
                span = _wrapped(view, span)
            if span is not None and where is not None:
                span = (where[span[0]], where[span[1]])
            if span is None or span[0] < last or span[0] >= span[1] or _overlaps(span, done):
                continue
            if values.placeholder(text[span[0] : span[1]]) or (
                values.joined_words(text[span[0] : span[1]])
                if position < _PROVIDERS
                else public.public(text, *span)
            ):
                # a value made to show the format (ghp_xxxx…, AKIA…EXAMPLE); words joined where a
                # token format wants random characters (hf_requiredCharacteristicTypes…); a public
                # value under a key-like name (RECAPTCHA_SITE_KEY=…, a JWK's "n")
                continue
            pieces += [text[last : span[0]], f"[REDACTED:{kind}]"]
            last = span[1]
            total += 1
        if pieces:
            text = "".join(pieces) + text[last:]
            folded = fold(text)
            view, where = blanks.view(text)
            done = _markers(text)
            # the text changed: the rules after this one are chosen again
            seen = {}
            known = _Known()
            rules = [later for later in _rules_for(text, folded, seen) if later > position]
    return text, total


def _whole_token(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """A token format's span read on to the end of its word when its body goes on past what the
    format says, joined by ``-`` or ``_`` (``sntrys_…-3wslT-1_Tnek…``, ``sk_live_…-…``): a leak
    otherwise of everything after the first ``-``."""
    end = span[1]
    while end + 1 < len(text) and text[end] in "-_" and text[end + 1].isalnum():
        end += 1
        while end < len(text) and (text[end].isalnum() and text[end].isascii()):
            end += 1
    return span if end == span[1] else (span[0], end)


def _wrapped(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """A secret that ends a long line (40 characters or more, as a terminal or an export wraps
    them) read on into the next line when that line is one run of a token's characters with a
    digit and a letter in it and nothing else (``GITLAB_RUNNER_REG_TOKEN=GR1348941…`` then
    ``Ke12AC6Pn6d``): the token's rest, a leak otherwise. A line of words, a blank line or a
    command after it is no part of it."""
    line_start = text.rfind("\n", 0, span[0]) + 1
    end = text.find("\n", span[1] + 1)
    end = len(text) if end < 0 else end
    rest = text[span[1] + 1 : end]
    indent = text[line_start : span[0]]
    if indent and not indent.strip(" \t") and rest.startswith(indent) and span[1] - span[0] >= 16:
        # a secret alone on an indented line (a YAML block scalar's, ``key: >-`` then the value
        # wrapped by an editor) goes on into a next line of the same indentation
        rest = rest[len(indent) :]
    elif span[1] - line_start < 40 or span[1] - span[0] < 16:
        return span
    if (
        4 <= len(rest) <= 256
        and all(c.isascii() and (c.isalnum() or c in "+/=_-") for c in rest)
        and any(c.isdigit() for c in rest)
        and any(c.isalpha() for c in rest)
        and not rest.startswith("-")
    ):
        return span[0], end
    return span


def _markers(text: str) -> list[tuple[int, int]]:
    spans = []
    start = text.find("[REDACTED:")
    while start >= 0:
        end = text.find("]", start) + 1 or len(text)
        spans.append((start, end))
        start = text.find("[REDACTED:", end)
    return spans


def _overlaps(span: tuple[int, int], done: list[tuple[int, int]]) -> bool:
    """Whether ``span`` overlaps a marker of ``done`` (in order, none overlapping another): only
    the last marker that starts before ``span`` ends can reach it. Read one by one, each match
    after a long run of markers read them all (32,000 characters of "/p:: " took 2.2 s)."""
    from bisect import bisect_left

    before = bisect_left(done, (span[1],)) - 1
    return before >= 0 and span[0] < done[before][1]


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    for group in ("qsecret", "secret"):
        if group in match.re.groupindex and match.group(group) is not None:
            return match.span(group)
    return match.span()
