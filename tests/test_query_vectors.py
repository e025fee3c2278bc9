"""A search's query vector: an agent that asks the same thing again is answered without the model
(issue 35: a small memory of recent query embeddings), and the answer is the same."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.core import embedding_jobs
from hindsight_cli.store import Store


class Counting(FakeEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.asked.extend(texts)
        return super().embed(texts)


def _store(path, model: Counting) -> Store:
    store = Store(path, embedder=model)
    store.init()
    store.record("the deploy failed: the registry refused the image tag", outcome="failure")
    store.record("migrations ran on staging", outcome="success")
    return store


def test_a_repeated_query_is_not_embedded_again_and_finds_the_same(tmp_path) -> None:
    model = Counting()
    store = _store(tmp_path / "store", model)
    model.asked.clear()
    first = store.search("why did the deploy fail", k=2)
    again = store.search("why did the deploy fail", k=2)
    other = store.search("staging migrations", k=2)
    assert model.asked == ["why did the deploy fail", "staging migrations"]
    assert [h.memory.id for h in again.hits] == [h.memory.id for h in first.hits]
    # (the recency signal moves with the clock between the two searches)
    assert [h.score for h in again.hits] == pytest.approx([h.score for h in first.hits], rel=1e-6)
    assert first.hits[0].memory.content.startswith("the deploy failed")
    assert other.hits[0].memory.content == "migrations ran on staging"


def test_each_model_keeps_its_own_queries_and_only_the_recent_ones(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(embedding_jobs, "RECENT_QUERIES", 2)
    one, two = Counting(), Counting()
    a, b = _store(tmp_path / "a", one), _store(tmp_path / "b", two)
    one.asked.clear()
    two.asked.clear()
    a.search("deploy")
    b.search("deploy")
    # another model (another instance) embeds the query itself
    assert one.asked == two.asked == ["deploy"]
    a.search("staging")
    a.search("registry")
    # 'deploy' was the least recent of three: forgotten, embedded again
    a.search("deploy")
    a.search("registry")
    assert one.asked == ["deploy", "staging", "registry", "deploy"]


@pytest.mark.parametrize(
    ("first", "then"),
    [
        # another token principal's search, the owner's (a hook answered warm, their UI) and the
        # owner's of one agent (`--agent`), each before a principal's guess, and the reverse
        (("bob", True), ("alice", True)),
        ((None, False), ("alice", True)),
        (("alice", False), ("alice", True)),
        (("alice", True), (None, False)),
    ],
)
def test_a_query_another_caller_asked_is_embedded_again_for_the_next(
    tmp_path, first: tuple[str | None, bool], then: tuple[str | None, bool]
) -> None:
    """Review AM: the recent queries' vectors were shared by every caller of a server: a token
    principal's search answered from them in a tenth of the time (1.5 ms against 11 for one the
    model embeds), so searching a guess told her whether another agent, or the owner's session
    through its hooks' warm recall, had just searched exactly those words. Each caller (its
    scope) now keeps its own; its own repeats are still answered without the model."""
    model = Counting()
    store = _store(tmp_path / "store", model)
    earlier, guesser = store.scoped(*first), store.scoped(*then)
    model.asked.clear()
    earlier.search("ModuleNotFoundError: No module named 'billing_acquisition'")
    guesser.search("ModuleNotFoundError: No module named 'billing_acquisition'")
    guesser.search("ModuleNotFoundError: No module named 'billing_acquisition'")
    earlier.search("ModuleNotFoundError: No module named 'billing_acquisition'")
    assert model.asked == ["ModuleNotFoundError: No module named 'billing_acquisition'"] * 2
