"""Lifecycle hooks for coding agents: recall at session start and on repeats, record failures and
fixes.

``python -m hindsight_cli.hooks EVENT --client CLIENT [--store PATH]`` (what ``hindsight hooks
install`` writes into a client's settings) and ``hindsight hook EVENT`` both read the client's JSON
payload on stdin and print the answer in the client's format. Recording events only append a
redacted line to ``<store>/spool/events.jsonl``; the store ingests the spool when something needs it
(session start, a repeat, session end, compaction, ``hindsight hooks flush``). Nothing here may
break the agent: any error is written to ``<store>/spool/hooks.log`` (or
``HINDSIGHT_HOME/hooks.log``) and the hook exits 0.

A recording event imports only this module, ``events``, ``spool``, ``redact`` (with its rule
modules) and ``paths``, which load nothing outside the standard library and not even pathlib or
typing: the installed command runs Python with ``-S`` (no site-packages), and ``full_environment``
brings the rest in before anything that needs it.
"""

from __future__ import annotations

import os
import sys
import time

from .. import safefs
from ..redact import redact, redact_field
from ..safefs import tracked, trust
from ..safefs.appending import append_private
from ..storage import spool, spool_json as codec
from . import events
from .settings import Settings, settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# term overlap (Jaccard) at which a prompt counts as asked before
REPEAT_PROMPT = 0.6
_MIN_TERMS = 3
# open failures a session keeps waiting for their fix
_MAX_OPEN = 64


def store_for(explicit: str | None, cwd: str) -> str:
    """``--store``, else ``$HINDSIGHT_STORE``, else the nearest ``.hindsight/`` above the session's
    directory (the client's, not ours), else the global store. (A store path that is a file fails at
    the first write, and the hook logs it.)"""
    from .. import paths

    chosen = explicit or os.environ.get(paths.ENV_STORE)
    if chosen:
        return os.path.realpath(os.path.expanduser(chosen))
    project = paths.project_store_dir(cwd if cwd and os.path.isdir(cwd) else os.getcwd())
    return project if project is not None else paths.global_store_dir()


def full_environment() -> None:
    """Under ``python -S`` (the installed command), add site-packages before anything outside the
    standard library is imported; a no-op anywhere else."""
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()


def _terms(value: object) -> list[str]:
    return [str(t) for t in value] if isinstance(value, list) else []


def _overlap(a: list[str], b: list[str]) -> float:
    union = set(a) | set(b)
    return len(set(a) & set(b)) / len(union) if union else 0.0


def _seen_before(store: str, terms: list[str], session: str) -> bool:
    """Whether an earlier session asked this prompt (this session's own repeats are in its
    context)."""
    if len(terms) < _MIN_TERMS:
        return False
    return any(
        s.get("kind") == "prompt"
        and s.get("session") != session
        and _overlap(terms, _terms(s.get("terms"))) >= REPEAT_PROMPT
        for s in spool.recent_seen(store)
    )


def _label(event: events.Event, name: str) -> str | None:
    value = event.extra.get(name)
    return value if isinstance(value, str) and value else None


def _track_failure(store: str, event: events.Event, line: dict[str, Any]) -> bool:
    """Open the failure for its fix (the session's later calls feed it); say whether its kind is
    one this session has already met (then the agent has it in context: no recall)."""
    failure_kind = event.failure_kind()
    family = _label(event, "family")
    met = False

    def change(current: list[dict[str, Any]]) -> list[dict[str, Any]]:
        nonlocal met
        met = bool(failure_kind) and any(f.get("kind") == failure_kind for f in current)
        kept = _stepped(current, event.args)
        kept.append(
            {
                "id": line["id"],
                "call": line.get("call"),
                "tool": event.tool,
                "family": family or "",
                "kind": failure_kind or "",
                "trail": [],
            }
        )
        return kept[-_MAX_OPEN:]

    spool.update_open(store, event.session, change)
    return met


def _stepped(current: list[dict[str, Any]], args: str) -> list[dict[str, Any]]:
    """The open failures after one more call: each with a family notes it in its trail, and is let
    go once its fix window has passed."""
    from ..lessons.signatures import step_trail

    out = []
    for failure in current:
        trail = failure.get("trail")
        kept = step_trail(
            str(failure.get("family") or ""), tuple(trail) if isinstance(trail, list) else (), args
        )
        if kept is not None:
            out.append({**failure, "trail": list(kept)})
    return out


