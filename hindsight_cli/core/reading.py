"""Reading memories: one by id or prefix, lists, summary chains, supersede history and the audit
log.

Reads never write: nothing here opens a write session or changes a file.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from datetime import datetime

from ..errors import BadUsage, MemoryNotFound
from ..models import AuditEntry, Filters, Memory, MemoryPage
from ..search.query import MAX_COUNT
from ..storage import codec
from ..storage.base import SORTS, Reader
from ..storage.rows import MemoryRow
from ..text import clean
from ..timeutil import given, iso
from .runtime import Runtime
from .scope import Scope

# as git: fewer characters would match half the store
_MIN_PART = 4
# ids fetched per lookup, among those the agent scope sees
_LOOKED_UP = 50
# candidates an ambiguous id lists
_LISTED = 10
# short parts a forget looks up one by one (``find``) before it reads the scope's ids
_ALONE = 10
# how far a chain of versions is followed (a loop in a damaged store ends it)
_MAX_CHAIN = 200
# rows read a batch at a time where a page shows the first few of many (``built_on``)
_BATCH = 256
# steps a chain of versions is followed by id before the rest of it is read by its text
# (``version_chains``): most texts have a version or two
_WALKED = 4


def find(session: Reader, memory_id: str, scope: Scope) -> MemoryRow:
    """The row with this id, or the one row whose id starts or ends with it (at least 4 characters;
    the end is the random part, the short form tables show). An ambiguous part lists the candidates.

    The id is cleaned like every stored label: one with a control character or a lone surrogate (an
    undecodable argv byte, half an emoji from a client) is simply not found. Rows outside ``scope``
    are not found either.
    """
    memory_id = clean(memory_id if isinstance(memory_id, str) else str(memory_id or ""))
    part = memory_id.lower()
    rows = [r for r in session.by_ids(list(dict.fromkeys([memory_id, part]))) if scope.visible(r)]
    if rows:
        return rows[0]
    if len(part) >= _MIN_PART:
        # looked up inside the scope: another agent's ids never crowd out or count
        within = scope.conditions()
        starts = session.by_prefix(part, _LOOKED_UP, within)
        ends = session.by_suffix(part, _LOOKED_UP, within)
        ids = list(dict.fromkeys(starts + ends))
        matches = sorted((r for r in session.by_ids(ids) if scope.visible(r)), key=lambda r: r.id)
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise MemoryNotFound(
                _ambiguous(memory_id, matches, _LOOKED_UP in (len(starts), len(ends)))
            )
    raise MemoryNotFound(
        f"No memory with id {given(memory_id)}. Find ids with `hindsight list` or `hindsight search`."
    )


def find_all(session: Reader, memory_ids: Iterable[str], scope: Scope) -> list[str]:
    """The ids of the rows ``find`` gives for each of ``memory_ids``, each once, in order, in a
    few reads whatever their number: the whole ids ``_LOOKED_UP`` a read, and past ``_ALONE``
    short parts the rest against the scope's ids, read once; more names than ``_ALONE`` reads
    hold are all resolved against the scope's ids, read once. ``find`` one by one cost three reads an
    id (5,000 of one short id in one ``memory_forget``, 60 KB, held every agent's writes 34 s;
    review AS), and a read of 50 whole ids each 50 did too (a 4 MiB ``memory_forget`` of one id of
    hers spelt in 100,000 ways, capitals here and there, held them 20 s; review AV). A part that
    matches none or several is ``find``'s own error, the first such id's.
    """
    named = list(
        dict.fromkeys(clean(m if isinstance(m, str) else str(m or "")) for m in memory_ids)
    )
    out: list[str] = []
    # past ``_ALONE`` reads' worth of names, the scope's ids are read once and every name found in
    # them (a few names in a large store stay a few reads of their own)
    ordered = _sorted_ids(session, scope) if len(named) > _LOOKED_UP * _ALONE else None
    held = set(ordered[0]) if ordered is not None else None
    asked = 0
    for start in range(0, len(named), _LOOKED_UP):
        chunk = named[start : start + _LOOKED_UP]
        wanted = list(dict.fromkeys([*chunk, *(m.lower() for m in chunk)]))
        if held is not None:
            found = held.intersection(wanted)
        else:
            found = {r.id for r in session.by_ids(wanted) if scope.visible(r)}
        for memory_id in chunk:
            part = memory_id.lower()
            if memory_id in found or part in found:
                out.append(memory_id if memory_id in found else part)
            elif len(part) < _MIN_PART or (ordered is None and asked < _ALONE):
                asked += 1
                out.append(find(session, memory_id, scope).id)
            else:
                ordered = ordered or _sorted_ids(session, scope)
                matches = {*_starting(ordered[0], part)}
                matches |= {m[::-1] for m in _starting(ordered[1], part[::-1])}
                # none or several: ``find`` says so, as for one id
                out.append(
                    matches.pop() if len(matches) == 1 else find(session, memory_id, scope).id
                )
    return list(dict.fromkeys(out))


def _sorted_ids(session: Reader, scope: Scope) -> tuple[list[str], list[str]]:
    """The scope's ids, sorted, and each spelled backwards, sorted: where a part's matches lie."""
    ids = session.ids(scope.conditions())
    return sorted(ids), sorted(m[::-1] for m in ids)


def _starting(ordered: list[str], part: str) -> list[str]:
    """The strings of ``ordered`` (sorted) that start with ``part``."""
    first = bisect_left(ordered, part)
    # two tell a part that names several: never more read
    return [value for value in ordered[first : first + 2] if value.startswith(part)]


def _ambiguous(memory_id: str, matches: list[MemoryRow], more: bool) -> str:
    """The candidates, one a line, as git lists them for an ambiguous short id."""
    count = f"{'at least ' if more else ''}{len(matches)}"
    lines = [
        f"{given(memory_id)} matches {count} memories; give more of the id. The candidates are:"
    ]
    for row in matches[:_LISTED]:
        text = " ".join(row.content.split())
        lines.append(
            f"  {row.id}  {str(iso(row.created_at))[:10]}  [{row.type}] "
            f"{text[:60]}{'…' if len(text) > 60 else ''}"
        )
    if len(matches) > _LISTED:
        lines.append(f"  … and {len(matches) - _LISTED} more")
    return "\n".join(lines)


def get(rt: Runtime, memory_id: str, scope: Scope) -> Memory:
    rt.require()
    with rt.ledger.read() as session:
        return codec.to_memory(find(session, memory_id, scope))


def by_ids(rt: Runtime, ids: list[str], scope: Scope) -> list[Memory]:
    """The memories with these exact ids that ``scope`` sees (missing ones are left out)."""
    if not ids or not rt.exists:
        return []
    with rt.ledger.read() as session:
        return [codec.to_memory(r) for r in session.by_ids(ids) if scope.visible(r)]


def list_memories(
    rt: Runtime, filters: Filters, scope: Scope, limit: int | None, oldest_first: bool
) -> list[Memory]:
    # ``limit`` was checked by the caller (``selection.check_limit``, ``selection.shown``)
    rt.require()
    where = scope.filters(filters).conditions(rt.now())
    with rt.ledger.read() as session:
        rows = session.select(where, order="oldest" if oldest_first else "newest", limit=limit)
    return [codec.to_memory(r) for r in rows]


def page(
    rt: Runtime,
    filters: Filters,
    scope: Scope,
    sort: str,
    descending: bool,
    limit: int,
    offset: int,
) -> MemoryPage:
    """One page of the memories ``filters`` select, sorted by one column, with how many there are
    in all (a face's table: server-side paging)."""
    if sort not in SORTS:
        raise BadUsage(f"Sort by one of {', '.join(SORTS)}, not {sort!r}.")
    if not 1 <= limit <= MAX_COUNT or offset < 0:
        raise BadUsage(f"A page holds 1 to {MAX_COUNT:,} memories from an offset of 0 or more.")
    rt.require()
    where = scope.filters(filters).conditions(rt.now())
    with rt.ledger.read() as session:
        total = session.count(where)
        rows = session.page(where, sort, descending, limit, offset)
    return MemoryPage([codec.to_memory(r) for r in rows], total, offset)


def per_day(rt: Runtime, filters: Filters, scope: Scope) -> list[tuple[str, int]]:
    """(UTC day, memories that happened that day) for the memories ``filters`` select, oldest first."""
    rt.require()
    where = scope.filters(filters).conditions(rt.now())
    with rt.ledger.read() as session:
        return session.per_day(where)


def sources(
    rt: Runtime, memory_id: str, depth: int, scope: Scope, limit: int | None = None
) -> list[tuple[int, Memory]]:
    """Walk a summary chain down to the original memories (or from one part of a long text to the
    others): (depth, memory) in reading order, each memory once; with ``limit``, the first
    ``limit`` sources of each memory are read and the walk stops past ``limit`` entries."""
    rt.require()
    out: list[tuple[int, Memory]] = []
    # the parts of a long text name each other: each is shown once
    seen: set[str] = set()
    with rt.ledger.read() as session:

        def walk(row: MemoryRow, level: int) -> None:
            seen.add(row.id)
            out.append((level, codec.to_memory(row)))
            if level < depth and row.source_ids:
                named = list(row.source_ids)[:limit]
                found = {r.id: r for r in session.by_ids(named) if scope.visible(r)}
                for source_id in named:
                    if limit is not None and len(out) > limit:
                        return
                    if source_id in found and source_id not in seen:
                        walk(found[source_id], level + 1)

        walk(find(session, memory_id, scope), 0)
    return out


def built_on(rt: Runtime, memory_id: str, scope: Scope, limit: int | None = None) -> list[Memory]:
    """The memories built directly on this one (the summaries above it in a summary chain, a
    pattern, another part of its text), oldest first, the first ``limit`` of them: the way up that
    ``sources`` walks down. Their ids are read first, then their rows a batch at a time until
    ``limit`` are in scope (a memory many are built on reads no more than its page shows)."""
    rt.require()
    found: list[MemoryRow] = []
    with rt.ledger.read() as session:
        row = find(session, memory_id, scope)
        ids = session.derived_from([row.id], transitive=False)
        for start in range(0, len(ids), _BATCH):
            batch = ids[start : start + _BATCH]
            rows = {r.id: r for r in session.by_ids(batch) if scope.visible(r)}
            found.extend(rows[i] for i in batch if i in rows)
            if limit is not None and len(found) >= limit:
                break
    return [codec.to_memory(r) for r in found[:limit]]


def history(rt: Runtime, memory_id: str, scope: Scope) -> list[Memory]:
    """The supersede chain a memory belongs to, oldest first (just the memory if it has none)."""
    rt.require()
    with rt.ledger.read() as session:
        chain = [find(session, memory_id, scope)]
        seen = {chain[0].id}
        for backwards in (True, False):
            while len(chain) < (100 if backwards else 200):
                link = chain[0].supersedes if backwards else chain[-1].superseded_by
                linked = [r for r in session.by_ids([link]) if scope.visible(r)] if link else []
                if not linked or linked[0].id in seen:
                    break
                chain.insert(0, linked[0]) if backwards else chain.append(linked[0])
                seen.add(linked[0].id)
    return [codec.to_memory(r) for r in chain]


def log(
    rt: Runtime,
    *,
    limit: int | None,
    action: str | None,
    memory_id: str | None,
    since: datetime | None,
    scope: Scope,
) -> list[AuditEntry]:
    """The audit log, newest first: who did what to which memories, when and why (never content)."""
    rt.require()
    with rt.ledger.read() as session:
        if memory_id:
            try:
                memory_id = find(session, memory_id, scope).id
            except MemoryNotFound:
                # a hard-forgotten memory's id still finds its entries
                pass
        rows = session.audit_log(
            limit=limit,
            action=action,
            memory_id=memory_id,
            since=since,
            # an agent sees what it did, never another agent's forgets and reasons (issue 31): its
            # entries picked in the read, so a page of them reads no more (review BH)
            # (a scope's agent is never empty: None for every agent)
            actor=scope.agent,
        )
    return [
        AuditEntry(str(iso(at)), act, list(ids), reason, actor)
        for at, act, ids, reason, actor in rows
    ]


def current(session: Reader, row: MemoryRow) -> MemoryRow:
    """The newest version of ``row``'s text: the end of its supersede chain, as long as the text
    stays the same (a changed fact that superseded it is another statement, not a version), its
    chain read at once (``version_chains``). Walked a read a link, 200 at most, a write repeating
    a text with a longer chain (a token principal's edits of a note of hers) read 400 memories one
    by one in its write transaction, at the write gate, and its fix went to the 200th version,
    superseded long ago, and was lost (review BE)."""
    chain = {r.id: r for r in version_chains(session, [row])[row.id]}
    seen = {row.id}
    while (newer := row.superseded_by) in chain and newer not in seen:
        row = chain[str(newer)]
        seen.add(row.id)
    return row


def chain_ids(session: Reader, row: MemoryRow) -> set[str]:
    """The ids of every version of ``row``'s text (``version_chains``)."""
    return {r.id for r in version_chains(session, [row])[row.id]}


def every_version(session: Reader, rows: Iterable[MemoryRow]) -> list[MemoryRow]:
    """``rows`` and every other version of their texts, older and newer (``version_chains``)."""
    out: dict[str, MemoryRow] = {}
    for chain in version_chains(session, rows).values():
        out.update((r.id, r) for r in chain)
    return list(out.values())


def version_chains(session: Reader, rows: Iterable[MemoryRow]) -> dict[str, list[MemoryRow]]:
    """Each of ``rows`` (by id) with every version of its text, older and newer, itself among them
    (``chain_ids``' versions: the supersede links followed while the text stays the same): the
    links followed by id a step further at each read, ``_WALKED`` steps, and a chain longer than
    that read at once by its text (``_rest``: the links of every memory of it, and whole the ones
    joined to it where a link stays within the text). ``chain_ids`` of each of them walked its
    whole chain again for each version in it, a read a version (a token principal's hard forget
    by task of the 60 versions her edits made of one note read 5,600 memories one by one; review
    BB), and the walk alone still read a long chain a version at a time: a note of hers with
    20,000 versions made her hard forget of it read for 100 s to plan and 65 s more in the
    ledger's write transaction, at the write gate every agent's writes wait for, and a write
    repeating it 400 reads there (review BE)."""
    starts = list(rows)
    found = {row.id: row for row in starts}
    frontier = starts
    for _ in range(_WALKED):
        # each linked memory not read yet, with the texts of the versions that name it
        wanted: dict[str, set[tuple[str, str]]] = {}
        for row in frontier:
            for target in (row.superseded_by, row.supersedes):
                if target and target not in found:
                    wanted.setdefault(target, set()).add(_text(row))
        read = session.by_ids(sorted(wanted)) if wanted else []
        found.update((row.id, row) for row in read)
        frontier = [row for row in read if _text(row) in wanted[row.id]]
    if frontier:
        found.update((r.id, r) for r in _rest(session, frontier, found))
    # the chains as sets that merge where a link joins two versions of one text
    parent = {memory_id: memory_id for memory_id in found}

    def root(memory_id: str) -> str:
        while parent[memory_id] != memory_id:
            parent[memory_id] = parent[parent[memory_id]]
            memory_id = parent[memory_id]
        return memory_id

    for row in found.values():
        for target in (row.superseded_by, row.supersedes):
            if target and target in found and _text(found[target]) == _text(row):
                parent[root(target)] = root(row.id)
    chains: dict[str, list[MemoryRow]] = {}
    for memory_id, row in found.items():
        chains.setdefault(root(memory_id), []).append(row)
    return {row.id: chains[root(row.id)] for row in starts}


def _text(row: MemoryRow) -> tuple[str, str]:
    """What every version of a text shares: its words and its agent. A memory supersedes only
    one of its own agent's, but a link an import file brought is kept as written: an imported
    memory of a token principal's naming the owner's memory of its words as its newer version made
    the owner's memory the newest of hers, and her write repeating it gave the owner's memory her
    fix, a new version of it under the owner's agent that took its place (review BH)."""
    return row.content_hash, row.agent_id


def _rest(
    session: Reader, frontier: list[MemoryRow], found: dict[str, MemoryRow]
) -> list[MemoryRow]:
    """The rest of the long chains ``frontier`` reached: the links of every version of their
    texts, their agents' (a memory supersedes only one of its own agent's), read at once, four
    short columns a memory and never one no supersede names; then only the memories those links
    join to ``frontier`` while the text stays the same, in one read. Every memory of
    the text was read whole: a token principal's thousands of copies of a note (in other tasks,
    or under keys of hers) beside five versions of it were read, text and metadata, twice in each
    write repeating it, at the write gate (3,000 copies: a write 0.6 s; review BH)."""
    texts = sorted({row.content_hash for row in frontier})
    agents = sorted({row.agent_id for row in frontier})
    where = [("content_hash", "in", texts), ("agent_id", "in", agents)]
    text = {row.id: _text(row) for row in found.values()}
    linked: dict[str, list[str]] = {}
    for memory_id, content, agent, *targets in session.links(where):
        text[memory_id] = (content, agent)
        for target in targets:
            if target:
                linked.setdefault(memory_id, []).append(target)
                linked.setdefault(target, []).append(memory_id)
    reached = {row.id for row in frontier}
    todo = list(reached)
    while todo:
        memory_id = todo.pop()
        for other in linked.get(memory_id, ()):
            if other not in reached and text.get(other) == text[memory_id]:
                reached.add(other)
                todo.append(other)
    wanted = sorted(reached.difference(found))
    return session.by_ids(wanted) if wanted else []


def walk(
    session: Reader, row: MemoryRow, link: str, seen: set[str], same_text: bool = True
) -> MemoryRow:
    """Follow ``link`` (``superseded_by``: newer, ``supersedes``: older) while the text stays the
    same (with ``same_text``; else across changed facts too), at most ``_MAX_CHAIN`` memories,
    adding each id to ``seen``; the last one reached. A loop in a damaged store ends it."""
    while (target := getattr(row, link)) and len(seen) < _MAX_CHAIN:
        found = session.by_ids([target])
        if (
            not found
            or found[0].id in seen
            or (same_text and found[0].content_hash != row.content_hash)
        ):
            break
        row = found[0]
        seen.add(row.id)
    return row
