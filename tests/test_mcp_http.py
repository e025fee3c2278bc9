"""The HTTP MCP server's exposure (issue 16): no unauthenticated network server, and Host and Origin
checked whatever the bind address, through a real server and real HTTP requests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from hindsight_cli.mcp_server import build_server
from hindsight_cli.mcp_server.http import HttpSettings, http_app
from hindsight_cli.serving.hostguard import host_policy, is_loopback, machine_names, split_host
from hindsight_cli.store import Store
from tests.fake_embedder import FakeEmbedder
from tests.mcp_http import (
    answer,
    call,
    free_port,
    headers,
    initialize,
    listening,
    open_session,
    serving,
    wait_for,
)

HINDSIGHT = [sys.executable, "-m", "hindsight_cli"]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "store", embedder=FakeEmbedder())
    store.init()
    store.record("the deploy key lives in the vault under ops/deploy", agent_id="alice")
    return store


def _app(store: Store, bind: str = "0.0.0.0", allowed: tuple[str, ...] = ()) -> object:
    return http_app(build_server(store), HttpSettings(host=bind, allowed_hosts=allowed), None)


@pytest.mark.parametrize("bind", ["0.0.0.0", "127.0.0.1"])
def test_a_foreign_host_or_origin_is_refused_before_any_tool_runs(store: Store, bind: str) -> None:
    """DNS rebinding: a page whose name now points at the server sends `Host: evil.example`."""
    with serving(_app(store, bind)) as url, httpx2.Client() as http:
        for host in (
            "evil.example",
            "evil.example:8765",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
        ):
            refused = http.post(f"{url}/mcp", json=initialize(), headers=headers(Host=host))
            assert refused.status_code == 421 and "--allowed-host" in refused.text
            forgot = call(
                http,
                url,
                "memory_forget",
                {"task_id": "x", "older_than": "0s", "hard": True},
                Host=host,
            )
            assert forgot.status_code == 421
        for origin in (
            "http://evil.example",
            "https://evil.example:443",
            "null",
            "file://",
            "http://localhost.evil",
        ):
            refused = http.post(f"{url}/mcp", json=initialize(), headers=headers(Origin=origin))
            assert refused.status_code == 403, origin
        searched = call(http, url, "memory_search", {"query": "deploy key"}, Host="evil.example")
        assert searched.status_code == 421 and "vault" not in searched.text
    assert [m.content for m in store.list()] == [
        "the deploy key lives in the vault under ops/deploy"
    ]


def test_the_servers_own_names_are_accepted(store: Store) -> None:
    name = machine_names()[0]
    with (
        serving(_app(store, "0.0.0.0", ("memory.internal", "proxy.example:8443"))) as url,
        httpx2.Client() as http,
    ):
        port = url.rsplit(":", 1)[1]
        for host in (
            "127.0.0.1",
            f"127.0.0.1:{port}",
            f"localhost:{port}",
            "LOCALHOST",
            f"{name}:{port}",
            "memory.internal",
            "memory.internal.:80",
            "proxy.example:8443",
        ):
            opened = http.post(f"{url}/mcp", json=initialize(), headers=headers(Host=host))
            assert (
                opened.status_code == 200
                and answer(opened)["result"]["serverInfo"]["name"] == "hindsight"
            ), host
        assert (
            http.post(
                f"{url}/mcp", json=initialize(), headers=headers(Host="proxy.example:80")
            ).status_code
            == 421
        )
        for origin in (
            f"http://localhost:{port}",
            f"https://{name}",
            "http://memory.internal:3000",
            "https://proxy.example:8443",
            f"http://127.0.0.1:{port}",
        ):
            opened = http.post(f"{url}/mcp", json=initialize(), headers=headers(Origin=origin))
            assert opened.status_code == 200, origin
        assert (
            http.post(
                f"{url}/mcp", json=initialize(), headers=headers(Origin="https://proxy.example")
            ).status_code
            == 403
        )


def test_a_bind_address_is_one_of_its_names() -> None:
    policy = host_policy("192.0.2.7")
    assert (
        policy.allows("192.0.2.7:8765")
        and policy.allows("[::1]:8765")
        and not policy.allows("192.0.2.8")
    )
    # the address a request arrived at
    assert host_policy("0.0.0.0").allows("10.1.2.3", arrived_at="10.1.2.3")
    assert not host_policy("0.0.0.0").allows("rebound.example", arrived_at="rebound.example")
    assert split_host("[::1]:80") == ("::1", 80) and split_host("Example.COM.") == (
        "example.com",
        None,
    )
    assert is_loopback("127.0.0.2") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")
    with pytest.raises(Exception, match="Invalid allowed host"):
        host_policy("0.0.0.0", ["http://x/"])


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home")}


@pytest.mark.slow
def test_a_network_address_without_tokens_refuses_to_start(tmp_path: Path) -> None:
    for host in ("0.0.0.0", "::", "192.0.2.7", "my-box.lan"):
        done = subprocess.run(
            [
                *HINDSIGHT,
                "mcp",
                "--transport",
                "http",
                "--host",
                host,
                "--port",
                str(free_port()),
                "--store",
                str(tmp_path / "s"),
            ],
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert f"Refusing to serve {host} without tokens" in done.stderr
        assert (
            "`hindsight mcp token AGENT`" in done.stderr
            and "--allow-unauthenticated" in done.stderr
        )


@pytest.mark.slow
def test_allow_unauthenticated_starts_and_warns(tmp_path: Path) -> None:
    port, log = free_port(), tmp_path / "mcp.log"
    proc = subprocess.Popen(
        [
            *HINDSIGHT,
            "mcp",
            "--transport",
            "http",
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
            "--store",
            str(tmp_path / "s"),
            "--log-file",
            str(log),
            "--allow-unauthenticated",
        ],
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: listening(port), "the server to listen")
        with httpx2.Client() as http:
            assert open_session(http, f"http://127.0.0.1:{port}").status_code == 200
            assert (
                http.post(
                    f"http://127.0.0.1:{port}/mcp",
                    json=initialize(),
                    headers=headers(Host="evil.example"),
                ).status_code
                == 421
            )
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    text = log.read_text()
    assert "WARNING" in text and "WITHOUT tokens (--allow-unauthenticated)" in text
    assert "refused a request from 127.0.0.1: Host 'evil.example'" in text
    assert "Traceback" not in err + text


@pytest.mark.slow
def test_http_only_options_are_refused_on_stdio(tmp_path: Path) -> None:
    for option in (["--allow-unauthenticated"], ["--allowed-host", "x"], ["--tokens", "t.json"]):
        done = subprocess.run(
            [*HINDSIGHT, "mcp", *option, "--store", str(tmp_path / "s")],
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1 and "is for --transport http" in done.stderr
