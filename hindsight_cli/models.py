"""The values Store returns. JSON output everywhere is ``to_dict()`` of these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict, Union

from .errors import BadUsage
from .text import clean
from .timeutil import as_utc_or_none

if TYPE_CHECKING:
    from datetime import datetime

    from .storage.base import Condition
    from .storage.rows import MemoryRow

#: A JSON value as ``json.loads`` returns it (a transcript line, a settings file, a memory's
#: metadata): whoever reads one narrows it with ``isinstance`` before using it.
JSONValue: TypeAlias = Union[
    bool, int, float, str, Sequence["JSONValue"], Mapping[str, "JSONValue"], None
]
JSONObject: TypeAlias = dict[str, JSONValue]

MEMORY_TYPES = ("working", "episodic", "semantic", "procedural")
OUTCOMES = ("success", "failure", "neutral", "unknown")
STATUSES = ("active", "superseded", "invalidated", "archived")
# the metadata key of a part of a text over the size limit (core/parts.py): {"index", "of"}
PART = "part"


def part_position(metadata: Mapping[str, JSONValue]) -> tuple[int, int] | None:
    """(index, of) for a part of a text stored in linked parts, None for a whole memory."""
    value = metadata.get(PART)
    if isinstance(value, Mapping):
        index, of = value.get("index"), value.get("of")
        if isinstance(index, int) and isinstance(of, int):
            return index, of
    return None


#: What the audit log records (``hindsight log --action``).
AUDIT_ACTIONS = (
    "record",
    "merge",
    "supersede",
    "fixed",
    "updated",
    "released",
    "summarize",
    "consolidate",
    "forget",
    "archive",
    "forget_hard",
    "expire",
    "withdraw",
    "restore",
    "import",
    "reindex",
    "migrate",
)
# the random tail of an id that tables show and every id argument accepts
SHORT_ID = 8


# tags of one memory: far more than any memory is filed under (a client's labels, a note's tags and
# its observation's), and few enough that a memory's tags are read with every hit at no cost; an
# export's record of 100,000 tags took minutes to prepare under the store's lock (review Q9). And
# the values one filter names (tags, sources, agents): a memory holding all of more tags there is
# not, and each value is redacted as a stored label is and matched under the in-memory index's
# lock: a search's 200,000 tags took 17 s, 0.7 s of it holding every other search (review AP)
MAX_TAGS = 1000


def one_of(value: object, name: str, allowed: tuple[str, ...]) -> str:
    """``value`` as one of ``allowed`` (case and surrounding spaces aside), or a usage error naming
    them."""
    text = str(value).strip().lower()
    if text not in allowed:
        raise BadUsage(f"{name} must be one of {', '.join(allowed)}, not {value!r}.")
    return text


def short_id(memory_id: str) -> str:
    """The short form of an id: its last characters, which are random (a UUIDv7 starts with the
    time, so memories recorded together share their first characters)."""
    return memory_id[-SHORT_ID:]


@dataclass(frozen=True)
class Memory:
    """One memory, with the field names of the data model (DESIGN §2).

    Timestamps are ISO 8601 strings in UTC (``2026-03-15T09:30:00.000000Z``).
    """

    id: str
    content: str
    type: str = "episodic"
    agent_id: str = "default"
    task_id: str | None = None
    step: int | None = None
    trigger: str | None = None
    outcome: str = "unknown"
    resolution: str | None = None
    importance: float = 0.5
    confidence: float = 0.6
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    source: str = "agent"
    created_at: str = ""
    event_at: str = ""
    valid_until: str | None = None
    expires_at: str | None = None
    status: str = "active"
    superseded_by: str | None = None
    source_ids: list[str] = field(default_factory=list)
    version: int = 1
    content_hash: str = ""
    idempotency_key: str = ""
    seen_count: int = 1
    last_seen_at: str | None = None
    updated_at: str | None = None
    supersedes: str | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class MemoryPage:
    """One page of a sorted list (``Store.page``): its memories, how many match in all, and where
    the page starts."""

    memories: list[Memory]
    total: int
    offset: int

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class WriteResult:
    """What ``Store.record`` did: the stored memory, whether it merged into one already there, how
    much it redacted, which memories it superseded (asked for, or because it states a changed fact)
    and, for an automatic update, what changed (``"60 → 100"``); for content stored in linked parts,
    their ids (``memory`` is the first). ``updated``: the write repeated a stored memory and added
    what was learnt (``change``: ``"resolution added"``), so ``memory`` is its new version."""

    memory: Memory
    deduplicated: bool = False
    redactions: int = 0
    superseded: list[str] = field(default_factory=list)
    change: str | None = None
    # content over the size limit: every part's id, in order
    parts: list[str] = field(default_factory=list)
    updated: bool = False
    # stored beside this memory although it reads like an update of it (``change`` says why: two
    # subjects, or ``[write] on_change = "keep_both"``); ``--supersedes`` it if it does replace it
    beside: str | None = None

    def to_dict(self) -> dict[str, object]:
        data = {
            **self.memory.to_dict(),
            "deduplicated": self.deduplicated,
            "redactions": self.redactions,
            "superseded": self.superseded,
        }
        if self.change:
            data["change"] = self.change
        if self.updated:
            data["updated"] = True
        if self.beside:
            data["kept_beside"] = self.beside
        return {**data, "parts": self.parts} if self.parts else data


class VectorMatch(TypedDict):
    # None: not among the vector search's candidates
    rank: int | None
    cosine: float | None


class KeywordMatch(TypedDict):
    rank: int | None
    bm25: float | None


class BesideMatch(TypedDict):
    """A memory next to this one in its task, whose relevance this one inherits a share of."""

    id: str
    # this memory's step relative to that one: 1, the step after it; -1, the step before
    step: int
    # the share of that memory's relevance (before inheritance) passed on: w_prev_step or
    # w_next_step
    share: float
    relevance: float
    inherited: float


class Explanation(TypedDict, total=False):
    """Why a hit scored what it did (``search --explain``): each retriever's rank and score, each
    signal's value and weighted contribution, the factors, and where diversity (MMR) placed it."""

    vector: VectorMatch
    keyword: KeywordMatch
    signals: dict[str, float]
    contributions: dict[str, float]
    confidence_factor: float
    factor: float
    notes: list[str]
    score: float
    mmr_position: int
    score_rank: int
    # the MMR penalty, 0 or less
    diversity: float
    # the memories one step before and after it that pass it relevance, the largest share first
    beside: list[BesideMatch]


