"""The ranking signals (DESIGN §5.3), as data: each is a small object with a name, the weight it
reads from ``[ranking]`` and its values for the candidates, one column over all of them (numpy, not
a Python call per candidate); factors scale the weighted sum.

``final = Σ weight·signal × Π factor``. Adding a signal is one entry in ``SIGNALS`` (with its weight
in ``config.Ranking``) and a test in tests/test_ranking.py. A signal that reads a memory's text is
computed one memory at a time (``each``); ``Signal.value`` is any signal's value for one memory.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, TypeAlias

from ..config import Ranking
from ..lazy import once
from ..models import Explanation
from ..storage.rows import MemoryRow, keyword_text
from ..text import identifier_parts, identifier_tokens, identifiers
from ..text.when import Asked, Span, asked, day, local_day, spans_of
from .columns import Rows, columns, micros
from .query import MAX_QUERY_IDENTIFIERS
from .relevance import Candidate

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# one float per candidate
Floats: TypeAlias = "npt.NDArray[np.float64]"

_TROUBLESHOOTING = re.compile(
    r"(?i)\b(error|errors|fail\w*|why|bug|broken|exception|crash\w*|timeout|denied|refused|traceback|fix\w*|"
    r"[45]\d\d|can'?t|cannot|unable|won'?t|doesn'?t work|not "
    r"working)\b|\bE[A-Z]{4,}\b|\w(Error|Exception)\b|"
    r"错误|失败|报错|异常|为什么|超时|崩溃|无法|不能"
)


@dataclass
class Context:
    """What the caller knows about the present: the task at hand, its environment, the query's
    intent."""

    now: datetime
    task_id: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    troubleshooting: bool = False
    # --troubleshoot: fixed failures go first
    fixes_first: bool = False
    query: str = ""
    # what the query says went wrong (``lessons.signatures.of_query``), for troubleshooting
    family: str | None = None
    signature: str | None = None
    # reinforcement: each judged memory's standing, -1 to 1 (``core.injections.standing``)
    standing: dict[str, float] = field(default_factory=dict)

    @once
    def identifiers(self) -> tuple[str, ...]:
        # each weighed against every candidate under the in-memory index's lock (review AP)
        return identifiers(self.query, MAX_QUERY_IDENTIFIERS)

    @once
    def signals(self) -> tuple[Signal, ...]:
        """The signals that apply to this query (``applying``), chosen once per search."""
        return applying(self)

    @once
    def asked(self) -> Asked | None:
        """What the query asks of time (``text.when.asked``), read once per search. Not for
        ``--troubleshoot``: an error's own text names when it happened (a log line's timestamp),
        not a time it asks about."""
        return asked(self.query, self.now) if self.query and not self.fixes_first else None

    def settle(self) -> Context:
        """Work out now what the query's text alone decides (its identifiers, what it asks of time,
        the signals that apply): a search does it before it takes the in-memory index's lock,
        which every other search of the process waits for."""
        _ = self.identifiers, self.signals
        return self


# a signal's values for the candidates' rows, given their relevances
Column: TypeAlias = Callable[[Sequence[MemoryRow], Floats, Context, Ranking], Floats]


def is_troubleshooting(query: str) -> bool:
    return bool(_TROUBLESHOOTING.search(query))


def _half_life(kind: str | None, weights: Ranking) -> float:
    return max(float(getattr(weights, f"half_life_{kind}", weights.half_life_episodic)), 1e-6)


def recency(rows: Sequence[MemoryRow], rel: Floats, ctx: Context, weights: Ranking) -> Floats:
    """Exponential decay with the half-life of the memory's type."""
    import numpy as np

    found = columns(rows)
    # the exact microseconds, divided as ``timedelta.total_seconds`` divides them
    days = (micros(ctx.now) - found.event_at) / 1e6 / 86400
    kinds = found.type
    half_life = kinds.mapped(
        {k: _half_life(k, weights) for k in kinds.names}, _half_life(None, weights)
    )
    exponent = -math.log(2) * np.maximum(0.0, days) / half_life
    # math.exp, not numpy's: numpy's differs from it in the last bit for about one value in twenty,
    # and a memory's score must not depend on how many memories were scored with it
    return np.array([math.exp(value) for value in exponent.tolist()])


