"""The tools' structured results. Their fields are those of the core's results (``models``), so a
tool's JSON and the CLI's ``--json`` say the same thing with the same names; these classes only give
the SDK the types it derives each tool's output schema from. What the model reads is the text beside
them (``results``), within the call's token budget."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models import Memory


@dataclass(frozen=True)
class WriteOutput:
    """What a write did: the memory's id, whether it was already stored, the ids it replaced (and,
    for a changed fact, what changed: ``"60 → 100"``), how many secrets were redacted, the ids of
    the linked parts a text over the size limit was stored in; with ``verbose``, the stored memory
    itself."""

    id: str
    deduplicated: bool = False
    superseded: list[str] = field(default_factory=list)
    redactions: int = 0
    change: str | None = None
    # a repeat (or an edit by id) that added what was learnt: ``id`` is the new version
    updated: bool = False
    # kept beside this memory although it reads like an update of it; ``change`` says why
    kept_beside: str | None = None
    # content over the size limit: its linked parts' ids, in order
    parts: list[str] | None = None
    memory: Memory | None = None


@dataclass(frozen=True)
class ScoredMemory(Memory):
    """A search hit: the memory's fields (without ``content_hash`` and ``idempotency_key`` unless
    asked for, or only those asked for) plus its score and which retrievers matched it."""

    score: float = 0.0
    matched: list[str] = field(default_factory=list)


@dataclass
class SearchOutput:
    """Ranked hits and the block to paste into a prompt."""

    hits: list[ScoredMemory]
    context: str
    tokens: int
    dropped_for_budget: int = 0


@dataclass(frozen=True)
class SummaryOutput(Memory):
    """The summary memory, how many memories it covers, whether it replaced an earlier version, and
    the part summaries of a chain."""

    summarized: int = 0
    updated: bool = False
    parts: list[str] = field(default_factory=list)
    # or "sampling:<model>" when the client's LLM wrote it
    method: str = "extractive"


@dataclass
class ForgetOutput:
    forgotten: int
    hard: bool
    archived: bool = False


@dataclass(frozen=True)
class PatternOutput(Memory):
    """A pattern consolidation wrote (or would write): the memory, what was done, its evidence."""

    id: str | None  # type: ignore[assignment]  # None for a pattern a dry run would create: no id yet
    action: str = "create"
    evidence_ids: list[str] = field(default_factory=list)


@dataclass
class ConsolidateOutput:
    """What consolidation found, as ``hindsight consolidate --json`` reports it."""

    scanned: int
    dry_run: bool
    created: int
    updated: int
    unchanged: int
    patterns: list[PatternOutput]
