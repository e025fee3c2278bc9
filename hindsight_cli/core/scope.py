"""Agent scope: whose memories a caller may see and change, one rule for every face.

An unscoped caller (the CLI, a Python program by default) sees every agent and may act as any. A
scoped one (``hindsight mcp --agent A``, an HTTP request with A's token, ``open_store(agent="A")``)
reads, writes, forgets, summarises and consolidates only agent A's memories, and cannot widen that
by naming another agent: a memory of another agent does not exist for it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import InvalidInput, MemoryNotFound
from ..models import Filters
from ..storage.base import Condition
from ..storage.rows import MemoryRow
from ..text import MAX_LABEL, clean


def agent_name(value: object) -> str | None:
    """An agent name in the form writes store it (``text.clean``: NFC, no control characters,
    trimmed), so ``bob`` and ``bob`` with a control character are one agent everywhere; None when
    nothing visible is left. Anything but text is refused (review BO: an import record's
    ``"agent_id": 42`` ended `hindsight import` with a traceback)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"agent_id must be text, not {type(value).__name__} {value!r:.40}.")
    return clean(value) or None


def check_agent(agent: str) -> str:
    """``agent`` (a cleaned name), if a scope can be made of it. A write stores its agent redacted
    like any label, and a filter names it the same way, so a name that redaction changes
    (``secret=ops`` is stored as ``secret=[REDACTED:secret]``) would share its memories with every
    name that reads alike; it is refused."""
    from ..redact import redact_field

    if redact_field(agent, "agent_id")[0] != agent:
        raise InvalidInput(
            f"{agent!r} cannot be an agent's name: it reads as a secret (KEY=value), which "
            "memories keep redacted, so it would share them with every name like it. Choose "
            "another name, e.g. without '='."
        )
    return agent


# the source of what a token principal writes: ``token:alice`` (untrusted, as any name not listed)
TOKEN_SOURCE = "token:"


def token_label(agent: str) -> str:
    """The source a token principal named ``agent`` writes as (``Scope.provenance``): a source is
    a label (at most MAX_LABEL characters), and so is an agent's name, so the longest names' ends
    are cut off it (``tokens.alike`` compares these)."""
    return f"{TOKEN_SOURCE}{agent}"[:MAX_LABEL]


def by_principal(source: str | None) -> bool:
    """Whether a memory of ``source`` was written by a token principal, or derived from what one
    wrote (``token:alice``, ``hindsight:token:alice+web``): another principal's text, which the
    owner's automatic recall takes only after the owner's own (``hooks.context.owner_first``)."""
    name = (source or "").strip().lower()
    return name.startswith(TOKEN_SOURCE) or f":{TOKEN_SOURCE}" in name or f"+{TOKEN_SOURCE}" in name


@dataclass(frozen=True)
class Scope:
    # None: every agent
    agent: str | None = None
    # the agent is a credential's (a token on a shared server, a UI login with one): another
    # principal than the store's owner, whose claims about where its text came from are not taken
    principal: bool = False

    def __post_init__(self) -> None:
        if self.agent is None:
            return
        agent = agent_name(self.agent)
        if agent is None or "\n" in agent:
            # an empty name must never widen a scope to every agent
            raise InvalidInput(f"{self.agent!r} is not an agent name.")
        object.__setattr__(self, "agent", check_agent(agent))

    @property
    def scoped(self) -> bool:
        return self.agent is not None

    @property
    def provenance(self) -> str | None:
        """The source everything this scope writes is stored with, whatever it claims, or None
        when its claims are taken (the store's owner: the CLI, hooks, a stdio server). A token
        principal's text reaches the user's recall (hooks read every agent) and other readers as
        ``token:<agent>``: untrusted, so labelled and read by the injection detector; the source
        and confidence it claimed are kept in ``metadata.claimed_source``/``claimed_confidence``
        (``prepare.claimed``)."""
        if not (self.principal and self.agent):
            return None
        return token_label(self.agent)

    @property
    def token_agent(self) -> str | None:
        """The agent of a token principal (a credential's), or None for the store's owner."""
        return self.agent if self.provenance is not None else None

    def check_replaces(self, old: MemoryRow, new: MemoryRow) -> None:
        """Refuse ``new`` superseding ``old`` (a ``supersedes`` it names, a supersede of the UI or
        the API) when this scope is a token principal and ``new`` is less trusted than ``old``
        (``poisoning.less_trusted``): the owner's memory filed under the principal's agent would
        leave search for her text. The owner's own explicit supersede is theirs to make."""
        from ..poisoning import less_trusted

        if self.provenance is not None and less_trusted(new, old):
            raise InvalidInput(
                f"{old.id} comes from {old.source} (trusted) and this token writes as "
                f"{self.provenance} (untrusted): it cannot supersede that memory. Write yours as "
                "a memory of its own; the store's owner can supersede it. Nothing was changed."
            )

    def resolve(self, requested: str | None) -> str | None:
        """The agent a request acts as (None: unscoped and none named)."""
        requested = agent_name(requested)
        if self.agent is None:
            return requested
        if requested and requested != self.agent:
            raise InvalidInput(
                f"This store is scoped to agent {self.agent!r}; it cannot read or write agent "
                f"{requested!r}. Leave agent_id out."
            )
        return self.agent

    def filters(self, filters: Filters) -> Filters:
        """``filters`` narrowed to this scope; naming another agent in them is refused, as writing
        as one is."""
        if self.agent is None or filters.agent_ids == ():
            return filters
        for agent in filters.agent_ids or ():
            self.resolve(agent)
        return replace(filters, agent_ids=(self.agent,))

    def conditions(self) -> list[Condition]:
        return [] if self.agent is None else [("agent_id", "in", [self.agent])]

    def visible(self, row: MemoryRow) -> bool:
        return self.agent is None or row.agent_id == self.agent

    def check(
        self, row: MemoryRow, hint: str = "`hindsight list` or `hindsight search`"
    ) -> MemoryRow:
        """``row``, or MemoryNotFound if it lies outside the scope (the same answer as a missing
        id)."""
        if not self.visible(row):
            raise MemoryNotFound(f"No memory with id {row.id!r}. Find ids with {hint}.")
        return row


UNSCOPED = Scope()
