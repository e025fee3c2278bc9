"""Settings: built-in defaults, then the user config file, then ``<store>/config.toml``, then env vars."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from . import paths
from .errors import InvalidInput

DEFAULT_MODEL = "hindsight/all-MiniLM-L6-v2-int8"


@dataclass(frozen=True)
class Ranking:
    """Weights of DESIGN §5; ``final = Σ weight·signal``, scaled by confidence."""

    w_relevance: float = 0.6
    w_recency: float = 0.1
    w_outcome: float = 0.1
    w_importance: float = 0.1
    w_same_task: float = 0.05
    fusion: str = "zscore"  # "zscore": vector_weight·z(cosine) + (1-vector_weight)·z(bm25); "weighted"; "rrf"
    vector_weight: float = 0.4
    rrf_k: int = 60
    candidates: int = 100
    mmr_lambda: float = 0.75
    w_prev_step: float = 0.6  # share of the relevance of the step before (same task) a memory inherits
    w_next_step: float = 0.3  # ... and of the step after
    neighbour_steps: int = 2  # how far; each further step passes on half as much
    bm25_k1: float = 0.9
    bm25_b: float = 0.4
    min_vector_similarity: float = 0.2  # a vector-only candidate below this cosine is noise, not a hit
    half_life_working: float = 1.0
    half_life_episodic: float = 7.0
    half_life_semantic: float = 90.0
    half_life_procedural: float = 180.0
    env_mismatch: str = "downrank"  # or "drop"
    troubleshoot_share: float = 0.5  # with --troubleshoot, fixed failures at least this relevant go first
    env_mismatch_factor: float = 0.5
    past_validity_factor: float = 0.5


@dataclass(frozen=True)
class Config:
    default_agent: str = "default"
    embedding_model: str = DEFAULT_MODEL
    max_content_bytes: int = 16 * 1024
    dedup_threshold: float = 0.97
    working_ttl: str = "24h"
    episodic_ttl: str = ""  # "" = never expires
    semantic_ttl: str = ""
    procedural_ttl: str = ""
    expiry_check: str = "1h"  # how often writes purge expired memories
    consolidate_similarity: float = 0.8  # cosine at or above which episodes count as the same pattern
    consolidate_min_evidence: int = 2  # occurrences (merged repeats included) a pattern needs
    vector_index_rows: int = 20_000  # index rows above which the vector search gets an ANN index; 0 = never
    search_engine: str = "auto"  # auto | ledger | index
    ann_threshold: int = 50_000
    lock_timeout: float = 10.0
    storage_backend: str = ""  # "" = postgres when a database URL is set, else local
    database_url: str = ""  # never with a password in a file: HINDSIGHT_DATABASE_URL, PGPASSWORD or ~/.pgpass
    database_schema: str = "hindsight"
    hooks_recall: bool = True  # lifecycle hooks (docs/hooks.md): inject memories at session start
    hooks_recall_budget: int = 800
    hooks_repeat_recall: bool = True  # ... and when a question or an error repeats
    hooks_repeat_budget: int = 400
    hooks_record_failures: bool = True
    hooks_record_prompts: bool = True
    hooks_summarize: bool = True
    ranking: Ranking = field(default_factory=Ranking)


_SECTIONS = {
    "embedding": {"model": "embedding_model"},
    "limits": {"max_content_bytes": "max_content_bytes", "dedup_threshold": "dedup_threshold"},
    "ttl": {"working": "working_ttl", "episodic": "episodic_ttl", "semantic": "semantic_ttl",
            "procedural": "procedural_ttl", "purge_every": "expiry_check"},
    "index": {"vector_index_rows": "vector_index_rows"},
    "search": {"engine": "search_engine", "ann_threshold": "ann_threshold"},
    "storage": {"backend": "storage_backend", "url": "database_url", "schema": "database_schema"},
    "consolidate": {"similarity": "consolidate_similarity", "min_evidence": "consolidate_min_evidence"},
    "hooks": {"recall": "hooks_recall", "recall_budget": "hooks_recall_budget", "repeat_recall": "hooks_repeat_recall",
              "repeat_budget": "hooks_repeat_budget", "record_failures": "hooks_record_failures",
              "record_prompts": "hooks_record_prompts", "summarize": "hooks_summarize"},
}


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InvalidInput(f"Cannot read config {path}: {error}. Fix the file or delete it to use defaults.") from None


def _apply(config: Config, data: dict[str, Any], origin: Path) -> Config:
    top: dict[str, Any] = {}
    ranking = config.ranking
    known_top = {f.name for f in fields(Config)} - {"ranking"}
    for key, value in data.items():
        if key in _SECTIONS and isinstance(value, dict):
            for sub, sub_value in value.items():
                if sub not in _SECTIONS[key]:
                    raise InvalidInput(f"Unknown setting [{key}] {sub} in {origin}; see docs/storage.md.")
                top[_SECTIONS[key][sub]] = sub_value
            if key == "storage" and isinstance(value.get("url"), str):
                from .storage.urls import password_of

                if password_of(value["url"]):
                    raise InvalidInput(f"{origin} holds a database password in clear text; remove it from [storage] "
                                       f"url and give it in {paths.ENV_DATABASE_URL}, PGPASSWORD or ~/.pgpass.")
        elif key == "ranking" and isinstance(value, dict):
            valid = {f.name for f in fields(Ranking)}
            unknown = set(value) - valid
            if unknown:
                raise InvalidInput(f"Unknown ranking setting {sorted(unknown)[0]!r} in {origin}; see docs/storage.md.")
            ranking = replace(ranking, **value)
        elif key in known_top:
            top[key] = value
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
                raise InvalidInput(f"Setting {f.name} must be a number, not {value!r}; fix config.toml.")
            if isinstance(expected, str) and not isinstance(value, str):
                raise InvalidInput(f"Setting {f.name} must be a string, not {value!r}; fix config.toml.")


def load(store_path: Path | None) -> Config:
    """The effective config for a store (``store_path`` may not exist yet)."""
    config = Config()
    user = paths.user_config_path()
    config = _apply(config, _read(user), user)
    if store_path is not None:
        store_file = store_path / paths.CONFIG_FILE
        config = _apply(config, _read(store_file), store_file)
    env: dict[str, Any] = {}
    if os.environ.get(paths.ENV_AGENT):
        env["default_agent"] = os.environ[paths.ENV_AGENT]
    if os.environ.get(paths.ENV_EMBEDDING_MODEL):
        env["embedding_model"] = os.environ[paths.ENV_EMBEDDING_MODEL]
    if os.environ.get(paths.ENV_SEARCH_ENGINE):
        env["search_engine"] = os.environ[paths.ENV_SEARCH_ENGINE]
    if os.environ.get(paths.ENV_DATABASE_URL):
        env["database_url"] = os.environ[paths.ENV_DATABASE_URL]
    if os.environ.get(paths.ENV_LOCK_TIMEOUT):
        try:
            env["lock_timeout"] = float(os.environ[paths.ENV_LOCK_TIMEOUT])
        except ValueError:
            raise InvalidInput(f"{paths.ENV_LOCK_TIMEOUT} must be a number of seconds.") from None
    config = replace(config, **env)
    _check_types(config)
    for name in ("working_ttl", "episodic_ttl", "semantic_ttl", "procedural_ttl", "expiry_check"):
        if getattr(config, name):
            from .timeutil import parse_duration

            parse_duration(getattr(config, name), f"[ttl] {name.removesuffix('_ttl')}")
    if config.storage_backend:
        from .storage.registry import check_name

        check_name(config.storage_backend)
    if config.search_engine not in ("auto", "ledger", "index"):
        raise InvalidInput(f"search engine must be auto, ledger or index, not {config.search_engine!r}.")
    if config.vector_index_rows < 0:
        raise InvalidInput("[index] vector_index_rows must be 0 (never) or a number of rows, e.g. 20000.")
    return config


DEFAULT_CONFIG_TOML = f"""\
# hindsight store settings. Every key is optional; see docs/storage.md.
# default_agent = "default"

