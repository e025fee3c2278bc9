"""The hook spool: redacted JSON lines that recording hooks append and the store ingests later.

Recording must cost a few milliseconds, so this module imports only the standard library and the
redaction rules: no DuckDB, LanceDB, ONNX or NumPy. Each event is one ``write`` on a file opened
with ``O_APPEND`` (mode 0600) under an exclusive ``flock``, so lines from concurrent hooks never
interleave, whatever their length. The ingester claims the file by renaming it; a writer that opened
the old name just before the rename notices (the inode changed) and writes to the new file instead.
"""

from __future__ import annotations

import os
import time

from .. import safefs
from ..safefs import appending, spool_key
from . import spool_json as codec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping
    from pathlib import Path
    from typing import Any

    from ..models import JSONObject

try:
    import fcntl
# Windows: appends of one write each are still atomic enough for our line sizes
except ImportError:
    fcntl = None  # type: ignore[assignment]

SPOOL_DIR = "spool"
EVENTS = "events.jsonl"
SEEN = "seen.jsonl"
LOG = "hooks.log"
CLAIMED_PREFIX = "claimed-"
# the kinds of failure fixed before, one file each (``kinds/<digest>``: the sessions that fixed it)
KINDS_DIR = "kinds"
# each session's failures still waiting for their fix (``open/<digest>.jsonl``)
OPEN_DIR = "open"
# sessions a kind's file keeps (the gate needs one that is not the asking session)
_KIND_SESSIONS = 32
# events the store refused (or that were refused before they were spooled), each with its reason
REJECTED = "rejected.jsonl"
# bytes: the most one spooled event may hold (the store's own limits are checked at ingestion)
MAX_LINE = 1 << 20
# characters of a session id (the store's task_id: one line of at most text.MAX_LABEL)
_MAX_SESSION = 200
KINDS = frozenset({"prompt", "tool_error", "tool_ok", "stop", "pre_compact", "session_end"})
# characters of each text field kept in a rejected line (enough to recognise it)
_KEPT = 500
# bytes of the seen-signatures file a hook reads (the most recent ones)
_SEEN_TAIL = 64 * 1024
# bytes of one line of a store's JSON-lines file read back (a spooled event is at most MAX_LINE,
# the others' lines are shorter): a longer one is no line hindsight wrote, and is skipped
MAX_READ_LINE = 2 * MAX_LINE
# bytes gathered into one write when a file is rewritten line by line
_WRITE_CHUNK = 1 << 20


def spool_dir(store: Path) -> Path:
    return store / SPOOL_DIR


def new_id() -> str:
    # `import uuid` alone costs more than a whole recording hook should
    return os.urandom(16).hex()


def _open_locked(path: str | os.PathLike[str]) -> int:
    """An O_APPEND descriptor on ``path`` holding its exclusive lock, still linked under that
    name."""
    while True:
        fd = safefs.open_nofollow(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        if fcntl is None:
            return fd
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                return fd
        except FileNotFoundError:
            pass
        # claimed (renamed) between our open and our lock: append to the new file
        os.close(fd)


def problem(record: Mapping[str, object], size: int = 0) -> str | None:
    """Why the store would refuse this event line, or None: checked before it is spooled, so one bad
    line never reaches the events the store ingests."""
    if not isinstance(record.get("id"), str) or record.get("kind") not in KINDS:
        return "not a hook event (no id, or an unknown kind)"
    session = record.get("session")
    if session is not None:
        if not isinstance(session, str):
            return "the session id is not a string"
        visible = "".join(c for c in session if c >= " " or c in "\n\t").strip()
        if "\n" in visible or len(visible) > _MAX_SESSION:
            return f"the session id is not one line of at most {_MAX_SESSION} characters"
    transcript = record.get("transcript")
    # a path no system call takes (Python refuses a NUL before asking): nothing to mine
    if transcript is not None and (not isinstance(transcript, str) or "\0" in transcript):
        return "the transcript path is not a path (not a string, or it holds a NUL byte)"
    if size > MAX_LINE:
        return f"the event is {size} bytes, over the {MAX_LINE}-byte limit of one spooled event"
    return None


def _shortened(record: Mapping[str, object]) -> dict[str, object]:
    return {
        k: v[:_KEPT] + "…" if isinstance(v, str) and len(v) > _KEPT else v
        for k, v in record.items()
    }


def reject(directory: str | os.PathLike[str], record: Mapping[str, object], reason: str) -> None:
    """Set an event aside in ``REJECTED`` with why (its long texts cut), for ``hooks status`` and
    ``doctor``; ingestion goes on without it."""
    line = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "reason": reason}
    append(os.path.join(directory, REJECTED), {**line, "event": _shortened(record)})


def rejected(store: Path) -> tuple[int, str | None]:
    """How many events were set aside, and the latest one's reason."""
    count, final = 0, None
    for line in lines(spool_dir(store) / REJECTED):
        count, final = count + 1, line
    last = None
    if final is not None:
        try:
            value = codec.loads(final)
        except ValueError:
            value = None
        last = str(value.get("reason")) if isinstance(value, dict) else None
    return count, last


