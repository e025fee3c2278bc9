"""Files and directories that other local users cannot slip anything into (docs/reliability.md,
"Hostile shared directories").

The threat is another account on the same machine: a store directory it made (or left writable) on a
shared disk, a planted token or config file, a symbolic link where hindsight is about to write, a
parent directory in which it can rename the store away and put its own in its place. The rules, the
way ssh treats ``~/.ssh``:

- a directory hindsight keeps data in (a store, ``HINDSIGHT_HOME`` and its parts) is owned by you
  (or root, who can read everything anyway) and writable by no one else;
- no directory above it lets another user rename what is in it: writable by others only with the
  sticky bit (``/tmp``);
- a file read for trust (config, tokens) is checked on the descriptor that is read: a regular file,
  owned by you or root, writable by no one else;
- nothing inside a store is a symbolic link or belongs to another user, and no write follows a link:
  files are created with ``O_NOFOLLOW`` or ``O_EXCL`` and replaced by ``rename``, which replaces a
  link instead of writing through it.

"Writable by others" is the other-write bit, or the group-write bit unless the group is the owner's
private group (the owner's primary group with no other member: what ``umask 002`` systems create).
Standard library only, and nothing but ``os`` and ``stat`` at import: the recording hooks use it.
Where there are no uids (Windows) only the no-link rules apply.
"""

from __future__ import annotations

import os
import stat

from ..errors import InvalidInput, UnsafeLocation
from .reading import MAX_SMALL, size_text
from .temps import TEMP_SUFFIX

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_EUID = os.geteuid() if hasattr(os, "geteuid") else None
# Where a store keeps subdirectories of its own; their entries are checked when a store is opened.
STORE_SUBDIRS = ("spool", "index.lance")


class Finding:
    """One thing another user could exploit: where, what is wrong, what was found, how to fix it."""

    __slots__ = ("fix", "found", "kind", "path", "said")

    def __init__(self, kind: str, path: str, said: str, found: str, fix: str) -> None:
        # "owner", "mode", "parent", "link", "type" or "foreign"
        self.kind = kind
        # the directory or file at fault
        self.path = path
        # the sentence, the evidence, what to do
        self.said, self.found, self.fix = said, found, fix

    def line(self) -> str:
        return f"{self.said} ({self.found}); {self.fix}."

    def raise_(self) -> None:
        raise UnsafeLocation(self.line())


def _who(uid: int) -> str:
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def _trusted_owner(uid: int) -> bool:
    return _EUID is None or uid in (_EUID, 0)


def _private_group(uid: int, gid: int) -> bool:
    """Whether ``gid`` is ``uid``'s own group: its primary group, with no other member."""
    try:
        import grp
        import pwd

        owner, group = pwd.getpwuid(uid), grp.getgrgid(gid)
    except (ImportError, KeyError):
        return False
    return owner.pw_gid == gid and all(member == owner.pw_name for member in group.gr_mem)


def others_can_write(st: os.stat_result) -> bool:
    if _EUID is None:
        return False
    if st.st_mode & stat.S_IWOTH:
        return True
    return bool(st.st_mode & stat.S_IWGRP) and not _private_group(st.st_uid, st.st_gid)


def _found(st: os.stat_result, mine: bool = False) -> str:
    you = f"; you are {_who(_EUID)}" if mine and _EUID is not None else ""
    return f"owner {_who(st.st_uid)}, mode {stat.S_IMODE(st.st_mode):o}{you}"


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


# --- directories
# ------------------------------------------------------------------------------------


def dir_findings(path: str | os.PathLike[str], what: str = "The store directory") -> list[Finding]:
    """What is wrong with a directory hindsight keeps data in (nothing if it does not exist yet)."""
    place = os.path.realpath(path)
    st = _lstat(place)
    if st is None:
        return _file_above(place, what)
    if not stat.S_ISDIR(st.st_mode):
        return [
            Finding(
                "type",
                place,
                f"{what} {place} is not a directory",
                _found(st),
                "give a directory, or move this file away",
            )
        ]
    if not _trusted_owner(st.st_uid):
        return [
            Finding(
                "owner",
                place,
                f"{what} {place} belongs to another user",
                _found(st, mine=True),
                "hindsight uses only directories you own: move it away "
                f"(mv {place} {place}.untrusted) and let hindsight make its own, or use another one",
            )
        ]
    if others_can_write(st):
        return [
            Finding(
                "mode",
                place,
                f"{what} {place} is writable by other users",
                _found(st),
                f"anyone could replace its files: run chmod 700 {place}, then `hindsight doctor "
                f"store` "
                "to find anything they left there",
            )
        ]
    return []


