"""Managing a store: init, where, stats, export, import, reindex."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from .. import paths
from ..errors import InvalidInput
from . import app
from .options import Backend, ImportKind, JsonFlag, StoreOption, open_at

if TYPE_CHECKING:
    pass


@app.command()
def init(
    embedding_model: Annotated[
        Optional[str],
        typer.Option(
            "--embedding-model",
            help="Embedding model of a new store: default (English, bundled), multilingual "
            "(Chinese and 15 more languages, offline; needs the multilingual extra) or a "
            "fastembed model name.",
            show_default=False,
        ),
    ] = None,
    backend: Annotated[
        Optional[Backend],
        typer.Option(
            "--backend",
            help="local (files in the store directory, the default) or postgres (a shared "
            "PostgreSQL + pgvector database; see docs/team.md).",
            show_default=False,
        ),
    ] = None,
    url: Annotated[
        Optional[str],
        typer.Option(
            "--url",
            help="Database URL of a postgres store, postgresql://user:password@host:5432/db. "
            "Saved without the password; later commands take it from "
            "$HINDSIGHT_DATABASE_URL, PGPASSWORD or ~/.pgpass.",
            show_default=False,
        ),
    ] = None,
    schema: Annotated[
        Optional[str],
        typer.Option(
            "--schema",
            help="Database schema of a postgres store (default hindsight); one database can hold "
            "several stores.",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Create a store (./.hindsight by default).

    The directory gets a .gitignore of * and a commented config.toml; --store PATH (or
    $HINDSIGHT_STORE) creates it there instead. With --backend postgres the memories live in a
    shared database and the directory keeps only the config.

    \b
    Example:
        hindsight init
        hindsight init --embedding-model multilingual     # memories in Chinese and English
        hindsight init --backend postgres --url postgresql://hindsight@db.internal:5432/hindsight
    """
    from ..store import Store
    from . import render

    chosen = store or os.environ.get(paths.ENV_STORE)
    given = "--store" if store else f"${paths.ENV_STORE}"
    target = paths.checked_store_dir(chosen, given) if chosen else Path.cwd() / paths.STORE_DIRNAME
    from ..storage.urls import password_of

    opened = Store(target)
    from ..core import binding
    from ..safefs import trust

    if (embedding_model, backend, url, schema) == (None, None, None, None) and not (
        trust.fresh(target) or opened.origin is None
    ):
        # a store that was already there (one that came with a repository): init writes nothing
        # into it, and says how to approve it (below)
        created = False
    else:
        created = opened.init(model=embedding_model, backend=backend, url=url, schema=schema)
    database = opened.ledger.describe() if opened.ledger.capabilities.shared else None

    # a store that was already there (one that came with a repository) is not approved by init
    untrusted = binding.why(target)
    if untrusted is not None:
        render.warning(untrusted)
    if json_:
        render.json_doc(
            {
                "store": str(target),
                "created": created,
                "backend": "postgres" if database else "local",
                "database": database,
            }
        )
        return
    render.plain(str(target))
    render.message(
        f"{'Created' if created else 'Already a store:'} {target}"
        + (f" on {database}" if database else "")
    )
    if url and password_of(url):
        render.message(
            f"The password was not saved: give it to later commands in ${paths.ENV_DATABASE_URL}, "
            "PGPASSWORD or ~/.pgpass."
        )
    if created:
        _mention_the_global_store(target)


def _mention_the_global_store(target: Path) -> None:
    """What was recorded before there was a project store is in the global one: say so, or a search
    here answers "No memories matched" for a memory the user has just recorded."""
    from ..store import Store
    from . import render

    earlier = Path(paths.global_store_dir())
    if earlier.resolve() == target.resolve() or not (earlier / paths.LEDGER_FILE).exists():
        return
    held = Store(earlier).stats().get("memories", 0)
    if held:
        render.message(
            f"Commands here now use this store; the {held} memories recorded before are in the "
            f"global store {earlier} (hindsight search … --store {earlier})."
        )


@app.command()
def where(store: StoreOption = None, json_: JsonFlag = False) -> None:
    """Say which store commands use here, and why.

    \b
    Example:
        hindsight where
    """
    from ..store import Store
    from . import render

    location = paths.resolve_store(store)
    ledger = Store(location.path).ledger
    shared = ledger.capabilities.shared
    exists = ledger.exists if shared else location.exists
    data = {
        "store": str(location.path),
        "reason": location.reason,
        "why": paths.REASONS[location.reason],
        "exists": exists,
        "backend": ledger.capabilities.name,
        "database": ledger.describe(),
    }
    if json_:
        render.json_doc(data)
        return
    render.plain(str(location.path))
    render.message(
        f"{paths.REASONS[location.reason]}"
        + (f"; memories in {ledger.describe()}" if shared else "")
        + ("" if exists else "; not created yet")
    )