def _track_success(store: str, event: events.Event) -> None:
    """A call that worked: the session's open failures of its family are fixed (spooled with the
    commands that led there, and their kinds noted as fixed); one of the same tool without a family
    is left to the ingester's related-arguments rule."""
    if not event.session or not spool.has_open(store, event.session):
        return
    event.failure_kind()
    family = _label(event, "family")
    fixed: list[dict[str, Any]] = []
    other_tool = False

    def change(current: list[dict[str, Any]]) -> list[dict[str, Any]]:
        nonlocal other_tool
        kept = []
        for failure in _stepped(current, event.args):
            if failure.get("family") and failure["family"] == family:
                fixed.append(failure)
                continue
            if not failure.get("family") and failure.get("tool") == event.tool:
                other_tool = True
            kept.append(failure)
        return kept

    spool.update_open(store, event.session, change)
    if not fixed and not other_tool:
        return
    line = _line(event, "tool_ok", tool=event.tool, args=event.args)
    if fixed:
        # each failure with its own fix: the commands from the call after it to this one
        line["fixes"] = [{"id": f["id"], "call": f.get("call"), "fix": f["trail"]} for f in fixed]
    spool.append(os.path.join(store, spool.SPOOL_DIR, spool.EVENTS), line)
    for failure in fixed:
        if failure.get("kind"):
            spool.note_fixed(store, str(failure["kind"]), str(line["session"]))


def _line(event: events.Event, kind: str, **fields: str) -> dict[str, Any]:
    """A spool line. Its texts were redacted by ``events.normalize``; the session id and the
    directory go through the label rules here (they stay as they were for finding the store)."""
    session, _ = redact_field(event.session, "session")
    cwd, _ = redact_field(event.cwd, "cwd")
    return {
        "id": spool.new_id(),
        "kind": kind,
        "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "client": event.client,
        "session": session,
        "cwd": cwd,
        **fields,
    }


def _record(store: str, event: events.Event, conf: Settings) -> str | None:
    """Spool what this event tells; say whether it repeats something seen before (then recall)."""
    directory = os.path.join(store, spool.SPOOL_DIR)
    if event.kind == "prompt" and conf.record_prompts and event.prompt.strip():
        terms = spool.terms(event.prompt)
        repeat = conf.repeat_recall and _seen_before(store, terms, event.session)
        spool.append(
            os.path.join(directory, spool.EVENTS), _line(event, "prompt", text=event.prompt)
        )
        spool.append(
            os.path.join(directory, spool.SEEN),
            {"kind": "prompt", "terms": terms, "session": event.session},
        )
        return event.prompt if repeat else None
    if event.kind == "tool-failure" and conf.record_failures:
        failure = _line(event, "tool_error", tool=event.tool, args=event.args, error=event.error)
        failure_kind = event.failure_kind()
        for name in ("call", "family", "signature", "error_line"):
            if event.extra.get(name):
                failure[name] = event.extra[name]
        spool.append(os.path.join(directory, spool.EVENTS), failure)
        met = event.session and _track_failure(store, event, failure)
        # the gate: an earlier session met this kind of error and fixed it
        repeat = (
            conf.repeat_recall
            and failure_kind is not None
            and not met
            and spool.fixed_elsewhere(store, failure_kind, str(failure["session"]))
        )
        return f"{event.args}\n{event.error}" if repeat else None
    if event.kind == "tool" and conf.record_failures and not event.extra.get("interrupted"):
        _track_success(store, event)
    if event.kind in ("stop", "pre-compact", "session-end"):
        closing = _line(event, event.kind.replace("-", "_"))
        if event.extra.get("transcript"):
            closing["transcript"] = event.extra["transcript"]
        spool.append(os.path.join(directory, spool.EVENTS), closing)
    return None


def run_package_init() -> None:
    """Complete a bare ``hindsight_cli`` package (see ``__main__``) before the store is imported."""
    full_environment()
    package = sys.modules.get("hindsight_cli")
    if package is not None and getattr(package, "__hindsight_bare__", False):
        import importlib.util

        del package.__hindsight_bare__
        spec = importlib.util.spec_from_file_location(
            "hindsight_cli", package.__file__, submodule_search_locations=list(package.__path__)
        )
        assert spec is not None and spec.loader is not None
        package.__spec__, package.__loader__ = spec, spec.loader
        spec.loader.exec_module(package)