def _file_above(place: str, what: str) -> list[Finding]:
    """A file where a directory above ``place`` would have to be: it can never be made."""
    here = place
    while os.path.dirname(here) != here:
        here = os.path.dirname(here)
        st = _lstat(here)
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                return []
            return [
                Finding(
                    "type",
                    here,
                    f"{what} {place} cannot be made: {here} is a file, not a directory",
                    _found(st),
                    "move the file away, or choose another directory",
                )
            ]
    return []


def _ancestors(path: str | os.PathLike[str]) -> list[tuple[str, os.stat_result]]:
    """Every directory above ``path`` with its ``stat``, as written and with links resolved (a
    link's own directory counts too: whoever can write there can point the link elsewhere)."""
    out: dict[str, os.stat_result] = {}
    for start in (os.path.abspath(path), os.path.realpath(path)):
        here = start
        while os.path.dirname(here) != here:
            here = os.path.dirname(here)
            if here not in out:
                try:
                    out[here] = os.stat(here)
                except OSError:
                    continue
    return list(out.items())


def parent_findings(path: str | os.PathLike[str]) -> list[Finding]:
    """Directories above ``path`` in which other users can rename entries: they could swap the store
    for their own under a running server, after every check at start-up passed."""
    return [
        Finding(
            "parent",
            parent,
            f"{os.path.realpath(path)} lies in {parent}, which other users can write "
            "without the sticky bit: they can rename it away and put their own in its place",
            _found(st),
            f"run chmod go-w {parent} (or chmod +t {parent}), or move the store to a directory "
            f"only you "
            "can write",
        )
        for parent, st in _ancestors(path)
        if others_can_write(st) and not st.st_mode & stat.S_ISVTX
    ]


def parent_warnings(path: str | os.PathLike[str]) -> list[Finding]:
    """Directories above ``path`` owned by another user (not root): that user could change their
    mode and swap what is below. Only a warning: mounts owned by a service or a mapped uid are
    common."""
    return [
        Finding(
            "parent",
            parent,
            f"{parent}, above {os.path.realpath(path)}, belongs to another user",
            _found(st),
            "that user could replace the store; keep stores in directories of your own if you "
            "do not trust them",
        )
        for parent, st in _ancestors(path)
        if not _trusted_owner(st.st_uid)
    ]


def check_private_dir(path: str | os.PathLike[str], what: str = "The store directory") -> None:
    """Refuse a directory that other users own or can write, or can swap from above."""
    for finding in dir_findings(path, what) + parent_findings(path):
        finding.raise_()


def private_dir(path: str | os.PathLike[str], what: str = "The store directory") -> None:
    """Create ``path`` (and missing parents) with mode 0700 if needed, then check what is there: a
    directory another user made first, or a link planted in its place, is refused. (The directories
    above were checked when the store was opened.)"""
    missing, here = [], os.path.abspath(path)
    while _lstat(here) is None and os.path.dirname(here) != here:
        missing.append(here)
        here = os.path.dirname(here)
    made: list[str] = []
    # each new level 0700, not only the last (os.makedirs)
    for place in reversed(missing):
        try:
            os.mkdir(place, 0o700)
            made.append(place)
        except FileExistsError:
            # made meanwhile (checked below), or a file: the next mkdir or the check says so
            pass
        except OSError:
            # nothing half-made is left behind
            for level in reversed(made):
                try:
                    os.rmdir(level)
                except OSError:
                    break
            raise
    st = _lstat(os.fspath(path))
    if st is not None and stat.S_ISLNK(st.st_mode):
        _link(os.fspath(path)).raise_()
    for finding in dir_findings(path, what):
        finding.raise_()


# --- entries inside a store
# -------------------------------------------------------------------------


def _link(path: str) -> Finding:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return Finding(
        "link",
        path,
        f"{path} is a symbolic link",
        f"to {target}",
        f"hindsight never writes through a link inside a store: remove it (rm {path}) and retry",
    )


def _special(path: str, st: os.stat_result | None = None) -> Finding:
    """A FIFO, a device or a socket in a store: hindsight makes none, and opening one waits for
    ever (a checkout's store shipping `ledger.duckdb` as a FIFO held `hindsight doctor` and every
    command in the checkout on DuckDB's open: review BL)."""
    return Finding(
        "special",
        path,
        f"{path} is a FIFO, a device or a socket",
        _found(st) if st is not None else "as its directory lists it",
        f"hindsight never opens one inside a store: move it away (mv {path} {path}.untrusted)",
    )


def _entry(path: str, st: os.stat_result) -> Finding | None:
    if stat.S_ISLNK(st.st_mode):
        return _link(path)
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return _special(path, st)
    if not _trusted_owner(st.st_uid):
        return Finding(
            "foreign",
            path,
            f"{path} belongs to another user",
            _found(st),
            "another user put it in your store: "
            f"move it away (mv {path} {path}.untrusted), or take it with chown if you know it is "
            f"yours",
        )
    return None


