"""Numbers read from outside are ASCII digits (review AA): ``str.isdigit`` also says yes to ``²``,
``¹`` and ``³``, which ``int`` refuses, and every check made by ``isdigit`` before ``int`` let a
ValueError through: a file of such a name in a store stopped a hard forget half-way, and every
command after it (the forgotten text left in the ledger); a Host header's port was a 500 with a
traceback before any check; the UI's page size and store switcher the same."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import Cli, FakeEmbedder, fresh_local_store
from ui_support import base, running

from hindsight_cli.mcp_server import build_server
from hindsight_cli.mcp_server.http import HttpSettings, http_app
from hindsight_cli.store import Store
from hindsight_cli.ui import Served
from tests.mcp_http import serving

LOOKALIKES = ["²", "¹", "³"]
# ASCII digits past what `int` reads (4,300), which raised as the look-alikes did (review AF)
ODD = [*LOOKALIKES, "9" * 5000]


@pytest.mark.parametrize("digit", LOOKALIKES)
@pytest.mark.parametrize("where", ["store", "spool"])
def test_a_file_named_with_a_lookalike_digit_never_stops_a_hard_forget(
    tmp_path: Path, digit: str, where: str
) -> None:
    cli = Cli(tmp_path / "store")
    assert cli("record", "the vault key sits in /srv/vault-7").exit_code == 0
    [memory] = cli.open().list()
    folder = tmp_path / "store" / ("spool" if where == "spool" else "")
    folder.mkdir(exist_ok=True)
    # what a temp file of ``safefs.write_private`` looks like, its writer's pid a look-alike
    odd = folder / f".config.toml.{digit}-0123456789ab.tmp"
    odd.write_text("x")
    forgot = cli("forget", memory.id, "--hard", "-y")
    assert forgot.exit_code == 0, forgot.stderr
    assert "Traceback" not in forgot.stderr and "ValueError" not in forgot.stderr
    listed = cli("list")
    assert listed.exit_code == 0 and "vault" not in listed.stdout
    assert cli("doctor", "store").exit_code == 0
    # not a temp file of ours: left as it is
    assert odd.exists()
    for path in (tmp_path / "store").rglob("*"):
        if path.is_file():
            assert b"/srv/vault-7" not in path.read_bytes(), path


def _raw(url: str, host: bytes) -> bytes:
    """The status line of a GET /mcp whose Host header is ``host`` (bytes, as a client sends)."""
    address = url.removeprefix("http://").split("/")[0]
    name, port = address.rsplit(":", 1)
    with socket.create_connection((name, int(port)), timeout=30) as conn:
        conn.sendall(
            b"GET /mcp HTTP/1.1\r\nHost: " + host + b"\r\nAccept: text/event-stream\r\n"
            b"Connection: close\r\n\r\n"
        )
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return data.split(b"\r\n", 1)[0]


@pytest.mark.slow
def test_a_hosts_lookalike_port_is_refused_never_a_crash(tmp_path: Path) -> None:
    store = Store(tmp_path / "store", embedder=FakeEmbedder())
    store.init()
    server = build_server(store, url="http://127.0.0.1:8765")
    with serving(http_app(server, HttpSettings(), None)) as url:
        for digit in ODD:
            for host in (f"localhost:{digit}", f"[::1]:{digit}", f"127.0.0.1:80{digit}"):
                line = _raw(url, host.encode("latin-1"))
                # refused as not one of the server's names (or by the HTTP parser), never a 500
                assert line.split()[1] in (b"400", b"421"), (host, line)
        # a port of ASCII digits: as before
        assert b" 421 " not in _raw(url, url.removeprefix("http://").split("/")[0].encode())


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, Store]]:
    opened = Store(fresh_local_store(tmp_path / "store"), embedder=FakeEmbedder())
    opened.record("the disk filled up during the nightly backup", outcome="failure")
    with running([opened]) as served:
        yield served, opened


@pytest.mark.slow
@pytest.mark.parametrize("digit", ODD, ids=["²", "¹", "³", "5000 digits"])
def test_the_uis_numbers_of_lookalike_digits_are_no_crash(
    served: tuple[Served, Store], digit: str
) -> None:
    ui, store = served
    client = httpx.Client(base_url=base(ui), headers={"origin": base(ui)})
    assert client.get(ui.url.removeprefix(base(ui))).status_code == 200
    page = client.get("/", params={"n": digit, "o": digit})
    assert page.status_code == 200 and "nightly backup" in page.text
    memory = store.list()[0]
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(f"/m/{memory.id}").text)
    assert found
    switched = client.post("/switch", data={"csrf": found.group(1), "store": digit})
    assert switched.status_code == 400, switched.text
    assert "Choose one of the stores" in switched.text


@pytest.mark.parametrize("digit", ODD, ids=["²", "¹", "³", "5000 digits"])
def test_a_compose_file_port_of_lookalike_digits_is_read_never_a_crash(
    tmp_path: Path, digit: str
) -> None:
    """A repository's compose file is read by `hindsight doctor compose`: its ports too."""
    compose = tmp_path / "compose.yml"
    compose.write_text(
        "services:\n"
        "  memory:\n"
        "    image: hindsight:1\n"
        "    command: [hindsight, mcp, --transport, http, --port, '87" + digit + "']\n"
        f"    ports: ['87{digit}:87{digit}', {{target: '1{digit}', published: '2{digit}'}}]\n"
        f"    expose: ['9{digit}']\n"
    )
    result = Cli(tmp_path / "unused")("doctor", "compose", str(compose), "--json", store=False)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stderr and "ValueError" not in result.stderr
    assert result.exit_code in (0, 1), result.stderr
