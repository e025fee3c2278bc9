"""Hostile files (issue 16, point 9): links planted where hindsight writes, and token and config
files another user owns or can write. No write follows a link (the store refuses one when it opens,
and every write refuses or replaces one planted later); a file read for trust is checked on what is
read."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile import OTHER, cli, doctor, give_away, hindsight, refused, snapshot

from hindsight_cli import safefs
from hindsight_cli.core import tokens
from hindsight_cli.errors import UnsafeLocation
from hindsight_cli.safefs.appending import append_private
from hindsight_cli.safefs.creating import create_private
from hindsight_cli.store import Store

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="no file owners on Windows")

# Every name hindsight writes in a store, at the top and in its subdirectories.
WRITTEN = [
    ".gitignore",
    "config.toml",
    "ledger.duckdb.changed",
    ".expiry-checked",
    "ledger.duckdb.lock",
    "ledger.duckdb.queue",
    "mcp-tokens.json",
    "spool/events.jsonl",
    "spool/seen.jsonl",
    "spool/hooks.log",
    "index.lance/hindsight-sync.json",
    "index.lance/.hindsight-write.lock",
]


@pytest.fixture
def made(tmp_path: Path, fake) -> Path:
    store = tmp_path / "store"
    s = Store(store, embedder=fake)
    s.record("the nightly build runs at 02:00")
    s.sync_index()
    (store / "spool").mkdir(exist_ok=True)
    return store


def _plant(store: Path, name: str, target: Path) -> None:
    place = store / name
    place.unlink(missing_ok=True)
    place.symlink_to(target)


@pytest.mark.slow
@pytest.mark.parametrize("name", WRITTEN)
def test_a_link_inside_the_store_is_refused_before_anything_is_written(
    made: Path, tmp_path: Path, fake, name: str
) -> None:
    target = tmp_path / "attacker" / "planted"
    target.parent.mkdir()
    _plant(made, name, target)
    before = snapshot(made)
    line = refused(
        hindsight("record", "a new memory", "--store", str(made)),
        f"{made / name} is a symbolic link",
        f"to {target}",
        f"rm {made / name}",
    )
    assert "hindsight never writes through a link inside a store" in line
    with pytest.raises(UnsafeLocation, match=f"{made / name} is a symbolic link"):
        Store(made, embedder=fake).record("a new memory")
    assert snapshot(made) == before and not target.exists()
    code, checks = doctor(made)
    assert (
        code == 1
        and checks["store.links"]["status"] == "fail"
        and str(made / name) in checks["store.links"]["fix"]
    )
    (made / name).unlink()
    assert Store(made, embedder=fake).record("a new memory").memory.content == "a new memory"


def test_doctor_finds_a_link_at_any_depth(made: Path, tmp_path: Path) -> None:
    data = next(p for p in (made / "index.lance").iterdir() if p.is_dir())
    (data / "x.lance").symlink_to(tmp_path / "elsewhere")
    code, checks = doctor(made)
    assert code == 1 and str(data / "x.lance") in checks["store.links"]["evidence"]


# review T: below the store's own subdirectories, where LanceDB writes its table's files (and
# deletes the old ones on a scrub): a directory there that is a link sends them into another store
DEEP = [
    "index.lance/memories.lance/data",
    "index.lance/memories.lance/_versions",
    "index.lance/memories.lance/_transactions",
    "index.lance/memories.lance/_indices",
]


@pytest.mark.parametrize("name", DEEP)
def test_a_link_deep_inside_the_store_is_refused_before_anything_is_written(
    made: Path, tmp_path: Path, fake, name: str
) -> None:
    # another store of the user's, whose index the link names
    other = tmp_path / "other"
    s = Store(other, embedder=fake)
    s.record("the other store's own memory")
    s.sync_index()
    target = other / name
    assert target.is_dir()
    listing = sorted(p.name for p in target.iterdir())
    place = made / name
    shutil.rmtree(place)
    place.symlink_to(target)
    for args in (("record", "a new memory"), ("search", "nightly build"), ("list",)):
        refused(
            cli(*args, "--store", str(made)),
            f"{place} is a symbolic link",
            f"to {target}",
            f"rm {place}",
        )
    with pytest.raises(UnsafeLocation, match=f"{place} is a symbolic link"):
        Store(made, embedder=fake).record("a new memory")
    assert sorted(p.name for p in target.iterdir()) == listing


@pytest.mark.parametrize("name", DEEP[:2])
def test_a_link_deep_inside_the_index_planted_after_the_open_is_never_written_through(
    made: Path, tmp_path: Path, fake, name: str
) -> None:
    # a long-lived process (the MCP server) opened the store before a pull brought the link
    store = Store(made, embedder=fake)
    store.record("recorded before the link came")
    store.sync_index()
    other = tmp_path / "other"
    s = Store(other, embedder=fake)
    s.record("the other store's own memory")
    s.sync_index()
    target = other / name
    listing = sorted(p.name for p in target.iterdir())
    shutil.rmtree(made / name)
    (made / name).symlink_to(target)
    with pytest.raises(UnsafeLocation, match=f"{made / name} is a symbolic link"):
        store.record("recorded after the link came")
        store.sync_index()
    assert sorted(p.name for p in target.iterdir()) == listing


def test_links_planted_after_the_store_was_opened_are_never_written_through(
    made: Path, tmp_path: Path, fake
) -> None:
    """A long-lived process checked the store at its start; links that appear later (at every name
    it writes, the temp names it uses included) are replaced or refused, never followed."""
    from hindsight_cli.core.admin import config_file
    from hindsight_cli.hooks import log_failure
    from hindsight_cli.storage import spool

    store = Store(made, embedder=fake)
    attacker = tmp_path / "attacker"
    attacker.mkdir()
    # so the next write purges, and stamps it
    (made / ".expiry-checked").unlink(missing_ok=True)
    # long enough to be trimmed through a temp file
    (made / "spool" / "seen.jsonl").write_text("{}\n" * 5000)
    temps = [f".mcp-tokens.json.{os.getpid()}", "spool/.seen.jsonl.tmp"]
    planted = [n for n in WRITTEN if not n.endswith((".lock", ".queue", "seen.jsonl"))] + temps
    for i, name in enumerate(planted):
        _plant(made, name, attacker / str(i))
    for attempt in (
        lambda: store.record("written after the links appeared"),
        store.init,
        lambda: config_file(made),
        lambda: tokens.create(made / "mcp-tokens.json", "ci"),
        lambda: spool.append(made / "spool" / "events.jsonl", {"id": "1", "kind": "stop"}),
        lambda: spool.trim_seen(made),
        store.sync_index,
        lambda: log_failure(
            str(made / "spool" / "hooks.log"), "stop", "claude-code", ValueError("x")
        ),
    ):
        try:
            attempt()
        except UnsafeLocation as error:
            assert "is a symbolic link" in str(error)
    assert list(attacker.iterdir()) == []
    # trimmed, beside the link
    assert len((made / "spool" / "seen.jsonl").read_text().splitlines()) == 2000


def test_the_writes_themselves_never_follow_a_link(tmp_path: Path) -> None:
    target = tmp_path / "target"
    for name, write in (
        ("a", lambda p: safefs.write_private(p, "x")),
        ("b", lambda p: create_private(p, "x")),
        ("c", lambda p: append_private(p, b"x")),
        ("d", safefs.touch_private),
        ("e", lambda p: safefs.private_dir(p)),
    ):
        link = tmp_path / name
        link.symlink_to(target)
        try:
            write(link)
        except UnsafeLocation as error:
            assert f"{link} is a symbolic link" in str(error)
        else:
            # replaced, not followed
            assert name == "a" and not link.is_symlink() and link.read_text() == "x"
        assert not target.exists()
    assert oct((tmp_path / "a").stat().st_mode & 0o777) == "0o600"


# --- token files
# --------------------------------------------------------------------------------------


def _token_file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(b"hst_planted").hexdigest()
    path.write_text(json.dumps({"tokens": [{"agent": "default", "sha256": digest}]}))
    path.chmod(0o600)
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(store: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str] | None, bool]:
    """Start the HTTP server; returns its result once it exits, or (None, True) once it answers."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hindsight_cli",
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
            "--store",
            str(store),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                # it serves: the planted token would be accepted
                return None, True
            except OSError:
                time.sleep(0.05)
        out, err = proc.communicate()
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), False
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize(
    "case", ["another user's", "writable by others", "the store's, writable by others"]
)
def test_the_http_server_never_starts_with_a_hostile_token_file(
    made: Path, tmp_path: Path, case: str
) -> None:
    if case == "another user's":
        file = _token_file(tmp_path / "secrets" / "tokens.json")
        give_away(file)
        start, part = f"The token file {file} belongs to another user", f"uid {OTHER}"
    else:
        file = _token_file(
            made / "mcp-tokens.json" if "store" in case else tmp_path / "secrets" / "tokens.json"
        )
        file.chmod(0o666)
        start, part = f"The token file {file} is writable by other users", f"run chmod 600 {file}"
    result, served = _serve(made, *(["--tokens", str(file)] if "store" not in case else []))
    assert not served
    refused(result, start, part)
    before = file.read_bytes()
    # nor adds a token to it
    refused(cli("mcp", "token", "ci", "--tokens", str(file)), start)
    assert file.read_bytes() == before
    from hindsight_cli.mcp_server.server import TokenVerifier

    with pytest.raises(UnsafeLocation, match=start):
        TokenVerifier(file)
    if "store" in case:
        code, checks = doctor(made)
        assert code == 1 and checks["store.tokens"]["status"] == "fail"


