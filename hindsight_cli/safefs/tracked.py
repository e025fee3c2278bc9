"""Which files of a store the git repository holding it tracks (``git ls-files``): a `git pull` or a
checkout of another branch replaces them with the repository's, even those ``.hindsight/.gitignore``
ignores (git treats ignored files as expendable). ``trust`` binds an approval to them. Asked of
``git ls-files`` of the work tree's index file alone, in an empty git directory of hindsight's (no
setting of the repository's runs anything: review AO), or read from the index file as git writes
it when no git answers (``read_index``).

Standard library, ``safefs`` only: the recording hooks use it.
"""

from __future__ import annotations

import os

from .. import safefs
from ..errors import UnsafeLocation
from . import creating


def git_indexes(where: str) -> tuple[str, ...]:
    """The index files of the git work trees holding the directory ``where`` (a real path),
    nearest first; none outside one (or in ones without an index: nothing tracked yet)."""
    return tuple(index for _top, _gitdir, index in _work_trees(where))


def _work_trees(where: str) -> list[tuple[str, str, str]]:
    """The tops of the git work trees holding ``where``, each with its git directory and its
    index file, nearest first: every ``.git`` above ``where``, as a clone or a worktree has it,
    never a directory git's own discovery would take for a bare repository (``HEAD``,
    ``objects/``, ``refs/``: names any commit may hold, in the store or above it). Not the nearest
    alone: a repository inside another one's work tree (a library cloned into a checkout, an empty
    ``git init``, a submodule the outer repository has since replaced by a directory, whose
    ``.git`` file the pull leaves behind) is no wall to the outer one, whose pull writes the files
    it tracks there over the ignored ones as anywhere else (review Z)."""
    here, found = where, []
    while True:
        dot = os.path.join(here, ".git")
        gitdir: str | None = None
        if os.path.isdir(dot):
            gitdir = dot
        elif os.path.isfile(dot):
            # a linked worktree or a submodule: "gitdir: PATH"
            try:
                text = safefs.read_trusted(dot, "The .git file") or ""
            except (OSError, UnicodeDecodeError, UnsafeLocation):
                text = ""
            first = text.splitlines()[0] if text else ""
            if first.startswith("gitdir:"):
                gitdir = os.path.join(here, first[len("gitdir:") :].strip())
        if gitdir is not None:
            index = os.path.join(gitdir, "index")
            if os.path.isfile(index):
                found.append((here, gitdir, index))
        parent = os.path.dirname(here)
        if parent == here:
            return found
        here = parent


# past this, an index is asked of git (the index of a repository of a million files is ~100 MB)
MAX_INDEX = 512 * 1024 * 1024
# the modes of an index entry: a file, an executable, a link, a submodule, a sparse directory
_MODES = frozenset({0o100644, 0o100755, 0o120000, 0o160000, 0o040000})


def read_index(index: str, prefix: str) -> list[str] | None:
    """The names below ``prefix`` (matched in any case, as the store names them) that the git
    index file ``index`` holds, read as git writes it (versions 2 to 4, SHA-1 or SHA-256
    object names): no program runs, so no setting of the repository's, no ``PATH`` and no
    ownership rule of git's can keep the answer back. None when the file is not laid out so (a
    split index, whose entries live in another file; a version to come): ask git then."""
    data = _index_bytes(index, MAX_INDEX)
    if data is None:
        return None
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return None
    for width in (20, 32):  # SHA-1, SHA-256: the one whose layout ends where the file does
        names = _entries(data, version, count, width)
        if names is not None:
            return list(_below(names, prefix))
    return None


