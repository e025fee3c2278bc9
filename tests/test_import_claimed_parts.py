"""Review BR2: an import commits ``IMPORT_BATCH`` records a transaction, never cutting a text's
linked parts apart, and read a record as a later part of the text before it by its
``metadata.part``, which the file states: a file whose every record claims to be a second part
(``{"index": 2, "of": 2}``) was written in one transaction, however many it holds (40,000 records
held the ledger about 12 s, every other process's and agent's writes and the hooks waiting, and
refused as busy past the lock's timeout). A text has at most ``parts.MAX_PARTS`` parts: a batch now
runs on past its end for at most that many more."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.core import parts, transfer
from hindsight_cli.models import Filters
from hindsight_cli.store import Store

BATCH = 40


@pytest.fixture(autouse=True)
def _small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transfer, "IMPORT_BATCH", BATCH)


@pytest.mark.parametrize(
    "claim",
    [{"index": 2, "of": 2}, {"index": 7, "of": 64}, {"index": 2, "of": 10**9}],
    ids=["second-of-two", "seventh-of-64", "second-of-a-billion"],
)
def test_records_claiming_to_be_parts_are_still_written_in_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, claim: dict[str, int]
) -> None:
    store = Store(tmp_path / "store", embedder=FakeEmbedder())
    written: list[int] = []
    write = transfer._write

    def counted(rt, chunk, stale=None):  # noqa: ANN001, ANN202
        written.append(len(chunk))
        return write(rt, chunk, stale)

    monkeypatch.setattr(transfer, "_write", counted)
    total = 6 * BATCH + parts.MAX_PARTS
    records = [
        {"content": f"note {i} of the planted file", "metadata": {"part": claim}}
        for i in range(total)
    ]
    assert store.import_records(records).added == total
    assert max(written) <= BATCH + parts.MAX_PARTS - 1, written
    assert len(store.list(Filters(), limit=None)) == total
