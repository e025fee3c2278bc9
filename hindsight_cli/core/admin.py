"""Setting a store up and describing it: ``init`` (directory, ``.gitignore``, config, backend,
model) and ``stats``."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from .. import paths, safefs
from ..config import DEFAULT_CONFIG_TOML, load as load_config
from ..embedding import resolve_model
from ..errors import InvalidInput
from ..safefs import creating, token_digest, tracked, trust
from ..storage.registry import BACKENDS, backend_name, check_name
from ..storage.urls import check_target, redact_url
from ..timeutil import iso
from . import binding
from .lifecycle import expiry_checked
from .runtime import Runtime


def init(
    rt: Runtime,
    model: str | None = None,
    backend: str | None = None,
    url: str | None = None,
    schema: str | None = None,
) -> bool:
    """Create the store if needed (directory 0700, ``.gitignore`` of ``*``, a commented config)."""
    fresh = writable(rt)
    if backend is not None or url is not None or schema is not None:
        choose_backend(rt, backend, url, schema)
    created = not rt.exists
    if not created:
        rt.recover()
    if model is not None:
        model = resolve_model(model, "--embedding-model").name
        if not created:
            with rt.ledger.read() as session:
                stored = session.meta().get("embedding_model")
            if stored != model:
                raise InvalidInput(
                    f"{rt.path} is already a store with the model {stored}. To switch, set "
                    f"[embedding] "
                    f'model = "{model}" in its config.toml and run `hindsight reindex`.'
                )
    if model is not None and created and not rt.has_embedder and resolve_model(model).dim is None:
        # a hub model: loaded before anything is written, so a name that cannot be loaded leaves
        # no store behind naming it
        from ..embedding import load_embedder

        load_embedder(model)
    lay_out(rt, approve=created and fresh)
    if model is not None and created:
        configure_model(rt, model)
    if created:
        wanted, dim = rt.model, None if rt.has_embedder else resolve_model(rt.model).dim
        # a hub model (or an embedder given to the store): ask it for its dimension
        if dim is None:
            wanted, dim = rt.embedder.name, rt.embedder.dim
        rt.ledger.create(wanted, dim, binding.reserve(rt))
        expiry_checked(rt)
    return created


def writable(rt: Runtime) -> bool:
    """Whether the store's directory is fresh; raises ``UntrustedStore`` for one that came with a
    repository (``Runtime.writable``, the rule every write by hand asks)."""
    return rt.writable()


def lay_out(rt: Runtime, approve: bool) -> None:
    """The store's directory (0700), its ``.gitignore`` of ``*`` and its commented config; with
    ``approve``, its approval, before any ledger is written: a run killed in between leaves a
    directory still fresh (approved again by the next), never a store of this user's that is not
    approved; with an id of its own (one a checkout shipped may be in other checkouts too)."""
    safefs.private_dir(rt.path)
    tracked.keep_ignored(rt.path)
    config_file(rt.path)
    if approve:
        # fresh: no token file yet, and one that appears without `mcp token` is refused
        trust.allow(rt.path, renew=True, tokens=token_digest.NONE)


def config_file(path: Path) -> Path:
    """The store's ``config.toml``, written with every setting commented out if it is missing."""
    target = path / paths.CONFIG_FILE
    creating.create_private(target, DEFAULT_CONFIG_TOML)
    return target


def set_config(path: Path, section: str, values: Mapping[str, str]) -> None:
    """Write ``key = "value"`` lines into ``[section]`` of the store's ``config.toml``: over the
    key's line in that section (its commented default included), else under the section's header,
    else in a new section at the end. Other sections and comments are left as they are."""
    target = config_file(path)
    lines = (safefs.read_trusted(target, "The config file") or "").splitlines()
    for key, value in values.items():
        line = f"{key} = {json.dumps(value)}"
        header = next(
            (
                i
                for i, text in enumerate(lines)
                if re.fullmatch(rf"\[{re.escape(section)}\][ \t]*(#.*)?", text.strip())
            ),
            None,
        )
        if header is None:
            lines += ["", f"[{section}]", line]
            continue
        end = next(
            (i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")),
            len(lines),
        )
        found = next(
            (
                i
                for i in range(header + 1, end)
                if re.match(rf"#? ?{re.escape(key)}[ \t]*=", lines[i])
            ),
            None,
        )
        if found is None:
            lines.insert(header + 1, line)
        else:
            lines[found] = line
    safefs.write_private(target, "\n".join(lines) + "\n", durable=True)


def configure_model(rt: Runtime, model: str) -> None:
    """Name ``model`` in the store's ``config.toml`` (``[embedding] model``)."""
    set_config(rt.path, "embedding", {"model": model})
    rt.reload_config()


def choose_backend(rt: Runtime, backend: str | None, url: str | None, schema: str | None) -> None:
    """Write ``[storage]`` into the config of a store that holds no data yet, and open that
    ledger."""
    backend = check_name(backend or ("postgres" if url else backend_name(rt.config)), "--backend")
    url = url or rt.config.database_url
    if BACKENDS[backend].needs_url and not url:
        raise InvalidInput(
            f"A postgres store needs its database: pass --url postgresql://user@host:5432/db "
            f"or set {paths.ENV_DATABASE_URL}."
        )
    schema_name = schema or rt.config.database_schema
    if backend == "postgres":
        check_target(url, schema_name)
    current = rt.ledger.capabilities.name
    elsewhere = backend == current == "postgres" and (redact_url(url), schema_name) != (
        redact_url(rt.config.database_url),
        rt.config.database_schema,
    )
    if ((rt.path / paths.LEDGER_FILE).exists() and backend != "local") or (
        (current != backend or elsewhere) and rt.exists
    ):
        raise InvalidInput(
            f"{rt.path} already holds a {current} store ({rt.ledger.describe()}); to move its "
            "memories, run `hindsight migrate --to ...` from it into a new store instead."
        )
    safefs.private_dir(rt.path)
    settings = {"backend": backend}
    if backend == "postgres":
        settings["url"] = redact_url(url)
        if schema:
            settings["schema"] = schema
    set_config(rt.path, "storage", settings)
    # the user named this backend: the store is theirs, approved with it
    trust.allow(rt.path)
    rt.reopen(replace(load_config(rt.path), database_url=url if backend == "postgres" else ""))


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return 0


def stats(rt: Runtime) -> dict[str, object]:
    """Counts by status, type, source, agent and outcome; model; sizes on disk; index state."""
    rt.require()
    with rt.ledger.read() as session:
        counts = session.counts()
        meta = session.meta()
        head = session.max_seq()
    index_dir = rt.path / paths.INDEX_DIR
    index: dict[str, object] = {
        "exists": index_dir.exists(),
        "synced_seq": 0,
        "ledger_seq": head,
        "vector_index": None,
    }
    if index_dir.exists() and rt.mirror is not None:
        idx = rt.mirror.index(int(meta.get("embedding_dim", 384)))
        index.update(
            rows=idx.count(),
            fragments=idx.fragments(),
            synced_seq=idx.watermark(),
            vector_index=idx.vector_index(),
        )
    return {
        "store": str(rt.path),
        "backend": rt.ledger.capabilities.name,
        "database": rt.ledger.describe(),
        **counts,
        "oldest": iso(counts["oldest"]),
        "newest": iso(counts["newest"]),
        "embedding_model": meta.get("embedding_model"),
        "embedding_dim": int(meta.get("embedding_dim", 0)),
        "schema_version": int(meta.get("schema_version", 0)),
        "ledger_bytes": rt.ledger.size_bytes(),
        "index_bytes": _size(index_dir),
        "index": index,
    }