def _index_bytes(index: str, limit: int, whole: bool = True) -> bytes | None:
    """The first ``limit`` bytes of the index file ``index`` (with ``whole``, None when it holds
    more), or None when it is not a regular file that can be read."""
    try:
        # without blocking: a FIFO put there since it was looked at is refused, never waited on
        fd = os.open(
            index, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return None
    try:
        import stat

        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (whole and st.st_size > limit):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(limit)
    except OSError:
        return None
    finally:
        os.close(fd)


# the entries whose layout tells an index's object names apart (SHA-1 or SHA-256), and the bytes
# read for them: each at most 62 + 32 + 4,096 bytes
_FIRST = 16
_HEAD = _FIRST * 4200


def object_width(index: str) -> int | None:
    """The length in bytes of the object names the index file ``index`` holds (20: SHA-1, 32:
    SHA-256), told by the layout of its first entries (none: any); None when it is not an index
    laid out as ``read_index`` reads one."""
    data = _index_bytes(index, _HEAD, whole=False)
    if data is None or len(data) < 12 or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return None
    for width in (20, 32):
        if _entries(data, version, min(count, _FIRST), width, whole=False) is not None:
            return width
    return None


def folded(text: str) -> str:
    """``text`` as a file system that ignores case and Unicode normalization compares names
    (macOS's, Windows'): `Café` typed (NFC), `Café` as HFS+ keeps it (NFD) and `CAFÉ` are one."""
    import unicodedata

    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())


def _below(names: list[str], prefix: str) -> tuple[str, ...]:
    """The ``names`` (paths in a work tree) below the directory ``prefix`` (``""``, or ending in
    ``/``), as the store names them: matched in any case and normalization, as the file system
    that git writes them into may match them (review N: case; review AE: a directory whose name
    git's index keeps in NFC, as macOS's git writes it, while the store's path spells it in NFD,
    as HFS+ returns it)."""
    if not prefix:
        return tuple(name for name in names if name)
    parts = prefix.rstrip("/").split("/")
    wanted = [folded(part) for part in parts]
    found = []
    for name in names:
        split = name.split("/")
        if len(split) > len(parts) and [folded(p) for p in split[: len(parts)]] == wanted:
            found.append("/".join(split[len(parts) :]))
    return tuple(found)


def _entries(
    data: bytes, version: int, count: int, width: int, whole: bool = True
) -> list[str] | None:
    """The index's entry names, when its entries and extensions end exactly at its checksum of
    ``width`` bytes; None otherwise. Without ``whole``: the names of the first ``count`` entries of
    ``data``, the head of an index, when they are laid out so."""
    end = len(data) - width if whole else len(data)
    pos, names, previous = 12, [], b""
    for _ in range(count):
        start = pos
        fixed = 40 + width + 2
        if start + fixed > end:
            return None
        if int.from_bytes(data[start + 24 : start + 28], "big") not in _MODES:
            return None
        flags = int.from_bytes(data[start + fixed - 2 : start + fixed], "big")
        if flags & 0x4000:
            if version < 3:
                return None
            fixed += 2
        found = _name(data, version, start, fixed, end, previous)
        if found is None:
            return None
        name, pos = found
        length = flags & 0xFFF
        if length != min(len(name), 0xFFF):
            return None
        previous = name
        names.append(name.decode("utf-8", "surrogateescape"))
    if not whole:
        return names
    # the extensions: a signature and a size each; a split index keeps its entries elsewhere
    while pos < end:
        if pos + 8 > end or data[pos : pos + 4] == b"link":
            return None
        pos += 8 + int.from_bytes(data[pos + 4 : pos + 8], "big")
    return names if pos == end else None


def _name(
    data: bytes, version: int, start: int, fixed: int, end: int, previous: bytes
) -> tuple[bytes, int] | None:
    """The name of the entry at ``start`` whose fixed part is ``fixed`` bytes, and where the next
    entry starts; None when the bytes are not laid out so."""
    pos = start + fixed
    if version == 4:
        # the number of bytes to drop from the previous name (git's offset varint), then the rest
        strip, byte, first = 0, 0x80, True
        while byte & 0x80:
            if pos >= end:
                return None
            byte = data[pos]
            pos += 1
            strip = (byte & 0x7F) if first else ((strip + 1) << 7) | (byte & 0x7F)
            first = False
        nul = data.find(b"\0", pos, end)
        if nul < 0 or strip > len(previous):
            return None
        return previous[: len(previous) - strip] + data[pos:nul], nul + 1
    nul = data.find(b"\0", pos, end)
    if nul < 0:
        return None
    name = data[pos:nul]
    # padded with 1 to 8 NULs to a multiple of 8 bytes
    pos = start + ((fixed + len(name) + 8) & ~7)
    if pos > end or data[nul:pos].strip(b"\0"):
        return None
    return name, pos


