"""Other memory tools' stores, as semantic memories: the MCP reference ``memory`` server's graph, a
basic-memory folder of Markdown notes, and mem0's ``get_all`` output.

MCP memory (``memory.jsonl``, before 2025.8 ``memory.json``, same lines): ``{"type": "entity",
"name", "entityType", "observations": [...]}`` and ``{"type": "relation", "from", "to",
"relationType"}``; one memory per observation and per relation.

basic-memory: Markdown files with YAML front matter (``title``, ``type``, ``tags``, ``permalink``),
observations ``- [category] text #tag (context)`` and relations ``- relation_type [[Target]]`` (or a
``[[link]]`` anywhere); one memory per observation, and one per note for its prose and links.

mem0: ``Memory.get_all()`` as JSON: ``{"results": [{id, memory, hash, metadata, created_at,
updated_at, user_id, agent_id, run_id}], "relations": [{source, relationship,
destination|target}]}`` (1.x, 0.1 with ``api_version="v1.1"``), a bare list of those (older, and the
platform's v1 API), or ``{"memories": …}``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

from ..models import MAX_TAGS, JSONValue
from ..safefs.reading import MAX_DEPTH, MAX_LINE, open_regular, read_at_most, too_deep
from ..text import MAX_LABEL
from .base import Reading, array, obj
from .exchange import clip, key, memory_id
from .lines import BROKEN, TooLarge, head_values, iter_json_array, read_lines
from .records import Record, time_of

HINTS = {
    "mcp-memory": "the memory server's JSON lines: type entity (name, entityType, observations) "
    "or relation",
    "basic-memory": "a folder of basic-memory Markdown notes, or one .md note",
    "mem0": "mem0 get_all() output: a list, or an object with results",
}
# Each reads a note's line in time linear in its length (a note may be one line of 64 MiB): a lazy
# item text before trailing blanks, a link's name that may hold "[", and blanks before a context
# tried at every start were quadratic (200 KB of blanks or "[" took minutes; review L)
_ITEM = re.compile(r"^\s*[-*+]\s+(.*\S)\s*$")
# a note's tags go into each of its memories: at most this many copies in all (900 tags on one
# observation, or 100 on each of 1,000, are fine; 990 on each of 5,000 observations, an 80 KB file,
# took 97 s and 190 MB to import, review AC)
MAX_NOTE_TAG_COPIES = 100_000
_CATEGORY = re.compile(r"^\[([^\[\]()]+)\]\s+(.+)")
_CLOCK = re.compile(r"^\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?$")
_RELATION = re.compile(r"^(\"[^\"]+\"|'[^']+'|[^\s\[]+)\s*\[\[([^\]\n]+)\]\]\s*(\([^()]*\))?$")
_LINK = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_CONTEXT = re.compile(r"\(([^()]*)\)$")


def sniff(path: Path, kind: str) -> bool:
    if kind == "mcp-memory":
        head = [v for v in head_values(path) if isinstance(v, dict)]
        return bool(head) and head[0].get("type") in ("entity", "relation")
    if kind == "basic-memory":
        return path.is_dir() or path.suffix.lower() == ".md"
    try:
        first = next(iter_json_array(path))
    except TooLarge:
        raise
    except (StopIteration, ValueError, OSError):
        return False
    items = first.get("results", first.get("memories")) if isinstance(first, dict) else [first]
    listed = isinstance(items, list) and all(
        isinstance(i, dict) and "memory" in i for i in items[:5]
    )
    return listed or (isinstance(first, dict) and "memory" in first and "id" in first)


def _label(text: object, limit: int = 60) -> str:
    return clip(" ".join(str(text or "").split()), limit) or str(text or "")[:limit]


def _semantic(
    kind: str, content: str, parts: tuple[object, ...], tags: list[object], **fields: JSONValue
) -> Record:
    record_key = key(kind, *parts)
    if "metadata" in fields:
        fields["metadata"] = _storable(fields["metadata"])
    return {
        "id": memory_id(record_key),
        "key": record_key,
        "content": content,
        "type": "semantic",
        "source": "import",
        "trigger": "imported",
        "tags": list(
            dict.fromkeys(["imported", kind, *(t for t in (_label(t) for t in tags) if t)])
        ),
        **fields,
    }


def _storable(metadata: JSONValue) -> JSONValue:
    """An export's metadata, each value the store would refuse (``NaN``, ``Infinity``, nesting past
    ``MAX_DEPTH``) left out: one odd field never aborts an import (docs/reliability.md)."""
    if not isinstance(metadata, dict):
        return {}
    kept: dict[str, JSONValue] = {}
    for name, value in metadata.items():
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            continue
        if not too_deep(value, MAX_DEPTH - 1):
            kept[name] = value
    return kept


def mcp_memory(path: Path, reading: Reading) -> Iterator[Record]:
    for line in read_lines(path):
        value = line.value
        if value is BROKEN or not isinstance(value, dict):
            reading.bad_line(line.number)
        elif value.get("type") == "entity" and value.get("name"):
            # copied into each of the entity's observations: a label's length at most (a name of
            # 20 KB over 50 observations was 1 MB of memories, in parts; review AC)
            # (one unbroken run is never cut: a secret's half would pass the redaction)
            full = str(value["name"])
            name = clip(full, MAX_LABEL) or "entity"
            # its memories' keys as before; a longer name hashed once, not with each observation
            if len(full) > MAX_LABEL:
                full = hashlib.sha256(full.encode("utf-8", "surrogatepass")).hexdigest()
            kind = clip(str(value.get("entityType") or "entity"), MAX_LABEL) or "entity"
            for observation in array(value.get("observations")):
                if isinstance(observation, str) and observation.strip():
                    yield _semantic(
                        "mcp-memory",
                        f"{name} ({kind}): {observation.strip()}",
                        (full, observation),
                        [kind],
                        metadata={"entity": name, "entity_type": kind},
                    )
        elif value.get("type") == "relation" and value.get("from") and value.get("to"):
            text = f"{value['from']} {value.get('relationType') or 'relates to'} {value['to']}"
            yield _semantic(
                "mcp-memory",
                text,
                ("relation", value["from"], value.get("relationType"), value["to"]),
                ["relation"],
                metadata={
                    "from": value["from"],
                    "to": value["to"],
                    "relation": value.get("relationType"),
                },
            )
        else:
            reading.unknown += 1


def _front_matter(text: str) -> tuple[dict[str, str | list[str]], str]:
    """A note's YAML front matter (the subset notes use: scalars, ``[a, b]`` and ``- item``
    lists)."""
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end < 0:
        return {}, text
    meta: dict[str, str | list[str]] = {}
    last = None
    for raw in text[3:end].splitlines():
        item = re.match(r"^\s+-\s+(.*)$", raw)
        if item and last is not None:
            # appended in place: a list copied at each item made a note of many items quadratic
            listed = meta[last]
            if not isinstance(listed, list):
                listed = meta[last] = []
            listed.append(item.group(1).strip(" '\""))
            continue
        pair = re.match(r"^([\w-]+):\s*(.*)$", raw)
        if pair:
            last, value = pair.group(1), pair.group(2).strip()
            meta[last] = (
                [v.strip(" '\"") for v in value[1:-1].split(",") if v.strip()]
                if value.startswith("[")
                else value.strip("'\"")
            )
    return meta, text[end + 4 :].lstrip("\n")


def _inside(file: Path, root: str) -> bool:
    """Whether ``file`` (links resolved) lies in the folder: a note linked in from elsewhere
    (``~/.ssh/id_rsa.md``) is not one of its notes."""
    real = os.path.realpath(file)
    return real.startswith(root.rstrip(os.sep) + os.sep)


def basic_memory(path: Path, reading: Reading) -> Iterator[Record]:
    root = os.path.realpath(path)
    files = (
        [path]
        if path.is_file()
        else sorted(
            p
            for p in path.rglob("*.md")
            if not any(part.startswith(".") for part in p.relative_to(path).parts)
            and _inside(p, root)
        )
    )
    for file in files:
        try:
            # a regular file only: a FIFO or a device would never end
            with open_regular(file) as handle:
                text = read_at_most(handle, MAX_LINE, file).decode("utf-8-sig")
        except (OSError, UnicodeDecodeError):
            reading.bad_line(0)
            continue
        yield from _note(file, text, reading)


def _observation(item: str) -> tuple[str | None, str, list[str], str | None] | None:
    """``[category] text #tag (context)`` as basic-memory reads a list item (a task box, a clock
    time or a link is not a category; an item with a ``#tag`` and no category is an observation
    too)."""
    if item.startswith(("[ ]", "[x]", "[X]", "[-]")):
        # a task
        return None
    found = _CATEGORY.match(item)
    category = (found.group(1).strip() or None) if found else None
    if category and (
        _CLOCK.match(category)
        or (len(category) == 1 and (category in "xX" or not category.isalnum()))
    ):
        return None
    text = found.group(2).strip() if found and category else item
    tags = [t for word in text.split() if word.startswith("#") for t in word.split("#") if t]
    if category is None and (not tags or item.startswith("[")):
        return None
    context = _CONTEXT.search(text)
    return (
        category,
        text[: context.start()].strip() if context else text,
        tags,
        context.group(1).strip() if context else None,
    )


def _note(file: Path, text: str, reading: Reading) -> Iterator[Record]:
    meta, body = _front_matter(text)
    # each of the note's memories carries its title and permalink: at most a label's length (a
    # title of a megabyte was copied into each of a million observations; review Q9)
    title = clip(str(meta.get("title") or file.stem), MAX_LABEL) or file.stem
    permalink = str(meta.get("permalink") or file.stem)
    given = meta.get("tags")
    note_tags: list[str] = list(
        dict.fromkeys(
            [str(t) for t in given] if isinstance(given, list) else str(given or "").split()
        )
    )
    # its memories at most: each list item, and the note itself
    memories = 1 + sum(1 for line in body.splitlines() if _ITEM.match(line))
    if (
        len(note_tags) > MAX_TAGS
        or len(note_tags) * memories > MAX_NOTE_TAG_COPIES
        or len(permalink) > MAX_LABEL
    ):
        # each of its memories would carry them all, and be refused (a note of a million tags and
        # a million observations was a million million copies; review Q9), or the copies would
        # outgrow the note many times over (review AC): the note is unreadable
        reading.bad_line(0)
        return
    prose: list[str] = []
    links: list[str] = []
    for line in body.splitlines():
        item = _ITEM.match(line) if not line.lstrip().startswith(">") else None
        listed = item.group(1) if item else ""
        relation = _RELATION.match(listed) if listed else None
        found = _observation(listed) if listed and not relation else None
        if relation:
            links.append(
                f"{relation.group(1).strip(chr(34) + chr(39))} [[{relation.group(2).strip()}]]"
            )
        elif found:
            category, content, tags, context = found
            label = f"[{category}] " if category else ""
            yield _semantic(
                "basic-memory",
                f"{title}: {label}{content}",
                (permalink, category, content),
                [category or "observation", *tags, *note_tags],
                metadata={
                    "note": title,
                    "permalink": permalink,
                    "category": category,
                    "context": context,
                    "file": str(file),
                },
            )
        else:
            prose.append(line)
            links.extend(f"links_to [[{m}]]" for m in _LINK.findall(line))
    words = "\n".join(prose).strip()
    if words or links:
        content = f"{title}\n\n{words}" + ("\n\nRelations: " + "; ".join(links) if links else "")
        yield _semantic(
            "basic-memory",
            content,
            (permalink, "note"),
            [str(meta.get("type") or "note"), *note_tags],
            metadata={"note": title, "permalink": permalink, "links": links, "file": str(file)},
        )


def mem0(path: Path, reading: Reading) -> Iterator[Record]:
    for value in iter_json_array(path):
        items = (
            value.get("results", value.get("memories", [value] if "memory" in value else []))
            if isinstance(value, dict)
            else [value]
        )
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict) or not str(item.get("memory") or "").strip():
                reading.unknown += 1
                continue
            people = [
                f"{k.removesuffix('_id')}:{item[k]}"
                for k in ("user_id", "agent_id", "run_id")
                if item.get(k)
            ]
            extra = {
                k: item.get(k)
                for k in ("user_id", "agent_id", "run_id", "actor_id", "role", "hash", "categories")
                if item.get(k)
            }
            yield _semantic(
                "mem0",
                str(item["memory"]).strip(),
                (item.get("id") or item.get("hash") or item["memory"],),
                [*people, *array(item.get("categories"))],
                event_at=time_of(item.get("created_at")),
                metadata={**obj(item.get("metadata")), **extra, "mem0_id": item.get("id")},
            )
        for relation in array(value.get("relations")) if isinstance(value, dict) else []:
            if isinstance(relation, dict) and relation.get("source"):
                target = relation.get("destination") or relation.get("target")
                text = (
                    f"{relation['source']} {relation.get('relationship') or 'relates to'} {target}"
                )
                yield _semantic("mem0", text, ("relation", text), ["relation"])
