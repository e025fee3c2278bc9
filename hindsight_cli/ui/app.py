"""The web UI's ASGI app: pages behind a session, actions behind its CSRF token, each action one
core call with the UI named in the audit log, and the security headers on every response."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING

from ..errors import BadUsage, HindsightError, InvalidInput, MemoryNotFound
from ..models import short_id
from ..safefs.reading import whole_number
from ..serving.hostguard import connection_owner
from ..serving.readers import ReadThreads, Writers
from ..store import Store
from . import browse, memory_page, search_page, stats, timeline
from .html import H, Html, csrf_field, join, page, segment
from .security import HEADERS, Gate, Session, csrf_ok, opened_by_user, same_origin

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("hindsight.ui")
# who the audit log names for an action taken in the UI
ACTOR = "ui"
STATIC = {"ui.js": "text/javascript", "ui.css": "text/css"}
# a change's form: its fields and their bytes in all (a memory's text is 16 KiB by default)
MAX_FORM = 1024 * 1024
MAX_FORM_FIELDS = 32
PURGED = "Purged for good: the memory, its vectors and what was built from it are gone."


@dataclass
class Ui:
    """What the app serves: the stores (the first is shown first), the gate, the cookie's name."""

    stores: list[Store]
    gate: Gate
    cookie: str
    # pages run here, apart from the changes' pool (``readers``): one agent's long changes must
    # never hold up another agent's pages
    reads: ReadThreads = field(default_factory=ReadThreads)
    # changes take a thread of the shared pool one at a time per agent: one agent's queued changes
    # never hold every thread while another's change waits for one
    writes: Writers = field(default_factory=Writers)

    def store(self, session: Session) -> Store:
        # a login with a token is that token's agent, another principal than the store's owner
        store = self.stores[min(session.store, len(self.stores) - 1)]
        return store.scoped(session.agent, principal=session.agent is not None)

    def actor(self, session: Session) -> str:
        return f"{ACTOR}:{session.agent}" if session.agent else ACTOR


def _switcher(ui: Ui, session: Session) -> Html:
    current = ui.stores[min(session.store, len(ui.stores) - 1)]
    who = H(" · as {}", session.agent) if session.agent else Html("")
    if len(ui.stores) == 1:
        return H('<span class="store" title="{}">{}{}</span>', current.path, current.path.name, who)
    choices = join(
        H('<option value="{}"{}>{}</option>', i, Html(" selected" if s is current else ""), s.path)
        for i, s in enumerate(ui.stores)
    )
    return H(
        '<form method="post" action="/switch" class="store">{}<select name="store" '
        'data-submit>{}</select><button type="submit">Switch</button>{}</form>',
        csrf_field(session.csrf),
        choices,
        who,
    )