StorePath = Annotated[
    Optional[Path],
    typer.Argument(
        help="The store, or a project directory holding .hindsight/ (default: the store "
        "`hindsight where` names).",
        show_default=False,
    ),
]


def _trust_target(path: Optional[Path]) -> Path:
    if path is None:
        return paths.resolve_store(None).path
    path = path.expanduser()
    if (path / paths.STORE_DIRNAME).is_dir():
        path = path / paths.STORE_DIRNAME
    if not path.is_dir():
        raise InvalidInput(f"No store at {path}; name a store directory or a project holding one.")
    # a store reached through a link keeps the link's name: it is the link that is approved
    return path.absolute() if path.is_symlink() else path.resolve()


@app.command()
def allow(
    path: StorePath = None,
    adopt_tokens: Annotated[
        bool,
        typer.Option(
            "--adopt-tokens",
            help="Approve the store's token file (mcp-tokens.json) as it is now too, when `hindsight "
            "mcp token` did not write it for this store: its tokens then reach your memories. "
            "Without it, such a file is left out, and lets no token in.",
        ),
    ] = False,
) -> None:
    """Trust a store that came with a repository, on this machine, at this path.

    Until then the hooks neither record into it nor inject from it, `hindsight mcp` does not serve
    it, and its config.toml cannot send memories to a database. Stores you create with hindsight are
    allowed already.

    \b
    Example:
        hindsight allow                 # the store here (the nearest .hindsight/)
        hindsight allow ~/src/project
    """
    from ..core import binding
    from . import render

    target = _trust_target(path)
    # with the ledger now there (review AE: the one an archive unpacked over yours, if you say so)
    left = binding.approve(target, tokens=adopt_tokens)
    render.plain(str(target))
    render.message(f"Allowed {target}: hooks and the MCP server now use it.{_approved(target)}")
    if left is not None:
        render.warning(
            f"Its token file {left} is not one `hindsight mcp token` wrote for this store (a "
            "project archive or a copy may have brought its author's tokens): left out, none of "
            "its tokens is accepted. If you made them, run `hindsight allow --adopt-tokens "
            f"{target}`; else `hindsight mcp token AGENT` makes a new file."
        )


def _approved(target: Path) -> str:
    """What the approval also let the store's config do (a repository chose it), in words."""
    from ..config import read
    from ..errors import HindsightError
    from ..safefs import trust

    said = ""
    if trust.tracked(target):
        said = (
            " Its git repository tracks files of it: what later commits bring into it (a pull, "
            "a checkout of another branch) is approved with it."
        )
    try:
        data = read(target / paths.CONFIG_FILE)
    except HindsightError:
        return said
    if trust.redirect(data) == "local":
        return said
    return (
        f"{said} Its config.toml {trust.exposure(data)}: approved with it (`hindsight deny` "
        "withdraws)."
    )


@app.command()
def deny(path: StorePath = None) -> None:
    """Withdraw your trust in a store: hooks and the MCP server leave it alone again.

    \b
    Example:
        hindsight deny ~/src/project
    """
    from ..safefs import trust
    from . import render

    target = _trust_target(path)
    was = trust.deny(target)
    render.plain(str(target))
    render.message(
        f"Denied {target}: hooks and the MCP server leave it alone"
        + ("." if was else " (it was not allowed).")
        + (
            " It is the global store, which is always trusted."
            if trust.builtin(target) and not target.is_symlink()
            else ""
        )
    )