# a memory's outcome, unless it is a failure
_OUTCOMES = {"success": 0.8, "neutral": 0.5}


def outcome(rows: Sequence[MemoryRow], rel: Floats, ctx: Context, weights: Ranking) -> Floats:
    """A fixed failure is a lesson (1.0); an unfixed one only helps someone troubleshooting."""
    import numpy as np

    unfixed = 0.6 if ctx.troubleshooting else 0.1
    found = columns(rows)
    failed = found.outcome.equals("failure")
    values = found.outcome.mapped(_OUTCOMES, 0.5)
    return np.where(failed, np.where(found.resolved, 1.0, unfixed), values)


def importance(rows: Sequence[MemoryRow], rel: Floats, ctx: Context, weights: Ranking) -> Floats:
    return columns(rows).importance


def same_task(rows: Sequence[MemoryRow], rel: Floats, ctx: Context, weights: Ranking) -> Floats:
    import numpy as np

    task = ctx.task_id
    if not task:
        return np.zeros(len(rows))
    return columns(rows).task.equals(task).astype(np.float64)


def each(value: Callable[[MemoryRow, float, Context, Ranking], float]) -> Column:
    """The column of a signal whose ``value`` reads one memory at a time (its text, its times)."""

    def column(rows: Sequence[MemoryRow], rel: Floats, ctx: Context, weights: Ranking) -> Floats:
        import numpy as np

        values = [value(row, r, ctx, weights) for row, r in zip(rows, rel.tolist())]
        return np.array(values, dtype=np.float64)

    return column


@dataclass(frozen=True)
class _Held:
    """The identifiers a memory's text holds, and its compound ones by their context (the number
    of parts and every part but the value), sorted: where a conflict with a query's is looked up."""

    tokens: frozenset[str]
    by_context: dict[tuple[int, tuple[str, ...]], tuple[str, ...]]


@lru_cache(maxsize=8192)
def _held_text(content: str, resolution: str, tags: tuple[str, ...]) -> _Held:
    # keyed on the row's own strings, whose hashes Python keeps: the index's rows are the same
    # objects search after search, so a hit costs no text built and no text hashed
    row = MemoryRow("", content, resolution=resolution or None, tags=list(tags))
    tokens = frozenset(identifier_tokens(keyword_text(row)))
    by_context: dict[tuple[int, tuple[str, ...]], list[str]] = {}
    for token in sorted(tokens):
        parts = identifier_parts(token)
        by_context.setdefault((len(parts), tuple(parts[:-1])), []).append(token)
    return _Held(tokens, {key: tuple(found) for key, found in by_context.items()})


def _held(row: MemoryRow) -> _Held:
    return _held_text(row.content, row.resolution or "", tuple(row.tags or ()))


# a query's identifier, its value (None unless compound) and its context
_Wanted: TypeAlias = "tuple[str, str | None, tuple[int, tuple[str, ...]]]"


@lru_cache(maxsize=256)
def _wanted(wanted: tuple[str, ...]) -> tuple[_Wanted, ...]:
    """Each of a query's identifiers with its value (None unless compound) and its context."""
    out = []
    for i in wanted:
        parts = identifier_parts(i)
        out.append((i, parts[-1] if len(parts) > 1 else None, (len(parts), tuple(parts[:-1]))))
    return tuple(out)


