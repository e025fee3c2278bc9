"""Small files a user would miss are on the disk before the command that wrote them returns (issue
34): the file and its directory are flushed (fsync) before and after the rename, so a power cut
cannot leave a token file, a store's config or a client's config empty. The store's own markers and
caches, rewritten on every write, are not flushed one by one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hindsight_cli.cli import app

pytestmark = pytest.mark.no_store


@pytest.fixture
def flushed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths os.fsync was called on, in order."""
    seen: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        seen.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return seen


def _run(*args: str) -> None:
    done = CliRunner().invoke(app, list(args))
    assert done.exit_code == 0, done.output


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads /proc to name the fd")
def test_token_config_client_and_approval_files_are_flushed_with_their_directory(
    _isolated: Path, home: Path, flushed: list[str]
) -> None:
    store = _isolated / ".hindsight"
    _run("init")
    _run("mcp", "token", "alice", "--store", str(store))
    tokens = str(store / "mcp-tokens.json")
    # the temp file, flushed before it is renamed over the token file, then the directory
    temp = next(i for i, p in enumerate(flushed) if p.startswith(str(store / ".mcp-tokens.json.")))
    assert str(store) in flushed[temp + 1 :]
    assert os.path.exists(tokens)
    flushed.clear()
    _run("mcp", "install", "--client", "cursor", "--scope", "project", "--store", str(store))
    config = _isolated / ".cursor" / "mcp.json"
    assert any(p.startswith(str(config.parent / ".mcp.json.")) for p in flushed)
    assert str(config.parent) in flushed
    flushed.clear()
    _run("init", "--store", str(_isolated / "other"), "--embedding-model", "multilingual")
    assert any(p.startswith(str(_isolated / "other" / ".config.toml.")) for p in flushed)
    # its approval, under HINDSIGHT_HOME
    assert any("/allowed/" in p for p in flushed)


def test_a_record_flushes_no_marker_or_cache_one_by_one(
    _isolated: Path, flushed: list[str]
) -> None:
    _run("init")
    flushed.clear()
    _run("record", "the deploy key lives in the vault")
    assert not [p for p in flushed if "ledger.duckdb.changed" in p or "spool" in p]
