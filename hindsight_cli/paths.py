"""Where hindsight keeps things, and every HINDSIGHT_* environment variable.

Store lookup order (first match wins):

1. ``--store PATH`` (CLI) or ``open_store(path)`` (Python);
2. ``HINDSIGHT_STORE``;
3. the nearest ``.hindsight/`` directory, walking up from the current directory
   (created by ``hindsight init``);
4. the global store: ``HINDSIGHT_HOME/store`` when ``HINDSIGHT_HOME`` is set, else
   ``platformdirs.user_data_dir("hindsight")/store``.

User config lives in ``HINDSIGHT_HOME/config.toml`` or ``platformdirs.user_config_dir``;
caches (the unpacked embedding model) in ``HINDSIGHT_HOME/cache`` or ``user_cache_dir``.

The functions that return strings (``user_dir``, ``global_store_dir``, ``project_store_dir``) import
neither pathlib nor platformdirs on Linux: the recording hooks use them and must start fast.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# Every environment variable hindsight reads. docs/storage.md lists the same names (a test checks).
ENV_STORE = "HINDSIGHT_STORE"
ENV_HOME = "HINDSIGHT_HOME"
ENV_AGENT = "HINDSIGHT_AGENT"
ENV_EMBEDDING_MODEL = "HINDSIGHT_EMBEDDING_MODEL"
ENV_LOCK_TIMEOUT = "HINDSIGHT_LOCK_TIMEOUT"
ENV_SEARCH_ENGINE = "HINDSIGHT_SEARCH_ENGINE"
ENV_DATABASE_URL = "HINDSIGHT_DATABASE_URL"
ENV_ALLOWED_DIR = "HINDSIGHT_ALLOWED_DIR"

ENV_VARS = {
    ENV_STORE: "Store directory to use (same as --store).",
    ENV_HOME: "Root for the global store, user config and caches (instead of the platform dirs).",
    ENV_AGENT: "Default agent_id for new memories (else config `default_agent`, else `default`).",
    ENV_EMBEDDING_MODEL: "Embedding model name (overrides config `[embedding] model`; a store "
    "made with another needs `hindsight reindex`).",
    ENV_LOCK_TIMEOUT: "Seconds to keep retrying when another process holds the ledger (default 10).",
    ENV_SEARCH_ENGINE: "Candidate engine for search: `auto` (default), `ledger` or `index`.",
    ENV_DATABASE_URL: "PostgreSQL URL of a team store "
    "(`postgresql://user:password@host:5432/db`); selects the postgres backend "
    "unless `[storage] backend` says otherwise. The only place a password may "
    "be given.",
    ENV_ALLOWED_DIR: "Where `hindsight allow` records the stores you trust (default "
    "`HINDSIGHT_HOME/allowed`; one place for several homes, as a test suite has).",
}

STORE_DIRNAME = ".hindsight"
LEDGER_FILE = "ledger.duckdb"
INDEX_DIR = "index.lance"
CONFIG_FILE = "config.toml"
# The HTTP MCP server's bearer tokens (``hindsight mcp token``), when kept in the store.
TOKENS_FILE = "mcp-tokens.json"


class StoreLocation:
    """A resolved store directory and the reason it was chosen (a plain class: the recording hooks
    import this module and must start fast)."""

    __slots__ = ("path", "reason")

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        # "flag", "env", "project" or "global"
        self.reason = reason

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StoreLocation) and (self.path, self.reason) == (
            other.path,
            other.reason,
        )

    def __repr__(self) -> str:
        return f"StoreLocation(path={self.path!r}, reason={self.reason!r})"

    @property
    def exists(self) -> bool:
        return (self.path / LEDGER_FILE).exists()


def user_dir(kind: str) -> str:
    """The user ``data``, ``config`` or ``cache`` directory: under ``HINDSIGHT_HOME``, else the
    platform's."""
    home = os.environ.get(ENV_HOME)
    if home:
        sub = {"data": "", "config": "", "cache": "cache"}[kind]
        return os.path.join(os.path.expanduser(home), sub) if sub else os.path.expanduser(home)
    if sys.platform.startswith("linux"):
        # platformdirs' XDG rule, without its import (~15 ms of a recording hook's start-up); a test
        # checks both give the same directories.
        variable, fallback = {
            "data": ("XDG_DATA_HOME", "~/.local/share"),
            "config": ("XDG_CONFIG_HOME", "~/.config"),
            "cache": ("XDG_CACHE_HOME", "~/.cache"),
        }[kind]
        base = os.environ.get(variable, "").strip() or os.path.expanduser(fallback)
        return os.path.join(base, "hindsight")
    import platformdirs

    getter = {
        "data": platformdirs.user_data_dir,
        "config": platformdirs.user_config_dir,
        "cache": platformdirs.user_cache_dir,
    }[kind]
    return getter("hindsight")


def _path(value: str) -> Path:
    from pathlib import Path

    return Path(value)


def user_data_dir() -> Path:
    """``HINDSIGHT_HOME`` or the platform's user data dir for hindsight."""
    return _path(user_dir("data"))


