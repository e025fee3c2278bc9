"""Settings: built-in defaults, then the user config file, then ``<store>/config.toml``, then env
vars."""

from __future__ import annotations

import json
import math
import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from . import paths, safefs
from .errors import InvalidInput
from .safefs.reading import parse_toml

DEFAULT_MODEL = "hindsight/all-MiniLM-L6-v2-int8"


def _setting(default: Any, doc: str = "", toml: str | None = None) -> Any:
    """A setting's default, the comment ``config.toml`` shows for it and its ``[section] key``
    there."""
    return field(default=default, metadata={"doc": doc, "toml": toml})


@dataclass(frozen=True)
class Ranking:
    """Weights of DESIGN §5; ``final = Σ weight·signal``, scaled by confidence (``[ranking]``)."""

    w_relevance: float = _setting(0.6, " ")
    w_recency: float = _setting(0.1, " ")
    w_outcome: float = _setting(0.1, " ")
    w_importance: float = _setting(0.1, " ")
    w_same_task: float = _setting(0.05, " ")
    w_identifier: float = _setting(
        0.15,
        "share of the query's identifiers (ports, versions, file and function "
        "names, error codes) a memory holds exactly",
    )
    w_time_window: float = _setting(
        0.3,
        'for a query that names a time (a date, a month, "last week", 上周): how near the time a '
        "memory speaks of, or was said, is to it (a soft window, never a filter)",
    )
    w_dated: float = _setting(
        0.15, 'for a query that asks when: a memory that says when (a date, "yesterday")'
    )
    fusion: str = _setting(
        "zscore", 'or "weighted" (raw cosine and BM25) or "rrf" (reciprocal-rank fusion)'
    )
    vector_weight: float = _setting(
        0.4, "share of the vector evidence in fusion; the rest is keyword (BM25)"
    )
    rrf_k: int = 60
    candidates: int = 100
    mmr_lambda: float = 0.75
    w_prev_step: float = _setting(
        0.6, "share of the relevance of the step before, same task, a memory inherits"
    )
    w_next_step: float = _setting(
        0.3, "... of the step after (neighbour_steps = 2: how far, halving each step)"
    )
    # how far; each further step passes on half as much
    neighbour_steps: int = 2
    w_task_match: float = _setting(
        0.15,
        "share of the relevance of its task's best-matching memory a memory "
        "inherits (two-stage: the task that matches best lifts its memories)",
    )
    # the keyword side also asks for a query word's derived forms (connect: connection)
    derived_forms: bool = True
    neighbour_pool: int = _setting(
        10,
        "the steps before and after each of this many most relevant candidates join the "
        "candidates (the answer after a question); 0 = none",
    )
    bm25_k1: float = 0.9
    bm25_b: float = 0.4
    # a vector-only candidate below this cosine is noise, not a hit
    min_vector_similarity: float = 0.2
    min_relevance: float = _setting(
        0.6,
        "the relevance floor of a block (--budget, --min-score): share of the best "
        "hit's relevance (before priors) a hit needs",
    )
    min_vector_only: float = _setting(0.35, "... and a cosine of this (found by meaning) ...")
    min_keyword_only: float = _setting(
        0.5, "... or this share of the query's words (found by its words)"
    )
    half_life_working: float = 1.0
    half_life_episodic: float = _setting(7.0, "days")
    half_life_semantic: float = 90.0
    half_life_procedural: float = 180.0
    env_mismatch: str = _setting("downrank", 'or "drop"')
    # with --troubleshoot, fixed failures at least this relevant go first
    troubleshoot_share: float = 0.5
    env_mismatch_factor: float = 0.5
    past_validity_factor: float = 0.5
    # a memory naming the same host, package or path with another value
    identifier_conflict_factor: float = 0.5
    use_factor: float = _setting(
        0.15,
        "reinforcement: how far the agent's use of a memory (the injection record's verdicts) "
        "moves its score, at most ±this share; 0 = off",
    )
    use_half_life: float = _setting(30.0, "days a verdict's weight takes to halve")
    ignored_cutoff: float = _setting(
        -1.0,
        "standing (-1 to 1) at or below which the hooks stop injecting a memory the agent keeps "
        "ignoring; -1 = never (the default: at -0.5 the replay lost 9 of its 12 earlier fixes)",
    )


