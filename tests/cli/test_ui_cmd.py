"""``hindsight ui`` as a user starts it: the login address on stdout, a page behind it, a clean stop
on Ctrl-C, and one-line refusals (issue 32)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.store import Store

HINDSIGHT = [sys.executable, "-m", "hindsight_cli"]


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home")}


@pytest.mark.slow
def test_it_prints_the_login_address_serves_it_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    store = Store(tmp_path / "s", embedder=FakeEmbedder())
    store.init()
    store.record("the staging database moved to port 6432")
    proc = subprocess.Popen(
        [*HINDSIGHT, "ui", "--store", str(store.path), "--no-open", "--port", "0"],
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        # the socket listens before the address is printed: no wait for readiness
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and "/login?token=" in url
        with httpx.Client() as client:
            assert client.get(url).status_code == 200
            page = client.get(url.split("/login")[0] + "/")
        assert page.status_code == 200 and "staging database moved" in page.text
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert out == ""
    assert "Serving hindsight ui" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--store", "{tmp}/nothing"], "No hindsight store at"),
        (["--host", "0.0.0.0"], "Refusing to serve 0.0.0.0 without tokens"),
    ],
)
def test_it_refuses_in_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    store = Store(tmp_path / "s", embedder=FakeEmbedder())
    store.init()
    given = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "--store" not in given:
        given += ["--store", str(store.path)]
    done = subprocess.run(
        [*HINDSIGHT, "ui", "--no-open", "--port", "0", *given],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert (
        done.stderr.startswith(f"Error: {message}") and len(done.stderr.strip().splitlines()) == 1
    )
