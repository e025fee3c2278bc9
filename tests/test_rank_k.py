"""Ranking independent of k (issue 30, point 8): the top n of a `-k N` search is the same for every
N ≥ n, up to the candidate pool (`[ranking] candidates`, 100): asking for more hits never reorders
the first ones."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

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


@pytest.fixture
def many(cli, tmp_path: Path):
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in _memories(400)))
    result = cli("import", str(path))
    assert result.exit_code == 0, result.stderr
    return cli


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