@app.command()
def stats(
    recall: Annotated[
        bool,
        typer.Option(
            "--recall",
            help="What recall injected, what it cost and whether the agent used it (the "
            "injection record).",
        ),
    ] = False,
    since: Annotated[
        Optional[str],
        typer.Option(
            "--since", help="With --recall: since (ISO time or an age like 7d).", show_default=False
        ),
    ] = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Show counts, the embedding model and sizes on disk; with --recall, what recall cost and
    bought.

    \b
    Example:
        hindsight stats --json
        hindsight stats --recall --since 7d
    """
    from ..core.selection import when
    from ..errors import BadUsage
    from . import render

    if since is not None and not recall:
        raise BadUsage("--since goes with --recall: hindsight stats --recall --since 7d.")
    opened = open_at(store)
    data = opened.recall_stats(when(since, "--since")) if recall else opened.stats()
    if json_:
        render.json_doc(data)
    else:
        render.key_values(data)


@app.command()
def export(
    output: Annotated[
        Optional[Path],
        typer.Option(
            "-o", "--output", help="Write to this file instead of stdout.", show_default=False
        ),
    ] = None,
    store: StoreOption = None,
) -> None:
    """Export every memory as JSONL.

    One memory per line with the data-model fields, every status included, oldest first.

    \b
    Example:
        hindsight export > memories.jsonl
    """
    from ..core.transfer import dump_jsonl
    from . import render

    if output is not None:
        output = _export_target(output)
    records = list(open_at(store).export())
    if output is None:
        sys.stdout.writelines(dump_jsonl(records))
    else:
        from ..safefs import write_private

        # Beside the target, then renamed over it: never a half file, never through a link.
        write_private(output, dump_jsonl(records))
    render.message(f"Exported {render.memories(len(records))}.")


def _export_target(output: Path) -> Path:
    """The absolute file ``export -o`` may write: never through a symlink, never over a
    directory."""
    output = output.expanduser().absolute()
    if output.is_symlink():
        raise InvalidInput(
            f"{output} is a symbolic link (to {os.readlink(output)}); export writes only a "
            "regular file: give the real path, or remove the link."
        )
    if output.is_dir():
        raise InvalidInput(
            f"{output} is a directory; give a file name, e.g. -o {output / 'memories.jsonl'}."
        )
    if not output.parent.is_dir():
        raise InvalidInput(
            f"Directory {output.parent} does not exist; create it or choose another -o path."
        )
    return output


@app.command(name="import")
def import_(
    source: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="A JSONL file from `hindsight export`, or - for stdin.",
            show_default=False,
        ),
    ],
    from_: Annotated[
        ImportKind,
        typer.Option(
            "--from",
            help="What FILE is: jsonl (from `hindsight export`) or another tool's export "
            "(docs/import.md).",
        ),
    ] = "jsonl",
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Import memories from JSONL, or from another tool's export with --from (idempotent).

    Ids and idempotency keys already present are skipped, so rerunning adds nothing. One bad line
    refuses the whole file.

    \b
    Example:
        hindsight export > mem.jsonl && hindsight import mem.jsonl --store ../other/.hindsight
        hindsight import ~/Downloads/chatgpt-export.zip --from chatgpt
    """
    from . import render

    if from_ != "jsonl":
        from .mine import import_from

        return import_from(source, from_, store, json_)

    from ..core.transfer import parse_jsonl

    try:
        # Lines end at "\n" only: str.splitlines() would also split at U+2028, U+0085 and others,
        # which JSON strings written by export hold unescaped.
        records = parse_jsonl(_import_lines(source))
        with render.progress("Importing") as bar:
            # the file does not choose its own trust: provenance is the writer's (issue 31)
            result = open_at(store).import_records(
                records, progress=bar, phase=bar.phase, provenance="import"
            )
    except InvalidInput as error:
        kind = _export_kind(source)
        if kind is None:
            raise
        raise InvalidInput(
            f"{str(error).rstrip('.')}. {source} looks like {kind[1]}: run `hindsight import "
            f"{source} --from {kind[0]}`."
        ) from None
    if json_:
        render.json_doc(result.to_dict())
        return
    note = f", redacted {result.redactions} secret(s)" if result.redactions else ""
    if result.split:
        note += (
            f"; {result.split} record(s) over [limits] max_content_bytes stored in linked parts "
            "(`hindsight show ID --sources` shows a text's parts)"
        )
    if result.updated:
        note += (
            f"; updated {result.updated} stored memor{'y' if result.updated == 1 else 'ies'} with "
            "the fix or outcome a record adds (a new version each)"
        )
    render.message(f"Imported {result.added}, skipped {result.skipped} already present{note}.")


def _export_kind(source: str) -> tuple[str, str] | None:
    """The ``--from`` whose export ``source`` looks like, and what that export is, or None (a file
    given without ``--from`` is read as hindsight's own JSONL)."""
    from ..transcripts import chats, notes

    path = Path(source).expanduser()
    if source == "-" or not path.is_file():
        return None
    if path.suffix.lower() == ".zip":
        return "chatgpt", "an export archive (ChatGPT's; Claude.ai's takes --from claude)"
    for kind, module in (
        ("chatgpt", chats),
        ("claude", chats),
        ("mcp-memory", notes),
        ("mem0", notes),
    ):
        try:
            if module.sniff(path, kind):
                return kind, module.HINTS[kind].split(":")[0]
        except Exception:  # noqa: BLE001 - a guess for a hint, never a second error
            continue
    return None


def _import_lines(source: str) -> list[str]:
    """The lines of an import file, or of stdin for ``-``: a regular file only (a FIFO would hang
    the read, a device such as /dev/zero never end), at most ``MAX_IMPORT`` bytes in all and
    ``MAX_LINE`` a line, checked as it is read."""
    from ..safefs.reading import (
        MAX_IMPORT,
        MAX_IMPORT_VALUES,
        MAX_LINE,
        count_values,
        open_regular,
        size_text,
    )

    path = Path(source).expanduser()
    try:
        handle = sys.stdin.buffer if source == "-" else open_regular(path)
    except FileNotFoundError:
        raise InvalidInput(
            f"No file {path}; give a JSONL file from `hindsight export`, or - for stdin."
        ) from None
    except OSError as error:
        raise InvalidInput(
            f"Cannot read {path}: {error.strerror}; import reads a JSONL file, or - for stdin."
        ) from None
    where = "stdin" if source == "-" else str(path)
    lines: list[str] = []
    total = values = 0
    try:
        while raw := handle.readline(MAX_LINE + 1):
            total += len(raw)
            # a line, and each value in it, is an object held until all are checked: a limit on
            # bytes alone let 1 GiB of "{}" lines take tens of gigabytes
            values += 1 + count_values(raw)
            if len(raw) > MAX_LINE or total > MAX_IMPORT or values > MAX_IMPORT_VALUES:
                limit = (
                    f"a line over {size_text(MAX_LINE)}"
                    if len(raw) > MAX_LINE
                    else f"more than {size_text(MAX_IMPORT)}"
                    if total > MAX_IMPORT
                    else f"more than {MAX_IMPORT_VALUES:,} lines and JSON values"
                )
                raise InvalidInput(
                    f"{where} holds {limit}; nothing was imported. Split it (split -l 100000 "
                    "FILE part-) and import each part: nothing is added twice."
                )
            # -sig: a BOM from Windows tools. Lines end at "\n" only (not U+2028 or U+0085, which
            # JSON strings written by export hold unescaped).
            lines.append(raw.decode("utf-8-sig" if not lines else "utf-8").rstrip("\n"))
    except UnicodeDecodeError as error:
        raise InvalidInput(f"Cannot read {where}: {error}") from None
    finally:
        if source != "-":
            handle.close()
    return lines


@app.command()
def reindex(store: StoreOption = None, json_: JsonFlag = False) -> None:
    """Re-embed every memory and rebuild the index.

    Uses the configured embedding model; run it after changing [embedding] model.

    \b
    Example:
        hindsight reindex
    """
    from . import render

    with render.progress("Re-embedding") as bar:
        count = open_at(store).reindex(progress=bar, phase=bar.phase)
    if json_:
        render.json_doc({"reindexed": count})
    else:
        render.message(f"Re-embedded and indexed {render.memories(count)}.")


@app.command()
def migrate(
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="Where to copy the store: a PostgreSQL URL "
            "(postgresql://user:password@host:5432/db) or a local store directory.",
            show_default=False,
        ),
    ],
    schema: Annotated[
        Optional[str],
        typer.Option(
            "--schema",
            help="Database schema of a postgres target (default hindsight).",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Copy this store into another: local to Postgres, or back (idempotent).

    Memories keep their ids, vectors, links, statuses and history, and the audit log goes with them;
    nothing is re-embedded. Memories the target already holds are skipped, so rerunning adds
    nothing. The source is left as it was.

    \b
    Example:
        hindsight migrate --to postgresql://hindsight@db.internal:5432/hindsight
        hindsight migrate --to ./.hindsight --store /shared/team-store      # back to a local store
    """
    from dataclasses import replace

    from ..storage.urls import redact_url
    from ..store import Store
    from . import render

    source = open_at(store)
    if to.startswith(("postgresql://", "postgres://")):
        config = replace(
            source.config,
            storage_backend="postgres",
            database_url=to,
            database_schema=schema or "hindsight",
        )
        target = Store(source.path / f"postgres:{redact_url(to)}", config=config)
    else:
        if schema:
            raise InvalidInput(
                "--schema names a schema of a postgres target; --to here is a directory."
            )
        from ..config import load as load_config

        path = paths.checked_store_dir(to, "--to")
        config = load_config(path)
        if config.storage_backend == "postgres":
            raise InvalidInput(
                f"{path} is configured for postgres; to copy into that database, give its URL to "
                f"--to."
            )
        target = Store(path, config=replace(config, storage_backend="local"))
    with render.progress("Copying") as update:
        result = source.migrate(target, progress=update)
    if json_:
        render.json_doc(result.to_dict())
        return
    render.message(
        f"Copied {render.memories(result.added)} to {result.target}; {result.skipped} already there"
        f"{f', {result.audit_entries} audit entries' if result.audit_entries else ''}."
    )
