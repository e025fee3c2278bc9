"""Which stores this user trusts: a store arriving with a cloned repository is not one of them.

A store is trusted once this user created it with hindsight or approved it on this machine (``hindsight
allow``, as direnv does for ``.envrc``). Each store holds a random id (``store-id``); approving it
writes ``HINDSIGHT_HOME/allowed/<id>`` holding the store's real path, so a copy of the store elsewhere
(a clone, a checkout at another path) is not approved by its id alone. The global store, which lives
under ``HINDSIGHT_HOME``, is always trusted. Until a store is trusted the hooks neither record into it
nor inject from it (they log why in ``HINDSIGHT_HOME``), ``hindsight mcp`` does not serve it, its
``config.toml`` cannot send memories to a network backend, and ``doctor`` says how to approve it.
An approval also records the key of the store's ledger (``ledger_key``): a ledger unpacked over the
approved one from an archive makes the store one of unknown origin again.

Standard library, ``paths`` and ``safefs`` only: the recording hooks use it.
"""

from __future__ import annotations

import contextlib
import os

from .. import paths, safefs
from ..errors import UnsafeLocation
from . import ledger_key, token_digest
from .database_urls import without_password
from .tracked import git_indexes, stat_key, tops, tracked

ID_FILE = "store-id"
# beside an allow-list entry (which holds the path alone, as every version reads it): where the
# store's config sent memories when it was approved
STORAGE_SUFFIX = ".storage"
# beside it, when the git repository holding the store tracked files of it as it was approved: the
# store's names it tracked (``ledger.duckdb``, ``config.toml``), whose later commits are approved
TRACKED_SUFFIX = ".tracked"
# beside it: the secret the hooks tag the store's spool lines with (``spool_key``), made at the
# first append; an approval given again keeps it, a denial removes it
SPOOL_SUFFIX = ".spool"
_LOCAL = "local"
ALLOWED_DIR = "allowed"
# what a fresh store holds before hindsight creates its ledger (init writes these first)
_FRESH = frozenset({".gitignore", paths.CONFIG_FILE, ID_FILE})


class UntrustedStore(UnsafeLocation):
    """A store this user has not created or approved on this machine."""


def _real(store: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(store)))


def allowed_dir() -> str:
    chosen = os.environ.get(paths.ENV_ALLOWED_DIR)
    if chosen:
        return os.path.abspath(os.path.expanduser(chosen))
    return os.path.join(paths.user_dir("data"), ALLOWED_DIR)


def store_id(store: str | os.PathLike[str]) -> str | None:
    """The store's id, or None when it has none (or not one hindsight wrote)."""
    try:
        text = safefs.read_trusted(os.path.join(_real(store), ID_FILE), "The store id file")
    except (OSError, UnicodeDecodeError, UnsafeLocation):
        return None
    value = (text or "").strip()
    ok = len(value) == 32 and all(c in "0123456789abcdefABCDEF" for c in value)
    return value.lower() if ok else None


def builtin(store: str | os.PathLike[str]) -> bool:
    """The global store: it lives under ``HINDSIGHT_HOME``, where no repository puts anything."""
    return _real(store) == _real(paths.global_store_dir())


def _entry(store: str | os.PathLike[str]) -> str | None:
    """The path of ``store``'s allow-list entry when it approves the store at this path."""
    found = store_id(store)
    if found is None:
        return None
    entry = os.path.join(allowed_dir(), found)
    try:
        text = safefs.read_trusted(entry, "The allow-list entry")
    except (OSError, UnicodeDecodeError, UnsafeLocation):
        return None
    return entry if text is not None and text.strip() == _real(store) else None


