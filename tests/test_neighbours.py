"""A hit brings the steps beside it (``search/neighbours.py``): the answer after a question finds
its way into the hits though it shares no word with the query, on every engine alike; a
``--troubleshoot`` search ranks exactly as without neighbours (the hooks' recall and the replay
cannot move)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hindsight_cli.models import Hit
from hindsight_cli.search.candidates import HotSource, IndexSource, LedgerSource
from hindsight_cli.store import Store
from tests.conftest import Clock

TASK = "trip-planning"
QUESTION = "Which glacier did you hike on the Iceland trip?"
ANSWER = "Solheimajokull, with crampons and a guide"
QUERY = "Which glacier did she hike in Iceland?"


@pytest.fixture(autouse=True)
def _one_moment(clock: Clock) -> None:
    """Every store of a test reads one still clock: the searches compared are not a moment apart
    (recency moved between them, and two hits within 1e-8 swapped on a loaded machine)."""


def _conversation(store: Store) -> dict[str, str]:
    """One task of turns, the answer right after the question; other tasks around it."""
    turns = [
        "Morning! Coffee first, then emails.",
        "I booked the flights for the spring holiday.",
        QUESTION,
        ANSWER,
        "Then we drove back to Reykjavik for dinner.",
    ]
    ids = {}
    for step, text in enumerate(turns, 1):
        ids[text] = store.record(text, task_id=TASK, step=step, merge=False).memory.id
    for n, text in enumerate(["Quarterly report is due Friday.", "The printer jams again."]):
        store.record(text, task_id=f"office-{n}", step=1, merge=False)
    return ids


def _same(got: list[Hit], expected: list[Hit]) -> None:
    """The same hits in the same order with the same scores."""
    assert [h.memory.id for h in got] == [h.memory.id for h in expected]
    assert [h.score for h in got] == pytest.approx([h.score for h in expected], abs=1e-6)


def _without_neighbours(store: Store) -> Store:
    config = replace(store.config, ranking=replace(store.config.ranking, neighbour_pool=0))
    return Store(store.path, embedder=store.embedder, config=config)


def test_the_answer_after_a_matching_question_joins_the_hits(store: Store) -> None:
    ids = _conversation(store)
    assert ids[ANSWER] not in {h.memory.id for h in _without_neighbours(store).search(QUERY).hits}
    found = [h.memory.id for h in store.search(QUERY, k=5).hits]
    assert ids[ANSWER] in found
    # it ranks by what it inherits from the question: after it
    assert found.index(ids[QUESTION]) < found.index(ids[ANSWER])


@pytest.mark.local_only
@pytest.mark.parametrize("engine", ["ledger", "index", "warm"])
def test_every_engine_brings_the_same_neighbours(store: Store, engine: str) -> None:
    ids = _conversation(store)
    expected = store.search(QUERY, engine="ledger").hits
    if engine == "warm":
        searcher = Store(store.path, embedder=store.embedder, warm=True)
        got = searcher.search(QUERY)
    else:
        store.sync_index()
        got = store.search(QUERY, engine=engine)
    _same(got.hits, expected)
    assert ids[ANSWER] in {h.memory.id for h in expected}


@pytest.mark.local_only
def test_each_source_finds_the_steps_it_is_asked_for(store: Store) -> None:
    ids = _conversation(store)
    store.sync_index()
    agent = store.get(ids[ANSWER]).agent_id
    steps = [(agent, TASK, 4), (agent, TASK, 9), (agent, "office-0", 1)]
    where = [("agent_id", "in", [agent])]
    warm = Store(store.path, embedder=store.embedder, warm=True)
    warm.search(QUERY)
    hot = warm._rt.hot.synced_index()  # type: ignore[union-attr]
    assert hot is not None
    with store.ledger.read() as session:
        ledger = sorted(r.id for r in LedgerSource(session).at_steps(steps, where))
    assert ids[ANSWER] in ledger and len(ledger) == 2
    assert sorted(r.id for r in HotSource(hot).at_steps(steps, where)) == ledger
    assert sorted(r.id for r in IndexSource(store.index()).at_steps(steps, where)) == ledger


def test_a_troubleshooting_search_ranks_as_without_neighbours(store: Store) -> None:
    _conversation(store)
    plain = _without_neighbours(store)
    for query in (QUERY, "printer jams again error"):
        expected = plain.search(query, troubleshoot=True, k=10)
        got = store.search(query, troubleshoot=True, k=10)
        _same(got.hits, expected.hits)
