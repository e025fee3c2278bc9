"""Time-anchored recall through the store: a memory keeps the event time its text speaks of
("yesterday", "last week", 上周), and a query that names a time, or asks when, ranks the memory of
that time first; a query without a time ranks exactly as it did without the time signals."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from hindsight_cli.search import signals
from hindsight_cli.store import Store
from hindsight_cli.text.when import EVENT_TIME

NOW = datetime(2026, 6, 1, 12, 0)


def _record(store: Store) -> dict[str, str]:
    ids = {}
    for name, text, said in [
        # said in May, speaks of a day in April
        ("april", "went hiking at the lake; 2 April was sunny", "2026-05-20T10:00:00"),
        ("told", "went hiking at the lake yesterday with the team", "2026-03-16T09:00:00"),
        ("plain", "went hiking at the lake with friends and a dog", "2026-05-30T09:00:00"),
        ("other", "fixed the flaky database test by pinning the driver", "2026-05-31T09:00:00"),
        ("zh", "上周我们去湖边徒步", "2026-04-13T09:00:00"),
    ]:
        ids[name] = store.record(text, event_at=said, agent_id="a").memory.id
    return ids


def test_a_memory_keeps_the_event_time_its_text_speaks_of(store: Store) -> None:
    ids = _record(store)
    told = store.get(ids["told"])
    assert told.metadata[EVENT_TIME] == [
        {"from": "2026-03-15", "to": "2026-03-15", "said": "yesterday"}
    ]
    assert store.get(ids["zh"]).metadata[EVENT_TIME] == [
        {"from": "2026-04-06", "to": "2026-04-12", "said": "上周"}
    ]
    # no time in the text: nothing added
    assert EVENT_TIME not in store.get(ids["plain"]).metadata


def test_yesterday_is_a_day_of_the_writers_own_calendar(store: Store) -> None:
    # 01:00 on 8 May in Shanghai is 17:00 on 7 May in UTC, as the store keeps event_at
    memory = store.record(
        "the deploy failed yesterday", event_at="2023-05-08T01:00:00+08:00"
    ).memory
    assert memory.event_at.startswith("2023-05-07T17:00")
    assert store.get(memory.id).metadata[EVENT_TIME][0]["from"] == "2023-05-07"


def test_a_query_naming_a_day_ranks_the_memory_of_that_day_first(store: Store) -> None:
    ids = _record(store)
    plain = store.search("hiking at the lake", now=NOW)
    assert plain.hits[0].memory.id == ids["plain"]
    dated = store.search("what did we do at the lake on 15 March", now=NOW)
    # "yesterday", said on 16 March, is 15 March
    assert dated.hits[0].memory.id == ids["told"]
    explain = dated.hits[0].explain
    assert explain["contributions"]["time_window"] > 0
    assert any(
        n.startswith("time: asked 2026-03-15 (15 March); this memory: 2026-03-15 (yesterday)")
        for n in explain["notes"]
    )


def test_a_query_asking_when_prefers_a_memory_that_says_when(store: Store) -> None:
    ids = _record(store)
    hits = store.search("when did we go hiking at the lake", now=NOW).hits
    assert hits[0].memory.id in (ids["told"], ids["april"])
    assert hits[0].explain["contributions"]["dated"] > 0


def test_a_chinese_query_naming_last_week_finds_the_chinese_memory(store: Store) -> None:
    ids = _record(store)
    hits = store.search("上上周去湖边徒步", now=datetime(2026, 4, 22)).hits
    assert hits[0].memory.id == ids["zh"]
    assert hits[0].explain["contributions"]["time_window"] == pytest.approx(0.3)


@pytest.mark.parametrize(
    "query", ["hiking at the lake", "database test driver", "湖边徒步", "fixed the flaky test"]
)
def test_a_query_without_time_ranks_exactly_as_without_the_time_signals(
    store: Store, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    _record(store)
    with_time = store.search(query, now=NOW, k=10)
    monkeypatch.setattr(signals, "SIGNALS", tuple(s for s in signals.SIGNALS if s.applies is None))
    without = store.search(query, now=NOW, k=10)
    assert [(h.memory.id, h.score, h.explain) for h in with_time.hits] == [
        (h.memory.id, h.score, h.explain) for h in without.hits
    ]
    assert all("time_window" not in h.explain["contributions"] for h in with_time.hits)


def test_search_explain_shows_the_window_and_the_boost(cli) -> None:  # noqa: ANN001
    cli(
        "record",
        "yesterday we went hiking by the lake, a long detour",
        "--event-at",
        "2026-03-16T09:00:00Z",
    )
    cli("record", "hiking at the lake", "--event-at", "2026-05-30T09:00:00Z")
    result = cli("search", "hiking at the lake on 2026-03-15", "--explain")
    assert result.exit_code == 0, result.stderr
    first = next(line for line in result.stdout.splitlines() if line.startswith("#1 "))
    assert "time_window +0.300" in first
    assert "time: asked 2026-03-15 (2026-03-15); this memory: 2026-03-15 (yesterday)" in first
    plain = json.loads(cli("search", "hiking at the lake", "--json").stdout)
    assert plain[0]["content"] == "hiking at the lake"
    data = json.loads(cli("search", "hiking at the lake on 2026-03-15", "--json").stdout)
    assert data[0]["content"] == "yesterday we went hiking by the lake, a long detour"
    assert data[0]["metadata"][EVENT_TIME][0]["from"] == "2026-03-15"


def test_an_error_with_a_timestamp_searched_with_troubleshoot_gets_no_time_window(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.record(
        "pytest failed: ModuleNotFoundError: No module named 'yaml'",
        outcome="failure",
        resolution="pip install pyyaml",
        event_at="2026-05-30T09:00:00",
    )
    store.record("ModuleNotFoundError in the build yesterday", event_at="2026-05-31T09:00:00")
    # the error's own log line names when it happened, not a time it asks about
    query = "2026-05-30 09:12:01 ERROR ModuleNotFoundError: No module named 'yaml'"
    with_time = store.search(query, now=NOW, troubleshoot=True)
    monkeypatch.setattr(signals, "SIGNALS", tuple(s for s in signals.SIGNALS if s.applies is None))
    without = store.search(query, now=NOW, troubleshoot=True)
    assert [(h.memory.id, h.score, h.explain) for h in with_time.hits] == [
        (h.memory.id, h.score, h.explain) for h in without.hits
    ]
    assert with_time.hits


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_time_anchored_search_through_an_mcp_client(
    store: Store, anyio_backend: str
) -> None:
    from mcp import Client

    from hindsight_cli.mcp_server import build_server

    async with Client(build_server(store), raise_exceptions=True) as client:
        for content, said in [
            ("yesterday we went hiking by the lake, a long detour", "2026-03-16T09:00:00Z"),
            ("hiking at the lake", "2026-05-30T09:00:00Z"),
        ]:
            written = await client.call_tool("memory_write", {"content": content, "event_at": said})
            assert not written.is_error
        plain = await client.call_tool("memory_search", {"query": "hiking at the lake"})
        dated = await client.call_tool(
            "memory_search", {"query": "hiking at the lake on 2026-03-15"}
        )
    first = [r.structured_content["hits"][0]["content"] for r in (plain, dated)]
    assert first == [
        "hiking at the lake",
        "yesterday we went hiking by the lake, a long detour",
    ]
