"""Store: the one API that the CLI, the MCP server and Python users call."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from . import paths, ranking
from .config import Config, load as load_config
from .embedding import Embedder, known_dim, load_embedder, model_name
from .errors import EmbeddingMismatch, HindsightError, InvalidInput, MemoryNotFound, StoreNotFound
from .models import (AuditEntry, ConsolidateResult, Filters, Hit, ImportResult, Memory, PatternChange, SearchResult,
                     SummaryResult, WriteResult)
from .storage.index import Index, where_clause
from .storage import open_ledger
from .text import clean, terms
from .timeutil import iso, now as utcnow, parse_time
from .writing import Prepared, embedding_text, keyword_terms, keyword_text, prepare

log = logging.getLogger("hindsight.store")

SEARCH_TYPES = ("episodic", "semantic", "procedural")
MODES = ("hybrid", "vector", "keyword")
IMPORT_BATCH = 2000
Progress = Callable[[int, int], None]


_TIMES = ("created_at", "event_at", "valid_until", "expires_at", "last_seen_at", "updated_at")


def _from_index(row: dict[str, Any]) -> dict[str, Any]:
    """A row as the index stores it (ISO strings) in the ledger's shape (datetimes) for ranking."""
    for name in _TIMES:
        if row.get(name):
            row[name] = parse_time(row[name])
    return row


def _memory(row: Mapping[str, Any]) -> Memory:
    data = {name: row[name] for name in Memory.__dataclass_fields__ if name in row}
    for name, value in list(data.items()):
        if isinstance(value, datetime):
            data[name] = iso(value)
    data["tags"] = list(data.get("tags") or [])
    data["source_ids"] = list(data.get("source_ids") or [])
    return Memory(**data)