def _credit(held: frozenset[str], wanted: tuple[_Wanted, ...]) -> float:
    """The share of the query's identifiers (``wanted``) a memory holding ``held`` holds exactly
    (a port, a version, a file or function name): 1 each held whole, 0.5 for a compound one whose
    value (the port, the file) it holds without its context (the host, the directory). The keyword
    side splits ``127.0.0.1:5432`` into words, where the host's three numbers outweigh the port."""
    credit = [
        1.0 if i in held else 0.5 if value is not None and value in held else 0.0
        for i, value, _ in wanted
    ]
    return sum(credit) / len(credit)


def identifier_conflicts(row: MemoryRow, ctx: Context) -> list[tuple[str, str]]:
    """(query's, memory's) compound identifiers with the same context and another value: the memory
    is about something else (``127.0.0.1:6379`` for ``127.0.0.1:5432``, ``numpy==1.26.4`` for
    ``numpy==2.1.0``)."""
    if not ctx.identifiers:
        return []
    held = _held(row)
    out = []
    for wanted, value, context in _wanted(ctx.identifiers):
        if value is None or wanted in held.tokens:
            continue
        out += [(wanted, token) for token in held.by_context.get(context, ()) if token != wanted]
    return out


def _times(row: MemoryRow) -> tuple[Span, ...]:
    """The times a memory speaks of, or, when it names none, the day it was said."""
    return spans_of(row.metadata) or (day(local_day(row.event_at)),)


def closeness(span: Span, window: Span) -> float:
    """1 inside the window, then halving every ``window.days`` days (at least one) away from it."""
    gap = span.gap(window)
    return 1.0 if gap == 0 else 0.5 ** (gap / window.days)


def in_window(row: MemoryRow, rel: float, ctx: Context, weights: Ranking) -> float:
    """How near the time a memory speaks of (or was said) is to the window the query names."""
    assert ctx.asked is not None and ctx.asked.window is not None
    window = ctx.asked.window
    return max(closeness(span, window) for span in _times(row))


def dated(row: MemoryRow, rel: float, ctx: Context, weights: Ranking) -> float:
    """For a query that asks when: 1 for a memory that says when (a date, "yesterday", 上周)."""
    return 1.0 if spans_of(row.metadata) else 0.0


def _identifiers(rows: Sequence[MemoryRow], rel: Floats, ctx: Context, weights: Ranking) -> Floats:
    """Each row's share of the query's identifiers (``_credit``); a row that holds none of them or
    their values (most) is 0 after one set test."""
    import numpy as np

    out = np.zeros(len(rows))
    if not ctx.identifiers:
        return out
    wanted = _wanted(ctx.identifiers)
    every = frozenset(i for i, _, _ in wanted) | {v for _, v, _ in wanted if v is not None}
    for position, row in enumerate(rows):
        held = _held(row).tokens
        if not held.isdisjoint(every):
            out[position] = _credit(held, wanted)
    return out


def _has_window(ctx: Context) -> bool:
    return ctx.asked is not None and ctx.asked.window is not None


def _asks_when(ctx: Context) -> bool:
    return ctx.asked is not None and ctx.asked.when


@dataclass(frozen=True)
class Signal:
    name: str
    # the Ranking field that weighs it
    weight: str
    # its values for the candidates' rows, given their relevances
    column: Column
    # whether it applies to this query at all (None: always); one that does not apply neither
    # scores nor shows in --explain, so a query without its cue ranks exactly as without it
    applies: Callable[[Context], bool] | None = None

    def value(self, row: MemoryRow, rel: float, ctx: Context, weights: Ranking) -> float:
        """Its value for one memory of relevance ``rel``."""
        import numpy as np

        return float(self.column([row], np.array([rel], dtype=np.float64), ctx, weights)[0])


SIGNALS: tuple[Signal, ...] = (
    Signal("relevance", "w_relevance", lambda rows, rel, ctx, weights: rel),
    Signal("recency", "w_recency", recency),
    Signal("outcome", "w_outcome", outcome),
    Signal("importance", "w_importance", importance),
    Signal("same_task", "w_same_task", same_task),
    Signal("identifier", "w_identifier", _identifiers),
    Signal("time_window", "w_time_window", each(in_window), _has_window),
    Signal("dated", "w_dated", each(dated), _asks_when),
)


