"""Ranking independent of k (issue 30, point 8): the top n of a `-k N` search is the same for every
N ≥ n, up to the candidate pool (`[ranking] candidates`, 100): asking for more hits never reorders
the first ones.

The 400 memories are imported once per module (one xdist group, on one worker); each test searches a
copy of that store."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import BACKEND_PARAMS, Cli, copy_store, shared_store_dir

from hindsight_cli.store import Store

pytestmark = pytest.mark.xdist_group("rank-k")

SERVICES = ["billing", "search", "auth", "upload", "mailer", "checkout", "reports", "gateway"]
ERRORS = ["timeout", "OOM kill", "connection reset", "TLS handshake error", "disk full", "502"]
HOSTS = [f"node-{i}" for i in range(12)]
VERBS = ["deploy", "rollout", "migration", "restart", "backup", "build"]


def _memories(count: int) -> list[dict[str, str]]:
    rng = random.Random(30)
    out = []
    for i in range(count):
        text = (
            f"{rng.choice(VERBS)} of {rng.choice(SERVICES)} failed with "
            f"{rng.choice(ERRORS)} on {rng.choice(HOSTS)} (case {i})"
        )
        out.append({"content": text, "outcome": rng.choice(["failure", "success", "unknown"])})
    return out


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def imported(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, module_isolated: Path
) -> Path:
    root = tmp_path_factory.mktemp("rank-k")
    cli = Cli(shared_store_dir(request, root))
    path = root / "many.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in _memories(400)))
    result = cli("import", str(path))
    assert result.exit_code == 0, result.stderr
    return cli.store_path


@pytest.fixture
def many(imported: Path, tmp_path: Path) -> Cli:
    """The imported store as it was imported: a local one copied, a database's searched in place
    (the tests only read it)."""
    if not Store(imported).ledger.capabilities.files:
        return Cli(imported)
    return Cli(copy_store(imported, tmp_path / "many"))


def _ids(cli, query: str, k: int, *extra: str) -> list[str]:
    result = cli("search", query, "-k", str(k), "--json", *extra)
    assert result.exit_code == 0, result.stderr
    return [hit["id"] for hit in json.loads(result.stdout)]


@pytest.mark.parametrize(
    ("query", "extra"),
    [
        ("deploy of billing failed with timeout", ()),
        ("rollout failed: connection reset on node-3", ()),
        ("why did the backup fail", ("--troubleshoot",)),
        ("disk full", ("--mode", "keyword")),
    ],
)
def test_the_first_hits_are_the_same_whatever_k(many, query: str, extra: tuple[str, ...]) -> None:
    ks = (3, 10, 25, 50, 100)
    found = {k: _ids(many, query, k, *extra) for k in ks}
    assert len(found[3]) == 3
    for n in ks:
        assert len(found[n]) == min(n, len(found[max(ks)]))
        for bigger in (k for k in ks if k > n):
            assert found[bigger][:n] == found[n], (n, bigger)