def lines(path: str | os.PathLike[str], tail: int | None = None) -> Iterator[str]:
    """The lines of a JSON-lines file hindsight wrote in a store (the spool's, the injection
    record), one at a time (``safefs.reading.own_lines``; with ``tail``, of its last ``tail``
    bytes only): lines end at ``\\n`` alone, and one longer than any hindsight writes is skipped."""
    from ..safefs.reading import own_lines

    return own_lines(path, tail, MAX_READ_LINE)


def append(path: str | os.PathLike[str], record: Mapping[str, object]) -> None:
    """Append one JSON line to ``path`` in a single write. An event (``EVENTS``) carries the tag of
    the store's spool secret (``spool_key``, made at the first append), which ingestion checks; one
    the store would refuse goes to ``REJECTED`` instead, with its reason."""
    safefs.private_dir(os.path.dirname(path), "The spool directory")
    text = codec.dumps(record, compact=True)
    if os.path.basename(path) == EVENTS:
        text = spool_key.tagged(os.path.dirname(os.path.dirname(path)), text)
        reason = problem(record, len(text.encode("utf-8")) + 1)
        if reason is not None:
            reject(os.path.dirname(path), record, reason)
            return
    fd = _open_locked(path)
    try:
        appending.append_whole(fd, (text + "\n").encode("utf-8"))
    finally:
        # closing releases the lock
        os.close(fd)


def claim(store: Path) -> list[Path]:
    """Take the pending events for ingestion: the live file is renamed, so new events start a new
    one.

    Files claimed earlier by an ingester that did not finish are returned too; ingesting them twice
    is harmless because every event carries its own idempotency key.
    """
    directory = spool_dir(store)
    live = directory / EVENTS
    if live.exists():
        target = directory / f"{CLAIMED_PREFIX}{time.time_ns()}-{os.getpid()}.jsonl"
        try:
            os.replace(live, target)
        except FileNotFoundError:
            # another ingester took it first
            pass
        else:
            # wait for a writer that locked the old name before the rename
            if fcntl is not None:
                fd = safefs.open_nofollow(target, os.O_RDONLY)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                finally:
                    os.close(fd)
    return sorted(directory.glob(f"{CLAIMED_PREFIX}*.jsonl")) if directory.is_dir() else []


def read(
    paths: list[Path],
    key: spool_key.Key | None,
    refuse: Callable[[JSONObject, str], None],
) -> Iterator[JSONObject]:
    """The events in ``paths``, in order, that ``key`` tagged (the store's: ``spool_key.of``); a
    torn or foreign line is skipped, not fatal, and an event without the tag, or with another, is
    handed to ``refuse`` with why: this user's hooks did not write it for this store."""
    for path in paths:
        for line in lines(path):
            try:
                value = codec.loads(line)
            except ValueError:
                continue
            if not (isinstance(value, dict) and value.get("id") and value.get("kind")):
                continue
            # (the tag stays in the event: no record the ingester builds copies it)
            reason = spool_key.refusal(key, line)
            if reason is None:
                yield value
            else:
                refuse(value, reason)


def pending(store: Path) -> bool:
    directory = spool_dir(store)
    return (directory / EVENTS).exists() or any(directory.glob(f"{CLAIMED_PREFIX}*.jsonl"))


def done(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def recent_seen(store: str | os.PathLike[str]) -> list[JSONObject]:
    """The most recent signatures of prompts and errors (for "have I seen this before?")."""
    out = []
    for line in lines(os.path.join(store, SPOOL_DIR, SEEN), tail=_SEEN_TAIL):
        try:
            value = codec.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def trim_seen(store: Path, keep: int = 2000) -> None:
    """Keep the signatures file small (called on the slow path, at ingestion)."""
    from collections import deque

    path = spool_dir(store) / SEEN
    if sum(1 for _ in lines(path)) > keep * 2:
        rewrite(path, lambda found: deque(found, maxlen=keep))


def rewrite(
    path: str | os.PathLike[str],
    change: Callable[[Iterator[str]], Iterable[str]],
    tail: int | None = None,
) -> None:
    """Replace ``path`` (which exists) by ``change(its lines)`` (``lines``, of its last ``tail``
    bytes), through a private temporary file, all under its lock: the lines are read once the
    lock is held, so a line a hook appends meanwhile is kept or waits for the new file (read before
    the lock, as they were, it was lost), and a file an ingestion claimed meanwhile is left empty
    (its lines are in the new file)."""
    from ..safefs.reading import open_regular, split_lines

    fd = _open_locked(path)
    try:
        with open_regular(path, nofollow=True) as handle:
            lines = split_lines(handle, tail, MAX_READ_LINE)
            safefs.write_private(path, _chunks(change(lines)))
        # The file read is still linked under another name when an ingestion claimed it (renamed
        # it; ``claim`` then waits for this lock) before the new file took the name: what it held
        # is in the new file now, changed, so it is emptied rather than read again as it was.
        if os.fstat(fd).st_nlink > 0:
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)