def applying(ctx: Context) -> tuple[Signal, ...]:
    """The signals that apply to this query."""
    return tuple(s for s in SIGNALS if s.applies is None or s.applies(ctx))


def time_note(row: MemoryRow, ctx: Context) -> str | None:
    """For ``--explain``: the window the query names and the times the memory speaks of."""
    if ctx.asked is None:
        return None
    spans = spans_of(row.metadata)
    memory = (
        ", ".join(f"{s.label()} ({s.said})" for s in spans)
        if spans
        else f"said {local_day(row.event_at)}"
    )
    return f"time: asked {ctx.asked.label()}; this memory: {memory}"


def env_mismatches(row: MemoryRow, env: dict[str, str]) -> list[str]:
    recorded = row.env or {}
    return [
        key for key, value in env.items() if key in recorded and str(recorded[key]) != str(value)
    ]


def _env_factor(row: MemoryRow, ctx: Context, weights: Ranking) -> tuple[float, str | None]:
    mismatched = env_mismatches(row, ctx.env)
    if not mismatched:
        return 1.0, None
    note = "env differs: " + ", ".join(f"{k}={row.env[k]} (now {ctx.env[k]})" for k in mismatched)
    return weights.env_mismatch_factor, note


def _validity_factor(row: MemoryRow, ctx: Context, weights: Ranking) -> tuple[float, str | None]:
    if row.valid_until is not None and row.valid_until <= ctx.now:
        return weights.past_validity_factor, "past valid_until"
    return 1.0, None


def _identifier_factor(row: MemoryRow, ctx: Context, weights: Ranking) -> tuple[float, str | None]:
    conflicts = identifier_conflicts(row, ctx)
    if not conflicts:
        return 1.0, None
    return weights.identifier_conflict_factor, "names " + ", ".join(
        f"{held} (asked: {wanted})" for wanted, held in conflicts[:3]
    )


def _use_factor(row: MemoryRow, ctx: Context, weights: Ranking) -> tuple[float, str | None]:
    """Reinforcement: a memory the agent used ranks higher, one it ignored or was misled by lower,
    by at most ``use_factor``."""
    standing = ctx.standing.get(row.id)
    if standing is None or not weights.use_factor:
        return 1.0, None
    factor = 1.0 + weights.use_factor * standing
    return factor, f"reinforcement: standing {standing:+.2f} from its use (×{factor:.3f})"


def _bounded(rows: Sequence[MemoryRow]) -> bool:
    """Whether any of ``rows`` has a valid_until (a hit's explanation asks of its row alone)."""
    if isinstance(rows, Rows):
        return bool(rows.columns.bounded.any())
    return any(r.valid_until for r in rows)


@dataclass(frozen=True)
class Factor:
    # its value for one memory, and a note for --explain when it is not 1
    value: Callable[[MemoryRow, Context, Ranking], tuple[float, str | None]]
    # whether it can be other than 1 for any of these memories: when not, it is not computed
    applies: Callable[[Sequence[MemoryRow], Context, Ranking], bool]


#: Factors after the confidence factor.
FACTORS: tuple[Factor, ...] = (
    Factor(_env_factor, lambda rows, ctx, weights: bool(ctx.env)),
    Factor(_validity_factor, lambda rows, ctx, weights: _bounded(rows)),
    # only a compound identifier (a context and a value) can conflict
    Factor(
        _identifier_factor,
        lambda rows, ctx, weights: any(v is not None for _, v, _ in _wanted(ctx.identifiers)),
    ),
    Factor(_use_factor, lambda rows, ctx, weights: bool(ctx.standing and weights.use_factor)),
)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass
class Scored:
    """One candidate's final score and what made it: each signal's value and the factors' product
    and notes.

    The ``--explain`` dictionary is built from it only for the hits a search returns (``explain``);
    building it for every candidate cost more than the rest of the ranking."""

    final: float
    values: dict[str, float]
    # each signal's value times its weight
    parts: dict[str, float]
    confidence_factor: float
    factor: float
    notes: list[str]


