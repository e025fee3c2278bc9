"""Caller input → a ``MemoryRow``: validation, defaults, redaction, quarantine, keys (DESIGN §6).

Everything here is checked before anything is written: invalid input is refused whole.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import BadUsage, InvalidInput
from ..models import MAX_TAGS, MEMORY_TYPES, OUTCOMES, STATUSES, one_of
from ..poisoning import (
    DERIVED,
    QUARANTINE_CONFIDENCE,
    QUARANTINE_TAG,
    assess,
    quarantine_record,
    trust,
)
from ..redact import redact_field
from ..safefs.reading import MAX_DEPTH, too_deep
from ..storage.rows import MemoryRow
from ..text import MAX_LABEL, clean, fits_label, without_surrogates
from ..text.when import EVENT_TIME, spans_of, spoken
from ..timeutil import as_utc, check_past, parse_duration, parse_future, parse_time
from .scope import by_principal

if TYPE_CHECKING:
    from ..config import Config

_IMPORTANCE_BY_TRIGGER = {
    "tool_error": 0.8,
    "user_feedback": 0.7,
    "user_correction": 0.8,
    "task_end": 0.6,
    "task_start": 0.4,
    "tool_call": 0.3,
    "note": 0.5,
}
_CONFIDENCE_BY_SOURCE = {"user": 0.9, "tool": 0.8, "agent": 0.6, "import": 0.6, "web": 0.3}
# the triggers with a default importance; any other text is allowed
TRIGGERS = tuple(_IMPORTANCE_BY_TRIGGER)
SOURCES = tuple(_CONFIDENCE_BY_SOURCE)
# a source name nobody listed is untrusted, like the web
_UNKNOWN_SOURCE_CONFIDENCE = 0.3
# the most importance a memory whose writer's claims are not taken gets (an imported file's record,
# a token principal's write): a memory's whose trigger says nothing
CLAIMED_IMPORTANCE = 0.5


def derived_importance(origin: str, importance: float) -> float:
    """The importance of a memory built from others (a summary, its parts, a pattern) whose
    ``origin`` (``derived_source``) says a token principal's text is among them: at most
    ``CLAIMED_IMPORTANCE``, as that principal's own writes (``claimed``), whoever builds it (its
    tool call, the user's ``consolidate`` or ``summarize``): repeating a claim and consolidating it
    must not raise it past what writing it once gets."""
    return min(importance, CLAIMED_IMPORTANCE) if by_principal(origin) else importance


def default_importance(trigger: object, outcome: object) -> float:
    """The importance a memory gets when its writer states none: its trigger's, at least 0.7 for a
    failure."""
    named = _IMPORTANCE_BY_TRIGGER.get(trigger, 0.5) if isinstance(trigger, str) else 0.5
    return max(named, 0.7 if outcome == "failure" else 0.0)


def source_confidence(source: str) -> float:
    """The confidence a memory of ``source`` gets when its writer states none."""
    return _CONFIDENCE_BY_SOURCE.get(
        source, 0.5 if trust(source) == "trusted" else _UNKNOWN_SOURCE_CONFIDENCE
    )


def claimed(record: Mapping[str, Any], provenance: str | None) -> dict[str, Any]:
    """The record with its source: the writer's ``provenance`` when given (the source the record
    claims kept as ``metadata.claimed_source``), else the record's own, else ``import``. With a
    provenance the record does not choose its confidence nor its importance either (every score is
    scaled by the one and raised by the other): at most what that source gets by default, and
    what a memory whose trigger says nothing gets (``CLAIMED_IMPORTANCE``, also when its trigger or
    outcome would give more), a higher claim kept as ``metadata.claimed_confidence`` /
    ``claimed_importance``. The one rule for every writer whose claims are not taken: an import
    file (``import``), a token principal on a shared server (``Scope.provenance``)."""
    if provenance is None:
        return {**record, "source": record.get("source") or "import"}
    values = {**record, "source": provenance}
    metadata = record.get("metadata")
    if not isinstance(metadata, Mapping | None):
        # refused by validation, naming metadata
        return values
    claims: dict[str, Any] = {}
    said = record.get("source")
    if said and said != provenance:
        claims["claimed_source"] = said
    for name, most in (
        ("confidence", source_confidence(provenance)),
        ("importance", CLAIMED_IMPORTANCE),
    ):
        value = record.get(name)
        if value is None and name == "importance":
            implied = default_importance(record.get("trigger"), record.get("outcome"))
            values[name] = min(implied, most)
        # a value out of range is left to validation, which refuses it
        elif isinstance(value, int | float) and not isinstance(value, bool) and most < value <= 1:
            values[name] = most
            claims[f"claimed_{name}"] = value
    if claims:
        values["metadata"] = {**(metadata or {}), **claims}
    return values


@dataclass(frozen=True)
class Limits:
    """What ``prepare`` needs of the settings."""

    default_agent: str
    max_bytes: int
    # a memory type's default time to live ("24h"; "" for none)
    ttls: Mapping[str, str]

    @classmethod
    def of(cls, config: Config) -> Limits:
        return cls(
            config.default_agent,
            config.max_content_bytes,
            {t: getattr(config, f"{t}_ttl") for t in MEMORY_TYPES},
        )


@dataclass
class Prepared:
    """A validated row ready for the ledger, plus how many secrets were redacted."""

    row: MemoryRow
    redactions: int


def uuid7() -> str:
    """A time-ordered UUIDv7 (RFC 9562): 48-bit milliseconds, then random bits."""
    millis = time.time_ns() // 1_000_000
    rand = int.from_bytes(secrets.token_bytes(10), "big")
    value = (
        (millis << 80)
        | (0x7 << 76)
        | ((rand >> 68) & 0xFFF) << 64
        | (0b10 << 62)
        | (rand & ((1 << 62) - 1))
    )
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def default_key(agent_id: str, task_id: str | None, step: int | None, content: str) -> str:
    payload = json.dumps([agent_id, task_id, step, content], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


def derived_key(*parts: Any) -> str:
    """The key of a memory hindsight derives (a summary, a pattern, a hook event) from its
    identity."""
    return hashlib.sha256(json.dumps(list(parts)).encode()).hexdigest()[:32]


def label(value: Any, name: str, required: bool = False) -> str | None:
    if value is not None and (not isinstance(value, (str, int)) or isinstance(value, bool)):
        raise BadUsage(f"{name} must be a string, not {type(value).__name__}.")
    text = "" if value is None else clean(str(value))
    # judged after cleaning: a label of only control characters is empty
    if not text:
        if required:
            raise BadUsage(f"{name} must not be empty.")
        return None
    if not fits_label(text):
        raise BadUsage(f"{name} must be one line of at most {MAX_LABEL} characters.")
    return text


def _unit(value: Any, name: str, default: float) -> float:
    if value is None:
        return default
    try:
        number = float(value)
    # OverflowError: an integer past a float's range (review BO: an import record's importance
    # of 4,000 digits ended `hindsight import` with a traceback)
    except (TypeError, ValueError, OverflowError):
        raise BadUsage(f"{name} must be a number between 0 and 1, not {value!r:.40}.") from None
    if not 0.0 <= number <= 1.0 or number != number:
        raise BadUsage(f"{name} must be between 0 and 1, not {value!r}.")
    return number


def choice(value: Any, name: str, choices: tuple[str, ...], default: str) -> str:
    return default if value is None or value == "" else one_of(value, name, choices)


def _time(value: Any, name: str, future: bool = False) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return as_utc(value, name)
    return (parse_future if future else parse_time)(str(value), name)


def _past(value: Any, name: str, at: datetime) -> datetime | None:
    """A time that says when something happened or was recorded, given as text (a command line, a
    file, a tool call): never later than ``at``. A ``datetime`` is the store's own (a summary's
    time is its newest source's) or a Python caller's, taken as it is."""
    found = _time(value, name)
    if found is None or isinstance(value, datetime):
        return found
    return check_past(found, name, at)


def _string_map(value: Any, name: str) -> dict[str, str]:
    """An environment: at most ``MAX_ENV_KEYS`` keys (as many as a search compares), each a label,
    each value at most ``MAX_LABEL`` characters (a tool's version, an OS). Unbounded, it was
    redacted while the write held every agent's writes (alice's value of 256 KB: 18 s, 1,000 keys
    of 200 characters: 27 s; review AS) and kept in every index."""
    from ..search.query import MAX_ENV_KEYS

    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise BadUsage(f"{name} must be an object of key=value pairs.")
    if len(value) > MAX_ENV_KEYS:
        raise BadUsage(
            f"{name} holds at most {MAX_ENV_KEYS} keys, not {len(value):,}; give those that "
            "matter (e.g. tool_version, os)."
        )
    out: dict[str, str] = {}
    for key, item in value.items():
        text = clean(str(item))
        if len(text) > MAX_LABEL:
            raise BadUsage(
                f"{name} value of {str(key)[:40]!r} is {len(text):,} characters; a value holds "
                f"at most {MAX_LABEL} (a version, an OS)."
            )
        out[str(label(key, f"{name} key", required=True))] = text
    return out


# how far over the byte limit a text's length refuses it before it is cleaned
FAR_OVER = 4


def _content(fields: Mapping[str, Any], max_bytes: int) -> tuple[str, str | None, int]:
    """The content and resolution, cleaned, size-checked and redacted; and how many secrets went."""
    raw = fields.get("content")
    if not isinstance(raw, str):
        raise BadUsage("content must be a string: the text of the memory.")
    content = _sized(raw, "content", max_bytes)
    if not content:
        raise BadUsage(
            "content is empty: give the memory some text (or `-` to read it from stdin)."
        )
    content, redactions = redact_field(content, "content")
    resolution = fields.get("resolution")
    if resolution is not None:
        if not isinstance(resolution, str):
            raise BadUsage("resolution must be a string.")
        # the fix is a text of the memory's as well, read with it at every hit: within the same
        # limit (unbounded, alice's 256 KB resolution held every agent's writes 24 s while it
        # was redacted; review AS)
        resolution, n = redact_field(_sized(resolution, "resolution", max_bytes), "resolution")
        redactions += n
    return content, resolution or None, redactions


def _sized(raw: str, name: str, max_bytes: int) -> str:
    """``raw`` (a text of the memory: its content or its resolution) cleaned, if it fits
    ``max_bytes``; InvalidInput if not."""
    # Cleaning only drops characters: a text this far over cannot fit, and is refused before a
    # cleaning and a redaction of all of it (50 MB took 4 minutes to be refused)
    if len(raw) > FAR_OVER * max_bytes:
        raise InvalidInput(
            f"{name} is over {FAR_OVER * max_bytes} characters, far over the {max_bytes}-byte "
            "limit: split it, summarise it, or raise [limits] max_content_bytes in config.toml."
        )
    text = clean(raw)
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise InvalidInput(
            f"{name} is {size} bytes, over the {max_bytes}-byte limit: split it, summarise it, "
            "or raise [limits] max_content_bytes in config.toml."
        )
    return text


# a step, a version, a seen count: the ledger keeps them as 32-bit integers, which a count raised
# by one at each merge or edit must not outgrow
MAX_WHOLE = 1_000_000_000


def _step(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or (
        not isinstance(value, int) and not (isinstance(value, str) and value.isdecimal())
    ):
        raise BadUsage(f"step must be a whole number, not {value!r}.")
    # (a number past 4,300 digits cannot even be printed)
    if (isinstance(value, str) and len(value) > 12) or int(value) > MAX_WHOLE:
        raise BadUsage(f"step must be at most {MAX_WHOLE:,}.")
    if int(value) < 0:
        raise BadUsage("step must be 0 or more.")
    return int(value)


def _tags(value: Any) -> list[str]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise BadUsage("tags must be a list of strings.")
    # kept in a dict: a list's `in` test made each tag cost as much as all before it
    tags: dict[str, None] = {}
    for tag in value:
        tags[str(label(tag, "tag", required=True))] = None
        if len(tags) > MAX_TAGS:
            raise BadUsage(f"a memory takes at most {MAX_TAGS:,} tags; give fewer.")
    return list(tags)


# bytes of a memory's metadata as JSON: as much as its text may hold in all (64 parts of 16 KiB), and
# far more than any label, call or source; a larger value (a transcript's 50 MB working directory, an
# import's blob) would be stored whole and read again with every hit
MAX_METADATA = 1 << 20


def _metadata(value: Any) -> tuple[dict[str, Any], int]:
    if not isinstance(value, Mapping):
        raise BadUsage("metadata must be an object (use --meta KEY=VALUE).")
    # before anything walks it: deeper than a walker's stack reaches (or a cycle)
    if too_deep(value):
        raise BadUsage(f"metadata is nested more than {MAX_DEPTH} levels deep; flatten it.")
    try:
        # NaN and Infinity are not JSON: stored, they would end every `--json` output in text
        # that no JSON reader (jq, another hindsight's import, Postgres) takes
        text = json.dumps(without_surrogates(value), ensure_ascii=False, allow_nan=False)
        metadata = json.loads(text)
    except (TypeError, ValueError):
        raise BadUsage(
            "metadata must contain only JSON values (text, finite numbers, true, false, null, "
            "lists and objects)."
        ) from None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_METADATA:
        raise BadUsage(
            f"metadata is {size:,} bytes of JSON, more than the {MAX_METADATA:,} a memory keeps; "
            "keep large data in a file and name the file in metadata."
        )
    redacted, count = redact_field(metadata, "metadata")
    return _owned(dict(redacted)), count


def _owned(metadata: dict[str, Any]) -> dict[str, Any]:
    """``metadata`` with the keys hindsight writes and reads in the shape its readers take: the
    times a text speaks of as real days (``spans_of``; an export's, imported again, are kept) and a
    stated quarantine as ``assess`` writes one (``quarantine_record``). As given, a token
    principal's ``event_time`` of the calendar's last day ended every search of the owner's that
    names a time with ``OverflowError``, and her quarantine of numbers the owner's page of her
    memory in ``hindsight ui`` (review BR)."""
    spans = [{**s.to_json(), "said": s.said[:MAX_LABEL]} for s in spans_of(metadata)]
    metadata.pop(EVENT_TIME, None)
    held = quarantine_record(metadata.pop("quarantine", None))
    owned = {**({EVENT_TIME: spans} if spans else {}), **({"quarantine": held} if held else {})}
    return {**metadata, **owned}


def _expiry(
    fields: Mapping[str, Any], memory_type: str, limits: Limits, now: datetime, keep_identity: bool
) -> datetime | None:
    expires_at = _time(fields.get("expires_at"), "expires_at", future=True)
    ttl = fields.get("ttl")
    if ttl is not None and ttl != "":
        span = parse_duration(str(ttl), "ttl")
        # it would be gone before anyone could read it
        if span.total_seconds() <= 0:
            raise BadUsage(
                f"ttl must be longer than 0, not {ttl!r}: give e.g. 30m, 2h or 7d, or none to "
                f"keep it."
            )
        return now + span
    if expires_at is None and limits.ttls.get(memory_type) and not keep_identity:
        return now + parse_duration(limits.ttls[memory_type], f"{memory_type} ttl")
    return expires_at


def _source(fields: Mapping[str, Any], own: bool) -> str:
    """Who the text comes from; ``hindsight`` (a derived memory's) only when hindsight itself, or an
    import of its own export (``own``), writes it: a caller cannot dress text up as hindsight's."""
    source = (label(fields.get("source"), "source") or "agent").lower()
    if (source == DERIVED or source.startswith(DERIVED + ":")) and not own:
        raise BadUsage(
            f"source {source!r} is hindsight's own (summaries, patterns); give where the text "
            "comes from instead, e.g. agent, user, tool or web."
        )
    return source


def _labels(
    values: Mapping[str, str | None], tags: list[str]
) -> tuple[dict[str, str | None], list[str], int]:
    """Labels with their secrets redacted (the label rules: ``auth:oauth2`` is a tag, not a
    password)."""
    out: dict[str, str | None] = {}
    total = 0
    for name, value in values.items():
        out[name], n = redact_field(value, name)
        total += n
    redacted, n = redact_field(tags, "tags")
    return out, [str(t) for t in dict.fromkeys(redacted)], total + n


def _quarantine(row: MemoryRow) -> None:
    """Instruction-like text from an untrusted source, in any field: kept, but never trusted."""
    found = assess(
        {
            "content": row.content,
            "resolution": row.resolution,
            "tags": row.tags,
            "task_id": row.task_id,
            "trigger": row.trigger,
            "agent_id": row.agent_id,
            "metadata": row.metadata,
            "env": row.env,
        },
        row.source,
    )
    if found:
        row.confidence = min(row.confidence, QUARANTINE_CONFIDENCE)
        row.metadata = {**row.metadata, "quarantine": found}
        if QUARANTINE_TAG not in row.tags:
            row.tags.append(QUARANTINE_TAG)


def _said_at(value: Any, stored: datetime) -> datetime:
    """When the text was said, in the writer's own time zone when it gave one (its "yesterday" is
    a day of that calendar)."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            pass
    return stored


def _event_time(row: MemoryRow, said_at: Any) -> None:
    """The times the text speaks of ("yesterday", "last week", "in March", 昨天), resolved against
    when it was said (``text.when``): what a time-anchored search matches."""
    spans = spoken(row.content, _said_at(said_at, row.event_at))
    if spans:
        row.metadata = {**row.metadata, EVENT_TIME: [s.to_json() for s in spans]}


def prepare(
    fields: Mapping[str, Any],
    limits: Limits,
    now: datetime,
    keep_identity: bool = False,
    derived: bool = False,
) -> Prepared:
    """Validate and normalise one memory. ``keep_identity`` (import) keeps id, timestamps and
    status; ``derived``: hindsight itself writes it (a summary, a pattern)."""
    content, resolution, redactions = _content(fields, limits.max_bytes)
    memory_type = choice(fields.get("type"), "type", MEMORY_TYPES, "episodic")
    outcome = choice(fields.get("outcome"), "outcome", OUTCOMES, "unknown")
    trigger = label(fields.get("trigger"), "trigger")
    source = _source(fields, keep_identity or derived)
    agent_label = label(fields.get("agent_id"), "agent") or limits.default_agent
    task_label = label(fields.get("task_id"), "task")
    step = _step(fields.get("step"))
    # a token principal's text (or what is built from it) never weighs more than writing it once
    # gets, whoever writes this version of it (the owner's hook giving her failure its fix, a
    # merge, an edit): one cap for every write (review Y)
    importance = derived_importance(
        source,
        _unit(fields.get("importance"), "importance", default_importance(trigger, outcome)),
    )
    confidence = _unit(fields.get("confidence"), "confidence", source_confidence(source))
    labels, tags, n = _labels(
        {
            "trigger": trigger,
            "agent_id": agent_label,
            "task_id": task_label,
            "idempotency_key": label(fields.get("idempotency_key") or fields.get("key"), "key"),
            "supersedes": label(fields.get("supersedes"), "supersedes"),
        },
        _tags(fields.get("tags") or []),
    )
    metadata, m = _metadata(fields.get("metadata") or {})
    env, e = redact_field(_string_map(fields.get("env"), "env"), "env")
    agent, task_id = str(labels["agent_id"]), labels["task_id"]
    row = MemoryRow(
        id=uuid7(),
        content=content,
        type=memory_type,
        agent_id=agent,
        task_id=task_id,
        step=step,
        trigger=labels["trigger"],
        outcome=outcome,
        resolution=resolution,
        importance=importance,
        confidence=confidence,
        tags=tags,
        metadata=metadata,
        env=env,
        source=source,
        created_at=now,
        event_at=_past(fields.get("event_at"), "event_at", now) or now,
        valid_until=_time(fields.get("valid_until"), "valid_until", future=True),
        expires_at=_expiry(fields, memory_type, limits, now, keep_identity),
        content_hash=content_hash(content),
        idempotency_key=labels["idempotency_key"] or default_key(agent, task_id, step, content),
        supersedes=labels["supersedes"],
    )
    _quarantine(row)
    _event_time(row, fields.get("event_at"))
    if keep_identity:
        _keep_identity(row, fields)
    return Prepared(row, redactions + n + m + e)


def memory_uuid(value: Any) -> str:
    """An imported id in the one form ids have (a UUID, lower case, with hyphens): the short forms
    and prefixes people type are parts of it, so anything else could never be found again."""
    import uuid

    try:
        return str(uuid.UUID(str(label(value, "id"))))
    except ValueError:
        raise InvalidInput(
            f"id must be a UUID such as 01a22ad6-ea1d-72c4-ab23-672152ba9c31, not {value!r}."
        ) from None


def _keep_identity(row: MemoryRow, fields: Mapping[str, Any]) -> None:
    if fields.get("id"):
        row.id = memory_uuid(fields["id"])
    for name in ("created_at", "last_seen_at", "updated_at"):
        value = _past(fields.get(name), name, row.created_at)
        if value is not None:
            setattr(row, name, value)
    row.status = choice(fields.get("status"), "status", STATUSES, "active")
    row.superseded_by = label(fields.get("superseded_by"), "superseded_by")
    sources = fields.get("source_ids") or []
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise InvalidInput("source_ids must be a list of memory ids.")
    row.source_ids = sources
    for name in ("version", "seen_count"):
        value = fields.get(name)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_WHOLE:
                raise InvalidInput(f"{name} must be a whole number from 1 to {MAX_WHOLE:,}.")
            setattr(row, name, value)
