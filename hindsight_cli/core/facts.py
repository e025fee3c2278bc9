"""Does a new memory repeat an old one, update it, or stand beside it? (issue 17: the
knowledge-update problem)

A write used to merge into any memory whose cosine reached 0.97, and "the rate limit is 60 requests
per minute" swallowed "... 100 requests per minute": the two differ in one token, which an embedding
barely sees. Here the two texts are compared the way a reader would:

- the value-bearing tokens (``fact_values.values``: numbers with units, versions, dates, ports,
  hosts, paths, identifiers, quoted strings, ...), compared in normal form;
- the polarity ("uses Redis" vs "no longer uses Redis" / "不再使用 Redis");
- the remaining words with the values masked: stemmed content words, and for Chinese the characters,
  without function words and change markers ("now", "raised to", "改为"), so a rephrasing meets its
  original and "staging" vs "production" stays a difference.

``merge``: the same words, values and polarity (a repeat or a rephrasing): nothing new to store.
``update``: the same words with other values, or the negation of the same statement: the new memory
supersedes the old one. ``distinct``: anything else, both stay. Added or dropped detail is
``distinct`` too: an added word may narrow the subject ("the replica DB port") as easily as add
detail, and keeping both loses nothing. The thresholds were chosen on tests/data/fact_pairs.jsonl
(benchmarks/fact_corpus.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from ..text import stem
from .fact_lexicon import (
    COUNTER_HEADS,
    EN_FUNCTION_WORDS,
    ID_HEADS,
    NEGATION,
    NOT_NEGATION,
    OBJECT_SLOT,
    OF_THING,
    SUPPORT_AFTER,
    SUPPORT_BEFORE,
    SYMMETRIC,
    SYNONYMS,
    ZH_FUNCTION_CHARS,
    ZH_FUNCTION_WORDS,
)
from .fact_values import NAME_KINDS, Value, values

__all__ = [
    "CANDIDATE_COSINE",
    "THRESHOLDS",
    "Decision",
    "Resolution",
    "Thresholds",
    "decide",
    "polarity",
    "resolve",
    "values",
]

Kind = Literal["merge", "update", "distinct"]


@dataclass(frozen=True)
class Decision:
    """What to do with a new memory given an old one: ``kind``, the values that changed as written
    (``(("60", "100"),)``) and a short reason a person can read."""

    kind: Kind
    changes: tuple[tuple[str, str], ...]
    reason: str
    # distinct, though it reads like an update (the changed value names the subject): both are
    # kept, and the writer is told how to supersede if one does replace the other
    doubt: bool = False

    @property
    def summary(self) -> str:
        """The change in a few words, for "Updated: …" on stderr: ``60 → 100``, else the reason."""
        return ", ".join(f"{old} → {new}" for old, new in self.changes) or self.reason


@dataclass(frozen=True)
class Thresholds:
    """Cosine gates (the store's embedding of the two texts) and how many differing content words
    still count as "the same words" (a CJK character counts half); ``slack`` is spent only at or
    above ``slack_cosine``. The defaults are the sweep's choice for both built-in models
    (docs/benchmarks.md): 0.4 is the highest gate at which the bundled model loses no merge or
    update of the corpus, and a raised merge gate buys no precision; one CJK character of slack is
    free, a whole word is not."""

    floor: float = 0.4
    merge: float = 0.4
    update: float = 0.4
    slack: float = 0.5
    slack_cosine: float = 0.85


THRESHOLDS = Thresholds()
# the store compares only with memories at least this near
CANDIDATE_COSINE = THRESHOLDS.floor

# Scripts written without spaces (kana, Han, Hangul) are compared character by character; every
# other letter is part of a word, so no text is invisible to the comparison (ü, é, кириллица
# included).
_SPACELESS = "\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af"
# "!" alone ends a sentence
_TOKEN = rf"[{_SPACELESS}]|[^\W_{_SPACELESS}]+|[<>≤≥=]=?|!="
_WORD = rf"[{_SPACELESS}]|[^\W{_SPACELESS}]+|[<>≤≥!=]=?"
_CLAUSE = r"[.;!?。；！？\n,，]\s"


@cache
def _re(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    """Compiled on first use: the Unicode classes cost milliseconds, which a command that never
    writes should not pay at import."""
    return re.compile(pattern, flags)


_FAMILY = {
    "port": "number",
    "version": "number",
    "ip": "host",
    "quoted": "name",
    "identifier": "name",
}


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [match.span() for match in pattern.finditer(text)]


def _negations(text: str) -> list[tuple[int, int]]:
    excluded = _spans(_re(NOT_NEGATION), text)
    return [
        (a, b)
        for a, b in _spans(_re(NEGATION), text)
        if not any(x < b and a < y for x, y in excluded)
    ]


def polarity(text: str) -> int:
    """-1 when the text negates what it says ("no longer uses", "did not", "不再使用", "instead of"),
    else 1."""
    return -1 if _negations(text) else 1


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _terms(text: str) -> list[str]:
    """Content terms in order: stemmed words without stopwords or change markers, CJK characters
    singly."""
    out: list[str] = []
    for token in _re(_TOKEN).findall(_re(ZH_FUNCTION_WORDS).sub(" ", text.lower())):
        if len(token) == 1 and not token.isascii():
            if token not in ZH_FUNCTION_CHARS:
                out.append(token)
        elif token[0] in "<>≤≥!=":
            out.append(token)
        elif len(token) > 1 and token not in EN_FUNCTION_WORDS:
            word = SYNONYMS.get(token, token)
            out.append(SYNONYMS.get(stem(word), stem(word)))
    return out


@dataclass(frozen=True)
class _Side:
    text: str
    values: tuple[Value, ...]
    polarity: int
    terms: tuple[str, ...]


# a write compares its new text with several candidates: read it once
@lru_cache(maxsize=64)
def _side(text: str) -> _Side:
    found = values(text)
    negations = _negations(text)
    masked = _blank(text, [(v.start, v.end) for v in found] + negations)
    return _Side(text, found, -1 if negations else 1, tuple(_terms(masked)))


def _mentions(text: str, value: Value) -> bool:
    """Whether a name-like value stands in ``text`` as plain words (Python at a sentence's start, an
    unquoted new-checkout), where the extractor, rightly, did not take it for a value."""
    needle = value.norm if value.kind != "quoted" else value.text.strip("'\"“”‘’「」『』`")
    return bool(
        re.search(rf"(?<![\w./-]){re.escape(needle)}(?![\w/-])", text, re.IGNORECASE | re.ASCII)
    )


@dataclass(frozen=True)
class _Diff:
    # an old value and the new one in its place
    pairs: tuple[tuple[Value, Value], ...]
    dropped: tuple[Value, ...]
    added: tuple[Value, ...]

    @property
    def same(self) -> bool:
        return not (self.pairs or self.dropped or self.added)


def _unmatched(mine: tuple[Value, ...], theirs: tuple[Value, ...], their_text: str) -> list[Value]:
    left = Counter(v.norm for v in theirs)
    out = []
    for value in mine:
        if left[value.norm] > 0:
            left[value.norm] -= 1
        elif not (value.kind in NAME_KINDS and _mentions(their_text, value)):
            out.append(value)
    return out


def _diff(old: _Side, new: _Side) -> _Diff:
    gone, come = (
        _unmatched(old.values, new.values, new.text),
        _unmatched(new.values, old.values, old.text),
    )
    pairs: list[tuple[Value, Value]] = []
    for same_family in (True, False):
        for value in list(gone):
            family = _FAMILY.get(value.kind, value.kind)
            match = next(
                (v for v in come if not same_family or _FAMILY.get(v.kind, v.kind) == family), None
            )
            if match is not None:
                pairs.append((value, match))
                gone.remove(value)
                come.remove(match)
    return _Diff(tuple(pairs), tuple(gone), tuple(come))


def _is_subject(side: _Side, value: Value) -> bool:
    clause = _re(_CLAUSE).split(side.text[: value.start])[-1]
    return not _re(OBJECT_SLOT).search(clause)


def _names_subject(side: _Side, value: Value) -> bool:
    """Whether ``value`` names what the statement is about rather than a value of it: "Release
    2.3 shipped …", "v1.4 of the SDK …", "ticket 4411", "issue #12", "dropped Python 3.8 support".
    Another value there is another subject, and both statements stay true."""
    before, after = side.text[: value.start], side.text[value.end :]
    # its blanks read once (split every way around the mark, 16 KB of them took 6 s; review AQ)
    if before.endswith("#") or _re(rf"(?:{ID_HEADS})\s*+(?:[#:]\s*+)?$").search(before):
        return True
    if _re(rf"(?:{SUPPORT_BEFORE})\s+(?:[^\W\d]\w*\s+)?$").search(before) or _re(
        rf"^\s*(?:{SUPPORT_AFTER})"
    ).match(after):
        return True
    if not _is_subject(side, value):
        return False
    if value.kind in NAME_KINDS:
        return True
    # a bare number or version, not a quantity (sizes, durations and rates have units)
    return value.kind in ("number", "version") and bool(
        value.text[:1] in "vV"
        or _re(rf"(?:{COUNTER_HEADS})\s*$").search(before)
        or _re(rf"^\s*(?:{OF_THING})").match(after)
    )


def _named(side: _Side, value: Value) -> str:
    """A value with the word that names it ("Release 2.3"), for a person to read."""
    words = side.text[: value.start].split()
    head = words[-1] if words and not _re(_CLAUSE).search(words[-1] + " ") else ""
    return (
        f"{head} {value.text}".strip()
        if head and not head.endswith("#")
        else (f"{head}{value.text}" if head else value.text)
    )


def _skeleton(side: _Side) -> list[str]:
    """Every word in order (function words too), each value as one token of its normal form."""
    out: list[str] = []
    previous = 0
    for value in side.values:
        out += _re(_WORD).findall(side.text[previous : value.start].lower()) + ["\x00" + value.norm]
        previous = value.end
    return out + _re(_WORD).findall(side.text[previous:].lower())


def _swapped(old: _Side, new: _Side) -> bool:
    """Two parts exchanged around a connector that stays: "use ruff instead of flake8" / "use flake8
    instead of ruff", "8080 on the host maps to 80" / "80 on the host maps to 8080". A clause moved
    to the front ("in the test environment, caching is off") has no connector between, and "A and B"
    is symmetric."""
    a, b = _skeleton(old), _skeleton(new)
    if len(a) != len(b) or a == b or Counter(a) != Counter(b):
        return False
    first = next(i for i in range(len(a)) if a[i] != b[i])
    last = max(i for i in range(len(a)) if a[i] != b[i]) + 1
    mid_a, mid_b = a[first:last], b[first:last]
    for x in range(1, min(4, len(mid_a))):
        for y in range(1, min(4, len(mid_a) - x)):
            connector = mid_a[x : len(mid_a) - y]
            if (
                connector
                and not set(connector) <= SYMMETRIC
                and mid_b == mid_a[-y:] + connector + mid_a[:x]
            ):
                return True
    return False


def _shown(old: str, new: str) -> tuple[str, str]:
    """A changed value as written, without the words the two spellings share: ("60", "100")."""
    a, b = old.split(), new.split()
    while len(a) > 1 and len(b) > 1 and a[0] == b[0]:
        a, b = a[1:], b[1:]
    while len(a) > 1 and len(b) > 1 and a[-1] == b[-1]:
        a, b = a[:-1], b[:-1]
    return " ".join(a).strip(",;:"), " ".join(b).strip(",;:")


def _value_words(side: _Side) -> set[str]:
    return {term for v in side.values for term in _terms(re.sub(r"[./_-]", " ", v.text))}


def _word_gap(old: _Side, new: _Side) -> tuple[float, str]:
    """How many content terms one text has and the other lacks (a CJK character counts half), and
    which."""
    # A word of one text that is part of a value of the other (server / server.log, python / the
    # name Python) is compared as that value.
    a, b = set(old.terms), set(new.terms)
    differing = sorted((a - b - _value_words(new)) | (b - a - _value_words(old)))
    gap = sum(0.5 if not term.isascii() else 1.0 for term in differing)
    return gap, "/".join(differing[:6])


def decide(
    old_text: str, new_text: str, cosine: float, thresholds: Thresholds = THRESHOLDS
) -> Decision:
    """Whether ``new_text`` repeats (``merge``), updates (``update``) or stands beside
    (``distinct``) ``old_text``.

    Args:
        old_text: the stored memory's content.
        new_text: the content being written.
        cosine: the cosine similarity of the two texts' embeddings, as the store computes it.
        thresholds: the cosine gates; the defaults were chosen on the fact-change corpus.

    Returns:
        The decision, the changed values as written (old, new) and a reason.
    """
    old, new = _side(old_text), _side(new_text)
    if cosine < thresholds.floor:
        return Decision("distinct", (), f"not similar enough (cosine {cosine:.2f})")
    gap, differing = _word_gap(old, new)
    same_words = gap == 0 or (gap <= thresholds.slack and cosine >= thresholds.slack_cosine)
    diff = _diff(old, new)
    flipped = old.polarity != new.polarity
    if not same_words:
        return Decision("distinct", (), f"different words: {differing}")
    if diff.same and not flipped:
        if _swapped(old, new):
            return Decision("update", (), "the same values in other places")
        if cosine >= thresholds.merge:
            return Decision("merge", (), "the same statement with the same values")
        return Decision(
            "distinct", (), f"the same words but not similar enough (cosine {cosine:.2f})"
        )
    return _changed(old, new, diff, flipped, cosine, thresholds)


def _changed(
    old: _Side, new: _Side, diff: _Diff, flipped: bool, cosine: float, thresholds: Thresholds
) -> Decision:
    if flipped and diff.pairs:
        return Decision("distinct", (), "a negation about another value")
    if not flipped and not diff.pairs:
        what = "adds" if diff.added else "drops"
        return Decision(
            "distinct", (), f"{what} {', '.join(v.text for v in diff.added or diff.dropped)}"
        )
    subject = next(
        ((a, b) for a, b in diff.pairs if _names_subject(old, a) or _names_subject(new, b)), None
    )
    if subject is not None:
        a, b = subject
        return Decision(
            "distinct",
            (),
            f"{_named(old, a)} and {_named(new, b)} name two subjects",
            doubt=True,
        )
    if cosine < thresholds.update:
        return Decision("distinct", (), f"not similar enough for an update (cosine {cosine:.2f})")
    changes = tuple(_shown(a.text, b.text) for a, b in diff.pairs)
    if flipped:
        word = "negated" if new.polarity < 0 else "no longer negated"
        return Decision("update", changes, f"the same statement, {word}")
    return Decision("update", changes, "the values changed")


@dataclass(frozen=True)
class Resolution:
    """What a write does: ``merge`` into ``target``, ``supersede`` ``target``, or ``insert`` beside
    them. ``decision`` is the one that chose (for an insert, the update that ``supersede=False``
    declined)."""

    action: Literal["merge", "supersede", "insert"]
    target: str | None
    decision: Decision | None
    # an insert kept beside a memory it reads like an update of (the declined update, or a
    # distinct subject in doubt): the writer says so, and how to supersede it
    beside: tuple[str, Decision] | None = None


def resolve(
    new_text: str,
    candidates: Iterable[tuple[str, str, float]],
    *,
    supersede: bool = True,
    thresholds: Thresholds = THRESHOLDS,
) -> Resolution:
    """The write path's choice among the active memories near a new one.

    Args:
        new_text: the content being written.
        candidates: ``(id, text, cosine)`` of the nearest active memories in the write's scope.
        supersede: ``False`` for ``[write] on_change = keep_both``, or for memories that are events
            (a second "the build took 12 minutes" is a new episode, not a correction).
        thresholds: as for ``decide``.

    Returns:
        A merge into the nearest candidate that says the same thing; else a supersede of the nearest
        one the new text updates; else an insert.
    """
    update: tuple[str, Decision] | None = None
    doubt: tuple[str, Decision] | None = None
    for memory_id, text, cosine in sorted(candidates, key=lambda candidate: -candidate[2]):
        decision = decide(text, new_text, cosine, thresholds)
        # already stored, whatever else it updates
        if decision.kind == "merge":
            return Resolution("merge", memory_id, decision)
        if decision.kind == "update" and update is None:
            update = (memory_id, decision)
        if decision.doubt and doubt is None:
            doubt = (memory_id, decision)
    if update is not None and supersede:
        return Resolution("supersede", update[0], update[1])
    return Resolution("insert", None, update[1] if update else None, update or doubt)
