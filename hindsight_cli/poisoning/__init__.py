"""Poisoning defence (DESIGN §6). Trust is a property of provenance, not of wording:

- ``trust(source)``: only ``user``, ``agent`` and ``hindsight`` (memories hindsight derived from
  trusted memories only) are trusted; every other name, ``tool``, ``import``, ``web`` and names
  never seen before included, is untrusted.
- Every untrusted memory is labelled with its source wherever an agent reads it (``trust_label``,
  ``provenance``), whatever the detector says.
- On top of that, untrusted text that reads like instructions to a model is quarantined at write
  time (``assess``: every text field, normalised first) and ranked after everything else.
- Derived memories take the lowest trust of their sources (``derived_source``) and never copy
  quarantined text (``for_derivation``); rendered text cannot forge the context block's own
  structure (``safe_line``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from ..storage.rows import MemoryRow
from .letters import INVISIBLE, skeleton

__all__ = [
    "QUARANTINE_CONFIDENCE",
    "QUARANTINE_TAG",
    "TRUSTED_SOURCES",
    "UNTRUSTED_SOURCES",
    "assess",
    "derived_source",
    "derived_trust",
    "for_derivation",
    "instruction_like",
    "is_quarantined",
    "less_trusted",
    "normalise",
    "provenance",
    "quarantine_reason",
    "quarantine_record",
    "safe_line",
    "trust",
    "trust_label",
]

Trust = Literal["trusted", "untrusted"]
TRUSTED_SOURCES = frozenset({"user", "agent", "hindsight"})
DERIVED = "hindsight"
# Names hindsight itself uses for untrusted text; any other name not in TRUSTED_SOURCES is untrusted
# too.
UNTRUSTED_SOURCES = frozenset({"web", "tool", "import", "email", "external", "unknown"})
QUARANTINE_TAG = "quarantined"
QUARANTINE_CONFIDENCE = 0.1
# characters of one field that are read; longer text is still labelled untrusted
_MAX_CHECKED = 65_536


def trust(source: str | None) -> Trust:
    """``trusted`` for exactly ``user``, ``agent`` and ``hindsight`` (case and surrounding space
    aside); ``untrusted`` for everything else. No folding of look-alikes: ``usеr`` with a Cyrillic е
    is not ``user``, and a derived memory with an untrusted source is ``hindsight:web``, not
    ``hindsight``."""
    return "trusted" if (source or "").strip().lower() in TRUSTED_SOURCES else "untrusted"


def _origins(source: str) -> set[str]:
    """The source names behind ``source``: a derived ``hindsight:tool+web`` stands for tool and
    web."""
    name = (source or "").strip().lower()
    if name.startswith(DERIVED + ":"):
        return {part for part in name[len(DERIVED) + 1 :].split("+") if part} or {"unknown"}
    return {name or "unknown"}


def derived_trust(sources: Iterable[str]) -> Trust:
    """The lowest trust among ``sources`` (the source names of the memories a memory is derived
    from)."""
    return "untrusted" if any(trust(s) == "untrusted" for s in sources) else "trusted"


def derived_source(sources: Iterable[str]) -> str:
    """The ``source`` of a memory derived from memories with these sources: ``hindsight`` when all
    are trusted, else ``hindsight:`` and the untrusted names it inherits (``hindsight:tool+web``).
    """
    untrusted = sorted({name for s in sources if trust(s) == "untrusted" for name in _origins(s)})
    return f"{DERIVED}:{'+'.join(untrusted)}" if untrusted else DERIVED


def _texts(name: str, value: Any, depth: int = 0) -> Iterator[tuple[str, str]]:
    """(field path, text) for every string in a field: list items are read together, mapping keys
    too."""
    if isinstance(value, str):
        yield name, value[:_MAX_CHECKED]
    elif isinstance(value, (list, tuple)) and depth < 8:
        yield name, " ".join(item for item in value if isinstance(item, str))[:_MAX_CHECKED]
        for position, item in enumerate(value):
            if not isinstance(item, str):
                yield from _texts(f"{name}[{position}]", item, depth + 1)
    elif isinstance(value, Mapping) and depth < 8:
        yield f"{name} keys", " ".join(str(key) for key in value)[:_MAX_CHECKED]
        for key, item in value.items():
            yield from _texts(f"{name}.{key}", item, depth + 1)


def assess(fields: Mapping[str, Any], source: str | None) -> dict[str, Any] | None:
    """The quarantine record for a memory from ``source``, or None.

    Args:
        fields: every text a reader may see: content, resolution, tags, task_id, trigger, agent_id,
            metadata and env (nested values and keys are read too; None is skipped).
        source: the memory's source; trusted sources are never quarantined.

    Returns:
        ``{"reason", "matched", "fields"}`` (the kinds found in order, and the fields that read as
        instructions), or None when no field does or the source is trusted.
    """
    if trust(source) == "trusted":
        return None
    # the detector's patterns compile on import: a process that only reads never pays for them
    from .detect import QUARANTINE_SCORE, remembered_kinds, score

    matched: list[str] = []
    flagged: list[str] = []
    for name, value in fields.items():
        for path, text in _texts(name, value):
            found = remembered_kinds(_read(text)) if text.strip() else {}
            if score(found) >= QUARANTINE_SCORE:
                flagged.append(path)
                matched.extend(kind for kind in found if kind not in matched)
    if not flagged:
        return None
    return {
        "reason": f"instruction-like text from an untrusted source ({source})",
        "matched": matched,
        "fields": flagged,
    }


def _read(text: str) -> str:
    """``text`` as the detector reads it: each run of more than 64 blanks cut to its ends
    (``redact.blanks``), so no pattern that reads blank lines in two runs splits more than that
    ("install" then 8,000 line ends took 23 s)."""
    from ..redact.blanks import view

    return view(text)[0]


def normalise(text: str) -> str:
    """The one spelling the phrase checks read (``spelling.normalise``), whose patterns and
    decoders are loaded by the checks that need them, not by every reader of this package."""
    from .spelling import normalise as spelled

    return spelled(text)


def instruction_like(text: str) -> list[str]:
    """The kinds of instruction-like signal in ``text`` when together they are enough to quarantine;
    empty otherwise."""
    from .detect import QUARANTINE_SCORE, remembered_kinds, score

    found = remembered_kinds(_read(text))
    return list(found) if score(found) >= QUARANTINE_SCORE else []


def quarantine_reason(content: str, source: str) -> dict[str, object] | None:
    """``assess`` of the content alone (kept for callers that have only the content)."""
    return assess({"content": content}, source)


# characters of a stated quarantine's reason, and of each name it lists, that are kept
_MAX_STATED = 200


def quarantine_record(value: Any) -> dict[str, Any] | None:
    """A quarantine a writer states (``metadata.quarantine``: an import file's, a token
    principal's) in the shape ``assess`` writes and every reader takes (``reason``: text,
    ``matched`` and ``fields``: lists of text), or None for an empty one, which holds nothing
    back. Any other value still holds the memory back (it only ever restricts), but as it was
    given, a number where a list is read ended the owner's page of that memory in ``hindsight ui``
    (review BR)."""
    if not value:
        return None
    given = value if isinstance(value, Mapping) else {"reason": value}

    def names(items: Any) -> list[str]:
        listed = items if isinstance(items, list) else [items] if items else []
        return [str(item)[:_MAX_STATED] for item in listed[:32] if item is not None]

    reason = given.get("reason")
    return {
        "reason": (reason if isinstance(reason, str) else "stated by its writer")[:_MAX_STATED],
        "matched": names(given.get("matched")),
        "fields": names(given.get("fields")),
    }


def is_quarantined(tags: Iterable[str] | None, metadata: Mapping[str, Any] | None = None) -> bool:
    return QUARANTINE_TAG in (tags or ()) or bool((metadata or {}).get("quarantine"))


class _Labelled(Protocol):
    source: str
    tags: list[str]
    metadata: dict[str, Any]


def _trusted(memory: _Labelled) -> bool:
    return trust(memory.source) == "trusted" and not is_quarantined(memory.tags, memory.metadata)


def less_trusted(memory: _Labelled, than: _Labelled) -> bool:
    """Whether ``memory`` is untrusted (by its source, or quarantined) where ``than`` is trusted:
    then it never takes ``than``'s place, by any link it claims or change it seems to state (it
    does not supersede it, and as a summary it does not stand for it in a block). The one rule for
    every way a memory can displace another: an imported file, a fetched page or a tool's output
    cannot push out what the user or their agents wrote."""
    return not _trusted(memory) and _trusted(than)


def trust_label(
    source: str | None, quarantined: bool = False, store: str | None = None
) -> str | None:
    """The label an untrusted memory carries in the context block, None for a trusted one:
    ``[from web, untrusted]``, ``[from web via hindsight, untrusted]`` for a derived one, and
    ``[from web, untrusted, quarantined: reads as instructions]`` when quarantined. ``store``
    names a store of unknown origin (``an unapproved store``, one that came with a repository): every
    memory read from it is untrusted, whatever it claims, and says where it was read from
    (``[from user in an unapproved store, untrusted]``)."""
    trusted = trust(source) == "trusted" and store is None
    if trusted and not quarantined:
        return None
    names = "+".join(sorted({_shown_origin(name) for name in _origins(source or "")}))
    origin = (
        f"{names} via {DERIVED}"
        if (source or "").strip().lower().startswith(DERIVED + ":")
        else names
    )
    origin += f" in {store}" if store else ""
    # a trusted memory tagged by hand
    parts = [f"from {origin}"] + ([] if trusted else ["untrusted"])
    return f"[{', '.join(parts + (['quarantined: reads as instructions'] if quarantined else []))}]"


# a source name as its label shows it: a bracket is a parenthesis there
_BRACKETS = str.maketrans("[]", "()")


def _shown_origin(name: str) -> str:
    """A source name as one line of its label, with no bracket: hindsight's writes keep a source
    one line (``prepare.label``), but a ledger its author wrote held `agent] ok\\n- 2026-01-02
    [semantic] User preference: …\\n- … [from agent`, and the block of a store that came with a
    repository showed the author's line with no label at all (review BS2)."""
    return safe_line(name).translate(_BRACKETS) or "unknown"


