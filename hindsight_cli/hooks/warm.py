"""Warm recall: a hook's repeat recall answered by a running ``hindsight mcp`` or ``hindsight ui``
of the same store over its private socket (``safefs.rendezvous``), instead of a cold start.

The hook sends what it would have run (the event, the query, its ``[hooks]`` settings); the server
runs the same ``context.repeat_context`` on its own open store of that directory, so the answer,
its scope and its budget are the cold path's. The injection record is written once: the server
hands the block over first, and records it only when the hook says it took it; a hook that
received nothing goes cold and records it itself. Anything unexpected (no socket, a refused or
slow connection, another protocol, a malformed answer) is "no server": the hook goes cold.

The hook's side (``ask``) imports nothing outside the standard library and the hooks' own modules.
"""

from __future__ import annotations

import os

from ..safefs import rendezvous
from ..storage import spool_json as codec
from . import events
from .settings import Settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket

    from ..store import Store

# bumped whenever a request or an answer changes shape
PROTOCOL = 1
# seconds a hook waits for the server before it goes cold
TIMEOUT = 0.4
MAX_REQUEST = 256 * 1024
MAX_ANSWER = 256 * 1024
_TEXTS = ("client", "kind", "session", "cwd", "tool", "args", "error", "prompt", "source")


def request(where: str, event: events.Event, query: str, conf: Settings) -> bytes:
    """The request line: what the cold path would run."""
    if event.failed:
        # the kind the server looks up is the one read here, from the whole error and command
        event.failure_kind()
    sent = {name: getattr(event, name) for name in _TEXTS}
    sent["redactions"], sent["extra"] = event.redactions, event.extra
    body = {
        "v": PROTOCOL,
        "store": os.path.realpath(where),
        "event": sent,
        "query": query,
        "conf": {name: getattr(conf, name) for name in Settings.DEFAULTS},
    }
    return codec.dumps(body).encode("utf-8") + b"\n"


def ask(where: str, event: events.Event, query: str, conf: Settings) -> tuple[bool, str | None]:
    """(whether a server answered, its block). Never raises."""
    try:
        line = request(where, event, query, conf)
        conn = rendezvous.connect(where, TIMEOUT)
        if conn is None or len(line) > MAX_REQUEST:
            return False, None
        with conn:
            conn.sendall(line)
            answer = codec.loads(rendezvous.read_line(conn, MAX_ANSWER).decode("utf-8"))
            if not isinstance(answer, dict) or answer.get("v") != PROTOCOL or not answer.get("ok"):
                return False, None
            block = answer.get("block")
            if block is not None and not isinstance(block, str):
                return False, None
            if answer.get("confirm"):
                # the server records the injection once it has this
                conn.sendall(b"taken\n")
            return True, block or None
    except Exception:  # noqa: BLE001 - whatever went wrong, the cold path answers
        return False, None


def _event(sent: object) -> events.Event:
    if not isinstance(sent, dict):
        raise ValueError("no event")
    texts = {name: sent.get(name, "") for name in _TEXTS}
    extra = sent.get("extra")
    if (
        not all(isinstance(v, str) for v in texts.values())
        or type(sent.get("redactions")) is not int
        or not isinstance(extra, dict)
        or not all(isinstance(v, str | bool) for v in extra.values())
    ):
        raise ValueError("a malformed event")
    if texts["client"] not in events.CLIENTS or texts["kind"] not in ("tool-failure", "prompt"):
        raise ValueError("not a repeat recall")
    return events.Event(redactions=sent["redactions"], extra=extra, **texts)


def _settings(sent: object) -> Settings:
    if not isinstance(sent, dict) or any(
        type(sent.get(name)) is not type(default) for name, default in Settings.DEFAULTS.items()
    ):
        raise ValueError("malformed settings")
    return Settings(**{name: sent[name] for name in Settings.DEFAULTS})


def answer(store: Store, conn: socket.socket) -> None:
    """Serve one hook's request on ``conn`` with ``store`` (the server's, of the same directory)."""
    from ..safefs import trust
    from .context import repeat_context

    handed = False

    def send(block: str | None, confirm: bool = False) -> None:
        nonlocal handed
        handed = True
        reply = {"v": PROTOCOL, "ok": True, "block": block, "confirm": confirm}
        conn.sendall(codec.dumps(reply).encode("utf-8") + b"\n")

    def confirm(block: str | None) -> bool:
        send(block, confirm=True)
        try:
            return rendezvous.read_line(conn, 16) == b"taken"
        except (OSError, ValueError):
            return False

    try:
        sent = codec.loads(rendezvous.read_line(conn, MAX_REQUEST).decode("utf-8"))
        if not isinstance(sent, dict) or sent.get("v") != PROTOCOL:
            raise ValueError("another protocol")
        if sent.get("store") != os.path.realpath(store.path) or not isinstance(
            sent.get("query"), str
        ):
            raise ValueError("another store")
        # approval can be withdrawn while the server runs: checked as the hook checks it
        trust.check(store.path)
        block = repeat_context(
            store, _event(sent.get("event")), sent["query"], _settings(sent.get("conf")), confirm
        )
    except Exception:
        if not handed:
            conn.sendall(codec.dumps({"v": PROTOCOL, "ok": False}).encode("utf-8") + b"\n")
        raise
    if not handed:
        send(block)


def listen(store: Store) -> rendezvous.Listener | None:
    """Answer the hooks' repeat recalls of ``store`` from this process (a server's), unless
    ``[hooks] warm_recall`` is off or another process of the store answers already."""
    import logging

    if not store.config.hooks_warm_recall:
        return None
    listener = rendezvous.Listener(str(store.path), lambda conn: answer(store, conn))
    why = listener.start()
    if why is not None:
        logging.getLogger("hindsight.hooks").info("no warm recall for the hooks: %s", why)
        return None
    return listener


class listening:  # noqa: N801 - used as a ``with`` statement, like contextlib's
    """``listen`` for as long as a ``with`` block runs; the socket is removed when it ends. (A
    class: a hook imports this module, and ``contextlib`` would cost it 3 ms.)"""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.listener: rendezvous.Listener | None = None

    def __enter__(self) -> rendezvous.Listener | None:
        self.listener = listen(self.store)
        return self.listener

    def __exit__(self, *exc: object) -> None:
        if self.listener is not None:
            self.listener.close()
