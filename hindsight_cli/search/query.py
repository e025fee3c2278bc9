"""``SearchQuery``: one search request, built once by a face (or Python) and handed to the core
whole."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache

from ..embedding import english_only
from ..errors import BadUsage, InvalidInput
from ..models import Filters, one_of
from ..text import STOPWORDS, clean, has_cjk, stem, terms
from ..timeutil import as_utc_or_none

# Function words of other languages that the English stopword list lacks: without this a Spanish
# query matches every Spanish memory on "de". The query drops them; the stored postings keep them.
# Those that are English words too ("die", "con", "per", "son", "pour", "den", "war", "mit", "come",
# "su") stay.
_FOREIGN = """der das dem des ein eine einer einem einen und oder ist sind im zum zur von auf für ich du er
    sie es wir ihr nicht wie wer wo auch el la los las un una unos unas y o de al en que es por para se sus lo
    como más pero le les une du et ou est sont au aux avec ce cette qui ne pas je tu il elle nous vous ils
    elles gli di da della che e os um uma da dos das em não""".split()
_FUNCTION_WORDS = frozenset(_FOREIGN) | frozenset(stem(w) for w in _FOREIGN)

# The light stemmer leaves "-ion" on ("connection" stays "connection", apart from "connect"): the
# query also asks for a word's "-ion" form and for the base of an "-ion" word, as the stemmer stores
# them. On LoCoMo this alone helps (+0.4 points of recall@10); "-ment", "-er" and "-ure" as well
# cost 0.1.
_WORD = re.compile(r"[a-z]{4,}")


def _forms(word: str) -> set[str]:
    base, out = stem(word), set()
    for suffix in ("ation", "ations", "ion", "ions"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            root = word[: -len(suffix)]
            out |= {stem(root), stem(root + "e")}
    # a word not derived already: its derived form
    if not out:
        out = {stem(base + "ion")}
    return out - {base}


# a word of letters, its hyphenated or apostrophed parts included ("e-mail", "O'Neil")
_LETTERS = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")


def _named(text: str) -> set[str]:
    """The terms of words written as names or compounds of the query's own language — with a
    capital ("ER", "LA", "El Paso", "De Niro") or hyphenated ("e-mail") — which are kept even when
    they spell another language's function word."""
    out: set[str] = set()
    for word in _LETTERS.findall(text):
        if word.lower() != word or "-" in word:
            for part in re.split(r"[-'’]", word.lower()):
                out |= {part, stem(part)}
    return out


@lru_cache(maxsize=1024)
def _latin(letter: str) -> bool:
    return unicodedata.name(letter, "").startswith("LATIN")


def _bare_number(term: str) -> bool:
    """One or two digits: a piece of an address, a date or a version ("127.0.0.1" gives "0" and
    "1"), which matches nearly any memory with a number in it. Longer numbers (a port, a status, a
    year) stay; the identifier signal weighs the whole address or version."""
    return term.isdigit() and len(term) <= 2


def keyword_terms(text: str, derived: bool = True) -> list[str]:
    """The keyword side of a query: ``text.terms`` without other languages' function words (unless
    written as a name or compound: ``LA``, ``De Niro``, ``e-mail``) and without bare one- and
    two-digit numbers (``_bare_number``), then (``derived``) the "-ion"
    form of each English word, or its base (``connect`` ↔ ``connection``). Each once, at most
    ``MAX_QUERY_TERMS``: the query's own first.
    """
    named = _named(text)
    out = list(
        dict.fromkeys(
            t
            for t in terms(text)
            if (t not in _FUNCTION_WORDS or t in named) and not _bare_number(t)
        )
    )[:MAX_QUERY_TERMS]
    if not derived:
        return out
    seen = set(out)
    for word in _WORD.findall(text.lower()):
        if len(out) >= MAX_QUERY_TERMS:
            break
        if word in STOPWORDS or word in _FUNCTION_WORDS:
            continue
        for form in sorted(_forms(word) - seen)[: MAX_QUERY_TERMS - len(out)]:
            seen.add(form)
            out.append(form)
    return out