@dataclass(frozen=True)
class Config:
    """Every setting, with its default and where ``config.toml`` sets it: declared here once; the
    commented ``config.toml`` a new store gets and the file reader both derive from these fields."""

    default_agent: str = _setting("default", " ", "default_agent")
    embedding_model: str = _setting(DEFAULT_MODEL, " ", "embedding.model")
    max_content_bytes: int = _setting(16 * 1024, " ", "limits.max_content_bytes")
    dedup_threshold: float = _setting(
        0.4,
        "cosine at or above which a restatement (same words, values and "
        "polarity) merges into the memory it restates",
        "limits.dedup_threshold",
    )
    on_change: str = _setting(
        "supersede",
        "supersede | keep_both: a write that states a changed fact (other "
        "values, or negated) replaces the old memory, or is kept beside it",
        "write.on_change",
    )
    working_ttl: str = _setting(
        "24h", "working memories expire after this long unless --ttl says otherwise", "ttl.working"
    )
    episodic_ttl: str = _setting("", '"" = never; e.g. "180d"', "ttl.episodic")
    semantic_ttl: str = _setting("", " ", "ttl.semantic")
    procedural_ttl: str = _setting("", " ", "ttl.procedural")
    expiry_check: str = _setting(
        "1h", "writes purge expired memories at most this often", "ttl.purge_every"
    )
    vector_index_rows: int = _setting(
        20_000,
        "rows above which warm vector search gets an approximate (IVF-SQ) index; 0 = never",
        "index.vector_index_rows",
    )
    search_engine: str = _setting("auto", "auto | ledger | index", "search.engine")
    ann_threshold: int = _setting(
        50_000, "active memories above which `auto` uses the LanceDB index", "search.ann_threshold"
    )
    hot_index_mb: int = _setting(
        512,
        "memory (MB) a long-lived process (MCP server) may give its in-memory "
        "index; past it, search uses the LanceDB index; 0 = never",
        "search.hot_index_mb",
    )
    # HINDSIGHT_LOCK_TIMEOUT
    lock_timeout: float = 10.0
    storage_backend: str = _setting(
        "",
        '"local", or "postgres": a shared PostgreSQL + pgvector store (docs/team.md)',
        "storage.backend",
    )
    database_url: str = _setting(
        "",
        "postgresql://user@host:5432/db; never a password (HINDSIGHT_DATABASE_URL has it)",
        "storage.url",
    )
    database_schema: str = _setting(
        "hindsight", "the database schema that holds this store", "storage.schema"
    )
    consolidate_similarity: float = _setting(
        0.8, "cosine at or above which episodes are one pattern", "consolidate.similarity"
    )
    consolidate_min_evidence: int = _setting(
        2, "occurrences a pattern needs (merged repeats count)", "consolidate.min_evidence"
    )
    hooks_recall: bool = _setting(True, "inject memories at session start", "hooks.recall")
    hooks_recall_budget: int = _setting(800, "tokens", "hooks.recall_budget")
    hooks_repeat_recall: bool = _setting(
        True, "inject on a repeated question or error", "hooks.repeat_recall"
    )
    hooks_repeat_budget: int = _setting(400, " ", "hooks.repeat_budget")
    hooks_warm_recall: bool = _setting(
        True,
        "ask a running `hindsight mcp` / `hindsight ui` of the store for a repeat recall",
        "hooks.warm_recall",
    )
    hooks_record_failures: bool = _setting(
        True, "spool failing tool calls and their fixes", "hooks.record_failures"
    )
    hooks_record_prompts: bool = _setting(True, "spool prompts", "hooks.record_prompts")
    hooks_summarize: bool = _setting(
        True, "summarize sessions at session end / compaction", "hooks.summarize"
    )
    hooks_daily_budget: int = _setting(
        0,
        "tokens all automatic injections (session start, repeats) may spend per UTC day; 0 = no cap",
        "hooks.daily_budget",
    )
    hooks_session_budget: int = _setting(
        0,
        "tokens automatic injections may spend in one session; 0 = no cap",
        "hooks.session_budget",
    )
    injections_keep_days: int = _setting(
        30,
        "days the injection record (`hindsight stats --recall`) keeps; 0 = record nothing",
        "injections.keep_days",
    )
    mcp_allowed_hosts: tuple[str, ...] = _setting(
        (),
        'more Host names the HTTP server answers to, e.g. ["memory.internal", "proxy:443"]',
        "mcp.allowed_hosts",
    )
    mcp_sessions_per_agent: int = _setting(
        16,
        "open HTTP sessions per agent; the least recently used idle one closes past it",
        "mcp.sessions_per_agent",
    )
    mcp_session_idle: str = _setting(
        "15m", "an HTTP session idle this long is closed", "mcp.session_idle"
    )
    ranking: Ranking = field(default_factory=Ranking)