# --- config files
# -------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["store", "user"])
def test_a_config_file_others_can_write_is_refused(made: Path, fake, which: str) -> None:
    file = (
        made / "config.toml"
        if which == "store"
        else Path(os.environ["HINDSIGHT_HOME"]) / "config.toml"
    )
    file.parent.mkdir(exist_ok=True)
    file.write_text('[storage]\nurl = "postgresql://attacker@evil.example/db"\n')
    file.chmod(0o646)
    start = f"The config file {file} is writable by other users"
    refused(cli("list", "--store", str(made)), start, "mode 646", f"run chmod 600 {file}")
    with pytest.raises(UnsafeLocation, match=start):
        Store(made, embedder=fake)
    code, checks = doctor(made)
    assert (
        code == 1
        and checks[f"store.{'config-file' if which == 'store' else 'user-config'}"]["status"]
        == "fail"
    )


@pytest.mark.slow
def test_a_user_config_of_another_user_is_refused_even_through_a_link(
    made: Path, tmp_path: Path, fake
) -> None:
    """A link is how dotfile managers place configs, so one is followed on read, and the file it
    reaches is what must be yours."""
    home = Path(os.environ["HINDSIGHT_HOME"])
    home.mkdir(exist_ok=True)
    mine, theirs = tmp_path / "dotfiles" / "hindsight.toml", tmp_path / "theirs.toml"
    mine.parent.mkdir()
    mine.write_text('default_agent = "me"\n')
    theirs.write_text('default_agent = "them"\n')
    (home / "config.toml").symlink_to(mine)
    assert Store(made, embedder=fake).config.default_agent == "me"
    (home / "config.toml").unlink()
    (home / "config.toml").symlink_to(theirs)
    give_away(theirs)
    start = f"The config file {home / 'config.toml'} belongs to another user"
    refused(hindsight("list", "--store", str(made)), start, f"uid {OTHER}")
    with pytest.raises(UnsafeLocation, match=start):
        Store(made, embedder=fake)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize(
    "name",
    [
        "ledger.duckdb",
        "ledger.duckdb.wal",
        "config.toml",
        "spool/events.jsonl",
        "index.lance/memories.lance/_versions/9.manifest",
        "index.lance/memories.lance/data/x.lance",
    ],
)
def test_a_fifo_inside_the_store_is_refused_before_anything_opens_it(
    made: Path, fake, name: str
) -> None:
    """Review BL: a checkout's store shipping `ledger.duckdb` (or its `.wal`) as a FIFO held
    `hindsight doctor`, and every command in the checkout, on DuckDB's open for good. A FIFO, a
    device or a socket anywhere in a store is refused when the store is checked, as a link is:
    before anything opens it (at any depth, by the type its directory lists)."""
    place = made / name
    place.unlink(missing_ok=True)
    os.mkfifo(place)
    said = f"{place} is a FIFO, a device or a socket"
    with pytest.raises(UnsafeLocation, match=said):
        safefs.check_store(made)
    assert [f.path for f in safefs.entry_findings(made, deep=True)] == [str(place)]
    with pytest.raises(UnsafeLocation, match=said):
        Store(made, embedder=fake).record("a new memory")
    place.unlink()
    assert Store(made, embedder=fake).record("a new memory").memory.content == "a new memory"