def foreign(text: str) -> bool:
    """Whether a query is written in another script than the Latin one (Han, kana, Cyrillic,
    Greek, Arabic, …). Every Latin-script word is a word of the query's own language, capitals,
    hyphens and diacritics included: "ER", "LA", "El Paso", "De Niro", "e-mail", "café", "naïve",
    "Zürich", "crème de la crème". (A whole sentence of another Latin-script language keeps the
    vector side too; the relevance floor, ``min_vector_only``, keeps its noise out of blocks.)"""
    return has_cjk(text) or any(ch.isalpha() and not _latin(ch) for ch in text)


def vector_floor(text: str, model: str, floor: float, mode: str = "hybrid") -> float:
    """The cosine a vector-only candidate needs in hybrid search: ``floor``
    (``min_vector_similarity``, calibrated on tests/data/floor_queries.json), or none at all when
    the model reads English only and the query is not English: such a model puts every Chinese (or
    Spanish) sentence near every other one (unrelated pairs at 0.3-0.9), so only the keyword side
    can tell a match. Vector mode keeps ``floor``: it has no other side."""
    return math.inf if mode == "hybrid" and english_only(model) and foreign(text) else floor


# working memories only when asked for
SEARCH_TYPES = ("episodic", "semantic", "procedural")


@lru_cache(maxsize=1)
def _searched() -> Filters:
    """The filters of a search that names none (frozen: one for every search)."""
    return Filters(types=SEARCH_TYPES)


MODES = ("hybrid", "vector", "keyword")
ENGINES = ("auto", "ledger", "index")
DEFAULT_MODE = "hybrid"
# Hits a search returns when it names no k: a few, or, when a budget is given, enough for the
# budget to choose from.
DEFAULT_K = 5
# the most hits, or memories listed, one call may ask for (a count past it is a typo, and past 2**63
# the engines cannot even read it)
MAX_COUNT = 1_000_000
# the most hits one MCP search may ask for: its candidates are ranked under the in-memory index's
# lock, which every other search of the server waits for, so a token principal's top_k 1,000,000
# over 3,000 memories of hers held every other agent's search 0.8-1.2 s (review AP); a context
# block holds far fewer (`hindsight search`, the user's own process, keeps MAX_COUNT)
MAX_TOOL_K = 100
# a query's bytes: an error's own lines fit many times over; a whole log is refused at once (50 MB
# piped in took 79 s and 4 GB before)
MAX_QUERY_BYTES = 64 * 1024
# the distinct words of a query a search looks up, and the identifiers it weighs against every
# candidate: its first this many of each (the model reads its first 256 tokens; an error's own
# lines name a few dozen identifiers). Both are read while the search holds the in-memory index,
# which every other search of the process waits for: a 64 KB query of 16,000 words her memories
# hold, or of 6,000 identifiers, held it 0.5 s, and with her four reads at once another agent's
# searches took 1.2 to 1.6 s against 3 ms (review AP); now 0.03 s
MAX_QUERY_TERMS = 256
MAX_QUERY_IDENTIFIERS = 64
# the keys of the environment a search compares with each candidate's (a tool's version, the OS):
# every key was read for every candidate under the in-memory index's lock, and a 4 MiB MCP request
# holding 200,000 held it 2 s a search (review AP)
MAX_ENV_KEYS = 64
BUDGET_K = 20