def _chunks(found: Iterable[str]) -> Iterator[str]:
    """``found`` as lines, gathered into writes of about ``_WRITE_CHUNK`` bytes."""
    batch: list[str] = []
    size = 0
    for line in found:
        batch.append(line + "\n")
        size += len(line) + 1
        if size >= _WRITE_CHUNK:
            yield "".join(batch)
            batch, size = [], 0
    if batch:
        yield "".join(batch)


def _digest(text: str) -> str:
    """A file name for ``text``: two checksums, 64 bits (hashlib costs a recording hook 3 ms). A
    collision of two kinds only lets the gate ask the store, which finds lessons by the kind's
    SHA-256 tag and so recalls nothing it should not."""
    import zlib

    data = text.encode("utf-8", "surrogatepass")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def fixed_by(store: str, kind: str) -> set[str]:
    """The sessions that fixed a failure of ``kind`` (one small file read, whatever the store
    holds)."""
    from ..safefs.reading import open_regular

    try:
        # not through a link, nor a FIFO (whose open waits): only a file a hook wrote
        with open_regular(
            os.path.join(store, SPOOL_DIR, KINDS_DIR, _digest(kind)), nofollow=True
        ) as handle:
            data = handle.read(64 * 1024).decode("utf-8", errors="replace")
    except OSError:
        return set()
    return {line for line in data.split("\n") if line}


def fixed_elsewhere(store: str, kind: str, session: str) -> bool:
    """Whether a session other than ``session`` fixed a failure of ``kind``."""
    return bool(fixed_by(store, kind) - {session})


def note_fixed(store: str, kind: str, session: str) -> None:
    """Remember that ``session`` fixed a failure of ``kind``."""
    directory = os.path.join(store, SPOOL_DIR, KINDS_DIR)
    path = os.path.join(directory, _digest(kind))
    safefs.private_dir(directory, "The spool directory")
    fd = _open_locked(path)
    try:
        size = os.fstat(fd).st_size
        if size < 4096:
            with open(path, "rb") as handle:
                known = handle.read().decode("utf-8", errors="replace").split("\n")
            if session in known or len(known) > _KIND_SESSIONS:
                return
        appending.append_whole(
            fd, (session.replace("\n", " ") + "\n").encode("utf-8", "surrogatepass")
        )
    finally:
        os.close(fd)


def _open_path(store: str, session: str) -> str:
    return os.path.join(store, SPOOL_DIR, OPEN_DIR, _digest(session) + ".jsonl")


def has_open(store: str, session: str) -> bool:
    """Whether ``session`` has failures waiting for their fix (a ``stat``: the common case, a call
    that follows no failure, costs nothing more)."""
    return os.path.exists(_open_path(store, session))


def update_open(
    store: str, session: str, change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]
) -> None:
    """Replace ``session``'s open failures by ``change(open failures)`` under the file's lock, so
    concurrent calls of one session (parallel tool calls) never lose one; none left, the file
    goes."""
    path = _open_path(store, session)
    safefs.private_dir(os.path.dirname(path), "The spool directory")
    fd = _open_locked(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(256 * 1024).decode("utf-8", errors="replace")
        current: list[dict[str, Any]] = []
        # lines end at "\n" alone (``lines``): a failure's text may hold U+2028 raw
        for line in data.split("\n"):
            if not line:
                # the end of the last line: its decoder would fall back on (and import) json
                continue
            try:
                value = codec.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                current.append(value)
        kept = change(current)
        if kept:
            safefs.write_private(path, "".join(codec.dumps(f, compact=True) + "\n" for f in kept))
        else:
            os.unlink(path)
    finally:
        os.close(fd)


def _cjk(char: str) -> bool:
    return (
        "\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u9fff" or "\uac00" <= char <= "\ud7af"
    )


_ASCII_SEPARATORS = str.maketrans({c: " " for c in map(chr, range(128)) if not c.isalnum()})


def terms(text: str) -> list[str]:
    """Words of a prompt or error for "seen before?": runs of letters and digits (two or more), CJK
    runs as bigrams. No stemming (the text module's tables cost ~10 ms to build) and no regular
    expression (compiling the CJK ranges costs ~7 ms): a recording hook has 50 ms in all. No run
    crosses white space, so the ASCII chunks are split at C speed and only the others are walked
    character by character."""
    out: set[str] = set()
    plain = []
    for chunk in text.lower().split():
        if chunk.isascii():
            plain.append(chunk)
        else:
            _walk(chunk, out)
    out.update(
        word for word in " ".join(plain).translate(_ASCII_SEPARATORS).split() if len(word) > 1
    )
    return sorted(out)[:64]


def _walk(text: str, out: set[str]) -> None:
    i = 0
    while i < len(text):
        end = i + 1
        if _cjk(text[i]):
            while end < len(text) and _cjk(text[end]):
                end += 1
            run = text[i:end]
            out.update({run} if len(run) == 1 else {run[j : j + 2] for j in range(len(run) - 1)})
        elif text[i].isalnum():
            while end < len(text) and text[end].isalnum():
                end += 1
            if end - i > 1:
                out.add(text[i:end])
        i = end