@dataclass
class Scores:
    """Every candidate's score as columns, one entry per row: each signal's values, the confidence
    factor, the product of all factors and the final score."""

    rows: Sequence[MemoryRow]
    values: dict[str, Floats]
    confidence_factor: Floats
    factor: Floats
    final: Floats
    ctx: Context
    weights: Ranking

    def scored(self, i: int) -> Scored:
        """The ``i``-th row's ``Scored``, with its factors' notes."""
        row, ctx, weights = self.rows[i], self.ctx, self.weights
        values = {name: float(column[i]) for name, column in self.values.items()}
        parts = {s.name: float(getattr(weights, s.weight)) * values[s.name] for s in ctx.signals}
        notes = [
            note
            for factor in FACTORS
            if factor.applies([row], ctx, weights)
            for note in (factor.value(row, ctx, weights)[1],)
            if note
        ]
        return Scored(
            float(self.final[i]),
            values,
            parts,
            float(self.confidence_factor[i]),
            float(self.factor[i]),
            notes,
        )


class Found(dict[str, Scored]):
    """Each candidate's ``Scored`` by id, built when first asked for: only the hits a search shows
    need one."""

    def __init__(self, scores: Scores) -> None:
        super().__init__()
        self.scores = scores
        self.position = {row.id: i for i, row in enumerate(scores.rows)}

    def __missing__(self, mid: str) -> Scored:
        found = self[mid] = self.scores.scored(self.position[mid])
        return found


def score(
    rows: Sequence[MemoryRow], rel: Sequence[float], ctx: Context, weights: Ranking
) -> Scores:
    """Every candidate's final score (``rel``: their entries of ``relevance.relevances``): each
    signal and factor one column over all of them. In the order of ``scored``'s arithmetic, so a
    score is the same to the last bit whichever way it is computed."""
    import numpy as np

    relevances = np.asarray(rel, dtype=np.float64)
    # every signal reads the same columns
    rows = rows if isinstance(rows, Rows) else Rows(rows)
    values = {s.name: s.column(rows, relevances, ctx, weights) for s in ctx.signals}
    total = np.zeros(len(rows))
    for s in ctx.signals:
        total = total + float(getattr(weights, s.weight)) * values[s.name]
    confidence_factor = 0.5 + 0.5 * columns(rows).confidence
    factor = confidence_factor
    for apply in FACTORS:
        if apply.applies(rows, ctx, weights):
            factor = factor * np.array([apply.value(row, ctx, weights)[0] for row in rows])
    return Scores(rows, values, confidence_factor, factor, total * factor, ctx, weights)


def scored(row: MemoryRow, ctx: Context, weights: Ranking, rel: float) -> Scored:
    """The final score of one candidate (``rel``: its entry of ``relevance.relevances``)."""
    return score([row], [rel], ctx, weights).scored(0)


def explain(found: Scored, candidate: Candidate, note: str | None = None) -> Explanation:
    """Each signal's contribution to ``found`` (``--explain``, and every hit's ``explain``), with
    a ``note`` of its own (``time_note``)."""
    signals = {
        name: (round(v, 4) if name in ("relevance", "recency", "time_window") else v)
        for name, v in found.values.items()
    }
    return {
        "vector": {"rank": candidate.vector_rank, "cosine": _round(candidate.vector_score)},
        "keyword": {"rank": candidate.keyword_rank, "bm25": _round(candidate.keyword_score)},
        "signals": signals,
        "contributions": {k: round(v, 4) for k, v in found.parts.items()},
        "confidence_factor": round(found.confidence_factor, 4),
        "factor": round(found.factor, 4),
        "notes": [*found.notes, note] if note else list(found.notes),
        "score": round(found.final, 6),
    }
