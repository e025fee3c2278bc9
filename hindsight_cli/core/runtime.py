"""The context every core operation works in: one store's directory, clock, settings, ledger,
indexes (the LanceDB mirror, the in-memory index) and embedder.

``Store`` (store.py) owns one ``Runtime`` and hands it to the core's modules, which do the work:
preparing input (prepare.py, parts.py), embedding it (embedding_jobs.py), running work beside the
caller's (jobs.py). What differs between a short-lived process (a CLI call) and a long-lived one
(the MCP server, a Python program) is named once, in ``Profile``, instead of a flag that each
operation reads its own way.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths, safefs
from ..config import Config, load as load_config
from ..embedding import Embedder, EmbeddingModel, load_embedder, resolve_model
from ..errors import EmbeddingMismatch, EmbeddingUnavailable, StoreNotFound
from ..storage.base import Ledger, Reader
from ..storage.hot_sync import HotMirror
from ..storage.registry import open_ledger
from ..storage.sync import Mirror
from ..timeutil import as_utc, now as utcnow

if TYPE_CHECKING:
    from ..safefs.trust import Trusted

# how a memory's label names a store of unknown origin
UNAPPROVED = "an unapproved store"

log = logging.getLogger("hindsight.runtime")


@dataclass(frozen=True)
class Profile:
    """How a process uses a store, decided once from ``Store(warm=...)``."""

    # search through the LanceDB index, without the ledger while nothing changed
    index_reads: bool
    # the candidate engine ``auto`` means for a local store ("index" or by size)
    default_engine: str
    # build the vector index in a thread, not before returning
    background_maintenance: bool
    # pay the optimised model's load once
    warm_model: bool
    # hold every memory in memory and search there (``[search] hot_index_mb``)
    hot_index: bool

    @classmethod
    def of(cls, long_lived: bool) -> Profile:
        return cls(
            index_reads=long_lived,
            default_engine="index" if long_lived else "auto",
            background_maintenance=long_lived,
            warm_model=long_lived,
            hot_index=long_lived,
        )


class Runtime:
    """The context a store's operations share: what they work with, not the work."""

    def __init__(
        self,
        path: Path,
        embedder: Embedder | None,
        config: Config | None,
        warm: bool,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.path = Path(path)
        # Before its config is read: a store or home directory other users control is refused
        # outright.
        safefs.check_home()
        safefs.check_store(self.path)
        # what "now" is: expiry, recency, timestamps (tests inject one)
        self.clock = clock or utcnow
        self.config = config or load_config(self.path)
        if self.config.storage_backend in ("", "local"):
            # the engines open files under it (a database's store keeps only its config there)
            paths.check_openable(self.path.absolute())
        self.ledger: Ledger = open_ledger(self.path, self.config)
        self.warm = warm
        self.profile = Profile.of(warm)
        self._embedder = embedder
        # the configured model, its name checked when the store opens, as the backend's is
        self._configured = self._configured_model()
        # a long-lived process's model has paid its optimised load
        self._warmed = False
        self._embedder_lock = threading.Lock()
        self.mirror = self._mirror()
        self.hot = self._hot()
        # ``origin``'s answer, asked again when the files it reads change
        self._trusted: Trusted | None = None

    def _mirror(self) -> Mirror | None:
        if not self.ledger.capabilities.mirrored:
            return None
        return Mirror(
            self.path / paths.INDEX_DIR,
            self.ledger,
            self.config.lock_timeout,
            int(self.config.vector_index_rows),
            self.profile.background_maintenance,
        )

    def _hot(self) -> HotMirror | None:
        """The in-memory index of a long-lived process over a local ledger (a Postgres store
        searches the database's own indexes)."""
        if not (
            self.profile.hot_index
            and self.ledger.capabilities.mirrored
            and self.config.hot_index_mb > 0
        ):
            return None
        return HotMirror(self.ledger, int(self.config.hot_index_mb * 1_000_000))

    def _load_configured(self) -> Embedder:
        """The model the config names, loaded; when it cannot be, the error says which file names
        it (a store's own config.toml keeps a model until someone edits it)."""
        try:
            return load_embedder(self.config.embedding_model)
        except EmbeddingUnavailable as error:
            named = self.path / paths.CONFIG_FILE
            if named.is_file() and "model" in named.read_text(errors="replace"):
                raise EmbeddingUnavailable(
                    f"{str(error).rstrip('.')}. The model is named in {named} ([embedding] model): "
                    "correct it there, or delete that line for the bundled default."
                ) from None
            raise

    def _configured_model(self) -> EmbeddingModel | None:
        """The model the config names; none is asked for when one was handed in."""
        return resolve_model(self.config.embedding_model) if self._embedder is None else None

    def reopen(self, config: Config) -> None:
        """Use other settings (a backend or model just chosen), with the ledger and index they
        name."""
        self.config = config
        self._configured = self._configured_model()
        self.ledger = open_ledger(self.path, config)
        self.mirror = self._mirror()
        self.hot = self._hot()

    def reload_config(self) -> None:
        """Read ``config.toml`` again, keeping the database URL given to this process."""
        self.config = replace(load_config(self.path), database_url=self.config.database_url)
        self._configured = self._configured_model()

    def now(self) -> datetime:
        # an injected clock may answer with a time zone
        return as_utc(self.clock())

    @property
    def exists(self) -> bool:
        return self.ledger.exists

    @property
    def origin(self) -> str | None:
        """What every memory read from this store says of where it was read: None for a store this
        user created or approved on this machine, else ``an unapproved store`` (one that came with a
        repository, say): its memories are untrusted, whatever they claim (issue 31)."""
        return None if self.approved() else UNAPPROVED

    def approved(self) -> bool:
        """Whether this user created or approved the store on this machine, and its ledger is the
        one approved (review AE: an archive unpacked over it keeps the id and the path); asked
        again only when a file it reads changed (``trust.Trusted``)."""
        from ..safefs import trust

        if self._trusted is None:
            from . import binding

            self._trusted = trust.Trusted(
                self.path, self.ledger_key, binding.key_of(self.ledger, wait=False)
            )
        return self._trusted()

    def ledger_key(self) -> str | None:
        """The key of the store's local ledger, as ``trust`` asks for it (``binding.key_of``)."""
        from . import binding

        read = binding.key_of(self.ledger)
        return read() if read is not None else None

    def why_untrusted(self) -> str | None:
        """Why the store is not trusted and what to do (one line); None when it is."""
        from ..safefs import trust

        return None if self.approved() else trust.why(self.path, self.ledger_key)

    def writable(self) -> bool:
        """Whether the store's directory is fresh (nothing there yet but what init writes: the store
        created there is this user's, issue 31). Every write by hand asks it first: a memory, a new
        version, a link, a forget, a release, a summary (review AI: ``edit`` put the user's fix into
        the ledger of a store that came with the repository).

        Raises:
            UntrustedStore: it is neither fresh nor approved: a store that came with a repository,
                often committed to it, where what is written (a `record`, an `edit`, a `forget`
                and its reason, `mine` of the project's sessions, a `migrate --to`) would go into
                files the repository tracks.
        """
        from . import binding

        fresh = binding.writable(self.path, self.why_untrusted)
        if not fresh:
            # an approval from before ledger keys: bound to this ledger at the owner's first write
            binding.bind(self)
            # and one from before token records, to the token file now there
            binding.bind_tokens(self.path)
        return fresh

    def require_writable(self) -> None:
        """``require``, for a write by hand: the store exists and this user may write into it
        (``writable``)."""
        self.require()
        self.writable()

    def require(self) -> None:
        """The store must exist; a purge an earlier process began and did not finish is finished
        first."""
        if not self.exists:
            raise StoreNotFound(
                f"No hindsight store at {self.path}. Run `hindsight init` here, or pass --store "
                f"PATH."
            )
        self.recover()

    def recover(self) -> None:
        from . import purge

        if purge.owed(self):
            purge.finish_owed(self)

    # --- the embedder
    # -------------------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None or not self._warmed:
            # Threads of one process (an MCP server's warm-up and its first search) wait for one
            # model, warmed: before, each could load its own and the last assigned, maybe the plain
            # graph, stayed (a 10k server's round trip 26-28 ms p50 instead of 8-10, in half its
            # starts).
            with self._embedder_lock:
                if self._embedder is None:
                    self._embedder = self._load_configured()
                # a model handed in (``Store(embedder=...)``) as well as one loaded here
                if not self._warmed:
                    warm = getattr(self._embedder, "warm", None)
                    if self.profile.warm_model and warm is not None:
                        warm()
                    self._warmed = True
        return self._embedder

    @property
    def has_embedder(self) -> bool:
        return self._embedder is not None

    @property
    def model(self) -> str:
        """The model's name, without loading it: the one handed in or loaded, else the
        configured one."""
        if self._embedder is not None:
            return self._embedder.name
        # named whenever no model was handed in
        assert self._configured is not None
        return self._configured.name

    def model_is_known(self) -> bool:
        """Whether the model's dimension is known without loading it (a hub model must be
        loaded)."""
        return self._embedder is not None or (
            self._configured is not None and self._configured.dim is not None
        )

    def check_model(self, session: Reader) -> int:
        """The store's vector dimension, after checking its model is the configured one."""
        return self.check_meta(session.meta())

    def check_meta(self, meta: Mapping[str, str]) -> int:
        """``check_model`` over the ledger's meta table as read before."""
        stored, dim = meta.get("embedding_model"), int(meta.get("embedding_dim", 0))
        if stored != self.model:
            raise EmbeddingMismatch(
                f"This store's vectors come from {stored} ({dim}-d) but the configured model is "
                f"{self.model}. "
                f"Run `hindsight reindex` to re-embed every memory with {self.model}, or "
                f"configure {stored} again."
            )
        return dim

    # --- the indexes
    # -------------------------------------------------------------------------------

    def after_write(self) -> None:
        """A committed write: an index this process holds open catches up now."""
        if self.mirror is not None:
            self.mirror.after_write()
        if self.hot is not None and self.hot.index is not None:
            try:
                self.hot.refresh()
            except Exception as error:  # noqa: BLE001 - the write succeeded; the next search catches up
                log.warning(
                    "in-memory index refresh after a write failed (it catches up later): %s", error
                )