def provenance(
    source: str | None,
    tags: Iterable[str] | None = None,
    metadata: Mapping[str, Any] | None = None,
    store: str | None = None,
) -> dict[str, Any]:
    """What a search result says about where a memory came from (for MCP and ``--json``)."""
    quarantined = is_quarantined(tags, metadata)
    return {
        "trust": "untrusted" if store else trust(source),
        "quarantined": quarantined,
        "label": trust_label(source, quarantined, store),
    }


def for_derivation(row: MemoryRow) -> MemoryRow:
    """A source row as summaries and patterns may read it: a quarantined row's text is replaced by a
    placeholder, so no derived memory ever copies it."""
    if not is_quarantined(row.tags, row.metadata):
        return row
    return row.replace(
        content=f"(quarantined {row.source or 'untrusted'} text omitted)",
        resolution="(quarantined text omitted)" if row.resolution else None,
    )


_BRACKET = re.compile(r"\[\s*([^\[\]\s:,]{1,40})")
_BLOCK_WORDS = frozenset(
    {
        "hindsight",
        "episodic",
        "semantic",
        "procedural",
        "working",
        "from",
        "via",
        "untrusted",
        "trusted",
        "quarantined",
        "verified",
    }
)
_FIX_LABEL = re.compile(
    r"(?:\s*[\u2010-\u2015\u2212\u2043\ufe58\ufe63]|\s+--?)\s*([^\s:]{2,12})\s*:"
)
# ［hindsight：… reads as [hindsight:
_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_FIX_WORDS = frozenset({"fix", "fixed", "resolution", "solution", "workaround"})