def _html(text: str, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    from starlette.responses import HTMLResponse

    return HTMLResponse(text, status, headers=headers)


def _refused(status: int, message: str) -> Response:
    body = H('<p class="warn">{}</p>', message)
    text, _ = page("Not allowed", body, here="", store=Html(""))
    return _html(text, status)


def _error(ui: Ui, session: Session, error: HindsightError, here: str) -> Response:
    status = 404 if isinstance(error, MemoryNotFound) else 400
    body = H('<p class="warn" id="error">{}</p><p><a href="/">Back to the list</a></p>', str(error))
    text, _ = page("Cannot do that", body, here=here, store=_switcher(ui, session))
    return _html(text, status)


def _session(ui: Ui, request: Request) -> Session | None:
    return ui.gate.session(request.cookies.get(ui.cookie), _client(request))


def _client(request: Request) -> str | None:
    """Where a request comes from (a session answers only where it logged in from): its address
    and, for a connection made on this machine, the local account that opened it
    (``hostguard.connection_owner``): every account of a machine shares its loopback address, and
    another's page may set this server's cookie in the user's browser (cookies have no port)."""
    if not request.client:
        return None
    owner = connection_owner(request.scope)
    return request.client.host if owner is None else f"{request.client.host} uid {owner}"


def _login_first() -> Response:
    return _refused(
        401, "Open the address that `hindsight ui` printed (it logs this browser in), then retry."
    )


PageFn = Callable[[Ui, Session, Store, "Request"], tuple[str, Html]]
ActionFn = Callable[[Ui, Session, Store, str, dict[str, str]], str]


def page_route(ui: Ui, here: str, fn: PageFn) -> Callable[[Request], object]:
    """A GET page: a session is required; the page is built in one of the reads' worker threads
    (the store's calls block; ``Ui.reads``); a HindsightError becomes an error page."""

    async def endpoint(request: Request) -> Response:
        session = _session(ui, request)
        if session is None:
            return _login_first()
        store = ui.store(session)
        try:
            title, body = await ui.reads.run(lambda: fn(ui, session, store, request), session.agent)
        except HindsightError as error:
            return _error(ui, session, error, here)
        text, status = page(title, body, here=here, store=_switcher(ui, session))
        return _html(text, status)

    return endpoint


async def _form(request: Request) -> dict[str, str] | None:
    """The text fields of a change's form, read up to ``MAX_FORM`` bytes (what it declares, then
    what it sends), or None when it is larger: starlette's own parser takes 1,000 fields of 1 MiB
    each, so one agent's changes could hold gigabytes of the server the others share."""
    from starlette.exceptions import HTTPException

    declared = request.headers.get("content-length", "")
    if (whole_number(declared.strip()) or 0) > MAX_FORM:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            return None
    # the parser reads the body kept here, not the connection (``Request.stream``)
    request._body = bytes(body)
    try:
        parsed = await request.form(max_files=0, max_fields=MAX_FORM_FIELDS)
    except HTTPException:
        return {}
    return {k: v for k, v in parsed.items() if isinstance(v, str)}


def action_route(ui: Ui, fn: ActionFn) -> Callable[[Request], object]:
    """A POST action: the session and its CSRF token are required; the action runs in a worker
    thread, one at a time for the session's agent (``Ui.writes``), and answers with a redirect
    (303) to the page that shows its result."""
    from starlette.responses import RedirectResponse

    async def endpoint(request: Request) -> Response:
        session = _session(ui, request)
        if session is None:
            return _login_first()
        if not same_origin(request.headers.get("origin"), request.headers.get("host")):
            return _refused(403, "A change must come from this server's own pages; reload it.")
        form = await _form(request)
        if form is None:
            return _refused(
                413,
                f"This form is larger than {MAX_FORM // 1024 // 1024} MiB; nothing was changed. "
                "Shorten what you typed.",
            )
        if not csrf_ok(session, form.get("csrf")):
            return _refused(403, "This form is stale or did not come from this page; reload it.")
        memory_id = str(request.path_params.get("memory_id", ""))
        try:
            store = ui.store(session)
            where = await ui.writes.run(
                lambda: fn(ui, session, store, memory_id, form), session.agent
            )
        except HindsightError as error:
            return _error(ui, session, error, "/")
        return RedirectResponse(where, 303)

    return endpoint


def _browse(ui: Ui, session: Session, store: Store, request: Request) -> tuple[str, Html]:
    purged = request.query_params.get("purged") == "1"
    notice = H('<p class="notice" role="status">{}</p>', PURGED) if purged else Html("")
    return "Memories", H("{}{}", notice, browse.render(store, dict(request.query_params)))


def _search(ui: Ui, session: Session, store: Store, request: Request) -> tuple[str, Html]:
    return "Search", search_page.render(store, dict(request.query_params))


def _memory(ui: Ui, session: Session, store: Store, request: Request) -> tuple[str, Html]:
    done = request.query_params.get("done")
    return memory_page.render(store, str(request.path_params["memory_id"]), done, session.csrf)


def _timeline(ui: Ui, session: Session, store: Store, request: Request) -> tuple[str, Html]:
    return timeline.render(store, dict(request.query_params))


def _stats(ui: Ui, session: Session, store: Store, request: Request) -> tuple[str, Html]:
    if session.agent:
        return "Stats", stats.scoped(store, session.agent)
    return "Stats", stats.render(store)


def _doctor(ui: Ui, session: Session, store: Store, request: Request) -> tuple[str, Html]:
    if session.agent:
        raise BadUsage("The store's checks are shown to its owner only.")
    return "hindsight doctor store", stats.doctor(store)


def _shown(memory_id: str, done: str) -> str:
    return f"/m/{segment(memory_id)}?done={done}"


def _forget(ui: Ui, session: Session, store: Store, memory_id: str, form: dict[str, str]) -> str:
    verb = form.get("do", "forget")
    memory = store.get(memory_id)
    plan = store.plan_forget([memory.id], archive=verb == "archive")
    store.forget_planned(plan, reason=form.get("reason") or None, actor=ui.actor(session))
    return _shown(memory.id, "archive" if verb == "archive" else "forget")


def _purge(ui: Ui, session: Session, store: Store, memory_id: str, form: dict[str, str]) -> str:
    memory = store.get(memory_id)
    if form.get("confirm", "").strip().lower() != short_id(memory.id):
        raise InvalidInput(
            f"Type the memory's short id {short_id(memory.id)} to purge it for good; nothing was "
            "purged."
        )
    plan = store.plan_forget([memory.id], hard=True)
    store.forget_planned(plan, reason=form.get("reason") or None, actor=ui.actor(session))
    return "/?purged=1"


def _restore(ui: Ui, session: Session, store: Store, memory_id: str, form: dict[str, str]) -> str:
    memory = store.restore(memory_id, actor=ui.actor(session))
    return _shown(memory.id, "restore")


def _unit(form: dict[str, str], name: str, was: float) -> float | None:
    """A 0-1 field of the edit form: None when empty or as it was."""
    given = form.get(name, "").strip()
    try:
        value = float(given) if given else None
    except ValueError:
        raise InvalidInput(f"{name} must be a number from 0 to 1, not {given!r}.") from None
    return value if value is not None and value != was else None


def _edit(ui: Ui, session: Session, store: Store, memory_id: str, form: dict[str, str]) -> str:
    memory = store.get(memory_id)
    resolution = form.get("resolution", "").strip()
    result = store.edit(
        memory.id,
        resolution=resolution if resolution and resolution != (memory.resolution or "") else None,
        outcome=form.get("outcome") or None,
        confidence=_unit(form, "confidence", memory.confidence),
        importance=_unit(form, "importance", memory.importance),
        tags=[t.strip() for t in form.get("tags", "").split(",") if t.strip()],
        actor=ui.actor(session),
    )
    return _shown(result.memory.id, "unchanged" if result.deduplicated else "edit")


def _release(ui: Ui, session: Session, store: Store, memory_id: str, form: dict[str, str]) -> str:
    result = store.release(memory_id, reason=form.get("reason") or None, actor=ui.actor(session))
    return _shown(result.memory.id, "release")


def _confirm(ui: Ui, session: Session, store: Store, memory_id: str, form: dict[str, str]) -> str:
    memory = store.confirm(memory_id, reason=form.get("reason") or None, actor=ui.actor(session))
    return _shown(memory.id, "confirm")


def _supersede(ui: Ui, session: Session, store: Store, memory_id: str, form: dict[str, str]) -> str:
    by = form.get("by", "").strip()
    if not by:
        raise InvalidInput("Give the id of the memory that replaces this one; nothing was changed.")
    memory = store.supersede(
        memory_id, by, reason=form.get("reason") or None, actor=ui.actor(session)
    )
    return _shown(memory.id, "supersede")


def _switch(ui: Ui, session: Session, store: Store, memory_id: str, form: dict[str, str]) -> str:
    chosen = form.get("store", "")
    number = whole_number(chosen)
    if number is None or number >= len(ui.stores):
        raise InvalidInput("Choose one of the stores this server was started with.")
    session.store = number
    return "/"


def _login(ui: Ui) -> Callable[[Request], object]:
    async def endpoint(request: Request) -> Response:
        if not opened_by_user(request.headers.get("sec-fetch-site")):
            return _refused(
                403,
                "Open the login address yourself (paste it, or click it where `hindsight ui` "
                "printed it): a login that another site's page starts is refused.",
            )
        try:
            sid = ui.gate.login(request.query_params.get("token", ""), _client(request))
        except HindsightError as error:
            return _refused(403, str(error))
        if sid is None:
            return _refused(
                403, "This login link is not valid; use the one `hindsight ui` printed."
            )
        # a page, not a redirect: a SameSite=Strict cookie set by a navigation another site
        # started is not sent on the redirect, but is on this page's own refresh
        text = (
            '<!doctype html><html><head><meta charset="utf-8">'
            '<meta http-equiv="refresh" content="0;url=/"><title>hindsight</title></head>'
            '<body><p><a href="/">Logged in: open hindsight</a></p></body></html>'
        )
        cookie = f"{ui.cookie}={sid}; HttpOnly; SameSite=Strict; Path=/"
        return _html(text, headers={"set-cookie": cookie})

    return endpoint


async def _static(request: Request) -> Response:
    """The script and the style sheet: package data, read on the event loop (a few KB), so no
    worker thread, and nothing another agent's changes hold up."""
    from starlette.responses import Response as Plain

    name = str(request.path_params["name"])
    if name not in STATIC:
        return Plain("not found", 404, media_type="text/plain")
    data = resources.files(__package__).joinpath("static", name).read_bytes()
    return Plain(data, media_type=STATIC[name])


class SecurityHeaders:
    """ASGI middleware: the CSP and its companions on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, sending)


def build(ui: Ui) -> ASGIApp:
    """The Starlette app (without the Host/Origin guard, which ``serve`` puts around it)."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    pages: list[tuple[str, str, PageFn]] = [
        ("/", "/", _browse),
        ("/search", "/search", _search),
        ("/m/{memory_id}", "/", _memory),
        ("/timeline", "/timeline", _timeline),
        ("/stats", "/stats", _stats),
        ("/doctor", "/stats", _doctor),
    ]
    actions: list[tuple[str, ActionFn]] = [
        ("/m/{memory_id}/forget", _forget),
        ("/m/{memory_id}/archive", _forget),
        ("/m/{memory_id}/restore", _restore),
        ("/m/{memory_id}/purge", _purge),
        ("/m/{memory_id}/edit", _edit),
        ("/m/{memory_id}/release", _release),
        ("/m/{memory_id}/confirm", _confirm),
        ("/m/{memory_id}/supersede", _supersede),
        ("/switch", _switch),
    ]
    routes = [Route(path, page_route(ui, here, fn), methods=["GET"]) for path, here, fn in pages]
    routes += [Route(path, action_route(ui, fn), methods=["POST"]) for path, fn in actions]
    routes += [
        Route("/login", _login(ui), methods=["GET"]),
        Route("/static/{name}", _static, methods=["GET"]),
    ]
    return SecurityHeaders(Starlette(routes=routes))


__all__ = ["Ui", "build"]