def _sections() -> dict[str, dict[str, str]]:
    """``[section] key`` → Config field, from the fields' metadata."""
    out: dict[str, dict[str, str]] = {}
    for f in fields(Config):
        place = f.metadata.get("toml")
        if place and "." in place:
            section, key = place.split(".", 1)
            out.setdefault(section, {})[key] = f.name
    return out


_SECTIONS = _sections()
_SECTION_NOTES = {
    "embedding": "Any fastembed model name works for users who can download it; changing it "
    "needs `hindsight reindex`.",
    "hooks": "lifecycle hooks (docs/hooks.md)",
    "injections": "the record of what recall injected (docs/hooks.md)",
    "mcp": "the HTTP MCP server (docs/mcp.md)",
}


def read(path: Path) -> dict[str, Any]:
    """A config file's TOML document as data ({} if missing)."""
    try:
        # it says where memories go: yours only
        text = safefs.read_trusted(path, "The config file")
        return parse_toml(text) if text is not None else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InvalidInput(
            f"Cannot read config {path}: {error}. Fix the file or delete it to use defaults."
        ) from None


def check_redirect(store: Path, data: dict[str, Any], but: str | None = None) -> None:
    """A store's own config may send its memories to a network backend, or let web pages under
    other names reach its HTTP servers (``[mcp] allowed_hosts``), only once this user trusts the
    store, and only as it did when the user did: a repository could ship one naming its author's
    database or site (issue 31), or change it in a later commit. ``but``: the setting the user is
    setting (``config set``), left out of the comparison."""
    from .safefs import trust

    if trust.redirect(data) == "local":
        return
    storage = data.get("storage")
    if isinstance(storage, dict) and password_of(str(storage.get("url") or "")):
        # refused as it is read (apply), before it is shown or used
        return
    config = store / paths.CONFIG_FILE
    if trust.trusted(store) and not trust.approved_redirect(store, data, but):
        raise trust.UntrustedStore(
            f"{config} now {trust.exposure(data)}, a setting that you did not approve: the file "
            "changed after the store was created or allowed (a git pull can change it). If you "
            f"trust it, run `hindsight allow {store}`."
        )
    if not trust.trusted(store):
        raise trust.UntrustedStore(
            f"{config} {trust.exposure(data)}, and the store was not created or approved by you "
            "on this machine (it may have come with a repository). If you trust it, run "
            f"`hindsight allow {store}`."
        )


def apply(config: Config, data: dict[str, Any], origin: Path) -> Config:
    """``config`` with a config file's ``data`` over it (unknown keys and passwords refused)."""
    top: dict[str, Any] = {}
    ranking = config.ranking
    # a setting has one name: a field at the top only when its place is the top (`default_agent`,
    # `lock_timeout`). Its field name at the top (`storage_backend = "postgres"`) would set it where
    # what an approval binds is never read (`trust.redirect` reads `[storage] backend`): a
    # repository's config sent memories to its author's database unapproved (review AB)
    known_top = {f.name for f in fields(Config) if "." not in (f.metadata.get("toml") or "")}
    known_top.discard("ranking")
    spelled = {
        f.name: f.metadata["toml"] for f in fields(Config) if "." in (f.metadata.get("toml") or "")
    }
    for key, value in data.items():
        if key in _SECTIONS and isinstance(value, dict):
            for sub, sub_value in value.items():
                if sub not in _SECTIONS[key]:
                    raise InvalidInput(
                        f"Unknown setting [{key}] {sub} in {origin}; see docs/storage.md."
                    )
                top[_SECTIONS[key][sub]] = sub_value
            if key == "storage" and isinstance(value.get("url"), str):
                if password_of(value["url"]):
                    raise InvalidInput(
                        f"{origin} holds a database password in clear text; remove it from "
                        f"[storage] "
                        f"url and give it in {paths.ENV_DATABASE_URL}, PGPASSWORD or ~/.pgpass."
                    )
        elif key == "ranking" and isinstance(value, dict):
            valid = {f.name for f in fields(Ranking)}
            unknown = set(value) - valid
            if unknown:
                raise InvalidInput(
                    f"Unknown ranking setting {sorted(unknown)[0]!r} in {origin}; see "
                    f"docs/storage.md."
                )
            ranking = replace(ranking, **value)
        elif key in known_top:
            top[key] = value
        elif key in spelled:
            section, sub = spelled[key].split(".", 1)
            raise InvalidInput(
                f"Unknown setting {key!r} in {origin}: write it as {sub} under [{section}]; see "
                "docs/storage.md."
            )
        else:
            raise InvalidInput(f"Unknown setting {key!r} in {origin}; see docs/storage.md.")
    return replace(config, ranking=ranking, **top)


