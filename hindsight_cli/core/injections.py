"""The injection record (issue 36): what recall put in front of an agent, what it cost, what the
budget left out, and later whether the agent used it.

One JSON line per injection in ``<store>/injections.jsonl`` (mode 0600, appended in one write under
the file's lock, as the hook spool is), content-free: memory ids, the event, the session, tokens,
latency, the budget, the ids dropped for it, and why an injection was skipped (a daily or session
cap). A use verdict (``lessons.usage``) is a line of its own naming its injection and memory. The
record lives beside the ledger, not in it: a hook that injects appends a line without opening the
ledger's write lock, and a hard forget strips the forgotten ids from it (``scrub``). Lines older
than ``[injections] keep_days`` go when the next injection is appended.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Container, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO

from ..safefs.reading import parse_json
from ..storage import spool
from ..timeutil import iso

FILE = "injections.jsonl"
# injections no one asked for: what the daily and per-session caps limit
AUTOMATIC = frozenset({"session-start", "repeat-error", "repeat-prompt"})
EVENTS = AUTOMATIC | {"mcp-search", "recall-prompt"}
VERDICTS = ("used", "ignored", "misleading")
# bytes read back from the end of the record at first for the caps' window (a day of one user's
# heavy use is ~200 KB); more while the window goes further back (``_since``)
_TAIL = 1 << 20
# bytes of the record read back at most, its newest (30 days of one user's heavy use is ~6 MB):
# a larger record came with a repository's store, or from an agent's searches; past it, the
# older lines are not read, and the next expiry drops them
MAX_RECORD = 64 << 20


@dataclass(frozen=True)
class Injection:
    """One injection, or one skipped for a cap (``skipped``), as the record keeps it."""

    id: str
    at: str
    event: str
    session: str | None
    ids: list[str]
    tokens: int
    ms: float
    budget: int | None
    dropped: list[str] = field(default_factory=list)
    skipped: str | None = None
    # how many hits the budget left out (their ids are ``dropped`` where the caller knew them)
    left_out: int = 0
    # the client's id of the failing call a repeat recall answered (its verdict reads what came
    # after that call)
    call: str | None = None
    # the token principal whose search it was (None: the store's owner's)
    by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Verdict:
    """Whether the agent used one memory of an injection: ``used``, ``ignored`` or
    ``misleading``."""

    at: str
    injection: str
    memory: str
    verdict: str
    session: str | None = None


def path_of(store: Path) -> Path:
    return store / FILE


def _redacted(text: str | None, name: str) -> str | None:
    # the redaction rules are imported by what writes a line, not by every search that reads these
    from ..redact import redact_field

    return redact_field(text, name)[0] if text else None


def _session(session: str | None) -> str | None:
    return _redacted(session, "session")


def make(
    event: str,
    ids: Sequence[str],
    tokens: int,
    *,
    at: datetime,
    session: str | None = None,
    ms: float = 0.0,
    budget: int | None = None,
    dropped: Sequence[str] = (),
    skipped: str | None = None,
    left_out: int | None = None,
    call: str | None = None,
    by: str | None = None,
) -> Injection:
    if event not in EVENTS:
        raise ValueError(f"unknown injection event {event!r}")
    return Injection(
        id=spool.new_id(),
        at=iso(at) or "",
        event=event,
        session=_session(session),
        ids=list(ids),
        tokens=int(tokens),
        ms=round(float(ms), 2),
        budget=budget,
        dropped=list(dropped),
        skipped=skipped,
        left_out=len(dropped) if left_out is None else int(left_out),
        call=_redacted(call, "call"),
        by=by,
    )


def append(store: Path, entry: Injection | Verdict, keep_days: int, now: datetime) -> None:
    """Add one line; the lines past ``keep_days`` go first (0 keeps nothing)."""
    if keep_days <= 0:
        return
    target = path_of(store)
    spool.append(
        target,
        {"kind": "injection", **asdict(entry)}
        if isinstance(entry, Injection)
        else {"kind": "verdict", **asdict(entry)},
    )
    _expire(target, now - timedelta(days=keep_days))


def _expire(target: Path, before: datetime) -> None:
    """Drop the lines older than ``before`` when the oldest is (one read of the first line), and
    those before the newest ``MAX_RECORD`` bytes."""
    limit = iso(before) or ""
    try:
        size = target.stat().st_size
    except OSError:
        return
    if size <= MAX_RECORD and _at(next(spool.lines(target), "")) >= limit:
        return
    # the newest half when past the bound: cut back to the bound itself, it was past it again
    # within a line or two, and each line rewrote the whole record (review X)
    room = MAX_RECORD // 2 if size > MAX_RECORD else MAX_RECORD
    # the record is past the bound by the line just appended: its oldest lines are read too
    tail = MAX_RECORD + spool.MAX_READ_LINE
    spool.rewrite(target, lambda found: _owners_first(found, limit, room), tail=tail)


# how a token principal's line names her (``Injection.by``; the owner's is ``null``, a verdict has
# none): a quote inside a value is escaped, so no value of hers reads as it
_BY_PRINCIPAL = '"by":"'


def _owners_first(found: Iterable[str], limit: str, room: int) -> list[str]:
    """The lines of ``found`` from ``limit`` (an ISO time) on, the newest that fit ``room`` bytes,
    the owner's first: a token principal's searches (``by``) only in the room the owner's lines
    leave. Cut by age alone, her searches (a line each, as many as she likes) pushed the owner's
    verdicts out of the record: a memory of hers flagged as misleading was injected again into the
    owner's sessions, and the owner's injections left the caps (review AY)."""
    lines = [(line, _BY_PRINCIPAL in line) for line in found if _at(line) >= limit]
    kept = [False] * len(lines)
    for principals in (False, True):
        for at in reversed(range(len(lines))):
            line, by = lines[at]
            if by != principals:
                continue
            room -= len(line.encode("utf-8")) + 1
            if room < 0:
                break
            kept[at] = True
    return [line for (line, _), keep in zip(lines, kept, strict=True) if keep]


def _at(line: str | bytes) -> str:
    try:
        value = parse_json(line)
    except ValueError:
        return ""
    return str(value.get("at") or "") if isinstance(value, dict) else ""


# what a line of the record must hold to be decoded at all (``_lines``): each of ``Needles`` in it,
# one of its tuple's strings for a tuple
Needles = Sequence[str | tuple[str, ...]]


def _field(name: str, value: str) -> str:
    """How a line of the record holds ``name`` with ``value``: compact JSON, as ``append`` writes
    it (``spool.append``)."""
    from ..storage import spool_json

    return f'"{name}":{spool_json.dumps(value, compact=True)}'


# the lines of the injections the caps count (``AUTOMATIC``)
_AUTOMATIC_LINES = (tuple(_field("event", event) for event in sorted(AUTOMATIC)),)


def _lines(found: Iterable[str], needles: Needles = ()) -> Iterable[dict[str, Any]]:
    """The record's values in ``found``, each line tested for ``needles`` before it is decoded: an
    agent of a shared server adds a line with every search (``mcp-search``), as many as it likes,
    and a reader of the owner's (a hook's caps, a session's verdicts, the verdicts at every
    injection) decoded each of them, up to ``MAX_RECORD`` (64 MiB, 4 to 9 s) a hook (review AJ)."""
    for line in found:
        if not all(
            any(n in line for n in needle) if isinstance(needle, tuple) else needle in line
            for needle in needles
        ):
            continue
        try:
            value = parse_json(line)
        except ValueError:
            continue
        if isinstance(value, dict) and value.get("kind") in ("injection", "verdict"):
            yield value


def _read(store: Path, tail: int | None = None, needles: Needles = ()) -> list[dict[str, Any]]:
    """The record's values, of its last ``tail`` bytes (at most ``MAX_RECORD``) from the first
    whole line on, of the lines holding ``needles`` (``_lines``)."""
    found = spool.lines(path_of(store), tail=min(tail or MAX_RECORD, MAX_RECORD))
    return list(_lines(found, needles))


def _since(store: Path, start: str, needles: Needles = ()) -> list[dict[str, Any]]:
    """The lines of the record holding ``needles`` from ``start`` (an ISO time) on, and maybe a
    few before: read back from the end, a larger piece each time, until the first such line read
    is older than ``start`` or the file's start is reached. Never a fixed tail: MCP searches add
    lines too (an agent of a shared server, as many as it likes), and what the caps count must not
    depend on how much others wrote since. The lines are appended in time order."""
    tail = _TAIL
    while True:
        values = _read(store, tail, needles)
        try:
            size = path_of(store).stat().st_size
        except OSError:
            return values
        if tail >= min(size, MAX_RECORD) or (values and str(values[0].get("at") or "") < start):
            return values
        tail *= 4


def _injection(value: dict[str, Any]) -> Injection:
    known = {name: value.get(name) for name in Injection.__dataclass_fields__}
    return Injection(
        id=str(known["id"] or ""),
        at=str(known["at"] or ""),
        event=str(known["event"] or ""),
        session=known["session"],
        ids=[str(i) for i in known["ids"] or []],
        tokens=int(known["tokens"] or 0),
        ms=float(known["ms"] or 0.0),
        budget=known["budget"],
        dropped=[str(i) for i in known["dropped"] or []],
        skipped=known["skipped"],
        left_out=int(known["left_out"] or 0),
        call=known["call"],
        by=known["by"],
    )


def seen_by(
    injections: Sequence[Injection],
    verdicts: Sequence[Verdict],
    visible: Container[str],
    principal: str | None = None,
) -> tuple[list[Injection], list[Verdict]]:
    """The part of the record an agent's scope may read: the injections every memory of which it
    sees (a scoped search injects only those; a skip names no memory and no agent, so it is left
    out), and the verdicts on memories it sees. The record names no agent but the token principal
    whose search an entry was (``by``): otherwise a memory's owner is what decides. A token
    principal (``principal``, its agent) reads no automatic injection, nor a verdict (only those
    are judged): the hooks are the owner's, and an injection of the principal's memories alone
    into the owner's session told it the owner's session ids, when they worked and what the owner
    then ran (review AJ); nor the owner's search of its memories alone (their task's id, when they
    searched; review AP). Only its own searches."""
    return (
        [
            i
            for i in injections
            if i.ids
            and all(m in visible for m in i.ids)
            and (principal is None or i.by == principal)
        ],
        [] if principal else [v for v in verdicts if v.memory in visible],
    )


def read(
    store: Path,
    since: datetime | None = None,
    session: str | None = None,
    verdicts_only: bool = False,
) -> tuple[list[Injection], list[Verdict]]:
    """The injections and verdicts recorded since ``since`` (in ``session``), oldest first."""
    limit = iso(since) or "" if since is not None else ""
    wanted = _session(session)
    injections, verdicts = [], []
    needles = [_field("kind", "verdict")] if verdicts_only else []
    if wanted:
        needles.append(_field("session", wanted))
    for value in _read(store, needles=needles):
        if str(value.get("at") or "") < limit or (wanted and value.get("session") != wanted):
            continue
        if value["kind"] == "injection":
            injections.append(_injection(value))
        elif (verdict := _verdict(value)) is not None:
            verdicts.append(verdict)
    return injections, verdicts


def _verdict(value: dict[str, Any]) -> Verdict | None:
    if value.get("kind") != "verdict" or value.get("verdict") not in VERDICTS:
        return None
    return Verdict(
        at=str(value.get("at") or ""),
        injection=str(value.get("injection") or ""),
        memory=str(value.get("memory") or ""),
        verdict=str(value["verdict"]),
        session=value.get("session"),
    )


def spent(store: Path, session: str | None, now: datetime) -> tuple[int, int]:
    """Tokens automatic injections spent today (UTC) and in ``session`` over the last day: what
    the daily and per-session caps count."""
    today = iso(now.replace(hour=0, minute=0, second=0, microsecond=0)) or ""
    day_ago = iso(now - timedelta(days=1)) or ""
    wanted = _session(session)
    daily = in_session = 0
    for value in _since(store, min(today, day_ago), _AUTOMATIC_LINES):
        if value["kind"] != "injection" or value.get("event") not in AUTOMATIC:
            continue
        at, tokens = str(value.get("at") or ""), int(value.get("tokens") or 0)
        if at >= today:
            daily += tokens
        if wanted and value.get("session") == wanted and at >= day_ago:
            in_session += tokens
    return daily, in_session


def scrub(store: Path, ids: set[str]) -> int:
    """After a hard forget: strip ``ids`` from every injection and drop their verdicts, so no trace
    of them stays in the record. Returns how many lines changed."""
    target = path_of(store)
    if not ids or not target.is_file() or target.is_symlink():
        return 0

    def cleaned(line: str) -> str | None:
        """``line`` without ``ids`` (None: it goes), or itself."""
        try:
            value = parse_json(line)
        except ValueError:
            return line
        if not isinstance(value, dict):
            return line
        if value.get("memory") in ids:
            return None
        kept = {
            **value,
            **{
                name: [i for i in value[name] if i not in ids]
                for name in ("ids", "dropped")
                if isinstance(value.get(name), list)
            },
        }
        return (
            line if kept == value else json.dumps(kept, ensure_ascii=False, separators=(",", ":"))
        )

    changed = 0

    def keep(found: Iterator[str]) -> Iterator[str]:
        nonlocal changed
        for line in found:
            after = cleaned(line)
            changed += after != line
            if after is not None:
                yield after

    # read once without the lock (most forgets touch nothing here), then again under it
    if any(cleaned(line) != line for line in spool.lines(target)):
        spool.rewrite(target, keep)
    return changed


# what a verdict adds to a memory's standing: a use counts as three ignores
_WEIGHT = {"used": 1.0, "ignored": -0.34, "misleading": -1.0}


def standing(verdicts: Iterable[Verdict], now: datetime, half_life: float) -> dict[str, float]:
    """Each judged memory's standing, from -1 to 1: its verdicts weighed (used +1, ignored -0.34,
    misleading -1), each halving every ``half_life`` days, and bounded (``tanh``)."""
    raw: dict[str, float] = {}
    for verdict in verdicts:
        try:
            at = datetime.fromisoformat(verdict.at.replace("Z", "+00:00")).replace(tzinfo=None)
        except ValueError:
            continue
        age = max(0.0, (now - at).total_seconds() / 86400)
        decay = 0.5 ** (age / max(half_life, 1e-6))
        raw[verdict.memory] = raw.get(verdict.memory, 0.0) + _WEIGHT[verdict.verdict] * decay
    return {memory: math.tanh(value) for memory, value in raw.items()}


# A long-lived process ranks by the verdicts at every search, and each MCP search appends a line to
# the record: what a process read of it is kept, and only the lines added since are read (the whole
# record again, up to ``MAX_RECORD``, was 0.1 s a search at 64 MiB; review AP).
@dataclass
class _Held:
    file: tuple[int, int]  # st_dev, st_ino of the record read
    changed: int  # its st_mtime_ns then
    end: int  # the offset after the last whole line read
    # the file's first bytes and those before ``end`` (256 each at most): the same file, not a new
    # one given its inode number, nor one written over in place
    head: bytes
    last: bytes
    found: list[tuple[int, Verdict]]  # each verdict with the offset of its line


_VERDICTS: dict[str, _Held] = {}
_READING = threading.Lock()
_VERDICT_LINE = _field("kind", "verdict").encode()


def verdicts(store: Path) -> list[Verdict]:
    """Every verdict of the record's last ``MAX_RECORD`` bytes (``read``'s), read again only from
    where the last read ended while the record is the same file, grown by appends."""
    target = path_of(store)
    try:
        handle = _open(target)
    except OSError:
        _VERDICTS.pop(str(target), None)
        return []
    # one reader at a time adds what it read to what the process holds (the server's searches run
    # in threads)
    with _READING, handle:
        st = os.fstat(handle.fileno())
        held = _VERDICTS.get(str(target))
        if held is None or not _grown(handle, held, st):
            file = (st.st_dev, st.st_ino)
            held = _Held(file, 0, _first_line(handle, st.st_size), b"", b"", [])
        held.changed = st.st_mtime_ns
        _read_verdicts(handle, held)
        handle.seek(0)
        held.head = handle.read(min(held.end, 256))
        window = st.st_size - MAX_RECORD
        if held.found and held.found[0][0] < window:
            held.found = [(at, verdict) for at, verdict in held.found if at >= window]
        _VERDICTS[str(target)] = held
        return [verdict for _, verdict in held.found]


def _open(target: Path) -> BinaryIO:
    from ..safefs.reading import open_regular

    return open_regular(target, nofollow=True)


def _grown(handle: BinaryIO, held: _Held, st: os.stat_result) -> bool:
    """Whether the record is the file ``held`` was read from, with lines appended at most (what
    hindsight does to it; a rewrite makes a new file; an edit in place that keeps its size is told
    by its time, one that grows it and keeps the first and last bytes read is not told)."""
    if held.file != (st.st_dev, st.st_ino) or st.st_size < held.end:
        return False
    if st.st_size == held.end and st.st_mtime_ns != held.changed:
        return False
    handle.seek(held.end - len(held.last))
    if handle.read(len(held.last)) != held.last:
        return False
    handle.seek(0)
    return handle.read(len(held.head)) == held.head


def _first_line(handle: BinaryIO, size: int) -> int:
    """Where ``read`` starts in a record of ``size`` bytes: the first whole line of its last
    ``MAX_RECORD``, as ``spool.lines`` reads it."""
    from ..safefs.reading import seek_tail

    return seek_tail(handle, size, MAX_RECORD)


def _read_verdicts(handle: BinaryIO, held: _Held) -> None:
    """Add to ``held`` the verdicts of the whole lines after ``held.end`` (a line being appended is
    read next time); a line longer than any hindsight writes is skipped, as ``spool.lines`` does.
    Only a line naming a verdict is decoded (``_lines``)."""
    from ..safefs.reading import skip_line

    handle.seek(held.end)
    limit = spool.MAX_READ_LINE
    while raw := handle.readline(limit + 1):
        if not raw.endswith(b"\n"):
            if len(raw) <= limit or not skip_line(handle):
                break
        elif _VERDICT_LINE in raw:
            for value in _lines([raw.decode("utf-8", errors="replace")]):
                if (verdict := _verdict(value)) is not None:
                    held.found.append((held.end, verdict))
        held.end = handle.tell()
    handle.seek(max(0, held.end - 256))
    held.last = handle.read(held.end - handle.tell())
