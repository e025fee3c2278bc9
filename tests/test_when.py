"""The time resolver (``text.when``): what a memory's text says of when things happened, resolved
against when it was said, and what a query asks of time. Pure functions: no store, no model."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from hindsight_cli.text.when import EVENT_TIME, Span, asked, spans_of, spoken

pytestmark = pytest.mark.no_store

# a Monday
MONDAY = datetime(2023, 5, 8, 13, 56)
FRIDAY = datetime(2023, 5, 12, 9, 0)


def labels(text: str, said: datetime = MONDAY) -> list[str]:
    return [s.label() for s in spoken(text, said)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I went to a support group yesterday", "2023-05-07"),
        ("we shipped it today", "2023-05-08"),
        ("this morning the build broke", "2023-05-08"),
        ("last night the job failed", "2023-05-07"),
        ("the day before yesterday", "2023-05-06"),
        ("two days ago I moved", "2023-05-06"),
        ("3 days ago", "2023-05-05"),
        ("last week I painted a lake", "2023-05-01..2023-05-07"),
        ("this week", "2023-05-08..2023-05-14"),
        ("a few weeks ago", "2023-04-17..2023-04-23"),
        ("last weekend we went camping", "2023-05-06..2023-05-07"),
        ("last month", "2023-04-01..2023-04-30"),
        ("a month ago", "2023-04-01..2023-04-30"),
        ("last year", "2022-01-01..2022-12-31"),
        ("on Friday we met", "2023-05-05"),
        ("last Friday", "2023-05-05"),
        ("Sunday was quiet", "2023-05-07"),
        ("next Tuesday I will fly out", "2023-05-16"),
        ("I'll see you on Friday", "2023-05-12"),
        ("in March I started piano", "2023-03-01..2023-03-31"),
        ("early March", "2023-03-01..2023-03-10"),
        ("late April", "2023-04-21..2023-04-30"),
        ("in December we skied", "2022-12-01..2022-12-31"),
        ("on 16 January", "2023-01-16"),
        ("on the 7th of May", "2023-05-07"),
        ("May 7th", "2023-05-07"),
        ("8 May, 2023", "2023-05-08"),
        ("2023-05-07", "2023-05-07"),
        ("May 2022", "2022-05-01..2022-05-31"),
        ("in 2021", "2021-01-01..2021-12-31"),
        ("the beginning of November 2022", "2022-11-01..2022-11-10"),
        ("昨天去了公园", "2023-05-07"),
        ("前天", "2023-05-06"),
        ("今天", "2023-05-08"),
        ("上周我们讨论过", "2023-05-01..2023-05-07"),
        ("上个月", "2023-04-01..2023-04-30"),
        ("去年", "2022-01-01..2022-12-31"),
        ("三月的时候", "2023-03-01..2023-03-31"),
        ("十二月", "2022-12-01..2022-12-31"),
        ("周五", "2023-05-05"),
        ("上周五", "2023-05-05"),
        ("下周三", "2023-05-17"),
        ("这周末", "2023-05-13..2023-05-14"),
        ("三天前", "2023-05-05"),
        ("两个月前", "2023-03-01..2023-03-31"),
        ("2023年5月7日", "2023-05-07"),
        ("5月7号", "2023-05-07"),
    ],
)
def test_a_time_said_is_resolved_against_when_it_was_said(text: str, expected: str) -> None:
    assert labels(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "this may be fine",
        "I sat in the sun",
        "we had to march on",
        "version 2019.3.2 of the tool",
        "周围的人",
        "三个月的项目",
        "how to configure the weather API",
        "port 5432 refused the connection",
    ],
)
def test_words_that_only_look_like_times_are_not_times(text: str) -> None:
    assert spoken(text, MONDAY) == []


def test_last_friday_said_on_a_friday_is_a_week_before() -> None:
    assert labels("last Friday", FRIDAY) == ["2023-05-05"]
    assert labels("we met on Friday", FRIDAY) == ["2023-05-05"]
    assert labels("this Friday", FRIDAY) == ["2023-05-12"]


def test_month_and_year_boundaries() -> None:
    new_year = datetime(2024, 1, 1, 10, 0)
    assert labels("yesterday", new_year) == ["2023-12-31"]
    assert labels("last month", new_year) == ["2023-12-01..2023-12-31"]
    assert labels("last week", new_year) == ["2023-12-25..2023-12-31"]
    assert labels("in December", new_year) == ["2023-12-01..2023-12-31"]
    assert labels("2 months ago", datetime(2024, 1, 31)) == ["2023-11-01..2023-11-30"]
    assert labels("yesterday", datetime(2024, 3, 1)) == ["2024-02-29"]
    # a day that does not exist is no time
    assert labels("on 30 February") == []


def test_the_future_tense_reads_forward() -> None:
    assert labels("I'm going to Japan in March") == ["2024-03-01..2024-03-31"]
    assert labels("we will meet on 1 May") == ["2024-05-01"]
    assert labels("we met on 1 May") == ["2023-05-01"]


def test_a_time_zone_aware_moment_is_read_on_its_own_calendar() -> None:
    # 01:00 in Shanghai on 8 May is 17:00 UTC on 7 May: "yesterday" there is 7 May
    shanghai = datetime(2023, 5, 8, 1, 0, tzinfo=timezone(timedelta(hours=8)))
    assert labels("yesterday", shanghai) == ["2023-05-07"]
    assert labels("yesterday", shanghai.astimezone(UTC).replace(tzinfo=None)) == ["2023-05-06"]


def test_several_times_are_kept_in_order_up_to_three() -> None:
    text = "Yesterday I called; last week I wrote; in March I met them; in 2021 too"
    assert labels(text) == [
        "2023-05-07",
        "2023-05-01..2023-05-07",
        "2023-03-01..2023-03-31",
    ]


def test_spans_round_trip_through_metadata_and_bad_values_are_ignored() -> None:
    spans = spoken("yesterday and last week", MONDAY)
    metadata = {EVENT_TIME: [s.to_json() for s in spans]}
    assert spans_of(metadata) == tuple(spans)
    assert spans_of({EVENT_TIME: "yesterday"}) == ()
    assert spans_of({EVENT_TIME: [{"from": "x", "to": "2023-01-01"}, 3]}) == ()
    assert spans_of({EVENT_TIME: [{"from": "2023-01-02", "to": "2023-01-01"}]}) == ()
    assert spans_of(None) == ()


def test_span_gap_counts_whole_days() -> None:
    week = Span(date(2023, 5, 1), date(2023, 5, 8))
    assert week.gap(Span(date(2023, 5, 7), date(2023, 5, 8))) == 0
    assert week.gap(Span(date(2023, 5, 8), date(2023, 5, 9))) == 1
    assert Span(date(2023, 5, 10), date(2023, 5, 11)).gap(week) == 3


NOW = datetime(2023, 12, 1, 12, 0)


@pytest.mark.parametrize(
    ("query", "window", "when"),
    [
        ("When did Caroline go to the support group?", None, True),
        ("When did Melanie go camping in June?", "2023-06-01..2023-06-30", True),
        ("Where was Tim in the week before 16 November 2023?", "2023-11-09..2023-11-15", False),
        ("What did she do the weekend before 20 October 2023?", "2023-10-14..2023-10-15", False),
        ("What did Joanna bake the Friday before 14 September 2022?", "2022-09-09", False),
        ("What did I do the day before 2023-05-07?", "2023-05-06", False),
        (
            "which tournament did he win in the beginning of November 2022",
            "2022-11-01..2022-11-10",
            False,
        ),
        ("what was John doing on 16 January", "2023-01-16", False),
        ("What did Maria donate in December 2023?", "2023-12-01..2023-12-31", False),
        ("what did we fix last week", "2023-11-20..2023-11-26", False),
        ("what changed after 2023-05-07", "2023-05-08..2023-05-14", False),
        ("since May 2021", "2021-05-01..2021-05-31", False),
        ("上周我们讨论了什么", "2023-11-20..2023-11-26", False),
        ("三月的时候他在哪", "2023-03-01..2023-03-31", False),
        ("他什么时候去的北京", None, True),
        ("5月7日之前", "2023-04-30..2023-05-06", False),
    ],
)
def test_what_a_query_asks_of_time(query: str, window: str | None, when: bool) -> None:
    found = asked(query, NOW)
    assert found is not None
    assert (found.window.label() if found.window else None, found.when) == (window, when)


@pytest.mark.parametrize(
    "query",
    [
        "how to configure the weather API",
        "What are Jon's hobbies?",
        "数据库连接失败",
        "psycopg.OperationalError raised when connecting to db01:5432",
    ],
)
def test_a_query_without_time_asks_nothing(query: str) -> None:
    assert asked(query, NOW) is None
