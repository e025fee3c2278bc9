"""Which files of a store the git repository holding it tracks (``git ls-files``): a `git pull` or a
checkout of another branch replaces them with the repository's, even those ``.hindsight/.gitignore``
ignores (git treats ignored files as expendable). ``trust`` binds an approval to them.

Standard library, ``safefs`` only: the recording hooks use it.
"""

from __future__ import annotations

import os

from .. import safefs
from ..errors import UnsafeLocation


def git_index(where: str) -> str | None:
    """The index file of the git work tree holding the directory ``where`` (a real path), or None
    outside one (or one without an index: nothing tracked yet)."""
    found = _work_tree(where)
    return found[2] if found is not None else None


def _work_tree(where: str) -> tuple[str, str, str] | None:
    """The top of the git work tree holding ``where``, its git directory and its index file, or
    None (as ``git_index``). The nearest ``.git`` above ``where``, as a clone or a worktree has
    it: never a directory git's own discovery would take for a bare repository (``HEAD``,
    ``objects/``, ``refs/``: names any commit may hold, in the store or above it)."""
    here = where
    while True:
        dot = os.path.join(here, ".git")
        if os.path.isdir(dot):
            index = os.path.join(dot, "index")
            return (here, dot, index) if os.path.isfile(index) else None
        if os.path.isfile(dot):
            # a linked worktree or a submodule: "gitdir: PATH"
            try:
                text = safefs.read_trusted(dot, "The .git file") or ""
            except (OSError, UnicodeDecodeError, UnsafeLocation):
                return None
            first = text.splitlines()[0] if text else ""
            if not first.startswith("gitdir:"):
                return None
            gitdir = os.path.join(here, first[len("gitdir:") :].strip())
            index = os.path.join(gitdir, "index")
            return (here, gitdir, index) if os.path.isfile(index) else None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


# the files git tracks in a store, asked once per state of the work tree's index and the store
_TRACKED: dict[str, tuple[object, tuple[str, ...]]] = {}


def tracked(store: str | os.PathLike[str]) -> tuple[str, ...]:
    """The files of ``store`` that the git repository holding it tracks (as the store names them).

    A `git pull` or a checkout of another branch replaces such a file with the repository's, and
    git does so for the files ``.hindsight/.gitignore`` ignores too (it treats ignored files as
    expendable): a commit that tracks ``ledger.duckdb`` swaps the user's memories for its own
    while the store's id and path (what an approval names) stay. Asked of ``git ls-files`` (a few
    ms; only inside a work tree), with the repository's own settings that run programs off; when
    git cannot answer (not installed, a repository it refuses), none."""
    where = os.path.realpath(os.path.expanduser(os.fspath(store)))
    tree = _work_tree(where)
    if tree is None:
        return ()
    top, gitdir, index = tree
    state = (stat_key(index), stat_key(where))
    known = _TRACKED.get(where)
    if known is not None and known[0] == state:
        return known[1]
    import subprocess

    # the store's path in the work tree, matched in any case: where the file system ignores case
    # (macOS, Windows), git writes a commit's `.HINDSIGHT/ledger.duckdb` into `.hindsight/`
    # while its index keeps the commit's spelling. Literally: a directory may be named `a*b`.
    prefix = os.path.relpath(where, top).replace(os.sep, "/")
    prefix = "" if prefix == "." else prefix + "/"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    git = safefs.program("git")
    if git is None:
        return ()
    # the work tree and its git directory named, not discovered: run inside the store, git takes
    # the nearest directory holding `HEAD`, `objects/` and `refs/` for a repository of its own
    # (a pull may bring them into the store, or a directory above it) and answers from its index
    try:
        done = subprocess.run(
            [
                git,
                "--git-dir",
                gitdir,
                "--work-tree",
                top,
                "-c",
                "core.fsmonitor=false",
                "ls-files",
                "-z",
                "--full-name",
                "--",
            ]
            # a store at the top of its work tree: every name
            + ([f":(top,icase,literal){prefix}"] if prefix else []),
            cwd=top,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ()
    found: tuple[str, ...] = ()
    if done.returncode == 0:
        names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        folded = prefix.casefold()
        found = tuple(
            name[len(prefix) :]
            for name in names
            if name[len(prefix) :] and name[: len(prefix)].casefold() == folded
        )
    _TRACKED[where] = (state, found)
    return found


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
    if safefs.create_private(path, IGNORE_ALL):
        return
    try:
        text = safefs.read_trusted(path, "The store's .gitignore")
    except (OSError, UnicodeDecodeError, UnsafeLocation):
        text = None
    if text != IGNORE_ALL:
        safefs.write_private(path, IGNORE_ALL)