[embedding]
# Any fastembed model name works for users who can download it; changing it needs `hindsight reindex`.
# model = "{DEFAULT_MODEL}"

[limits]
# max_content_bytes = 16384
# dedup_threshold = 0.97        # cosine at or above which a new memory merges into an old one

[ttl]
# working = "24h"               # working memories expire after this long unless --ttl says otherwise
# episodic = ""                 # "" = never; e.g. "180d"
# semantic = ""
# procedural = ""
# purge_every = "1h"            # writes purge expired memories at most this often

[index]
# vector_index_rows = 20000     # rows above which warm vector search gets an approximate (IVF-SQ) index; 0 = never

[search]
# engine = "auto"               # auto | ledger | index
# ann_threshold = 50000         # active memories above which `auto` uses the LanceDB index

[storage]
# backend = "local"             # or "postgres": a shared PostgreSQL + pgvector store (docs/team.md)
# url = ""                      # postgresql://user@host:5432/db; never a password (HINDSIGHT_DATABASE_URL has it)
# schema = "hindsight"          # the database schema that holds this store

[consolidate]
# similarity = 0.8              # cosine at or above which episodes are one pattern
# min_evidence = 2              # occurrences a pattern needs (merged repeats count)

[hooks]                         # lifecycle hooks (docs/hooks.md)
# recall = true                 # inject memories at session start
# recall_budget = 800           # tokens
# repeat_recall = true          # inject on a repeated question or error
# repeat_budget = 400
# record_failures = true        # spool failing tool calls and their fixes
# record_prompts = true         # spool prompts
# summarize = true              # summarize sessions at session end / compaction

[ranking]
# fusion = "zscore"            # or "weighted" (raw cosine and BM25) or "rrf" (reciprocal-rank fusion)
# vector_weight = 0.4           # share of the vector evidence in fusion; the rest is keyword (BM25)
# w_prev_step = 0.6             # share of the relevance of the step before, same task, a memory inherits
# w_next_step = 0.3             # ... of the step after (neighbour_steps = 2: how far, halving each step)
# w_relevance = 0.6
# w_recency = 0.1
# w_outcome = 0.1
# w_importance = 0.1
# w_same_task = 0.05
# half_life_episodic = 7.0      # days
# env_mismatch = "downrank"     # or "drop"
"""