def user_config_path() -> Path:
    """The user-wide config file (``HINDSIGHT_HOME/config.toml`` or the platform config dir)."""
    return _path(user_dir("config")) / CONFIG_FILE


def user_cache_dir() -> Path:
    """``HINDSIGHT_HOME/cache`` or the platform's user cache dir for hindsight."""
    return _path(user_dir("cache"))


def global_store_dir() -> str:
    return os.path.join(user_dir("data"), "store")


def global_store_path() -> Path:
    return _path(global_store_dir())


def project_dir(cwd: str) -> str:
    """The project a session's working directory names: the directory with ``~`` and links resolved,
    the one rule for the hooks, their ingestion and ``mine``. Never raises: a path the system cannot
    resolve (a link loop the agent made, a NUL byte) is the project as it is written, as far as it
    resolves (``Path.resolve`` raises ``RuntimeError`` on a loop)."""
    try:
        return os.path.realpath(os.path.expanduser(cwd))
    except (OSError, ValueError):
        return cwd


def project_store_dir(start: str) -> str | None:
    """The nearest ``.hindsight/`` directory from ``start`` upwards (symlinks resolved first)."""
    here = os.path.realpath(start)
    while True:
        candidate = os.path.join(here, STORE_DIRNAME)
        if os.path.isdir(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def find_project_store(start: Path | None = None) -> Path | None:
    """The nearest ``.hindsight/`` directory from ``start`` (default: cwd) upwards."""
    found = project_store_dir(os.fspath(start) if start is not None else os.getcwd())
    return _path(found) if found is not None else None


def refuse_url(text: str, given: str) -> None:
    """A store directory given as a URL is refused (``BadUsage``): ``mysql://x`` made a store in
    ``./mysql:/x``."""
    from .errors import BadUsage

    scheme, sep, _ = text.partition("://")
    if sep and scheme and scheme[0].isalpha() and all(c.isalnum() or c in "+.-" for c in scheme):
        raise BadUsage(
            f"{given} is a {scheme}:// URL, not a directory: hindsight stores memories in a local "
            "directory or in PostgreSQL (a postgresql:// URL, for `hindsight init --backend "
            "postgres` and `hindsight migrate --to`)."
        )


def unopenable(path: str | os.PathLike[str]) -> str | None:
    """What in a store path the database engines cannot open, or None: DuckDB reads a backslash as
    a separator (another directory's ledger) and ``?`` as the start of its options; LanceDB refuses
    control characters (a newline, a tab)."""
    text = os.fspath(path)
    for ch in text:
        if ord(ch) < 0x20 or ord(ch) == 0x7F:
            return "a control character (a newline, a tab)"
        if ch == "?" or (ch == "\\" and os.sep == "/"):
            return f"a {'backslash' if ch == chr(92) else repr(ch)}"
    return None


def check_openable(path: str | os.PathLike[str], given: str = "The store path") -> None:
    """Refuse, as a usage error, a store path the engines would misread or refuse."""
    found = unopenable(path)
    if found is not None:
        from .errors import BadUsage

        raise BadUsage(
            f"{given} {os.fspath(path)!a} holds {found}, which the database engines cannot "
            "open; choose a directory whose path has none."
        )


def checked_store_dir(path: str | os.PathLike[str], given: str = "--store") -> Path:
    """``path`` made absolute (relative to the cwd, symlinks resolved), refused if it or a parent is
    not a directory: a store is never created over, or inside, a regular file."""
    from pathlib import Path

    from .errors import InvalidInput

    refuse_url(os.fspath(path), given)
    resolved = Path(path).expanduser().resolve()
    check_openable(resolved, given)
    for place in (resolved, *resolved.parents):
        if place.exists():
            if not place.is_dir():
                what = "is" if place == resolved else f"lies inside {place}, which is"
                raise InvalidInput(
                    f"{given} {resolved} {what} a file, not a directory; "
                    "give a store directory (or a path where one can be created)."
                )
            break
    return resolved


def resolve_store(path: str | os.PathLike[str] | None = None) -> StoreLocation:
    """Apply the lookup order in this module's docstring."""
    if path:
        return StoreLocation(checked_store_dir(path), "flag")
    env = os.environ.get(ENV_STORE)
    if env:
        return StoreLocation(checked_store_dir(env, f"${ENV_STORE}"), "env")
    project = find_project_store()
    if project is not None:
        return StoreLocation(project, "project")
    return StoreLocation(global_store_path().resolve(), "global")


REASONS = {
    "flag": "chosen with --store",
    "env": f"chosen by ${ENV_STORE}",
    "project": "nearest .hindsight/ directory above the current directory",
    "global": "global store (no --store, no $HINDSIGHT_STORE, no .hindsight/ found)",
}


def private_files() -> None:
    """Make every file and directory this process creates readable by its user only (umask 077):
    ledger, index, markers, exports. hindsight's own processes (the CLI, the MCP server) call it."""
    os.umask(0o077)
