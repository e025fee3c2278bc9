"""The search page: what ``hindsight search`` finds (hybrid, troubleshoot, budget), each hit with
its score and its ``--explain`` contributions drawn as bars, and the context block exactly as an
agent receives it, with its token count."""

from __future__ import annotations

from collections.abc import Mapping

from ..models import Hit, SearchResult
from ..search.query import MODES, SearchQuery
from ..store import Store
from .browse import memory_link, number, snippet
from .html import H, Html, bars, join, options


def query_from(params: Mapping[str, str]) -> SearchQuery | None:
    text = params.get("q", "").strip()
    if not text:
        return None
    budget = number(params, "budget", 0, 100_000)
    return SearchQuery(
        text,
        k=number(params, "k", 0, 100) or None,
        budget=budget or None,
        mode=params.get("mode") or "hybrid",
        troubleshoot=params.get("troubleshoot") == "1",
    )


def render(store: Store, params: Mapping[str, str]) -> Html:
    query = query_from(params)
    result = store.search(query) if query is not None else None
    return H("{}{}", form(params), _result(result) if result is not None else Html(""))


def form(params: Mapping[str, str]) -> Html:
    return H(
        '<form method="get" action="/search" class="search" id="search"><div class="fields">'
        '<span class="field wide"><label for="q">query</label><input id="q" name="q" value="{}" '
        "autofocus></span>"
        '<span class="field"><label for="mode">mode</label><select id="mode" name="mode">{}'
        "</select></span>"
        '<span class="field"><label for="budget">budget (tokens)</label><input id="budget" '
        'name="budget" value="{}" inputmode="numeric"></span>'
        '<span class="field"><label for="k">hits</label><input id="k" name="k" value="{}" '
        'inputmode="numeric"></span></div>'
        '<label class="check"><input type="checkbox" name="troubleshoot" value="1"{}> '
        "troubleshoot (fixes of failures first)</label> "
        '<button type="submit">Search</button></form>',
        params.get("q", ""),
        options(MODES, params.get("mode") or "hybrid", blank=None),
        params.get("budget", ""),
        params.get("k", ""),
        Html(" checked" if params.get("troubleshoot") == "1" else ""),
    )


def _hit(rank: int, hit: Hit) -> Html:
    explain = hit.explain
    contributions = dict(explain.get("contributions", {}))
    notes = "; ".join(explain.get("notes", []))
    return H(
        '<li class="hit"><div><span class="score">{}</span> {} · {} · {} · matched {}</div>'
        "<p>{}</p>{}<details><summary>why #{}: each signal's contribution</summary>{}"
        '<p class="muted">{}</p></details></li>',
        f"{hit.score:.3f}",
        memory_link(hit.memory),
        hit.memory.type,
        hit.memory.outcome,
        ", ".join(hit.matched) or "—",
        snippet(hit.memory.content, 240),
        H('<p class="fix">fix: {}</p>', hit.memory.resolution) if hit.memory.resolution else "",
        rank,
        bars(contributions),
        notes,
    )


def _result(result: SearchResult) -> Html:
    if not result.hits:
        return H('<p class="count" id="count">No memory matches {}.</p>', repr(result.query))
    budget = f" of a {result.budget:,}-token budget" if result.budget else ""
    dropped = (
        f"; {result.dropped_for_budget} more left out for the budget"
        if result.dropped_for_budget
        else ""
    )
    return H(
        '<p class="count" id="count">{}</p><ol class="hits">{}</ol>'
        '<h2>Context block as an agent receives it</h2><p class="muted" id="tokens">{} tokens{}'
        '{}</p><pre class="context" id="context">{}</pre>',
        "1 hit" if len(result.hits) == 1 else f"{len(result.hits)} hits",
        join(_hit(i + 1, h) for i, h in enumerate(result.hits)),
        result.tokens,
        budget,
        dropped,
        result.context,
    )