# the files git tracks in a store, asked once per state of the work trees' indexes and the store
_TRACKED: dict[str, tuple[object, tuple[str, ...]]] = {}


def tracked(store: str | os.PathLike[str]) -> tuple[str, ...]:
    """The files of ``store`` that a git repository holding it tracks (as the store names them):
    each one whose work tree holds it, not the nearest alone (``_work_trees``).

    A `git pull` or a checkout of another branch replaces such a file with the repository's, and
    git does so for the files ``.hindsight/.gitignore`` ignores too (it treats ignored files as
    expendable): a commit that tracks ``ledger.duckdb`` swaps the user's memories for its own
    while the store's id and path (what an approval names) stay. Asked of ``git ls-files`` (a few
    ms) of the index file alone, in a git directory of hindsight's own (``_asked``: no setting of
    the repository's is read); when no git answers (none on ``PATH``, an index it reads in part),
    read from the index file itself (``read_index``); none only when neither can."""
    where = os.path.realpath(os.path.expanduser(os.fspath(store)))
    trees = _work_trees(where)
    if not trees:
        return ()
    state = (tuple(stat_key(index) for _top, _gitdir, index in trees), stat_key(where))
    known = _TRACKED.get(where)
    if known is not None and known[0] == state:
        return known[1]
    git, names = safefs.program("git"), set[str]()
    for top, _gitdir, index in trees:
        # the store's path in the work tree, matched in any case: where the file system ignores
        # case (macOS, Windows), git writes a commit's `.HINDSIGHT/ledger.duckdb` into
        # `.hindsight/` while its index keeps the commit's spelling. Literally: a directory may be
        # named `a*b`.
        prefix = os.path.relpath(where, top).replace(os.sep, "/")
        prefix = "" if prefix == "." else prefix + "/"
        found = _asked(git=git, top=top, index=index, prefix=prefix)
        if found is None:
            # no git to ask, or one that will not answer for this repository (`safe.directory`):
            # whatever git made the pull, the index names what it brought
            read = read_index(index, prefix)
            found = tuple(read) if read is not None else ()
        names.update(found)
    result = tuple(sorted(names))
    _TRACKED[where] = (state, result)
    return result