def _link(store: str | os.PathLike[str]) -> str | None:
    """``store``'s path when it is a ``.hindsight`` that is a symbolic link: one a repository can
    plant pointing at another of this user's stores (or the global one), so that its sessions read
    and feed that store. Found by walking up from a directory, a store keeps that name; one the user
    names (``--store``, ``$HINDSIGHT_STORE``) is resolved first."""
    path = os.path.abspath(os.path.expanduser(os.fspath(store)))
    if os.path.basename(path) != paths.STORE_DIRNAME or not os.path.islink(path):
        return None
    # its directory resolved, as discovery resolves it: one name for one link
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def _link_entry(link: str) -> str:
    import hashlib

    name = hashlib.sha256(link.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return os.path.join(allowed_dir(), f"link-{name}")


def _link_approved(store: str | os.PathLike[str]) -> bool:
    """Whether ``store`` is reached through no ``.hindsight`` link (``_link``), or through one the
    user approved reaching it through (``hindsight allow LINK``)."""
    link = _link(store)
    try:
        text = safefs.read_trusted(_link_entry(link), "The allow-list entry") if link else ""
    except (OSError, UnicodeDecodeError, UnsafeLocation):
        return False
    return link is None or (text is not None and text.splitlines() == [link, _real(store)])


def _tracked_since(store: str | os.PathLike[str], entry: str) -> list[str]:
    """The store's names the git repository tracks now and did not when the store was approved
    (every one, for a store that was the user's alone): a store committed to the repository brings
    its later commits, one shipped with its ``config.toml`` alone does not bring a ledger."""
    now = tops(tracked(store))
    if not now:
        return []
    try:
        recorded = safefs.read_trusted(entry + TRACKED_SUFFIX, "The allow-list entry")
    except (OSError, UnicodeDecodeError, UnsafeLocation):
        recorded = None
    return sorted(now - set((recorded or "").splitlines()))


def entry_of(store: str | os.PathLike[str]) -> str | None:
    """The path of ``store``'s allow-list entry when it approves the store at this path."""
    return _entry(store)


def trusted(store: str | os.PathLike[str], key: ledger_key.KeyOf | None = None) -> bool:
    """Whether this user created or approved ``store`` on this machine, at this path (and, when the
    store's own name is a link, approved reaching it through that link), and, when it was the user's
    alone, whether it still is: a store whose files the repository began to track (a pull, a
    checkout of another branch) holds the repository's files, not the ones approved. With ``key``
    (what reads the key of the store's ledger), whether its ledger is the one approved too."""
    if not _link_approved(store):
        return False
    if builtin(store):
        return True
    entry = _entry(store)
    if entry is None or _tracked_since(store, entry):
        return False
    return key is None or ledger_key.holds(entry, key())


# the settings of a store's config an approval binds (``config set`` of one approves it): where
# memories go, which names the HTTP servers answer to (a web page under such a name reaches a
# server through DNS rebinding), and which agent the memories written without one are filed under
# (a token of that agent on the store's HTTP server reads and forgets them: review Z)
BOUND = ("storage.backend", "storage.url", "storage.schema", "mcp.allowed_hosts", "default_agent")


def bound(key: str) -> bool:
    """Whether ``key`` (``section.name``) is a setting an approval binds."""
    return key in BOUND


def _section(data: object, name: str) -> dict[str, object]:
    found = data.get(name) if isinstance(data, dict) else None
    return found if isinstance(found, dict) else {}


def _hosts(data: object) -> list[str]:
    """The names a config document adds to the HTTP servers' (``[mcp] allowed_hosts``)."""
    value = _section(data, "mcp").get("allowed_hosts")
    items = [] if value is None else value if isinstance(value, list | tuple) else [value]
    return sorted({str(item).strip().lower() for item in items})


def _agent(data: object) -> str:
    """The agent a config document files memories under when their writer names none
    (``default_agent``), or "" when it names none. Any name it gives, hindsight's own `default`
    too: over the user's config (``default_agent = "me"``) it moves the user's memories to that
    agent, whose token may be someone else's (review AE)."""
    value = data.get("default_agent") if isinstance(data, dict) else None
    return str(value).strip() if value is not None else ""


def _elsewhere(storage: dict[str, object]) -> bool:
    """Whether a config's ``[storage]`` says where memories go beyond the store: a backend, a URL,
    or a schema alone (the database then is the one the user's own config names, and the schema
    the repository's choice)."""
    backend = storage.get("backend")
    return bool(
        backend not in (None, "", "local")
        or storage.get("url")
        or (storage.get("schema") and backend != "local")
    )


def redirect(data: object) -> str:
    """Where a config document's ``[storage]`` sends memories, which web pages its ``[mcp]
    allowed_hosts`` lets reach the store's HTTP servers, and which agent its ``default_agent``
    files memories under, as one line ("local" when it keeps them in the store, adds no name and
    keeps hindsight's default agent): what an approval records, and what must still hold to use
    it."""
    import json

    storage = _section(data, "storage")
    place: dict[str, object] = {}
    if _elsewhere(storage):
        place = {key: str(storage.get(key) or "") for key in ("backend", "url", "schema")}
        # never a password, even one a config wrongly holds (it is refused as the config is read)
        place["url"] = without_password(str(place["url"]))
    hosts = _hosts(data)
    if hosts:
        place["allowed_hosts"] = hosts
    agent = _agent(data)
    if agent:
        place["default_agent"] = agent
    if not place:
        return _LOCAL
    return json.dumps(place, sort_keys=True, ensure_ascii=True)


def exposure(data: object) -> str:
    """What a config document that is not "local" (``redirect``) does, in words: "sends this
    store's memories to a postgres database (URL)", "lets web pages under NAME reach this store's
    HTTP servers ([mcp] allowed_hosts)", or both."""
    storage, said = _section(data, "storage"), []
    if _elsewhere(storage):
        url = without_password(str(storage.get("url") or ""))
        schema = f"schema {storage.get('schema')}" if storage.get("schema") else ""
        said.append(
            f"sends this store's memories to a {storage.get('backend') or 'network'} database "
            f"({', '.join(filter(None, (url, schema))) or 'no url'}"
            f"{'' if url else ', the one your own config names'})"
        )
    hosts = _hosts(data)
    if hosts:
        said.append(
            f"lets web pages under {', '.join(hosts)} reach this store's HTTP servers "
            "([mcp] allowed_hosts: a page that makes its name resolve to this machine reads and "
            "forgets memories through a server without tokens)"
        )
    agent = _agent(data)
    if agent:
        said.append(
            f"files the memories written here under agent {agent} (default_agent: whoever holds a "
            "token of that agent for this store's HTTP server reads and forgets them)"
        )
    return " and ".join(said)


def _config_redirect(store: str) -> str:
    try:
        from .reading import parse_toml

        text = safefs.read_trusted(os.path.join(store, paths.CONFIG_FILE), "The config file")
        return redirect(parse_toml(text or ""))
    except (OSError, UnicodeDecodeError, UnsafeLocation, ValueError):
        # unreadable now: the store is approved for keeping its memories here
        return _LOCAL


def _fields(line: str) -> dict[str, object]:
    """A ``redirect`` line as its settings, each present (a local store: none of them set)."""
    import json

    found: object = {}
    if line != _LOCAL:
        try:
            found = json.loads(line)
        except ValueError:
            found = None
    if not isinstance(found, dict):
        # not a line hindsight wrote: equal to nothing
        return {"": line}
    return {
        name: found.get(name) or empty
        for name, empty in (
            ("backend", ""),
            ("url", ""),
            ("schema", ""),
            ("allowed_hosts", []),
            ("default_agent", ""),
        )
    }


def approved_redirect(store: str | os.PathLike[str], data: object, but: str | None = None) -> bool:
    """Whether ``store`` is trusted and its approval was given for the backend ``data`` (its config
    document) names: a config that changed after ``hindsight allow`` (a ``git pull`` of a store
    committed to a repository) does not carry the approval to another database. ``but``: the
    setting (``storage.url``) the user is setting, whatever ``data`` holds for it; every other one
    must be as approved (``config set`` of one setting approves that one, never another a pull put
    into the file meanwhile)."""
    if not trusted(store):
        return False
    if builtin(store):
        return True
    entry = _entry(store)
    if entry is None:
        return False
    try:
        recorded = safefs.read_trusted(entry + STORAGE_SUFFIX, "The allow-list entry")
    except (OSError, UnicodeDecodeError, UnsafeLocation):
        return False
    if recorded is None:
        # an approval from before approvals named the backend: the backend the store was used
        # with. One holding a local ledger was used locally (hindsight never points such a store
        # at a database: `migrate` copies it), so a database named now came later
        local = os.path.exists(os.path.join(_real(store), paths.LEDGER_FILE))
        return redirect(data) == _LOCAL or not local
    if but is None:
        return recorded.strip() == redirect(data)
    name = but.rpartition(".")[2]
    was, now = _fields(recorded.strip()), _fields(redirect(data))
    return all(was.get(key) == now.get(key) for key in {*was, *now} - {name})


class Trusted:
    """``trusted(store)`` for a long-lived process that asks at every search: asked again only when
    a file it reads changed (the store directory, its id file, the allow-list directory and entry,
    the global store: their inode, owner, mode, size and times; where ``HINDSIGHT_HOME`` puts them;
    the working directory for a relative path), so ``hindsight deny``, a moved or swapped store, a
    rewritten id or entry take effect at the next search."""

    def __init__(
        self,
        store: str | os.PathLike[str],
        key: ledger_key.KeyOf | None = None,
        quick: ledger_key.KeyOf | None = None,
    ) -> None:
        self.store = os.path.expanduser(os.fspath(store))
        # what reads the ledger's key: asked only when the ledger file or the recorded key changed;
        # once an answer is known, ``quick``, which raises ``ledger_key.Unreadable`` rather than
        # wait for a writer holding the ledger
        self.key, self.quick = key, quick or key
        # (the files' state, the store's id then, the answer)
        self._known: tuple[tuple[object, ...], str | None, bool] | None = None

    def __call__(self) -> bool:
        known = self._known
        if known is not None and self._state(known[1]) == known[0]:
            return known[2]
        found = store_id(self.store)
        state = self._state(found)
        try:
            answer = trusted(self.store, self.key if known is None else self.quick)
        except ledger_key.Unreadable:
            # a writer of this store holds its ledger (another agent's hard forget, say): the last
            # answer stands for this search, and the key is asked for again at the next
            assert known is not None
            return known[2]
        # an id that changed meanwhile: its entry's state was not the one read
        self._known = (state, found, answer) if store_id(self.store) == found else None
        return answer

    def _state(self, found: str | None) -> tuple[object, ...]:
        where = allowed_dir()
        files = (
            self.store,
            os.path.join(self.store, ID_FILE),
            where,
            os.path.join(where, found or ID_FILE),
            os.path.join(where, found or ID_FILE) + ledger_key.KEY_SUFFIX,
            paths.global_store_dir(),
            # an archive's ledger: a new file (tar, rsync) or this one rewritten (cp)
            os.path.join(self.store, paths.LEDGER_FILE),
        )
        # a relative path names another store once the working directory changes
        here = None if os.path.isabs(self.store) else os.getcwd()
        # a pull or checkout that brings files into the store rewrites the git index
        indexes = git_indexes(_real(self.store))
        return (here, where, indexes, *map(stat_key, (*files, *indexes)))


def allow(
    store: str | os.PathLike[str],
    renew: bool = False,
    key: str | None = None,
    tokens: str | None = None,
) -> str:
    """Approve ``store`` (a directory that exists): give it an id if it has none (with ``renew``, a
    new one whatever it holds: the id of a store hindsight is creating, which a repository may have
    shipped, and shipped to other checkouts too, whose approvals would then replace each other),
    record it under ``HINDSIGHT_HOME`` with where its config sends memories now and, with ``key``,
    the key of the ledger approved (without, the one recorded stays), with ``tokens`` the digest of
    its token file (``token_digest``; likewise); when its own name is a link, also approve reaching
    it through that link. Returns the id."""
    where = _real(store)
    safefs.check_home()
    safefs.check_store(where)
    found = None if renew else store_id(where)
    from .id_paths import check_alone

    # the global store's id is approved nowhere: it is trusted by its place
    check_alone(None if builtin(where) else found, where, allowed_dir(), store_id)
    link = _link(store)
    if link is not None:
        safefs.private_dir(allowed_dir(), "The allow-list directory")
        safefs.write_private(_link_entry(link), f"{link}\n{where}\n", durable=True)
        if builtin(where):
            return ""
    new = found is None
    if found is None:
        # os.urandom is what secrets.token_hex reads; importing secrets costs a hook 20 ms
        found = os.urandom(16).hex()
    safefs.private_dir(allowed_dir(), "The allow-list directory")
    entry = os.path.join(allowed_dir(), found)
    safefs.write_private(entry + STORAGE_SUFFIX, _config_redirect(where) + "\n", durable=True)
    names = tops(tracked(where))
    if names:
        safefs.write_private(
            entry + TRACKED_SUFFIX, "".join(f"{t}\n" for t in sorted(names)), durable=True
        )
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(entry + TRACKED_SUFFIX)
    if key is not None:
        ledger_key.record(entry, key)
    if tokens is not None:
        token_digest.record(entry, tokens)
    safefs.write_private(entry, where + "\n", durable=True)
    if new:
        # last: a run killed before it leaves the store as it found it (an entry nobody's id
        # names is never read), so the next run approves it again
        safefs.write_private(os.path.join(where, ID_FILE), found + "\n", durable=True)
    return found


def deny(store: str | os.PathLike[str]) -> bool:
    """Withdraw the approval of ``store`` (of a link, that of reaching the store through it); whether
    there was one."""
    link = _link(store)
    if link is not None:
        try:
            os.unlink(_link_entry(link))
        except FileNotFoundError:
            return False
        return True
    found = store_id(store)
    if found is None:
        return False
    entry = os.path.join(allowed_dir(), found)
    # the approval first, then what it binds (where memories may go, what git tracked): a run
    # killed in between leaves the store denied, never approved and bound to nothing (an approval
    # without its ``.storage`` takes any database a later pull names, as one from before did)
    try:
        os.unlink(entry)
    except FileNotFoundError:
        was = False
    else:
        was = True
    for suffix in (
        STORAGE_SUFFIX,
        TRACKED_SUFFIX,
        ledger_key.KEY_SUFFIX,
        token_digest.SUFFIX,
        SPOOL_SUFFIX,
    ):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(entry + suffix)
    return was


def fresh(store: str | os.PathLike[str]) -> bool:
    """Whether ``store`` holds nothing but what hindsight writes before its first ledger (or does
    not exist), reached through no ``.hindsight`` link the user did not approve: creating it there
    makes it this user's store. A repository's link may name any directory of the user's, one
    holding another program's ``config.toml`` (review AI: ``config set`` wrote into it)."""
    try:
        return _link_approved(store) and set(os.listdir(_real(store))) <= _FRESH
    except FileNotFoundError:
        return _link_approved(store)
    except OSError:
        return False


def why(store: str | os.PathLike[str], key: ledger_key.KeyOf | None = None) -> str | None:
    """Why ``store`` is not trusted (with ``key``, its ledger too: ``trusted``), and how to approve
    it; None when it is."""
    if trusted(store, key):
        return None
    where = _real(store)
    link = _link(store)
    if link is not None:
        return (
            f"{link} is a symbolic link to the store {where}: a repository can plant one to read "
            "and feed another of your stores, so hooks and the MCP server leave it alone. If you "
            f"linked it yourself, run `hindsight allow {link}`."
        )
    entry = _entry(store)
    if entry is not None and not _tracked_since(store, entry):
        return ledger_key.why(where)
    if entry is not None:
        names = _tracked_since(store, entry)
        shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
        return (
            f"The store {where} holds files its git repository tracks and did not when you "
            f"approved it ({shown}): a pull or a checkout of another branch replaced them with the "
            "repository's (git overwrites ignored files), so hooks and the MCP server leave it "
            f"alone. If you trust the repository's store, run `hindsight allow {where}`; else "
            "remove them from the repository (`git rm --cached`) and restore yours."
        )
    return (
        f"The store {where} was not created or approved by you on this machine (it may have "
        "come with a repository): hooks and the MCP server leave it alone. If you trust it, run "
        f"`hindsight allow {where}`."
    )


def adopt(store: str | os.PathLike[str]) -> bool:
    """Make a store directory that does not exist yet (or that a run killed before approving it
    left empty), and approve it: hindsight is creating it for this user. Whether it did (False:
    something is there already)."""
    if not would_make(store):
        return False
    safefs.private_dir(_real(store))
    # an empty directory: a token file that appears later was not made by `hindsight mcp token`
    allow(store, tokens=token_digest.NONE)
    return True


def would_make(store: str | os.PathLike[str]) -> bool:
    """Whether ``adopt`` would make a store at ``store``: nothing is there, or an empty directory
    (not a link), what ``adopt`` killed before its approval leaves behind. Git never checks out an
    empty directory, so no repository ships one."""
    import stat

    if not os.path.lexists(_real(store)):
        return True
    try:
        # reached through no link: a repository's link may name an empty directory of yours
        plain = os.path.realpath(store) == os.path.abspath(store)
        return plain and stat.S_ISDIR(os.lstat(store).st_mode) and not os.listdir(store)
    except OSError:
        return False


def check(store: str | os.PathLike[str], create: bool = False) -> None:
    """Raise ``UntrustedStore`` unless ``store`` is trusted. With ``create``, a store that does not
    exist yet is made here and approved (``adopt``)."""
    if not (create and adopt(store)) and (reason := why(store)) is not None:
        raise UntrustedStore(reason)


def check_log(store: str | os.PathLike[str]) -> None:
    """``check`` for a hook's failure log: a missing store is adopted when it can be (when it cannot,
    as under a loose ``HINDSIGHT_HOME``, the log still goes there and says why)."""
    try:
        if adopt(store):
            return
    except UnsafeLocation:
        return
    check(store)
