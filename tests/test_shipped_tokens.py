"""A token file that came with a git repository (review M).

The HTTP servers take a store's own ``mcp-tokens.json`` by default (`hindsight mcp --transport
http`, `hindsight ui` beyond loopback). A repository that commits its `.hindsight/` may commit that
file too, holding the digests of tokens its author made; once the user approved the store (its
memories, as `hindsight allow` says) those tokens were served: whoever holds one read, wrote and
forgot the user's memories of its agent, and a server with a token file no longer limits its
loopback to the user's own connections. A token file git tracks in the store is now refused by
default, in one line; the user's own file (`--tokens FILE`) serves as before."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli.errors import InvalidInput
from hindsight_cli.store import Store
from tests.test_pulled_store import _commit, _git, _repository, _run

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    return _repository(tmp_path / "upstream")


def _shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upstream: Path) -> Path:
    """The user's clone of a repository that committed its store with a token for agent claude,
    approved by the user, who then recorded a memory as claude; returns the clone's store."""
    with monkeypatch.context() as author:
        author.setenv("HINDSIGHT_HOME", str(tmp_path / "author-home"))
        author.setenv("HINDSIGHT_ALLOWED_DIR", str(tmp_path / "author-home" / "allowed"))
        store = str(upstream / ".hindsight")
        _run("init", "--store", store)
        assert _run("mcp", "token", "claude", "--store", store).stdout.startswith("hst_")
    _commit(
        upstream,
        [f".hindsight/{name}" for name in ("ledger.duckdb", "store-id", ".gitignore")]
        + [".hindsight/mcp-tokens.json"],
    )
    checkout = tmp_path / "checkout"
    _git(tmp_path, "clone", "-q", str(upstream), str(checkout))
    store = str(checkout / ".hindsight")
    _run("allow", store)
    _run("record", "the deploy key is in the team vault", "--agent", "claude", "--store", store)
    return checkout / ".hindsight"


def test_a_token_file_the_repository_ships_is_never_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upstream: Path
) -> None:
    store = _shipped(tmp_path, monkeypatch, upstream)
    shipped = (store / "mcp-tokens.json").read_bytes()
    served: list[Any] = []
    monkeypatch.setattr("hindsight_cli.mcp_server.run", lambda *a, **k: served.append(k))

    refused = _run("mcp", "--transport", "http", "--port", "0", "--store", str(store), code=1)
    assert "git" in refused.output and "--tokens" in refused.output, refused.output
    assert len(refused.output.strip().splitlines()) == 1, refused.output
    assert served == []

    # nor is the user's next token added to it, beside the author's
    made = _run("mcp", "token", "me", "--store", str(store), code=1)
    assert "git" in made.output and "hst_" not in made.output, made.output
    assert (store / "mcp-tokens.json").read_bytes() == shipped

    from hindsight_cli.ui import prepare

    with pytest.raises(InvalidInput, match="git"):
        prepare([Store(store)], host="0.0.0.0", port=0)

    # a token file of the user's own choosing serves as before
    own = tmp_path / "own-tokens.json"
    _run("mcp", "token", "me", "--tokens", str(own), "--store", str(store))
    _run("mcp", "--transport", "http", "--port", "0", "--store", str(store), "--tokens", str(own))
    assert [k["tokens"] for k in served] == [own]