def _check_types(config: Config) -> None:
    defaults = Config()
    for holder, default in ((config, defaults), (config.ranking, defaults.ranking)):
        for f in fields(holder):
            value, expected = getattr(holder, f.name), getattr(default, f.name)
            if isinstance(expected, Ranking):
                continue
            number = isinstance(expected, (int, float)) and not isinstance(expected, bool)
            if number and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise InvalidInput(
                    f"Setting {f.name} must be a number, not {value!r}; fix config.toml."
                )
            # TOML reads nan and inf: a wait that never ends, a limit nothing reaches, every score 0
            # or nan, every cosine below a threshold
            if number and not math.isfinite(value):
                raise InvalidInput(
                    f"Setting {f.name} must be a finite number, not {value!r}; fix config.toml."
                )
            # a count (of steps, candidates, bytes) taken as 2.5 was a TypeError traceback
            if number and isinstance(expected, int) and not isinstance(value, int):
                raise InvalidInput(
                    f"Setting {f.name} must be a whole number, not {value!r}; fix config.toml."
                )
            if isinstance(expected, str) and not isinstance(value, str):
                raise InvalidInput(
                    f"Setting {f.name} must be a string, not {value!r}; fix config.toml."
                )
            if isinstance(expected, tuple) and not (
                isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
            ):
                raise InvalidInput(
                    f"Setting {f.name} must be a list of strings, not {value!r}; fix config.toml."
                )


# seconds: a day of waiting for a lock is already no answer
MAX_LOCK_TIMEOUT = 86_400
# bytes: less, and a memory could not hold one sentence (0 or less refused every record with a
# message about parts)
MIN_CONTENT_BYTES = 256
# env var -> the Config field it sets, over both files
ENV_SETTINGS = {
    paths.ENV_AGENT: "default_agent",
    paths.ENV_EMBEDDING_MODEL: "embedding_model",
    paths.ENV_SEARCH_ENGINE: "search_engine",
    paths.ENV_DATABASE_URL: "database_url",
    paths.ENV_LOCK_TIMEOUT: "lock_timeout",
}


def load(store_path: Path | None) -> Config:
    """The effective config for a store (``store_path`` may not exist yet)."""
    config = Config()
    user = paths.user_config_path()
    config = apply(config, read(user), user)
    if store_path is not None:
        store_file = store_path / paths.CONFIG_FILE
        data = read(store_file)
        check_redirect(store_path, data)
        config = apply(config, data, store_file)
    env: dict[str, Any] = {}
    for name, setting in ENV_SETTINGS.items():
        if os.environ.get(name):
            env[setting] = os.environ[name]
    if env.get("lock_timeout"):
        text = env["lock_timeout"]
        try:
            env["lock_timeout"] = float(text)
        except ValueError:
            env["lock_timeout"] = math.nan
        if not 0 <= env["lock_timeout"] <= MAX_LOCK_TIMEOUT:
            raise InvalidInput(
                f"{paths.ENV_LOCK_TIMEOUT} must be a number of seconds from 0 to "
                f"{MAX_LOCK_TIMEOUT:,}, not {text!r}."
            ) from None
    return check(replace(config, **env))


