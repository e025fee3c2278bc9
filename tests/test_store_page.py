"""Store.page and Store.per_day: the server-side paging and the daily counts that the web UI's table
and charts read (issue 32)."""

from __future__ import annotations

import pytest

from hindsight_cli.errors import BadUsage
from hindsight_cli.models import Filters
from hindsight_cli.store import Store


def _fill(store: Store) -> list[str]:
    ids = []
    for i, outcome in enumerate(["failure", "success", "neutral", "failure", "success"]):
        ids.append(
            store.record(
                f"memory number {i} about disk {i}",
                outcome=outcome,
                importance=i / 10,
                task_id=f"t{i % 2}",
                event_at=f"2026-03-0{i + 1}T10:00:00Z",
                merge=False,
            ).memory.id
        )
    return ids


def test_pages_cover_every_match_once_in_the_order_asked(store: Store) -> None:
    ids = _fill(store)
    first = store.page(sort="importance", descending=False, limit=2)
    second = store.page(sort="importance", descending=False, limit=2, offset=2)
    third = store.page(sort="importance", descending=False, limit=2, offset=4)
    seen = [m.id for p in (first, second, third) for m in p.memories]
    assert seen == ids
    assert (first.total, second.offset, len(third.memories)) == (5, 2, 1)
    newest = store.page(limit=1)
    assert newest.memories[0].id == ids[-1]


def test_a_page_honours_the_filters_and_counts_only_matches(store: Store) -> None:
    _fill(store)
    page = store.page(Filters(outcomes=("failure",), statuses=None), sort="event_at", limit=10)
    assert [m.content for m in page.memories] == [
        "memory number 3 about disk 3",
        "memory number 0 about disk 0",
    ]
    assert page.total == 2


@pytest.mark.parametrize(
    ("sort", "limit", "offset"), [("content", 10, 0), ("type", 0, 0), ("type", 10, -1)]
)
def test_a_bad_sort_or_page_is_a_usage_error(
    store: Store, sort: str, limit: int, offset: int
) -> None:
    _fill(store)
    with pytest.raises(BadUsage):
        store.page(sort=sort, limit=limit, offset=offset)


def test_per_day_counts_what_happened_each_day(store: Store) -> None:
    _fill(store)
    assert store.per_day() == [(f"2026-03-0{i}", 1) for i in range(1, 6)]
    assert store.per_day(Filters(outcomes=("failure",), statuses=None)) == [
        ("2026-03-01", 1),
        ("2026-03-04", 1),
    ]
    assert store.stats()["by_source"] == {"agent": 5}


def test_built_on_walks_a_summary_chain_up_one_level(store: Store) -> None:
    for i in range(7):
        store.record(f"step {i} of the deploy failed on disk {i}", task_id="deploy", merge=False)
    result = store.summarize(task_id="deploy", chunk=3)
    assert result.parts
    part = store.get(result.parts[0])
    source = part.source_ids[0]
    assert [m.id for m in store.built_on(source)] == [part.id]
    assert [m.id for m in store.built_on(part.id)] == [result.memory.id]
    assert store.built_on(result.memory.id) == []