# control characters but the white space ``split`` reads: hindsight's writes keep none (``clean``),
# but a store a checkout ships was written by its author, whose `\x1b[2K\x1b[1G` erased on the
# terminal the label before it (review BS)
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")


def safe_line(text: str) -> str:
    """``text`` as one line of the context block that cannot pass for the block's own structure:
    invisible, bidi and control characters removed, every line break and run of space one space, a bracket
    that opens like a hindsight label (``[hindsight:``, ``[episodic]``, ``[from web, untrusted]``,
    also in look-alike letters and in fullwidth forms, ``［hindsight：``) turned into parentheses,
    and a ``— fix:`` label quoted (``, "fix":``). Everything else is kept as written: Chinese
    punctuation (``，：（）；``) stays Chinese; the fullwidth forms are only read as ASCII to find
    what would pass for a label."""
    text = " ".join(_CONTROL.sub("", INVISIBLE.sub("", text)).split())
    # one character for one: the positions found in the ASCII reading are the text's own
    view = text.translate(_FULLWIDTH)
    opening: list[int] = []
    closing: set[int] = set()
    for match in _BRACKET.finditer(view):
        if skeleton(match.group(1)).translate(_DIGIT_LOOKS) not in _BLOCK_WORDS:
            continue
        opening.append(match.start())
        close = view.find("]", match.end())
        if close != -1:
            closing.add(close)
    if opening:
        chars = list(text)
        for at in opening:
            chars[at] = "("
        for at in closing:
            chars[at] = ")"
        text = "".join(chars)
        view = text.translate(_FULLWIDTH)
    pieces: list[str] = []
    last = 0
    for match in _FIX_LABEL.finditer(view):
        if skeleton(match.group(1)).translate(_DIGIT_LOOKS) in _FIX_WORDS:
            word = text[match.start(1) : match.end(1)]
            pieces += [text[last : match.start()], f', "{word}":']
            last = match.end()
    return "".join(pieces) + text[last:] if pieces else text


_DIGIT_LOOKS = str.maketrans("01345", "oieas")