@dataclass(frozen=True)
class Hit:
    """A search result: the memory, its final score, which retrievers matched it and why."""

    memory: Memory
    score: float
    matched: list[str] = field(default_factory=list)
    explain: Explanation = field(default_factory=Explanation)

    def to_dict(self, explain: bool = False) -> dict[str, object]:
        data = {**self.memory.to_dict(), "score": round(self.score, 6), "matched": self.matched}
        if explain:
            data["explain"] = self.explain
        return data


@dataclass(frozen=True)
class SearchResult:
    """Hits in rank order plus the budget bookkeeping and the ready-to-paste context block."""

    query: str
    hits: list[Hit]
    context: str
    tokens: int
    budget: int | None
    dropped_for_budget: int = 0


@dataclass(frozen=True)
class SummaryResult:
    """What ``Store.summarize`` wrote: the summary, how many memories it covers, whether it replaced
    an earlier version, and the part summaries of a summary chain."""

    memory: Memory
    sources: int
    updated: bool
    parts: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            **self.memory.to_dict(),
            "summarized": self.sources,
            "updated": self.updated,
            "parts": self.parts,
        }


@dataclass(frozen=True)
class PatternChange:
    """One pattern that ``consolidate`` creates, updates (new evidence) or leaves unchanged."""

    # create | update | unchanged
    action: str
    # the pattern's storage row
    row: MemoryRow = field(repr=False)
    evidence_ids: list[str] = field(default_factory=list)
    memory: Memory | None = None

    def to_dict(self) -> dict[str, object]:
        memory = self.memory.to_dict() if self.memory else {}
        return {"action": self.action, **memory, "evidence_ids": self.evidence_ids}


@dataclass(frozen=True)
class ConsolidateResult:
    """What ``consolidate`` found (or, with ``dry_run``, would write)."""

    scanned: int
    patterns: list[PatternChange]
    dry_run: bool = False

    def count(self, action: str) -> int:
        return sum(p.action == action for p in self.patterns)

    def to_dict(self) -> dict[str, object]:
        return {
            "scanned": self.scanned,
            "dry_run": self.dry_run,
            "created": self.count("create"),
            "updated": self.count("update"),
            "unchanged": self.count("unchanged"),
            "patterns": [self._shown(p.to_dict()) for p in self.patterns],
        }

    def _shown(self, pattern: dict[str, object]) -> dict[str, object]:
        # A pattern a dry run would create has no id yet: the one planned is not the one a real run
        # makes.
        return (
            {**pattern, "id": None} if self.dry_run and pattern["action"] == "create" else pattern
        )


