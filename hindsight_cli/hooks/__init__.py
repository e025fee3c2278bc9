"""Lifecycle hooks for coding agents: recall at session start and on repeats, record failures and fixes.

``python -m hindsight_cli.hooks EVENT --client CLIENT [--store PATH]`` (what ``hindsight hooks install``
writes into a client's settings) and ``hindsight hook EVENT`` both read the client's JSON payload on
stdin and print the answer in the client's format. Recording events only append a redacted line to
``<store>/spool/events.jsonl``; the store ingests the spool when something needs it (session start,
a repeat, session end, compaction, ``hindsight hooks flush``). Nothing here may break the agent: any
error is written to ``<store>/spool/hooks.log`` (or ``HINDSIGHT_HOME/hooks.log``) and the hook exits 0.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from . import events, spool

REPEAT_PROMPT = 0.6  # term overlap (Jaccard) at which a prompt counts as asked before
REPEAT_ERROR = 0.5
_MIN_TERMS = 3


class Settings:
    """The ``[hooks]`` settings that decide what the hooks do. (A plain class: a recording hook
    must start fast, and importing ``dataclasses`` alone costs it ~15 ms.)"""

    DEFAULTS: dict[str, Any] = {"recall": True, "recall_budget": 800, "repeat_recall": True, "repeat_budget": 400,
                                "record_failures": True, "record_prompts": True, "summarize": True}

    def __init__(self, **values: Any) -> None:
        for name, default in self.DEFAULTS.items():
            setattr(self, name, values.get(name, default))


def settings(store: Path) -> Settings:
    """The effective ``[hooks]`` settings; config files without such a section cost no TOML parsing."""
    from .. import paths

    files = (paths.user_config_path(), store / paths.CONFIG_FILE)
    if not any("hooks" in _read(path) for path in files):
        return Settings()
    from ..config import load
    from ..errors import InvalidInput

    config = load(store)
    for name, default in Settings.DEFAULTS.items():
        if type(getattr(config, f"hooks_{name}")) is not type(default):
            raise InvalidInput(f"[hooks] {name} must be {type(default).__name__}, fix config.toml.")
    return Settings(**{name: getattr(config, f"hooks_{name}") for name in Settings.DEFAULTS})


def store_for(explicit: str | None, cwd: str) -> Path:
    """``--store``, else ``$HINDSIGHT_STORE``, else the nearest ``.hindsight/`` above the session's
    directory (the client's, not ours), else the global store."""
    from .. import paths

    if explicit:
        return Path(explicit).expanduser().resolve()
    if os.environ.get(paths.ENV_STORE):
        return paths.resolve_store().path
    start = Path(cwd) if cwd and Path(cwd).is_dir() else None
    project = paths.find_project_store(start)
    return project if project is not None else paths.global_store_path()


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+|[^\W_]{2,}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")


def _terms(text: str) -> list[str]:
    """Words of a prompt or error for "seen before?" (no stemming: the text module's tables cost ~10 ms
    to build, a fifth of a recording hook's budget); CJK runs as bigrams."""
    out: set[str] = set()
    for token in _WORD.findall(text.lower()):
        if _CJK.fullmatch(token) and len(token) > 1:
            out.update(token[i:i + 2] for i in range(len(token) - 1))
        else:
            out.add(token)
    return sorted(out)[:64]


def _overlap(a: list[str], b: list[str]) -> float:
    union = set(a) | set(b)
    return len(set(a) & set(b)) / len(union) if union else 0.0


def _seen_before(store: Path, kind: str, terms: list[str], session: str, tool: str = "") -> bool:
    """Whether an earlier session saw this prompt or error (this session's own repeats are in its context)."""
    if len(terms) < _MIN_TERMS:
        return False
    limit = REPEAT_PROMPT if kind == "prompt" else REPEAT_ERROR
    return any(s.get("kind") == kind and s.get("tool", "") == tool and s.get("session") != session
               and _overlap(terms, s.get("terms") or []) >= limit for s in spool.recent_seen(store))


def _open_failure(store: Path, session: str, tool: str) -> bool:
    return any(s.get("kind") == "error" and s.get("session") == session and s.get("tool") == tool
               for s in spool.recent_seen(store))


def _line(event: events.Event, kind: str, **fields: Any) -> dict[str, Any]:
    return {"id": spool.new_id(), "kind": kind, "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "client": event.client, "session": event.session, "cwd": event.cwd, **fields}


def _record(store: Path, event: events.Event, conf: Settings) -> str | None:
    """Spool what this event tells; say whether it repeats something seen before (then recall)."""
    directory = spool.spool_dir(store)
    if event.kind == "prompt" and conf.record_prompts and event.prompt.strip():
        terms = _terms(event.prompt)
        repeat = conf.repeat_recall and _seen_before(store, "prompt", terms, event.session)
        spool.append(directory / spool.EVENTS, _line(event, "prompt", text=event.prompt))
        spool.append(directory / spool.SEEN, {"kind": "prompt", "terms": terms, "session": event.session})
        return event.prompt if repeat else None
    if event.kind == "tool-failure" and conf.record_failures:
        terms = _terms(event.error)
        repeat = conf.repeat_recall and _seen_before(store, "error", terms, event.session, event.tool)
        spool.append(directory / spool.EVENTS, _line(event, "tool_error", tool=event.tool, args=event.args,
                                                     error=event.error))
        spool.append(directory / spool.SEEN, {"kind": "error", "terms": terms, "tool": event.tool,
                                              "session": event.session})
        return f"{event.tool} {event.error}" if repeat else None
    if event.kind == "tool" and conf.record_failures and not event.extra.get("interrupted") \
            and _open_failure(store, event.session, event.tool):
        spool.append(directory / spool.EVENTS, _line(event, "tool_ok", tool=event.tool, args=event.args))
    if event.kind in ("stop", "pre-compact", "session-end"):
        spool.append(directory / spool.EVENTS, _line(event, event.kind.replace("-", "_")))
    return None


def run_package_init() -> None:
    """Complete a bare ``hindsight_cli`` package (see ``__main__``) before the store is imported."""
    package = sys.modules.get("hindsight_cli")
    if package is not None and getattr(package, "__hindsight_bare__", False):
        del package.__hindsight_bare__
        package.__spec__.loader.exec_module(package)


def handle(name: str, client: str, raw: str, store: str | None = None) -> str:
    """Run one hook call and return what to print. Raises on bad input; ``main`` turns that into a log line."""
    payload = json.loads(raw) if raw.strip() else {}
    if not isinstance(payload, dict):
        raise ValueError("the hook payload is not a JSON object")
    event = events.normalize(client, name, payload)
    invoked = events.kind_of(client, name, payload)
    path = store_for(store, event.cwd)
    conf = settings(path)
    context = None
    query = _record(path, event, conf)
    if event.kind in ("session-start", "pre-compact", "session-end") or query:
        run_package_init()
    if event.kind == "session-start" and conf.recall:
        from .recall import session_context

        context = session_context(path, event, conf)
    elif query and conf.repeat_recall:
        from .recall import repeat_context

        context = repeat_context(path, event, query, conf)
    elif event.kind in ("pre-compact", "session-end"):
        from .recall import close_session

        close_session(path, event, conf)
    return events.respond(client, invoked, context)


def log_path(store: str | None, raw: str) -> Path:
    """Where a failed hook writes: the store's spool if we can tell the store, else HINDSIGHT_HOME."""
    from .. import paths

    try:
        payload = json.loads(raw) if raw.strip() else {}
        cwd = str(payload.get("cwd") or (payload.get("workspace_roots") or [""])[0]) if isinstance(payload, dict) else ""
        return spool.spool_dir(store_for(store, cwd)) / spool.LOG
    except Exception:  # noqa: BLE001  (the log must be found even when the payload is garbage)
        return paths.user_data_dir() / spool.LOG


def log_failure(where: Path, name: str, client: str, error: BaseException) -> None:
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        import traceback

        detail = "".join(traceback.format_exception(type(error), error, error.__traceback__)[-3:]).strip()
        with open(where, "a", encoding="utf-8") as handle:
            handle.write(f"{stamp} {client} {name}: {type(error).__name__}: {error}\n  {detail}\n")
    except Exception:  # noqa: BLE001  (a read-only disk must not break the agent either)
        pass


def run(name: str, client: str, raw: str, store: str | None = None) -> tuple[str, bool]:
    """``handle`` behind the never-break-the-agent boundary: (what to print, whether it worked)."""
    try:
        return handle(name, client, raw, store), True
    except BaseException as error:  # noqa: BLE001
        if isinstance(error, KeyboardInterrupt):
            raise
        log_failure(log_path(store, raw), name, client, error)
        try:
            return events.respond(client, events.kind_of(client, name, {}), None), False
        except Exception:  # noqa: BLE001
            return "", False


def _parse(argv: list[str]) -> tuple[str, str, str | None]:
    name, client, store = "", "claude-code", None
    rest = iter(argv)
    for arg in rest:
        if arg == "--client":
            client = next(rest, client)
        elif arg == "--store":
            store = next(rest, None)
        elif arg.startswith("--client="):
            client = arg.split("=", 1)[1]
        elif arg.startswith("--store="):
            store = arg.split("=", 1)[1]
        elif not name:
            name = arg
    return name, client, store


def main(argv: list[str] | None = None) -> None:
    """``python -m hindsight_cli.hooks EVENT [--client C] [--store PATH]``: no Typer, no heavy import
    unless the event needs the store. Always exits 0."""
    name, client, store = _parse(sys.argv[1:] if argv is None else argv)
    try:
        raw = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    except Exception:  # noqa: BLE001
        raw = ""
    out, _ = run(name, client, raw, store)
    try:
        if out:
            sys.stdout.write(out + "\n")
        sys.stdout.flush()
    except Exception:  # noqa: BLE001
        pass
    os._exit(0)  # skip interpreter teardown (DuckDB/ONNX when recall ran); everything is flushed
