"""``SearchQuery``: one search request, built once by a face (or Python) and handed to the core whole."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from ..errors import BadUsage, InvalidInput
from ..models import Filters, one_of
from ..text import clean

SEARCH_TYPES = ("episodic", "semantic", "procedural")  # working memories only when asked for
MODES = ("hybrid", "vector", "keyword")
ENGINES = ("auto", "ledger", "index")


@dataclass(frozen=True)
class SearchQuery:
    """What to look for and how (the arguments of ``Store.search``).

    Attributes:
        text: the query, in any language the store's model reads.
        filters: hard filters; by default active, unexpired episodic/semantic/procedural memories.
        k: at most this many hits.
        budget: keep the formatted context block within this many tokens.
        mode: ``hybrid`` (vector + keyword), ``vector`` or ``keyword``.
        env: the caller's environment fingerprint; memories recorded under other values rank lower.
        current_task: the task at hand; its memories get the same-task bonus.
        engine: ``ledger`` (exact, in the ledger) or ``index`` (LanceDB); default from config.
        now: rank as of this moment (recency, expiry, validity) instead of the clock's.
        troubleshoot: relevant failures that have a resolution come first.
    """

    text: str
    filters: Filters | None = None
    k: int = 5
    budget: int | None = None
    mode: str = "hybrid"
    env: Mapping[str, str] = field(default_factory=dict)
    current_task: str | None = None
    engine: str | None = None
    now: datetime | None = None
    troubleshoot: bool = False

    def checked(self) -> SearchQuery:
        """The query validated, with its defaults filled in.

        Raises:
            InvalidInput: an empty query. BadUsage: an unknown mode or engine, a limit or budget under 1.
        """
        text = clean(self.text or "")
        if not text:
            raise InvalidInput('The query is empty: say what to look for, e.g. hindsight search "weather API 401".')
        mode = one_of(self.mode, "mode", MODES)
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise BadUsage(f"The limit must be a whole number of 1 or more, not {self.k!r}.")
        if self.budget is not None and (isinstance(self.budget, bool) or not isinstance(self.budget, int)
                                        or self.budget < 1):
            raise BadUsage(f"The budget must be a positive whole number of tokens, not {self.budget!r}.")
        engine = one_of(self.engine, "engine", ENGINES) if self.engine is not None else None
        filters = self.filters or Filters()
        if filters.types is None:
            filters = replace(filters, types=SEARCH_TYPES)
        return replace(self, text=text, filters=filters, env=dict(self.env or {}), mode=mode, engine=engine)

    @property
    def lists(self) -> int:
        """How many candidate lists the mode fuses."""
        return 2 if self.mode == "hybrid" else 1