def _shallow(entry: os.DirEntry[str]) -> Finding | None:
    if entry.is_symlink():
        return _link(entry.path)
    if not (entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False)):
        return _special(entry.path)
    return None


def entry_findings(store: str | os.PathLike[str], deep: bool = False) -> list[Finding]:
    """Links and other users' files inside a store: its own entries and those of its subdirectories
    (``deep``: every level, as ``doctor store`` looks); below those, a link at any level. LanceDB
    writes its table's files into ``index.lance/memories.lance/data``, ``_versions`` and the others
    (and deletes the old ones on a scrub): one of them a link (a commit of a store the user
    allowed can hold one, a pull bring one) would send them into another store's index."""
    root, out = os.path.realpath(store), []
    pending = [(root, 0)]
    while pending:
        directory, level = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        # below the subdirectories, links and special files only, by the type scandir read with
        # each name (no system call per file)
        shallow = level > 1 and not deep
        for entry in entries:
            try:
                finding = (
                    _shallow(entry)
                    if shallow
                    else _entry(entry.path, entry.stat(follow_symlinks=False))
                )
            except OSError:
                # gone meanwhile
                continue
            if finding is not None:
                out.append(finding)
            elif entry.is_dir(follow_symlinks=False) and (
                deep or level > 0 or entry.name in STORE_SUBDIRS
            ):
                pending.append((entry.path, level + 1))
    return out


def check_store(path: str | os.PathLike[str]) -> None:
    """Everything a store must pass before hindsight reads its config or writes to it."""
    findings = dir_findings(path) + parent_findings(path)
    if not findings and os.path.isdir(path):
        findings = entry_findings(path)
    for finding in findings:
        finding.raise_()


def home_findings() -> list[Finding]:
    """``HINDSIGHT_HOME`` and hindsight's config and cache directories: what they hold is trusted
    (the user config, the unpacked model), so they pass the same rules as a store directory."""
    from ..paths import ENV_HOME, user_dir

    places = {user_dir("config"), user_dir("cache")}
    if os.environ.get(ENV_HOME):
        places.add(user_dir("data"))
    return [
        f
        for place in sorted(places)
        for f in dir_findings(place, "The hindsight directory") + parent_findings(place)
    ]


def check_home() -> None:
    for finding in home_findings():
        finding.raise_()


# --- programs
# ---------------------------------------------------------------------------------------


def program(name: str, path: str | None = None) -> str | None:
    """The absolute path of the program ``name`` on ``path`` (default ``PATH``), found in its
    absolute directories only. An empty or relative entry (a trailing ``:``, ``.``) names the
    working directory, a checkout a repository fills: hindsight runs ``git`` in a store's
    directory and ``docker`` in the user's, and a bare name given to ``subprocess`` on Windows is
    looked up in the working directory first, with or without one. Every program hindsight runs
    by name is found here and run by this path."""
    places = os.get_exec_path() if path is None else path.split(os.pathsep)
    endings = [""]
    if os.name == "nt":
        endings = [e for e in os.environ.get("PATHEXT", ".EXE;.BAT;.CMD").split(";") if e]
        if os.path.splitext(name)[1].upper() in (e.upper() for e in endings):
            endings = [""]
    for place in places:
        if not place or not os.path.isabs(place):
            continue
        for ending in endings:
            found = os.path.join(place, name + ending)
            if os.path.isfile(found) and os.access(found, os.X_OK):
                return found
    return None


class AbsolutePath:
    """While it lasts, ``PATH`` holds its absolute directories only (``program``'s rule), for a
    library that looks programs up itself: Python's ``webbrowser`` finds ``xdg-open``, ``lynx``
    and the others in ``PATH`` and starts them by name."""

    def __enter__(self) -> None:
        self.saved = os.environ.get("PATH")
        os.environ["PATH"] = os.pathsep.join(
            place for place in os.get_exec_path() if place and os.path.isabs(place)
        )

    def __exit__(self, *_: object) -> None:
        if self.saved is None:
            os.environ.pop("PATH", None)
        else:
            os.environ["PATH"] = self.saved


# --- files
# ------------------------------------------------------------------------------------------


def file_finding(path: str | os.PathLike[str], st: os.stat_result, what: str) -> Finding | None:
    """What is wrong with a file read for trust, from its ``fstat``."""
    where = f"{what} {os.fspath(path)}"
    if not stat.S_ISREG(st.st_mode):
        return Finding(
            "type",
            os.fspath(path),
            f"{where} is not a regular file",
            _found(st),
            "replace it with a file of your own",
        )
    if not _trusted_owner(st.st_uid):
        return Finding(
            "owner",
            os.fspath(path),
            f"{where} belongs to another user",
            _found(st, mine=True),
            f"hindsight trusts only files you own: move it away (mv {os.fspath(path)} "
            f"{os.fspath(path)}.untrusted) and write your own",
        )
    if others_can_write(st):
        return Finding(
            "mode",
            os.fspath(path),
            f"{where} is writable by other users",
            _found(st),
            f"anyone could change it: run chmod 600 {os.fspath(path)}",
        )
    return None