def check(config: Config) -> Config:
    """``config`` with each value's type and choices checked (InvalidInput names the first bad
    one)."""
    _check_types(config)
    config = replace(config, mcp_allowed_hosts=tuple(config.mcp_allowed_hosts))
    for name in (
        "working_ttl",
        "episodic_ttl",
        "semantic_ttl",
        "procedural_ttl",
        "expiry_check",
        "mcp_session_idle",
    ):
        if getattr(config, name):
            from .timeutil import parse_duration

            place = next(f.metadata["toml"] for f in fields(Config) if f.name == name).split(".")
            parse_duration(getattr(config, name), f"[{place[0]}] {place[1]}")
    from .text import MAX_LABEL, clean, fits_label

    # every memory, summary and audit line without an agent of its own is written under it
    agent = clean(config.default_agent)
    if not agent or not fits_label(agent):
        raise InvalidInput(
            f"The default agent ({paths.ENV_AGENT}, or default_agent in config.toml) must be one "
            f"line of at most {MAX_LABEL} characters, not {config.default_agent[:60]!r}."
        )
    config = replace(config, default_agent=agent)
    if config.on_change not in ("supersede", "keep_both"):
        raise InvalidInput(
            f"[write] on_change must be supersede or keep_both, not {config.on_change!r}."
        )
    if config.search_engine not in ("auto", "ledger", "index"):
        raise InvalidInput(
            f"search engine must be auto, ledger or index, not {config.search_engine!r}."
        )
    if not 0 <= config.lock_timeout <= MAX_LOCK_TIMEOUT:
        raise InvalidInput(
            f"lock_timeout must be a number of seconds from 0 to {MAX_LOCK_TIMEOUT:,}, not "
            f"{config.lock_timeout!r}; fix config.toml."
        )
    if config.max_content_bytes < MIN_CONTENT_BYTES:
        raise InvalidInput(
            f"[limits] max_content_bytes must be at least {MIN_CONTENT_BYTES:,} bytes (the default "
            f"is 16,384), not {config.max_content_bytes!r}; fix config.toml."
        )
    if config.hot_index_mb < 0:
        raise InvalidInput(
            "[search] hot_index_mb must be 0 (no in-memory index) or a number of megabytes, e.g. "
            "512."
        )
    if config.mcp_sessions_per_agent < 1:
        raise InvalidInput("[mcp] sessions_per_agent must be at least 1, e.g. 16.")
    if config.vector_index_rows < 0:
        raise InvalidInput(
            "[index] vector_index_rows must be 0 (never) or a number of rows, e.g. 20000."
        )
    for name, place in (
        ("hooks_daily_budget", "[hooks] daily_budget"),
        ("hooks_session_budget", "[hooks] session_budget"),
        ("injections_keep_days", "[injections] keep_days"),
    ):
        if getattr(config, name) < 0:
            raise InvalidInput(f"{place} must be 0 (none) or a positive whole number.")
    return config


def _line(key: str, value: Any, doc: str) -> str:
    shown = str(value).lower() if isinstance(value, bool) else json.dumps(value)
    text = f"# {key} = {shown}"
    return f"{text:<31} # {doc}" if doc.strip() else text


def default_config_toml() -> str:
    """The ``config.toml`` a new store gets: every setting, commented out, at its default."""
    defaults, lines = (
        Config(),
        ["# hindsight store settings. Every key is optional; see docs/storage.md."],
    )
    sections: dict[str, list[str]] = {}
    for f in fields(Config):
        place = f.metadata.get("toml")
        if not place:
            continue
        section, _, key = place.rpartition(".")
        entry = _line(key, getattr(defaults, f.name), f.metadata["doc"])
        if not section:
            lines.append(entry)
        else:
            sections.setdefault(section, []).append(entry)
    for section, entries in sections.items():
        note = _SECTION_NOTES.get(section, "")
        header = (
            f"[{section}]"
            if not note or section == "embedding"
            else f"{f'[{section}]':<31} # {note}"
        )
        lines += ["", header] + ([f"# {note}"] if section == "embedding" else []) + entries
    lines += ["", "[ranking]"] + [
        _line(f.name, getattr(defaults.ranking, f.name), f.metadata["doc"])
        for f in fields(Ranking)
        if f.metadata.get("doc")
    ]
    return "\n".join(lines) + "\n"


DEFAULT_CONFIG_TOML = default_config_toml()


def password_of(url: str) -> str | None:
    """The password a database URL holds in clear text, if any (a config file must hold none):
    ``safefs.trust.url_password``."""
    from .safefs.database_urls import url_password

    return url_password(url)