@dataclass(frozen=True)
class AuditEntry:
    """One line of the audit log: when, what, which memories, why, and who (never any content)."""

    at: str
    action: str
    ids: list[str]
    reason: str | None = None
    actor: str | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class ForgetPlan:
    """One forget, decided once (``Store.plan_forget``, with the store's clock): exactly which
    memories it takes, and how. What is shown (a confirmation prompt), counted and carried out
    (``Store.forget_planned``) is this object, so a memory recorded meanwhile, or time passing, does
    not change what is forgotten."""

    # every memory it forgets (a text stored in parts, whole), resolved when it was planned
    ids: tuple[str, ...]
    hard: bool
    archive: bool = False
    # the filter that chose them beside the ids named (None: ids only), its cutoffs fixed
    filters: Filters | None = None


@dataclass(frozen=True)
class ForgetResult:
    """What a forget did: how many memories changed, and whether they were purged or archived."""

    forgotten: int
    hard: bool
    archived: bool = False

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class ImportResult:
    """Counts from ``Store.import_records``."""

    # memories stored (a record over the size limit counts each of its linked parts)
    added: int
    skipped: int
    redactions: int
    # records over the size limit, each stored in linked parts
    split: int = 0
    # records that repeat a stored memory and add what was learnt: a new version each
    updated: int = 0

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class Filters:
    """Hard filters, applied before ranking in every engine. ``None`` means "no restriction"."""

    agent_ids: tuple[str, ...] | None = None
    task_id: str | None = None
    types: tuple[str, ...] | None = None
    outcomes: tuple[str, ...] | None = None
    tags: tuple[str, ...] = ()
    # on event_at
    since: datetime | None = None
    until: datetime | None = None
    statuses: tuple[str, ...] | None = ("active",)
    include_expired: bool = False
    # on created_at (forget --older-than)
    created_before: datetime | None = None
    expired_only: bool = False
    # where the text came from (user, agent, tool, web, …), any of
    sources: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        """Every face builds its filters here, so a value that is no type, outcome or status is
        refused the same way everywhere instead of silently matching nothing, and a moment with a
        time zone means the same moment in UTC."""
        for moment in ("since", "until", "created_before"):
            object.__setattr__(self, moment, as_utc_or_none(getattr(self, moment)))
        for field_name in ("tags", "sources", "agent_ids"):
            values = getattr(self, field_name)
            if isinstance(values, (list, tuple)) and len(values) > MAX_TAGS:
                raise BadUsage(
                    f"A filter names at most {MAX_TAGS:,} {field_name.replace('_ids', 's')} (a "
                    f"memory holds at most {MAX_TAGS:,} tags), not {len(values):,}; give fewer."
                )
        for field_name, name, allowed in (
            ("types", "type", MEMORY_TYPES),
            ("outcomes", "outcome", OUTCOMES),
            ("statuses", "status", STATUSES),
        ):
            values = getattr(self, field_name)
            if values is not None:
                values = (values,) if isinstance(values, str) else values
                object.__setattr__(
                    self, field_name, tuple(dict.fromkeys(one_of(v, name, allowed) for v in values))
                )

    def conditions(self, now: datetime) -> list[Condition]:
        """The filters as ``(column, operator, value)`` triples, the one definition that both
        storage engines render (DuckDB with bound parameters, LanceDB with quoted literals).

        Operators: ``in`` (a list; empty matches nothing), ``=``, ``has`` (list column contains),
        ``>=``, ``<=``, ``<``, ``expired`` / ``unexpired`` (``expires_at`` against ``now``). Label
        values are cleaned as stored labels are (``text.clean``), so ``e`` + U+0301 finds ``é``.
        """

        # a label as the write path keeps it: secrets redacted (the rules imported by a filter that
        # names a label, not by every search)
        def stored(value: str, column: str) -> str:
            from .redact import redact_field

            return str(redact_field(clean(str(value)), column)[0])

        out: list[Condition] = []
        for column, values in (
            ("agent_id", self.agent_ids),
            ("type", self.types or None),
            ("outcome", self.outcomes or None),
            ("status", self.statuses or None),
        ):
            if values is not None:
                out.append(
                    (
                        column,
                        "in",
                        [
                            stored(v, column) if column == "agent_id" else clean(str(v))
                            for v in values
                        ],
                    )
                )
        # stored lower-cased (core/prepare.py)
        if self.sources:
            out.append(("source", "in", [clean(str(v)).lower() for v in self.sources]))
        if self.task_id is not None:
            out.append(("task_id", "=", stored(self.task_id, "task_id")))
        out.extend(("tags", "has", stored(tag, "tags")) for tag in self.tags)
        if self.since is not None:
            out.append(("event_at", ">=", self.since))
        if self.until is not None:
            out.append(("event_at", "<=", self.until))
        if self.created_before is not None:
            out.append(("created_at", "<", self.created_before))
        if self.expired_only:
            out.append(("expires_at", "expired", now))
        elif not self.include_expired:
            out.append(("expires_at", "unexpired", now))
        return out