def read_trusted(path: str | os.PathLike[str], what: str) -> str | None:
    """The text of a file that decides what hindsight trusts (a config, a token file); None if
    missing. A link is followed (dotfile managers link configs), and the file it reaches is checked,
    on the descriptor that is read, so it cannot be swapped between the check and the read."""
    try:
        # a planted FIFO must not hang the open
        fd = os.open(path, os.O_RDONLY | _CLOEXEC | _NONBLOCK)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        finding = file_finding(path, os.fstat(fd), what)
        if finding is not None:
            finding.raise_()
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 16):
            size += len(chunk)
            if size > MAX_SMALL:
                raise InvalidInput(
                    f"{what} {os.fspath(path)} is larger than {size_text(MAX_SMALL)}: not one "
                    "hindsight wrote; move it away and write your own"
                )
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8")


def open_nofollow(path: str | os.PathLike[str], flags: int, mode: int = 0o600) -> int:
    """``os.open`` that refuses a symbolic link at the final name (one planted where a file will
    be)."""
    try:
        return os.open(path, flags | NOFOLLOW | _CLOEXEC, mode)
    except OSError as error:
        st = _lstat(os.fspath(path))
        if st is not None and stat.S_ISLNK(st.st_mode):
            _link(os.fspath(path)).raise_()
        raise error from None


def _write_all(fd: int, data: str | bytes | Iterable[str]) -> None:
    chunks = [data] if isinstance(data, (str, bytes)) else data
    for chunk in chunks:
        view = memoryview(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
        while view:
            view = view[os.write(fd, view) :]


def write_private(
    path: str | os.PathLike[str], data: str | bytes | Iterable[str], durable: bool = False
) -> None:
    """Write ``path`` whole, mode 0600: into a fresh temp file beside it (``O_EXCL``: never an
    existing name, never through a link), then renamed over it (a link at ``path`` is replaced, not
    followed). An interrupted write leaves the old file as it was. ``durable``: the file and its
    directory are flushed to the disk before this returns (a config or a token file: a power cut
    must not leave it empty, as a rename without them can on several file systems); the store's
    own markers and caches, rewritten on every write, are not."""
    _replace_file(os.fspath(path), data, 0o600, durable)


def _replace_file(
    target: str, data: str | bytes | Iterable[str], mode: int, durable: bool = False
) -> None:
    """``data`` into a random temp name beside ``target`` (``O_CREAT|O_EXCL|O_NOFOLLOW``), mode
    ``mode``, renamed over ``target``; with ``durable``, fsync'd, and its directory after the
    rename."""
    temp = _written_beside(target, data, mode, durable)
    try:
        os.replace(temp, target)
        if durable:
            _sync_directory(os.path.dirname(target) or ".")
    except BaseException as error:
        _unlink_quietly(temp)
        if isinstance(error, OSError) and error.errno is not None:
            raise type(error)(error.errno, error.strerror, target) from None
        raise


def _written_beside(
    target: str, data: str | bytes | Iterable[str], mode: int, durable: bool = False
) -> str:
    """A random temp name beside ``target`` holding ``data`` whole (mode ``mode``; with
    ``durable``, fsync'd); nothing is left there when it cannot be written whole."""
    # the writer's pid in the name: a temp file a killed writer left is told from a live one's
    temp = os.path.join(
        os.path.dirname(target),
        f".{os.path.basename(target)}.{os.getpid()}-{os.urandom(6).hex()}{TEMP_SUFFIX}",
    )
    try:
        fd = open_nofollow(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    # named after the file the caller asked for, not the temp file
    except OSError as error:
        raise type(error)(error.errno, error.strerror, target) from None
    try:
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException as error:
        _unlink_quietly(temp)
        if isinstance(error, OSError) and error.errno is not None:
            raise type(error)(error.errno, error.strerror, target) from None
        raise
    return temp


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _sync_directory(directory: str) -> None:
    """Flush a directory's entries (a rename in it) to the disk, where the system allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        # some file systems (and Windows) cannot fsync a directory: the rename is what they keep
        pass
    finally:
        os.close(fd)


def touch_private(path: str | os.PathLike[str]) -> None:
    """Create ``path`` empty if missing and set its time to now, never through a link."""
    fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT)
    try:
        os.utime(fd if os.utime in os.supports_fd else path)
    finally:
        os.close(fd)