def handle(name: str, client: str, raw: str, store: str | None = None) -> str:
    """Run one hook call and return what to print. Raises on bad input; ``main`` turns that into a
    log line."""
    payload = codec.loads(raw) if raw.strip() else {}
    if "\\u" in raw:
        # a lone surrogate only comes from an escape: half an emoji is removed, never spooled
        payload = codec.whole_characters(payload)
    if not isinstance(payload, dict):
        raise ValueError("the hook payload is not a JSON object")
    event = events.normalize(client, name, payload)
    invoked = events.kind_of(client, name, payload)
    where = store_for(store, event.cwd)
    # never spool into, or read settings from, places other users control
    safefs.check_home()
    safefs.check_store(where)
    # nor into, or from, a store that came with a repository (issue 31): logged, nothing done
    trust.check(where, create=True)
    # nor where the next `git add -A` publishes it
    tracked.keep_ignored(where)
    conf = settings(where)
    query = _record(where, event, conf)
    if event.kind not in ("session-start", "pre-compact", "session-end") and not query:
        return events.respond(client, invoked, None)
    if query and conf.repeat_recall and conf.warm_recall:
        from . import warm

        # a server of the store answers in milliseconds what a cold start takes a second for
        answered, block = warm.ask(where, event, query, conf)
        if answered:
            return events.respond(client, invoked, block)
    run_package_init()
    from pathlib import Path

    path, context = Path(where), None
    if event.kind == "session-start" and conf.recall:
        from .context import session_context

        context = session_context(path, event, conf)
    elif query and conf.repeat_recall:
        from ..store import Store
        from .context import repeat_context

        context = repeat_context(Store(path), event, query, conf)
    elif event.kind in ("pre-compact", "session-end"):
        from .context import close_session

        close_session(path, event, conf)
    return events.respond(client, invoked, context)


def log_path(store: str | None, raw: str) -> str:
    """Where a failed hook writes: the store's spool if we can tell the store, else
    HINDSIGHT_HOME."""
    from .. import paths

    try:
        payload = codec.loads(raw) if raw.strip() else {}
        cwd = (
            str(payload.get("cwd") or (payload.get("workspace_roots") or [""])[0])
            if isinstance(payload, dict)
            else ""
        )
        where = store_for(store, cwd)
        # a failure in a hostile store is logged in HINDSIGHT_HOME instead
        safefs.check_store(where)
        trust.check_log(where)
        return os.path.join(where, spool.SPOOL_DIR, spool.LOG)
    except Exception:  # noqa: BLE001  (the log must be found even when the payload is garbage)
        return os.path.join(paths.user_dir("data"), spool.LOG)


def log_failure(where: str, name: str, client: str, error: BaseException) -> None:
    try:
        safefs.private_dir(os.path.dirname(where), "The hook log's directory")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        import traceback

        detail = "".join(
            traceback.format_exception(type(error), error, error.__traceback__)[-3:]
        ).strip()
        # An error's message can quote the payload (a client or event name, a value in a config
        # file): the log is a file on disk like the spool, so it is redacted like the spool.
        line, _ = redact(f"{stamp} {client} {name}: {type(error).__name__}: {error}\n  {detail}\n")
        append_private(where, line.encode("utf-8"))
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


def read_payload() -> str:
    """The event's JSON from stdin, at most ``MAX_LINE`` bytes (a client never sends more; stdin
    that never ends, ``/dev/zero``, must not hold the agent up): nothing past it, then, is read."""
    from ..safefs.reading import MAX_LINE, read_at_most

    try:
        return read_at_most(sys.stdin.buffer, MAX_LINE, "stdin").decode("utf-8", errors="replace")
    except Exception:  # noqa: BLE001 - a hook never fails its agent
        return ""


def main(argv: list[str] | None = None) -> None:
    """``python -m hindsight_cli.hooks EVENT [--client C] [--store PATH]``: no Typer, no heavy
    import unless the event needs the store. Always exits 0."""
    name, client, store = _parse(sys.argv[1:] if argv is None else argv)
    # a recall's vector products are small: one BLAS thread, as the CLI's main() says why
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    raw = read_payload()
    out, _ = run(name, client, raw, store)
    try:
        if out:
            sys.stdout.write(out + "\n")
        sys.stdout.flush()
    except Exception:  # noqa: BLE001
        pass
    # skip interpreter teardown (DuckDB/ONNX when recall ran); everything is flushed
    os._exit(0)