class Store:
    """A hindsight store: a directory with the DuckDB ledger, the LanceDB index and ``config.toml``.

    Args:
        path: the store directory.
        embedder: the embedder to use; by default the configured model is loaded on first need.
        config: settings; by default read from the user config, ``<path>/config.toml`` and env vars.
        warm: a long-running process (MCP server): search through the LanceDB index, kept in sync.
    """

    def __init__(self, path: Path, embedder: Embedder | None = None, config: Config | None = None,
                 warm: bool = False) -> None:
        self.path = Path(path)
        self.config = config or load_config(self.path)
        self.ledger = open_ledger(self.path, self.config)
        self.warm = warm
        self._embedder = embedder
        self._index: Index | None = None
        self._synced: tuple[str, int] | None = None  # (ledger change token, dim) the index last matched

    # --- lifecycle --------------------------------------------------------------------------------

    @property
    def exists(self) -> bool:
        return self.ledger.exists

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = load_embedder(self.config.embedding_model)
            if self.warm and hasattr(self._embedder, "warm"):
                self._embedder.warm()  # a long-running process pays the optimised model's load once
        return self._embedder

    def init(self, model: str | None = None, *, backend: str | None = None, url: str | None = None,
             schema: str | None = None) -> bool:
        """Create the store if needed (directory 0700, ``.gitignore`` of ``*``, a commented config).

        Args:
            model: the embedding model of a new store (``multilingual``, ``default`` or any fastembed
                name); written to its ``config.toml``. An existing store keeps its model.
            backend: ``local`` (DuckDB + LanceDB files in the directory) or ``postgres`` (a shared
                PostgreSQL + pgvector database; docs/team.md); written to ``config.toml``.
            url: the database URL of a postgres store. Written without its password, which later
                commands take from ``HINDSIGHT_DATABASE_URL``, ``PGPASSWORD`` or ``~/.pgpass``.
            schema: the database schema of a postgres store (default ``hindsight``).

        Returns:
            True if the store was created, False if it already existed.

        Raises:
            InvalidInput: ``model`` or ``backend`` differs from those of an existing store.
        """
        if backend is not None or url is not None or schema is not None:
            self._choose_backend(backend, url, schema)
        created = not self.exists
        if model is not None:
            model = model_name(model)
            if not created:
                with self.ledger.connect(read_only=True) as conn:
                    stored = self.ledger.meta(conn).get("embedding_model")
                if stored != model:
                    raise InvalidInput(
                        f"{self.path} is already a store with the model {stored}. To switch, set [embedding] "
                        f"model = \"{model}\" in its config.toml and run `hindsight reindex`.")
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
        ignore = self.path / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n")
            os.chmod(ignore, 0o600)
        self._config_file()
        if model is not None and created:
            self._configure_model(model)
        if created:
            wanted = self._embedder.name if self._embedder is not None else model_name(self.config.embedding_model)
            dim = known_dim(wanted) if self._embedder is None else None
            if dim is None:  # a hub model: load it once to learn its dimension
                wanted, dim = self.embedder.name, self.embedder.dim
            self.ledger.create(wanted, dim)
        return created

    def _config_file(self) -> Path:
        """The store's ``config.toml``, written with every setting commented out if it is missing."""
        config_file = self.path / paths.CONFIG_FILE
        if not config_file.exists():
            from .config import DEFAULT_CONFIG_TOML

            config_file.write_text(DEFAULT_CONFIG_TOML)
            os.chmod(config_file, 0o600)
        return config_file

    def _set_config(self, section: str, values: Mapping[str, str]) -> None:
        """Write ``key = "value"`` lines into ``[section]`` of the store's ``config.toml``: over the key's
        line in that section (its commented default included), else under the section's header, else
        in a new section at the end. Other sections and comments are left as they are."""
        config_file = self._config_file()
        lines = config_file.read_text().splitlines()
        for key, value in values.items():
            line = f"{key} = {json.dumps(value)}"
            header = next((i for i, text in enumerate(lines)
                           if re.fullmatch(rf"\[{section}\][ \t]*(#.*)?", text.strip())), None)
            if header is None:
                lines += ["", f"[{section}]", line]
                continue
            end = next((i for i in range(header + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
            found = next((i for i in range(header + 1, end) if re.match(rf"#? ?{key}[ \t]*=", lines[i])), None)
            if found is None:
                lines.insert(header + 1, line)
            else:
                lines[found] = line
        config_file.write_text("\n".join(lines) + "\n")

    def _configure_model(self, model: str) -> None:
        """Name ``model`` in the store's ``config.toml`` (``[embedding] model``)."""
        self._set_config("embedding", {"model": model})
        self.config = replace(load_config(self.path), database_url=self.config.database_url)

    def _choose_backend(self, backend: str | None, url: str | None, schema: str | None) -> None:
        """Write ``[storage]`` into the config of a store that holds no data yet, and open that ledger."""
        from .storage import BACKENDS, open_ledger
        from .storage.postgres import check_target, redact_url

        backend = backend or ("postgres" if url else self.config.storage_backend or "local")
        if backend not in BACKENDS:
            raise InvalidInput(f"--backend must be local or postgres, not {backend!r}.")
        url = url or self.config.database_url
        if backend == "postgres" and not url:
            raise InvalidInput(f"A postgres store needs its database: pass --url postgresql://user@host:5432/db "
                               f"or set {paths.ENV_DATABASE_URL}.")
        if backend == "postgres":
            check_target(url, schema or self.config.database_schema)
        current = "local" if self.ledger.local else "postgres"
        elsewhere = backend == "postgres" and current == "postgres" and (
            redact_url(url), schema or self.config.database_schema) != (redact_url(self.config.database_url),
                                                                       self.config.database_schema)
        if ((self.path / paths.LEDGER_FILE).exists() and backend != "local") or (
                (current != backend or elsewhere) and self.exists):
            raise InvalidInput(f"{self.path} already holds a {current} store ({self.ledger.describe()}); to move its "
                               "memories, run `hindsight migrate --to ...` from it into a new store instead.")
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
        settings = {"backend": backend}
        if backend == "postgres":
            settings["url"] = redact_url(url)
            if schema:
                settings["schema"] = schema
        self._set_config("storage", settings)
        self.config = replace(load_config(self.path), database_url=url if backend == "postgres" else "")
        self.ledger = open_ledger(self.path, self.config)

    def _require(self) -> None:
        if not self.exists:
            raise StoreNotFound(
                f"No hindsight store at {self.path}. Run `hindsight init` here, or pass --store PATH."
            )

    def _check_model(self, conn: Any) -> int:
        meta = self.ledger.meta(conn)
        stored, dim = meta.get("embedding_model"), int(meta.get("embedding_dim", 0))
        wanted = self.embedder.name if self._embedder is not None else model_name(self.config.embedding_model)
        if stored != wanted:
            raise EmbeddingMismatch(
                f"This store's vectors come from {stored} ({dim}-d) but the configured model is {wanted}. "
                f"Run `hindsight reindex` to re-embed every memory with {wanted}, or configure {stored} again."
            )
        return dim

    def _embed(self, texts: Sequence[str], dim: int) -> Any:
        return self._checked(self.embedder.embed(texts), dim)

    def _embedding_job(self, texts: Sequence[str]) -> "_Background | _Deferred":
        """Embed ``texts`` beside the caller's ledger work when that is safe.

        In a cold process loading the model is the slowest step; it runs while the ledger opens
        (DuckDB and onnxruntime release the GIL). A configured hub model is only loaded after the
        store's model check has passed, so a mismatch never starts a download.
        """
        function = lambda: self.embedder.embed(texts)  # noqa: E731
        if self._embedder is not None or known_dim(self.config.embedding_model) is not None:
            return _Background(function)
        return _Deferred(function)

    def _checked(self, vectors: Any, dim: int) -> Any:
        if vectors.shape[1] != dim:
            raise EmbeddingMismatch(
                f"The model {self.embedder.name} makes {vectors.shape[1]}-d vectors but this store holds {dim}-d ones. "
                "Run `hindsight reindex` to re-embed every memory."
            )
        return vectors

    def _embed_many(self, texts: Sequence[str], dim: int, progress: Progress | None = None,
                    check: bool = True) -> list[Any]:
        """Embed in batches of similar length: padding to the longest text in a batch costs up to 3x."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: list[Any] = [None] * len(texts)
        for start in range(0, len(order), 256):
            chunk = order[start : start + 256]
            batch = [texts[i] for i in chunk]
            embedded = self._embed(batch, dim) if check else self.embedder.embed(batch)
            for position, vector in zip(chunk, embedded):
                vectors[position] = vector
            if progress:
                progress(start + len(chunk), len(texts))
        return vectors

    # --- writing ----------------------------------------------------------------------------------

    def _prepare(self, fields: Mapping[str, Any], keep_identity: bool = False) -> Prepared:
        ttls = {t: getattr(self.config, f"{t}_ttl") for t in ("working", "episodic", "semantic", "procedural")}
        return prepare(fields, default_agent=self.config.default_agent, max_bytes=self.config.max_content_bytes,
                       ttls=ttls, now=utcnow(), keep_identity=keep_identity)

    def record(self, content: str, *, merge: bool = True, supersedes: str | None = None,
               **fields: Any) -> WriteResult:
        """Store one memory (DESIGN §6): validated, secrets redacted, idempotent, near-duplicates merged.

        Args:
            content: the memory text.
            merge: merge into an active memory of the same agent, type, task and outcome whose cosine
                similarity reaches ``dedup_threshold`` (default 0.97) instead of adding a row.
            supersedes: the id (or unique prefix) of a memory of the same agent that this one replaces:
                it becomes ``superseded`` (out of search, kept as history) and the two link both ways.
            **fields: any data-model field (``type``, ``agent_id``, ``task_id``, ``step``, ``trigger``,
                ``outcome``, ``resolution``, ``importance``, ``confidence``, ``tags``, ``metadata``, ``env``,
                ``source``, ``event_at``, ``valid_until``) plus ``ttl`` (``"2h"``) and ``key``.

        Returns:
            The stored memory, ``deduplicated`` and the number of ``redactions``.

        Raises:
            InvalidInput: the input was refused; nothing was written.
            MemoryNotFound: ``supersedes`` names no memory.
        """
        prepared = self._prepare({**fields, "content": content, "supersedes": supersedes})
        row = prepared.row
        self.init()
        job = self._embedding_job([embedding_text(row)])
        with self.ledger.connect(read_only=True) as conn:
            dim = self._check_model(conn)
        vector = self._checked(job.result(), dim)[0]
        with self.ledger.transaction() as conn:
            existing = self.ledger.by_key(conn, row["idempotency_key"])
            if existing is not None:
                return WriteResult(_memory(existing), True, prepared.redactions)
            old = self._supersedable(conn, row) if row["supersedes"] else None
            if merge and old is None:
                twin = self._near_duplicate(conn, row, vector, dim)
                if twin is not None:
                    self.ledger.touch(conn, twin, row["created_at"], row["importance"])
                    self.ledger.audit(conn, "merge", [twin], row["created_at"], actor=row["agent_id"])
                    merged = self.ledger.by_ids(conn, [twin])[0]
                    return WriteResult(_memory(merged), True, prepared.redactions)
            self.ledger.insert(conn, row, vector.tolist(), keyword_terms(row))
            self.ledger.audit(conn, "record", [row["id"]], row["created_at"], actor=row["agent_id"])
            if old is not None:
                self.ledger.supersede(conn, old["id"], row["id"], row["created_at"])
                self.ledger.audit(conn, "supersede", [old["id"], row["id"]], row["created_at"], actor=row["agent_id"])
        self._sync_if_open()
        self.expire_if_due()
        return WriteResult(_memory(row), False, prepared.redactions)

    def _supersedable(self, conn: Any, row: dict[str, Any]) -> dict[str, Any]:
        old = self._row(conn, row["supersedes"])
        if old["agent_id"] != row["agent_id"]:
            raise InvalidInput(f"{old['id']} belongs to agent {old['agent_id']!r}, not {row['agent_id']!r}: "
                               "a memory can only supersede one of its own agent.")
        if old["status"] == "superseded":
            raise InvalidInput(f"{old['id']} was already superseded by {old['superseded_by']}; "
                               "supersede that one instead.")
        row["supersedes"] = old["id"]
        return old

    def _near_duplicate(self, conn: Any, row: Mapping[str, Any], vector: Any, dim: int) -> str | None:
        # Explicit, different steps of a task are distinct events, however alike their text.
        where = ("m.status = 'active' AND m.agent_id = ? AND m.type = ? AND m.outcome = ? "
                 "AND m.task_id IS NOT DISTINCT FROM ? AND (m.step IS NULL OR ?::INTEGER IS NULL OR m.step = ?)")
        params = [row["agent_id"], row["type"], row["outcome"], row["task_id"], row["step"], row["step"]]
        best = self.ledger.nearest(conn, vector.tolist(), dim, where, params, 1)
        if best and best[0][1] >= self.config.dedup_threshold:
            return best[0][0]
        return None

    # --- summaries --------------------------------------------------------------------------------

    def _summary_sources(self, task_id: str | None, since: datetime | None, until: datetime | None,
                         agent_id: str | None) -> tuple[list[dict[str, Any]], int, str, str]:
        """The memories a summary covers (oldest first), the vector dimension, its scope and title."""
        if not task_id and since is None and until is None:
            raise InvalidInput("Say what to summarize: a task (--task) or a time range (--since/--until).")
        self._require()
        filters = Filters(agent_ids=(agent_id,) if agent_id else None, task_id=task_id,
                          types=("episodic", "working"), since=since, until=until, include_expired=True)
        with self.ledger.connect(read_only=True) as conn:
            dim = self._check_model(conn)
            where, params = self.ledger.where_sql(filters, utcnow())
            rows = self.ledger.select(conn, where, params, order="m.event_at ASC, m.id ASC")
        if not rows:
            what = f"task {task_id}" if task_id else "that time range"
            raise InvalidInput(f"Nothing to summarize: no active episodic memories for {what}.")
        scope = task_id or f"{iso(since) or 'start'}..{iso(until) or 'now'}"
        title = f"Summary of task {task_id}" if task_id else f"Summary of {scope.replace('..', ' to ')}"
        return rows, dim, scope, title

    def summary_request(self, *, task_id: str | None = None, since: datetime | None = None,
                        until: datetime | None = None, agent_id: str | None = None) -> tuple[str, str]:
        """The (system prompt, prompt) that asks an LLM to summarise what ``summarize`` would cover;
        its answer goes back in through ``summarize(text=...)``."""
        from .summarize import sampling_prompt

        rows, _, _, title = self._summary_sources(task_id, since, until, agent_id)
        return sampling_prompt(title, rows)

    def summarize(self, *, task_id: str | None = None, since: datetime | None = None,
                  until: datetime | None = None, agent_id: str | None = None, chunk: int = 5,
                  text: str | None = None, method: str = "extractive") -> SummaryResult:
        """Write (or update) a semantic memory that summarises a task or a time range.

        Without ``text``: no LLM; extractive key points plus a roll-up of outcomes and of each error
        with its fix. With ``text`` (an LLM's summary, e.g. through MCP sampling), that text is the
        task summary (redacted like any memory) and ``method`` names where it came from. More than
        ``chunk`` sources make a summary chain: one extractive part summary per ``chunk`` memories, and
        the task summary links to the parts (``source_ids``), which link to the originals. Rerunning
        updates the same summaries instead of adding new ones.

        Raises:
            InvalidInput: nothing selected, or nothing to summarise.
        """
        from .summarize import compose

        rows, dim, scope, title = self._summary_sources(task_id, since, until, agent_id)
        agents = {r["agent_id"] for r in rows}
        agent = agent_id or (next(iter(agents)) if len(agents) == 1 else self.config.default_agent)

        def embed(texts: list[str]) -> Any:
            return self._embed(texts, dim)

        def write(text: str, part: int, sources: list[dict[str, Any]], links: list[str]) -> tuple[Memory, bool]:
            key = hashlib.sha256(json.dumps(["summary", agent_id, scope, part]).encode()).hexdigest()[:32]
            prepared = self._prepare({
                "content": text, "type": "semantic", "agent_id": agent, "task_id": task_id, "key": key,
                "trigger": "summary" if part == 0 else "summary_part", "outcome": "neutral", "importance": 0.7,
                "confidence": 0.8, "source": "hindsight", "tags": ["summary"], "event_at": sources[-1]["event_at"],
                "metadata": {"summary_of": scope, "part": part, "sources": len(sources),
                             "method": method if part == 0 else "extractive"},
            })
            row = {**prepared.row, "source_ids": links}
            return self._write_summary(row, dim)

        groups = [rows[i : i + chunk] for i in range(0, len(rows), chunk)] if len(rows) > chunk else []
        parts: list[Memory] = []
        for number, group in enumerate(groups, 1):
            part_text = compose(f"{title}, part {number} of {len(groups)}", group, embed, self.config.max_content_bytes)
            parts.append(write(part_text, number, group, [r["id"] for r in group])[0])
        links = [m.id for m in parts] or [r["id"] for r in rows]
        top = text.strip() if text and text.strip() else compose(title, rows, embed, self.config.max_content_bytes)
        summary, updated = write(top, 0, rows, links)
        self._sync_if_open()
        return SummaryResult(summary, len(rows), updated, [m.id for m in parts])

    def _write_summary(self, row: dict[str, Any], dim: int) -> tuple[Memory, bool]:
        vector = self._embed([embedding_text(row)], dim)[0]
        with self.ledger.transaction() as conn:
            existing = self.ledger.by_key(conn, row["idempotency_key"])
            if existing is None:
                self.ledger.insert(conn, row, vector.tolist(), keyword_terms(row))
                self.ledger.audit(conn, "summarize", [row["id"]], row["created_at"])
                return _memory(row), False
            if existing["content"] == row["content"] and list(existing["source_ids"]) == row["source_ids"] \
                    and existing["status"] == "active":
                return _memory(existing), False
            self.ledger.rewrite(conn, existing["id"], row, vector.tolist(), keyword_terms(row))
            self.ledger.audit(conn, "summarize", [existing["id"]], row["created_at"], reason="updated")
            return _memory(self.ledger.by_ids(conn, [existing["id"]])[0]), True

    def sources(self, memory_id: str, depth: int = 5) -> list[tuple[int, Memory]]:
        """Walk a summary chain down to the original memories: (depth, memory) in reading order."""
        self._require()
        out: list[tuple[int, Memory]] = []
        with self.ledger.connect(read_only=True) as conn:
            def walk(row: dict[str, Any], level: int) -> None:
                out.append((level, _memory(row)))
                if level < depth and row["source_ids"]:
                    found = {r["id"]: r for r in self.ledger.by_ids(conn, list(row["source_ids"]))}
                    for source_id in row["source_ids"]:
                        if source_id in found:
                            walk(found[source_id], level + 1)

            walk(self._row(conn, memory_id), 0)
        return out

    def history(self, memory_id: str) -> list[Memory]:
        """The supersede chain a memory belongs to, oldest first (just the memory if it has none)."""
        self._require()
        with self.ledger.connect(read_only=True) as conn:
            row = self._row(conn, memory_id)
            chain = [row]
            seen = {row["id"]}
            while chain[0].get("supersedes") and len(chain) < 100:
                older = self.ledger.by_ids(conn, [chain[0]["supersedes"]])
                if not older or older[0]["id"] in seen:
                    break
                chain.insert(0, older[0])
                seen.add(older[0]["id"])
            while chain[-1].get("superseded_by") and len(chain) < 200:
                newer = self.ledger.by_ids(conn, [chain[-1]["superseded_by"]])
                if not newer or newer[0]["id"] in seen:
                    break
                chain.append(newer[0])
                seen.add(newer[0]["id"])
        return [_memory(r) for r in chain]

    def log(self, *, limit: int | None = 50, action: str | None = None, memory_id: str | None = None,
            since: datetime | None = None) -> list[AuditEntry]:
        """The audit log, newest first: who did what to which memories, when and why (never content)."""
        self._require()
        with self.ledger.connect(read_only=True) as conn:
            if memory_id:
                try:
                    memory_id = self._row(conn, memory_id)["id"]
                except MemoryNotFound:
                    pass  # a hard-forgotten memory's id still finds its entries
            rows = self.ledger.audit_log(conn, limit=limit, action=action, memory_id=memory_id, since=since)
        return [AuditEntry(iso(at), act, list(ids), reason, actor) for at, act, ids, reason, actor in rows]

    # --- consolidation ----------------------------------------------------------------------------

    def consolidate(self, *, agent_id: str | None = None, dry_run: bool = False, similarity: float | None = None,
                    min_evidence: int | None = None, actor: str | None = None) -> ConsolidateResult:
        """Turn groups of similar episodes (per agent) into semantic pattern memories, without an LLM.

        Each pattern links to its evidence (``source_ids``) and carries a confidence from it. A group
        that already has a pattern updates it only when new evidence arrived, so rerunning writes
        nothing new. ``dry_run`` computes the same plan and writes nothing.
        """
        from .consolidate import groups, pattern

        similarity = self.config.consolidate_similarity if similarity is None else similarity
        min_evidence = self.config.consolidate_min_evidence if min_evidence is None else min_evidence
        if not 0 < similarity <= 1:
            raise InvalidInput("similarity must be between 0 and 1 (cosine), e.g. 0.8.")
        if min_evidence < 2:
            raise InvalidInput("min_evidence must be at least 2: a pattern needs repeated episodes.")
        self._require()
        now = utcnow()
        scope = (agent_id,) if agent_id else None
        with self.ledger.connect(read_only=True) as conn:
            dim = self._check_model(conn)
            where, params = self.ledger.where_sql(Filters(agent_ids=scope, types=("episodic",)), now)
            episodes = self.ledger.select(conn, where, params, order="m.event_at ASC, m.id ASC", with_vectors=True)
            where, params = self.ledger.where_sql(Filters(agent_ids=scope, types=("semantic",)), now)
            known = [r for r in self.ledger.select(conn, f"{where} AND m.trigger = 'consolidate'", params)]
        plan: list[PatternChange] = []
        for agent in sorted({r["agent_id"] for r in episodes}):
            rows = [r for r in episodes if r["agent_id"] == agent]
            mine = [k for k in known if k["agent_id"] == agent]
            for members in groups(rows, similarity):
                found = pattern([rows[i] for i in members])
                if found.evidence < min_evidence:
                    continue
                plan.append(self._pattern_change(agent, found, mine, now))
        changes = [c for c in plan if c.action != "unchanged"]
        if not dry_run and changes:
            vectors = self._embed([embedding_text(c.row) for c in changes], dim)
            with self.ledger.transaction() as conn:
                for change, vector in zip(changes, vectors):
                    if change.action == "create":
                        self.ledger.insert(conn, change.row, vector.tolist(), keyword_terms(change.row))
                    else:
                        self.ledger.rewrite(conn, change.row["id"], change.row, vector.tolist(),
                                            keyword_terms(change.row))
                    self.ledger.audit(conn, "consolidate", [change.row["id"]], now,
                                      f"{change.action}d from {len(change.row['source_ids'])} episodes",
                                      actor or self.config.default_agent)
            self._sync_if_open()
        return ConsolidateResult(len(episodes), [replace(c, memory=_memory(c.row)) for c in plan], dry_run)

    def _pattern_change(self, agent: str, found: Any, known: list[dict[str, Any]], now: datetime) -> PatternChange:
        """Create a pattern, or update the one that already covers most of this group's episodes."""
        overlap = [(len(set(k["source_ids"]) & set(found.source_ids)), k) for k in known]
        best = max(overlap, key=lambda pair: pair[0], default=(0, None))
        fields = {
            "content": found.content, "type": "semantic", "agent_id": agent, "trigger": "consolidate",
            "outcome": found.outcome, "resolution": found.resolution, "confidence": found.confidence,
            "importance": 0.7, "source": "hindsight", "tags": ["pattern"], "event_at": found.last_at,
            "metadata": {"pattern": {"evidence": found.evidence, "agreement": found.agreement,
                                     "outcomes": found.outcomes}},
            "key": hashlib.sha256(json.dumps(["consolidate", agent, found.source_ids[0]]).encode()).hexdigest()[:32],
        }
        row = self._prepare(fields).row
        row["source_ids"] = found.source_ids
        existing = best[1] if best[0] else None
        if existing is None:
            return PatternChange("create", row, found.source_ids)
        row["id"] = existing["id"]
        sources = list(dict.fromkeys([*existing["source_ids"], *found.source_ids]))
        if set(found.source_ids) <= set(existing["source_ids"]):
            return PatternChange("unchanged", {**existing, "embedding": None}, sources)
        row["source_ids"] = sources
        return PatternChange("update", row, sources)

    # --- reading ----------------------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory:
        """One memory by id or unique id prefix (at least 8 characters).

        Raises:
            MemoryNotFound: no memory (or more than one) matches.
        """
        self._require()
        with self.ledger.connect(read_only=True) as conn:
            return _memory(self._row(conn, memory_id))

    def _row(self, conn: Any, memory_id: str) -> dict[str, Any]:
        # Cleaned like every stored label: an id with a control character or a lone surrogate (an
        # undecodable argv byte, half an emoji from a client) is simply not found.
        memory_id = clean(memory_id if isinstance(memory_id, str) else str(memory_id or ""))
        rows = self.ledger.by_ids(conn, [memory_id])
        if rows:
            return rows[0]
        if len(memory_id) >= 8:
            matches = self.ledger.by_prefix(conn, memory_id)
            if len(matches) == 1:
                return self.ledger.by_ids(conn, matches)[0]
            if len(matches) > 1:
                raise MemoryNotFound(f"{memory_id!r} matches several memories; give more of the id.")
        raise MemoryNotFound(f"No memory with id {memory_id!r}. Find ids with `hindsight list` or `hindsight search`.")

    def list(self, filters: Filters | None = None, limit: int | None = 50, oldest_first: bool = False) -> list[Memory]:
        """Memories matching ``filters`` (default: every status, expired included), newest first."""
        self._require()
        filters = filters or Filters(statuses=None, include_expired=True)
        order = "m.created_at ASC, m.id ASC" if oldest_first else "m.created_at DESC, m.id DESC"
        with self.ledger.connect(read_only=True) as conn:
            where, params = self.ledger.where_sql(filters, utcnow())
            return [_memory(r) for r in self.ledger.select(conn, where, params, order=order, limit=limit)]

    def search(self, query: str, *, filters: Filters | None = None, k: int = 5, budget: int | None = None,
               mode: str = "hybrid", env: Mapping[str, str] | None = None, current_task: str | None = None,
               engine: str | None = None, now: datetime | None = None, troubleshoot: bool = False) -> SearchResult:
        """Find the memories that matter for ``query`` (DESIGN §5).

        Args:
            query: what to look for, in any language.
            filters: hard filters; by default active, unexpired episodic/semantic/procedural memories.
            k: at most this many hits.
            budget: keep the formatted context block within this many tokens.
            mode: ``hybrid`` (vector + keyword), ``vector`` or ``keyword``.
            env: the caller's environment fingerprint; memories recorded under other values rank lower.
            current_task: the task at hand; its memories get the same-task bonus.
            troubleshoot: "I have seen this error before": relevant failures that have a resolution come
                first, and unresolved failures are not held back.
            engine: ``ledger`` (exact, in DuckDB) or ``index`` (LanceDB); default from config.
            now: rank as of this moment (recency, expiry, validity) instead of the clock's time;
                evaluations replay recorded conversations this way.

        Returns:
            A ``SearchResult`` with ranked hits and the ready-to-paste ``context`` block.
        """
        query = clean(query or "")
        if not query:
            raise InvalidInput('The query is empty: say what to look for, e.g. hindsight search "weather API 401".')
        if mode not in MODES:
            raise InvalidInput(f"mode must be one of {', '.join(MODES)}, not {mode!r}.")
        if k < 1:
            raise InvalidInput("The limit must be at least 1.")
        if budget is not None and budget < 1:
            raise InvalidInput("The budget must be a positive number of tokens.")
        self._require()
        filters = filters or Filters()
        if filters.types is None:
            filters = replace(filters, types=SEARCH_TYPES)
        weights = self.config.ranking
        ctx = ranking.Context(now=now or utcnow(), task_id=current_task, env=dict(env or {}),
                              troubleshooting=troubleshoot or ranking.is_troubleshooting(query),
                              fixes_first=troubleshoot)
        n = max(weights.candidates, k * 4)
        query_terms = terms(query)
        embedding = self._embedding_job([query]) if mode != "keyword" else None
        lists = 1 if mode != "hybrid" else 2
        if self._index_is_current(engine):
            return self._search_index(query, filters, ctx, embedding, query_terms, mode, n, k, budget, lists)
        with self.ledger.connect(read_only=True) as conn:
            dim = self._check_model(conn) if mode != "keyword" else int(self.ledger.meta(conn)["embedding_dim"])
            use_index = self._engine(conn, engine) == "index"
            if not use_index:
                where, params = self.ledger.where_sql(filters, ctx.now)
                words = self.ledger.keyword(conn, query_terms, where, params, n, weights.bm25_k1, weights.bm25_b,
                                            filters.agent_ids) if mode != "vector" else []
                vector = self._checked(embedding.result(), dim)[0].tolist() if embedding else None
                near = self.ledger.nearest(conn, vector, dim, where, params, n) if vector is not None else []
                by_keyword = {m for m, _ in words}
                near = [(m, s) for m, s in near if s >= weights.min_vector_similarity or m in by_keyword]
                candidates = ranking.fuse(near, words)
                ids = list(candidates)
                rows = self.ledger.select(conn, f"{where} AND m.id IN ({', '.join('?' for _ in ids)})",
                                          [*params, *ids], with_vectors=True) if ids else []
        if use_index:
            # Catch the index up with short ledger reads of its own, then search it without holding the
            # ledger: a DuckDB reader, even read-only, locks every writing process out.
            self._sync(self.index(dim))
            return self._search_index(query, filters, ctx, embedding, query_terms, mode, n, k, budget, lists)
        return self._rank(query, rows, candidates, ctx, k, budget, lists)

    def _index_is_current(self, engine: str | None) -> bool:
        """A warm store whose index matches the ledger's latest change searches without opening DuckDB."""
        if not self.warm or self._index is None or self._synced is None or not self.ledger.local:
            return False
        if (engine or self.config.search_engine) == "ledger":
            return False
        return self._synced[0] == self.ledger.change_token() and self._synced[1] == self._index.dim

    def _search_index(self, query: str, filters: Filters, ctx: ranking.Context, embedding: Any,
                      query_terms: list[str], mode: str, n: int, k: int, budget: int | None,
                      lists: int) -> SearchResult:
        index = self._index
        assert index is not None
        where = where_clause(filters, ctx.now)
        stored: dict[str, dict[str, Any]] = {}  # each hit's fields come back with it: no second query
        words = index.keyword(query_terms, where, n, stored) if mode != "vector" else []
        near: list[tuple[str, float]] = []
        if embedding is not None:
            near = index.nearest(self._checked(embedding.result(), index.dim)[0].tolist(), where, n, stored)
        by_keyword = {m for m, _ in words}
        near = [(m, s) for m, s in near if s >= self.config.ranking.min_vector_similarity or m in by_keyword]
        candidates = ranking.fuse(near, words)
        rows = [_from_index(stored[m]) for m in candidates]
        return self._rank(query, rows, candidates, ctx, k, budget, lists)

    def _rank(self, query: str, rows: list[dict[str, Any]], candidates: dict[str, ranking.Candidate],
              ctx: ranking.Context, k: int, budget: int | None, lists: int) -> SearchResult:
        weights = self.config.ranking
        scored: dict[str, tuple[float, dict[str, Any]]] = {}
        by_id = {r["id"]: r for r in rows}
        best_keyword = max((c.keyword_score or 0.0 for c in candidates.values()), default=0.0)
        rel = ranking.relevances(by_id, candidates, weights, lists, best_keyword)
        for mid, row in by_id.items():
            if weights.env_mismatch == "drop" and ranking.env_mismatches(row, ctx.env):
                continue
            scored[mid] = ranking.score(row, candidates[mid], ctx, weights, lists, best_keyword, rel[mid])
        order = sorted(scored, key=lambda m: (-scored[m][0], m))
        rank_of = {m: i for i, m in enumerate(order, 1)}
        import numpy as np

        vectors = {m: np.asarray(by_id[m]["embedding"], dtype=np.float32) for m in order
                   if by_id[m].get("embedding") is not None}
        scores = {m: scored[m][0] for m in order}
        quarantined = [m for m in order if "quarantined" in (by_id[m].get("tags") or [])]
        if quarantined:  # instruction-like text from untrusted sources ranks after everything else
            held_back = set(quarantined)
            order = [m for m in order if m not in held_back]
            for mid in quarantined:
                reason = (by_id[mid].get("metadata") or {}).get("quarantine", {}).get("reason", "untrusted")
                scored[mid][1]["notes"].append(f"quarantined: {reason}; ranked after trusted memories")
        if ctx.fixes_first:
            # Gate on the evidence itself (cosine, BM25 relative to the best), which does not stretch
            # small differences the way list-normalised fusion does on a handful of candidates.
            plain = replace(weights, fusion="weighted")
            relevance = {m: ranking.relevance(candidates[m], plain, lists, best_keyword) for m in order}
            fixes, rest = ranking.split_fixes(order, by_id, relevance, weights.troubleshoot_share)
            picked = ranking.mmr(fixes, scores, vectors, weights.mmr_lambda, k)
            picked += ranking.mmr(rest, scores, vectors, weights.mmr_lambda, k - len(picked))
            for mid in picked[: min(len(fixes), k)]:
                scored[mid][1]["notes"].append("troubleshoot: a failure with a fix, ranked first")
        else:
            picked = ranking.mmr(order, scores, vectors, weights.mmr_lambda, k)
        picked += ranking.mmr(quarantined, scores, vectors, weights.mmr_lambda, k - len(picked))
        for position, mid in enumerate(picked, 1):
            scored[mid][1]["mmr_position"] = position
            scored[mid][1]["score_rank"] = rank_of[mid]
        memories = [_memory(by_id[m]) for m in picked]
        kept, context, tokens = ranking.fit_budget(memories, budget)
        hits = [Hit(memories[i], scored[picked[i]][0], candidates[picked[i]].matched, scored[picked[i]][1])
                for i in kept]
        return SearchResult(query, hits, context, tokens, budget, len(picked) - len(kept))

    def _engine(self, conn: Any, requested: str | None) -> str:
        engine = requested or self.config.search_engine
        if engine not in ("auto", "ledger", "index"):
            raise InvalidInput(f"engine must be auto, ledger or index, not {engine!r}.")
        if not self.ledger.local:
            return "ledger"  # the database searches its own vector (HNSW) and keyword indexes
        if engine != "auto":
            return engine
        if self.warm:
            return "index"
        active = conn.execute("SELECT count(*) FROM memories WHERE status = 'active'").fetchone()[0]
        return "index" if active > self.config.ann_threshold else "ledger"

    # --- the index --------------------------------------------------------------------------------

    def index(self, dim: int | None = None) -> Index:
        if self._index is None or (dim is not None and self._index.dim != dim):
            if dim is None:
                with self.ledger.connect(read_only=True) as conn:
                    dim = int(self.ledger.meta(conn).get("embedding_dim", 384))
            self._index = Index(self.path / paths.INDEX_DIR, dim, int(self.config.vector_index_rows))
        return self._index

    def _sync(self, index: Index, progress: Progress | None = None) -> int:
        """Bring the index up to the ledger: upsert changed rows, drop rows the ledger lost.

        The ledger is read in short connections and closed before any index write, so a sync (in an
        MCP server, or a big one after an import) never keeps other processes from writing.
        """
        token = self.ledger.change_token()  # read first: a write during the sync leaves the index stale
        changed = 0
        with index.write_lock(self.config.lock_timeout):
            mark = index.watermark()
            with self.ledger.connect(read_only=True) as conn:
                head = self.ledger.max_seq(conn)
                rows = self.ledger.changed_since(conn, mark) if head > mark else []
                ledger_count = conn.execute("SELECT count(*) FROM memories WHERE embedding IS NOT NULL").fetchone()[0]
                dim = int(self.ledger.meta(conn).get("embedding_dim", 0))
            for start in range(0, len(rows), 2000):
                chunk = rows[start : start + 2000]
                changed += _upsert(index, chunk)
                if progress:
                    progress(min(start + 2000, len(rows)), len(rows))
            if index.count() != ledger_count:
                self._repair(index)
            if head > mark:
                index.set_watermark(head)
        index.maintain(background=self.warm)
        self._synced = (token, dim)
        return changed

    def _repair(self, index: Index) -> None:
        """Make the index hold exactly the ledger's rows once each: drop rows of ids the ledger lost,
        and rewrite ids that have more than one row (from a write that was not serialised)."""
        counts = index.id_counts()
        with self.ledger.connect(read_only=True) as conn:
            known = self.ledger.all_ids(conn)
            doubled = [m for m, n in counts.items() if n > 1 and m in known]
            rows = self.ledger.by_ids(conn, doubled, with_vectors=True) if doubled else []
        gone = sorted(set(counts) - known)
        if gone or doubled:
            index.delete(gone + doubled)
        if rows:
            _upsert(index, rows)

    def _sync_if_open(self) -> None:
        """After a committed write: bring an open index up to date. The write already succeeded, so
        an index failure (disk full, another process compacting) is logged, not raised: the index is
        derived and the next sync catches up."""
        if self._index is not None:
            try:
                self._sync(self._index)
            except Exception as error:  # noqa: BLE001 - see above
                log.warning("index sync after a write failed (it catches up later): %s", error)

    def sync_index(self) -> int:
        """Index every ledger change the index lacks; returns how many rows were written (0 on
        Postgres, whose database indexes its own rows)."""
        self._require()
        if not self.ledger.local:
            return 0
        with self.ledger.connect(read_only=True) as conn:
            dim = int(self.ledger.meta(conn).get("embedding_dim", 384))
        return self._sync(self.index(dim))

    # --- forgetting -------------------------------------------------------------------------------

    def select_ids(self, filters: Filters) -> list[str]:
        self._require()
        with self.ledger.connect(read_only=True) as conn:
            where, params = self.ledger.where_sql(filters, utcnow())
            return [r[0] for r in conn.execute(f"SELECT m.id FROM memories m WHERE {where}", params).fetchall()]

    def forget(self, ids: Iterable[str] = (), *, filters: Filters | None = None, hard: bool = False,
               archive: bool = False, reason: str | None = None, actor: str | None = None) -> int:
        """Forget memories by id and/or filter.

        Soft (default): status ``invalidated``, excluded from search, restorable with ``restore``.
        Archive: status ``archived``: cold, out of default search, found with ``include_archived``,
        restorable. Hard: the rows, their keyword terms and vectors are deleted, together with the
        summaries and patterns built from them; old index versions are purged and the ledger file is
        rewritten, so no trace of the content stays on disk. Every forget is written to the audit log
        (ids, time, reason, who; never content).

        Returns:
            How many memories changed (with ``hard``, derived summaries included).
        """
        if hard and archive:
            raise InvalidInput("Choose one: --hard deletes for good, --archive keeps memories in cold storage.")
        self._require()
        at = utcnow()
        actor = actor or self.config.default_agent
        with self.ledger.transaction() as conn:
            targets: list[str] = []
            for memory_id in ids:
                mid = self._row(conn, memory_id)["id"]
                if mid not in targets:
                    targets.append(mid)
            if filters is not None:
                where, params = self.ledger.where_sql(filters, at)
                for (mid,) in conn.execute(f"SELECT m.id FROM memories m WHERE {where}", params).fetchall():
                    if mid not in targets:
                        targets.append(mid)
            if hard:
                derived = self.ledger.derived_from(conn, targets)
                count = self.ledger.delete(conn, targets + derived)
                if count:
                    self.ledger.audit(conn, "forget_hard", targets, at, reason, actor)
                if derived:
                    self.ledger.audit(conn, "forget_hard", derived, at, "built from hard-forgotten memories", actor)
            else:
                count = self.ledger.set_status(conn, targets, "archived" if archive else "invalidated", at)
                if count:
                    self.ledger.audit(conn, "archive" if archive else "forget", targets, at, reason, actor)
        if hard and count:
            self._purge(targets + derived)
        else:
            self._sync_if_open()
        return count

    def _purge(self, ids: list[str]) -> bool:
        """After a hard forget: drop the vectors and every old index version that still holds them,
        then rewrite the ledger so no freed block keeps the old bytes. Returns whether it could."""
        if self.ledger.local and (self.path / paths.INDEX_DIR).exists():
            index = self.index()
            with index.write_lock(self.config.lock_timeout):
                index.scrub(ids)
        return self.ledger.scrub()

    def expire(self) -> int:
        """Delete every memory whose TTL has passed (rows, terms and vectors); returns how many."""
        self._require()
        at = utcnow()
        with self.ledger.transaction() as conn:
            where, params = self.ledger.where_sql(Filters(statuses=None, expired_only=True), at)
            targets = [r[0] for r in conn.execute(f"SELECT m.id FROM memories m WHERE {where}", params).fetchall()]
            count = self.ledger.delete(conn, targets)
            if count:
                self.ledger.audit(conn, "expire", targets, at, "TTL passed", "hindsight")
        if count and self.ledger.local and (self.path / paths.INDEX_DIR).exists():
            self.index().delete(targets)
        self._expiry_stamp().touch()
        return count

    def _expiry_stamp(self) -> Path:
        return self.path / ".expiry-checked"

    def expire_if_due(self) -> int:
        """Purge expired memories if the last purge is older than ``[ttl] purge_every`` (cheap otherwise:
        one ``stat``). Writes and the MCP server call it, so expired memories do not pile up."""
        from .timeutil import parse_duration

        try:
            age = utcnow().timestamp() - self._expiry_stamp().stat().st_mtime
        except FileNotFoundError:
            age = float("inf")
        if age < parse_duration(self.config.expiry_check, "[ttl] purge_every").total_seconds():
            return 0
        try:
            return self.expire()
        except (HindsightError, OSError):
            return 0  # busy, read-only or full: the write that called this succeeded; the next one retries

    def restore(self, memory_id: str, actor: str | None = None) -> Memory:
        """Make a soft-forgotten or archived memory active again (or a superseded one whose
        replacement is gone)."""
        self._require()
        at = utcnow()
        with self.ledger.transaction() as conn:
            row = self._row(conn, memory_id)
            if row["status"] == "active":
                return _memory(row)
            if row["status"] == "superseded":
                newer = self.ledger.by_ids(conn, [row["superseded_by"]]) if row["superseded_by"] else []
                if newer and newer[0]["status"] == "active":
                    raise InvalidInput(f"{row['id']} was superseded by {row['superseded_by']}; "
                                       "restore or forget that one instead.")
            self.ledger.set_status(conn, [row["id"]], "active", at)
            self.ledger.audit(conn, "restore", [row["id"]], at, actor=actor or self.config.default_agent)
            restored = self.ledger.by_ids(conn, [row["id"]])[0]
        self._sync_if_open()
        return _memory(restored)

    # --- export / import --------------------------------------------------------------------------

    def export(self, filters: Filters | None = None) -> Iterator[dict[str, Any]]:
        """Every memory (all statuses by default) as data-model dicts, oldest first."""
        yield from (m.to_dict() for m in self.list(filters or Filters(statuses=None, include_expired=True),
                                                     limit=None, oldest_first=True))

    def import_records(self, records: Sequence[Mapping[str, Any]], progress: Progress | None = None) -> ImportResult:
        """Add exported memories; ids and idempotency keys already present are skipped (idempotent).

        Every record is validated before anything is written: one bad record refuses the whole import.
        Valid records are then embedded and committed in batches of ``IMPORT_BATCH``, so an import that
        is killed (or runs out of disk) keeps what it committed, and rerunning it adds exactly the rest.
        """
        prepared: list[Prepared] = []
        for number, record in enumerate(records, 1):
            if not isinstance(record, Mapping):
                raise InvalidInput(f"Record {number} is not a JSON object; nothing was imported.")
            try:
                prepared.append(self._prepare({**record, "source": record.get("source") or "import"},
                                              keep_identity=True))
            except InvalidInput as error:
                raise InvalidInput(f"Record {number}: {error} Nothing was imported.") from None
        self.init()
        with self.ledger.connect(read_only=True) as conn:
            dim = self._check_model(conn)
            known_ids = self.ledger.all_ids(conn)
            known_keys = {r[0] for r in conn.execute("SELECT idempotency_key FROM memories").fetchall()}
        fresh: list[Prepared] = []
        for item in prepared:
            row = item.row
            if row["id"] in known_ids or row["idempotency_key"] in known_keys:
                continue
            known_ids.add(row["id"])
            known_keys.add(row["idempotency_key"])
            fresh.append(item)
        added: list[Prepared] = []
        for start in range(0, len(fresh), IMPORT_BATCH):
            # One transaction per batch: a killed or failed import keeps the batches it committed, and
            # rerunning it adds exactly the rest.
            chunk = fresh[start : start + IMPORT_BATCH]
            step = (lambda done, _total, base=start: progress(base + done, len(fresh))) if progress else None
            vectors = self._embed_many([embedding_text(p.row) for p in chunk], dim, step)
            with self.ledger.transaction() as conn:
                # Another process may have imported the same records meanwhile.
                rows = conn.execute("SELECT id, idempotency_key FROM memories").fetchall()
                ids, keys = {r[0] for r in rows}, {r[1] for r in rows}
                batch = [(p, v) for p, v in zip(chunk, vectors)
                         if p.row["id"] not in ids and p.row["idempotency_key"] not in keys]
                self.ledger.insert_many(conn, [(p.row, v, keyword_terms(p.row)) for p, v in batch])
                if batch:
                    self.ledger.audit(conn, "import", [p.row["id"] for p, _ in batch], utcnow())
            added.extend(p for p, _ in batch)
        if added and self.ledger.local and (self._index is not None or len(added) >= 1000):
            # A big import pays the index update now rather than the next search; small ones leave it
            # to the next search or the MCP server, which sync before they read.
            self.sync_index()
        return ImportResult(len(added), len(records) - len(added), sum(p.redactions for p in added))

    # --- maintenance ------------------------------------------------------------------------------

    def reindex(self, progress: Progress | None = None) -> int:
        """Re-embed every memory with the configured model and rebuild the LanceDB index from the ledger."""
        self._require()
        with self.ledger.connect(read_only=True) as conn:
            rows = self.ledger.select(conn, "TRUE", [], order="m.seq")
            meta = self.ledger.meta(conn)
        model = self.embedder.name
        dim = self.embedder.dim or int(self.embedder.embed(["probe"]).shape[1])
        vectors = self._embed_many([embedding_text(r) for r in rows], dim, progress, check=False)
        pairs = [(r["id"], v.tolist()) for r, v in zip(rows, vectors)]
        with self.ledger.transaction() as conn:
            if meta.get("embedding_model") != model or int(meta.get("embedding_dim", 0)) != dim:
                self.ledger.set_model(conn, model, dim)
            self.ledger.set_embeddings(conn, pairs)
            self.ledger.audit(conn, "reindex", [], utcnow(), reason=model)
        import shutil

        shutil.rmtree(self.path / paths.INDEX_DIR, ignore_errors=True)
        self._index = None
        self.sync_index()
        return len(pairs)

    def stats(self) -> dict[str, Any]:
        """Counts by status, type, agent and outcome; model; sizes on disk; index state."""
        self._require()
        with self.ledger.connect(read_only=True) as conn:
            counts = self.ledger.counts(conn)
            meta = self.ledger.meta(conn)
            head = self.ledger.max_seq(conn)
        index_dir = self.path / paths.INDEX_DIR
        index: dict[str, Any] = {"exists": index_dir.exists(), "synced_seq": 0, "ledger_seq": head, "vector_index": None}
        if index_dir.exists() and self.ledger.local:
            idx = self.index(int(meta.get("embedding_dim", 384)))
            index.update(rows=idx.count(), fragments=idx.fragments(), synced_seq=idx.watermark(),
                         vector_index=idx.vector_index())
        for key in ("oldest", "newest"):
            counts[key] = iso(counts[key])
        return {
            "store": str(self.path), "backend": "local" if self.ledger.local else "postgres",
            "database": self.ledger.describe(), **counts,
            "embedding_model": meta.get("embedding_model"), "embedding_dim": int(meta.get("embedding_dim", 0)),
            "schema_version": int(meta.get("schema_version", 0)),
            "ledger_bytes": self.ledger.size_bytes(),
            "index_bytes": _size(index_dir), "index": index,
        }


class _Deferred:
    """Run one function when its result is asked for."""

    def __init__(self, function: Callable[[], Any]) -> None:
        self._function = function

    def result(self) -> Any:
        return self._function()


class _Background:
    """Run one function in a thread; ``result()`` returns its value or raises its exception."""

    def __init__(self, function: Callable[[], Any]) -> None:
        import threading

        self._value: Any = None
        self._error: BaseException | None = None

        def run() -> None:
            try:
                self._value = function()
            except BaseException as error:  # re-raised in the caller's thread
                self._error = error

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


def _upsert(index: Index, rows: Sequence[dict[str, Any]]) -> int:
    """Write ledger rows to the index: vector, keyword terms and the memory's fields as JSON."""
    return index.upsert(rows, {r["id"]: " ".join(terms(keyword_text(r))) for r in rows},
                        {r["id"]: json.dumps(_memory(r).to_dict(), ensure_ascii=False) for r in rows})


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return 0


def open_store(path: str | os.PathLike[str] | None = None, *, embedder: Embedder | None = None,
               warm: bool = False) -> Store:
    """Open the store that the lookup order picks (see ``hindsight_cli.paths``).

    Args:
        path: a store directory; by default ``HINDSIGHT_STORE``, the nearest ``.hindsight/``, or the
            global store.
        embedder: use this embedder instead of the configured model.
        warm: for long-running processes: search through the LanceDB index.

    Returns:
        A ``Store``; it may not exist yet (``record`` and ``import`` create it, ``init`` does explicitly).
    """
    location = paths.resolve_store(path)
    return Store(location.path, embedder=embedder, warm=warm)


def dump_jsonl(records: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    for record in records:
        yield json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n"


def parse_jsonl(lines: Iterable[str]) -> list[dict[str, Any]]:
    """Parse JSONL strictly: one bad line refuses the whole input, naming the line."""
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise InvalidInput(f"Line {number} is not valid JSON ({error.msg}); nothing was imported.") from None
        if not isinstance(value, dict):
            raise InvalidInput(f"Line {number} is not a JSON object; nothing was imported.")
        records.append(value)
    return records


__all__ = ["Store", "open_store", "HindsightError"]