def _asked(git: str | None, top: str, index: str, prefix: str) -> tuple[str, ...] | None:
    """What ``git ls-files`` names below ``prefix`` in the work tree ``top`` whose index file is
    ``index``, or None when no git answers (or it answers with a complaint: an index it reads
    only in part).

    Git reads the index alone, given by ``GIT_INDEX_FILE``, in a git directory of hindsight's own,
    made empty for the run: never the work tree's. That one is whatever the ``.git`` above the
    store names, and an archive unpacked into a checkout can bring one (``.hindsight/.git``, a
    directory or a file naming any other): its ``config`` ran the author's programs through git
    (``core.sshCommand`` of a partial clone's remote, which git runs to fetch the trees a sparse
    index leaves out) and a FIFO there held every hook and search 20 s (review AO). A split
    index's shared part is found beside the index, as git looks for it there too."""
    if git is None or not _plain_beside(index):
        return None
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_INDEX_FILE"] = index
    width = object_width(index)
    empty = None if width is None else _empty_git_dir(width)
    if empty is None:
        return None
    try:
        done = subprocess.run(
            [
                git,
                "--git-dir",
                empty,
                "--work-tree",
                top,
                "-c",
                "core.fsmonitor=false",
                "ls-files",
                "-z",
                "--full-name",
                "--",
            ]
            # a store at the top of its work tree: every name; below a name git may hold in
            # another normalization, every name too, matched here (`_below`)
            + ([f":(top,icase,literal){prefix}"] if prefix and prefix.isascii() else []),
            cwd=top,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        _remove(empty)
    # a complaint: an index of SHA-256 names, a sparse index's directories it cannot open up
    # without the objects (read from the file then, `read_index`)
    if done.returncode != 0 or done.stderr.strip():
        return None
    return _below(done.stdout.decode("utf-8", "surrogateescape").split("\0"), prefix)


# the git directory ``_asked`` gives git: nothing of a repository's own
_EMPTY = {
    "HEAD": "ref: refs/heads/main\n",
    "config": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
}
# for an index of SHA-256 names, which git read as SHA-1 names answers with none
_SHA256_CONFIG = (
    "[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tobjectFormat = sha256\n"
)
_EMPTY_DIRS = ("objects", "refs")


def _empty_git_dir(width: int) -> str | None:
    """A new private git directory holding nothing, for an index of object names ``width`` bytes
    long (made here: ``tempfile`` costs a hook 4 ms), or None when none can be made."""
    base = next(
        (os.environ[k] for k in ("TMPDIR", "TEMP", "TMP") if os.path.isabs(os.environ.get(k, ""))),
        "/tmp" if os.name != "nt" else os.path.expanduser("~"),
    )
    path = os.path.join(base, f"hindsight-git-{os.getpid()}-{os.urandom(6).hex()}")
    try:
        os.mkdir(path, 0o700)
        for name in _EMPTY_DIRS:
            os.mkdir(os.path.join(path, name), 0o700)
        for name, text in _EMPTY.items():
            text = _SHA256_CONFIG if name == "config" and width == 32 else text
            creating.create_private(os.path.join(path, name), text)
    except OSError:
        _remove(path)
        return None
    return path


def _remove(path: str) -> None:
    for name in (*_EMPTY, *_EMPTY_DIRS, ""):
        try:
            (os.rmdir if name in (*_EMPTY_DIRS, "") else os.unlink)(os.path.join(path, name))
        except OSError:
            pass


def _plain_beside(index: str) -> bool:
    """Whether every shared index part beside ``index`` (``sharedindex.*``, which git opens for a
    split index) is a regular file: a FIFO there would hold git until its timeout."""
    import stat

    try:
        with os.scandir(os.path.dirname(index)) as found:
            for item in found:
                if item.name.startswith("sharedindex.") and not stat.S_ISREG(
                    os.stat(item.path).st_mode
                ):
                    return False
    except OSError:
        return False
    return True


def tops(names: tuple[str, ...]) -> set[str]:
    """The store's own names (``ledger.duckdb``, ``config.toml``, ``index.lance``) that hold
    ``names``: what an approval of a store the repository tracks records."""
    return {name.split("/", 1)[0] for name in names}


def stat_key(path: str) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mode, st.st_uid, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


# a store's .gitignore: nothing of it lands in git by `git add -A`
IGNORE_ALL = "*\n"


def keep_ignored(store: str | os.PathLike[str]) -> None:
    """Keep ``store``'s ``.gitignore`` ``*``, writing it when missing or anything else: a repository
    may ship one that ignores nothing (``init`` adopts a ``.hindsight/`` holding only a
    ``config.toml`` and a ``.gitignore``), or change it in a later commit, and then the ledger and
    the hooks' spool (the user's prompts) are files the next ``git add -A`` publishes. A link there
    is refused as at every name hindsight writes."""
    path = os.path.join(os.fspath(store), ".gitignore")
    if creating.create_private(path, IGNORE_ALL):
        return
    try:
        text = safefs.read_trusted(path, "The store's .gitignore")
    except (OSError, UnicodeDecodeError, UnsafeLocation):
        text = None
    if text != IGNORE_ALL:
        safefs.write_private(path, IGNORE_ALL)
