"""Memories that differ in every field a filter reads, and the filters that tell them apart: the
data the candidate-source equivalence suite (test_candidate_sources.py) and the in-memory index's
tests (test_hot_index.py) share."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hindsight_cli.models import Filters
from hindsight_cli.search.query import SEARCH_TYPES
from hindsight_cli.store import Store

T0 = datetime(2026, 3, 10, 12, 0, 0)
QUERIES = [
    "database replication lag",
    "weather api 401 token expired",
    "o'brien's \"quoted\" cache",
    "deploy failed rollback",
    "用户 回答 简短",
]


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def fill(store: Store) -> dict[str, str]:
    """Memories that differ in every field a filter reads; returns name → id."""
    made: dict[str, str] = {}
    specs: dict[str, dict[str, Any]] = {
        "a1": {
            "agent_id": "a",
            "event_at": "2026-01-10T00:00:00Z",
            "tags": ["infra"],
            "task_id": "t1",
            "step": 1,
        },
        "a2": {
            "agent_id": "a",
            "event_at": "2026-03-01T00:00:00Z",
            "outcome": "failure",
            "task_id": "t1",
            "step": 2,
            "resolution": "rotated the token",
        },
        "b1": {
            "agent_id": "b",
            "task_id": "t2",
            "event_at": "2026-03-02T00:00:00Z",
            "tags": ["infra", "db"],
        },
        "s1": {
            "agent_id": "c",
            "type": "semantic",
            "event_at": "2026-03-03T00:00:00Z",
            "source": "user",
        },
        "q1": {
            "agent_id": "it's",
            "task_id": 'o\'brien "t"',
            "tags": ["it's"],
            "outcome": "success",
        },
        "w1": {"agent_id": "a", "type": "working", "ttl": "2h"},
        "x1": {"agent_id": "b", "ttl": "1h", "trigger": "tool_error", "outcome": "failure"},
        "p1": {"agent_id": "a", "type": "procedural", "trigger": "task_end"},
        # long: found by a later chunk
        "l1": {"agent_id": "a", "tags": ["infra"], "task_id": "t1"},
        "l2": {"agent_id": "b", "outcome": "failure"},
        "z1": {"agent_id": "c", "outcome": "neutral"},
        "z2": {"agent_id": "c", "outcome": "neutral"},
    }
    texts = [
        "database replication lag note",
        "weather api returned 401: token expired",
        "o'brien's quoted cache key",
        "deploy failed, rolled back",
        "用户希望回答简短",
    ]
    for number, (name, fields) in enumerate(specs.items()):
        store.clock.now = T0 + timedelta(minutes=number)  # type: ignore[attr-defined]
        text = f"{texts[number % len(texts)]} ({name})"
        text = f"{FILLER} {text}" if name.startswith("l") else text
        made[name] = store.record(text, merge=False, **fields).memory.id
    store.forget([made["z1"]])
    store.forget([made["z2"]], archive=True)
    store.clock.now = T0 + timedelta(hours=1, minutes=30)  # type: ignore[attr-defined]: x1 has expired
    return made


# Past the fake model's window (1000 characters): a long memory has chunks, the answer in its last
# one.
FILLER = " ".join(
    f"Meeting {i} covered calendars, lunch menus, parking permits and room bookings."
    for i in range(30)
)


FILTERS = [
    Filters(types=SEARCH_TYPES),
    Filters(agent_ids=("a",)),
    Filters(agent_ids=()),
    Filters(agent_ids=("a", "b")),
    Filters(task_id="t1"),
    Filters(task_id='o\'brien "t"'),
    Filters(types=("working",)),
    Filters(types=("episodic", "working")),
    Filters(outcomes=("failure",)),
    Filters(outcomes=("failure", "neutral")),
    Filters(tags=("infra",)),
    Filters(tags=("infra", "db")),
    Filters(tags=("it's",)),
    Filters(since=datetime(2026, 3, 1)),
    Filters(until=datetime(2026, 3, 1, 12)),
    Filters(since=datetime(2026, 1, 1), until=datetime(2026, 3, 2, 12), agent_ids=("a", "b")),
    Filters(statuses=None),
    Filters(statuses=("invalidated",)),
    Filters(statuses=("active", "archived")),
    Filters(include_expired=True),
    Filters(expired_only=True, statuses=None),
    Filters(created_before=T0 + timedelta(minutes=4)),
    Filters(agent_ids=("it's", "a' OR '1'='1")),
    Filters(statuses=None, include_expired=True, types=None),
]
