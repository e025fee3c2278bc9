"""A write made, then a checkpoint the disk cannot take, is no error (review AX).

The last connection on a store's ledger detaches it, which checkpoints the WAL into the file. On a
full disk that checkpoint failed after the write had committed (kept in the WAL, replayed by the
next open): `hindsight record` printed a traceback and exited 1 for a memory it had recorded, and
a long-lived process kept an attachment DuckDB had already dropped. Now a detach whose checkpoint
fails lets the attachment go, what was committed kept, and the next session attaches it again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hindsight_cli.cli import app
from hindsight_cli.storage.sql import duckdb_instance


class _FullAtCheckpoint:
    """This process's database, whose checkpoint at each detach fails as on a full disk: the
    database detached all the same, as DuckDB does."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def execute(self, sql: str, *args: Any) -> Any:
        result = self.real.execute(sql, *args)
        if sql.startswith("DETACH"):
            raise duckdb_instance.engine().IOException(
                "IO Error: Detached database, but CHECKPOINT during DETACH failed. Could not "
                'write file "ledger.duckdb": No space left on device'
            )
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def _run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_a_write_whose_checkpoint_fails_is_recorded_and_the_next_one_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = str(tmp_path / "s")
    assert _run("record", "deploys go through ./deploy.sh", "--store", store).exit_code == 0
    process = duckdb_instance._process()
    with monkeypatch.context() as patch:
        patch.setattr(process, "database", _FullAtCheckpoint(process.database))
        for text in ("the release train leaves on fridays", "cache warmers run at noon"):
            done = _run("record", text, "--store", store)
            assert done.exit_code == 0, done.output
            assert "Recorded" in done.output and "Traceback" not in done.output
        listed = _run("list", "--store", store)
        assert listed.exit_code == 0 and "release train" in listed.output
    listed = _run("list", "--store", store)
    assert listed.exit_code == 0, listed.output
    for text in ("deploy.sh", "release train", "cache warmers"):
        assert text in listed.output