@dataclass(frozen=True)
class SearchQuery:
    """What to look for and how: every face (the CLI, the MCP tools, ``Store.search``) builds one
    and hands it to the core whole, so the defaults below are the only ones.

    Attributes:
        text: the query. The default model reads English; other languages match by shared words
            unless the store uses the multilingual model.
        filters: hard filters; by default active, unexpired episodic/semantic/procedural memories.
        k: at most this many hits; by default 5, or 20 when a budget is given.
        budget: keep the formatted context block within this many tokens.
        mode: ``hybrid`` (vector + keyword), ``vector`` or ``keyword``.
        env: the caller's environment fingerprint; memories recorded under other values rank lower.
        current_task: the task at hand; its memories get the same-task bonus.
        engine: ``ledger`` (exact, in the ledger) or ``index`` (LanceDB); default from config.
        now: rank as of this moment (recency, expiry, validity) instead of the clock's.
        troubleshoot: relevant failures that have a resolution come first.
        listed: the block is read followed by its hits' ids (``budget.listed``, what the MCP
            tool answers), and the budget holds the two together.
        min_score: only hits of at least this score, above the relevance floor; a budget applies
            the floor too (``pipeline.above_floor``).
    """

    text: str
    filters: Filters | None = None
    k: int | None = None
    budget: int | None = None
    mode: str = DEFAULT_MODE
    env: Mapping[str, str] = field(default_factory=dict)
    current_task: str | None = None
    engine: str | None = None
    now: datetime | None = None
    troubleshoot: bool = False
    listed: bool = False
    min_score: float | None = None

    def checked(self) -> SearchQuery:
        """The query validated, with its defaults filled in.

        Raises:
            InvalidInput: an empty query. BadUsage: an unknown mode or engine, a limit or budget
            under 1.
        """
        raw = self.text or ""
        if (
            len(raw) > MAX_QUERY_BYTES
            or len(raw.encode("utf-8", "surrogatepass")) > MAX_QUERY_BYTES
        ):
            raise BadUsage(
                f"The query is over {MAX_QUERY_BYTES:,} bytes: give the error's own lines, not a "
                "whole log (e.g. its last 50 lines)."
            )
        text = clean(raw)
        if not text:
            raise InvalidInput(
                'The query is empty: say what to look for, e.g. hindsight search "weather API 401".'
            )
        mode = one_of(self.mode, "mode", MODES)
        k = self.k if self.k is not None else DEFAULT_K if self.budget is None else BUDGET_K
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_COUNT:
            raise BadUsage(f"The limit must be a whole number from 1 to {MAX_COUNT:,}, not {k!r}.")
        if self.budget is not None and (
            isinstance(self.budget, bool) or not isinstance(self.budget, int) or self.budget < 1
        ):
            raise BadUsage(
                f"The budget must be a positive whole number of tokens, not {self.budget!r}."
            )
        if self.min_score is not None and (
            isinstance(self.min_score, bool)
            or not isinstance(self.min_score, (int, float))
            or not 0 <= self.min_score <= 1
        ):
            raise BadUsage(f"The minimum score must be between 0 and 1, not {self.min_score!r}.")
        engine = one_of(self.engine, "engine", ENGINES) if self.engine is not None else None
        if len(self.env or {}) > MAX_ENV_KEYS:
            raise BadUsage(
                f"env names {len(self.env or {}):,} keys; a search compares at most "
                f"{MAX_ENV_KEYS} with the memories' (e.g. tool_version, os): give those that "
                "matter."
            )
        filters = self.filters or _searched()
        if filters.types is None:
            filters = replace(filters, types=SEARCH_TYPES)
        return replace(
            self,
            text=text,
            filters=filters,
            k=k,
            env=dict(self.env or {}),
            mode=mode,
            engine=engine,
            now=as_utc_or_none(self.now),
        )

    @property
    def groups_neighbours(self) -> bool:
        """Whether its block holds each hit above the relevance floor with the steps beside it (a
        budget or a minimum score, and not ``troubleshoot``: ``pipeline.grouped``)."""
        return (self.budget is not None or self.min_score is not None) and not self.troubleshoot

    @property
    def lists(self) -> int:
        """How many candidate lists the mode fuses."""
        return 2 if self.mode == "hybrid" else 1
