"""A store's token file from a project archive unpacked over the checkout (review AE).

The HTTP servers (`hindsight mcp --transport http`, `hindsight ui`) take the store's own
`mcp-tokens.json`. An archive (`tar`, `unzip`, `rsync`, `cp -r` of a template) holding its author's
file replaced the user's, or appeared in a store that had none: token checks turned on with the
author's digests, the user's tokens were refused and the author's token let its holder read and
forget the user's memories. Git never sees an archive (a tracked token file is refused already:
test_shipped_tokens.py). The store's approval now records the SHA-256 of the file `hindsight mcp
token` wrote (`HINDSIGHT_HOME/allowed/<id>.tokens`, `safefs/token_digest.py`), and every reader of
a store's own token file refuses another as a whole until `hindsight mcp token AGENT` makes a new
one or `hindsight allow` adopts it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from typer.testing import CliRunner

from hindsight_cli.cli import app
from hindsight_cli.core import tokens as tokens_module
from hindsight_cli.mcp_server import build_server
from hindsight_cli.mcp_server.http import HttpSettings, TokenVerifier, http_app
from hindsight_cli.safefs import ledger_key, token_digest, trust
from hindsight_cli.store import Store
from tests.mcp_http import open_session, serving
from tests.test_pulled_store import _run
from tests.ui_support import base, running

NOT_YOURS = "is not the one `hindsight mcp token` wrote"


def _own_store(tmp_path: Path, token: bool = True) -> tuple[Path, str | None]:
    """The user's store, a memory of agent me in it and (``token``) a token of me made by
    `hindsight mcp token`: the store and the token."""
    store = tmp_path / "checkout" / ".hindsight"
    _run("init", "--store", str(store))
    _run("record", "the deploy key is in the team vault", "--agent", "me", "--store", str(store))
    made = _run("mcp", "token", "me", "--store", str(store)).stdout.strip() if token else None
    return store, made


def _author_tokens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """The author's token file (made under the author's own home) and the author's token."""
    store = tmp_path / "starter-kit" / ".hindsight"
    with monkeypatch.context() as author:
        author.setenv("HINDSIGHT_HOME", str(tmp_path / "author-home"))
        author.setenv("HINDSIGHT_ALLOWED_DIR", str(tmp_path / "author-home" / "allowed"))
        _run("init", "--store", str(store))
        token = _run("mcp", "token", "me", "--store", str(store)).stdout.strip()
    return store / "mcp-tokens.json", token


def _unpack(how: str, planted: Path, store: Path, tmp_path: Path) -> None:
    """The author's token file over the store's (or into a store without one), as ``how`` writes
    it."""
    target = store / "mcp-tokens.json"
    inode = target.stat().st_ino if target.exists() else None
    if how == "tar":
        archive = tmp_path / "starter-kit.tar"
        with tarfile.open(archive, "w") as tar:
            tar.add(planted, arcname=".hindsight/mcp-tokens.json")
        with tarfile.open(archive) as tar:
            # a new file (the file system may give it the old one's inode number)
            tar.extractall(store.parent, filter="data")
    else:
        # cp writes over the existing file: the same inode
        shutil.copyfile(planted, target)
        assert inode is None or target.stat().st_ino == inode
    os.chmod(target, 0o600)
    assert target.read_bytes() == planted.read_bytes()


def _served(store: Path, monkeypatch: pytest.MonkeyPatch, code: int = 0) -> Any:
    """`hindsight mcp --transport http` of ``store`` as far as its start: the run, and the token
    file the server was started with (None when it did not start)."""
    started: list[Any] = []
    monkeypatch.setattr("hindsight_cli.mcp_server.run", lambda *a, **k: started.append(k))
    done = _run("mcp", "--transport", "http", "--port", "0", "--store", str(store), code=code)
    return done, started[0]["tokens"] if started else None


@contextmanager
def _server(store: Path) -> Iterator[str]:
    """The store's real HTTP MCP server with its own token file, as `hindsight mcp --transport
    http` builds it: its base URL."""
    verifier = TokenVerifier(store / "mcp-tokens.json")
    server = build_server(Store(store), tokens=verifier, url="http://127.0.0.1:8765")
    with serving(http_app(server, HttpSettings(), verifier)) as url:
        yield url


@pytest.mark.parametrize("how", ["tar", "cp"])
def test_an_archives_token_file_never_starts_a_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    store, _ = _own_store(tmp_path)
    planted, _ = _author_tokens(tmp_path, monkeypatch)
    _unpack(how, planted, store, tmp_path)
    refused, tokens = _served(store, monkeypatch, code=1)
    assert tokens is None
    assert NOT_YOURS in refused.output, refused.output
    assert "hindsight mcp token AGENT" in refused.output
    assert f"hindsight allow --adopt-tokens {store}" in refused.output
    assert len(refused.output.strip().splitlines()) == 1, refused.output
    # nor `hindsight ui` beyond loopback, nor with the file named by --tokens
    from hindsight_cli.errors import InvalidInput
    from hindsight_cli.ui import prepare

    with pytest.raises(InvalidInput, match="not the one"):
        prepare([Store(store)], host="0.0.0.0", port=0)
    given = str(store / "mcp-tokens.json")
    named = _run("mcp", "--transport", "http", "--store", str(store), "--tokens", given, code=1)
    assert NOT_YOURS in named.output, named.output
    # and `hindsight doctor store` says so
    report = json.loads(_run("doctor", "store", "--json", "--store", str(store), code=1).stdout)
    check = next(c for c in report["checks"] if c["id"] == "store.tokens")
    assert check["status"] == "fail" and f"hindsight allow --adopt-tokens {store}" in check["fix"]


def test_a_store_approved_without_a_token_file_refuses_one_that_appears(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, _ = _own_store(tmp_path, token=False)
    entry = trust.entry_of(store)
    assert entry is not None and token_digest.recorded(entry) == token_digest.NONE
    planted, _ = _author_tokens(tmp_path, monkeypatch)
    _unpack("tar", planted, store, tmp_path)
    refused, _ = _served(store, monkeypatch, code=1)
    assert NOT_YOURS in refused.output, refused.output
    # nor `hindsight ui`, its logins taken from the store's token file
    from hindsight_cli.errors import InvalidInput
    from hindsight_cli.ui import prepare

    with pytest.raises(InvalidInput, match="not the one"):
        prepare([Store(store)], port=0, token_file=store / "mcp-tokens.json")


def test_a_running_ui_refuses_every_login_of_an_archives_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, mine = _own_store(tmp_path)
    planted, author = _author_tokens(tmp_path, monkeypatch)
    with running([Store(store)], token_file=store / "mcp-tokens.json") as served:
        before = httpx.Client(base_url=base(served))
        assert before.get("/login", params={"token": mine}).status_code == 200
        _unpack("cp", planted, store, tmp_path)
        logins = [
            httpx.Client(base_url=base(served)).get("/login", params={"token": t}).status_code
            for t in (author, mine)
        ]
        # the session opened with the user's token ends with the file it came from
        page = before.get("/")
    assert logins == [403, 403]
    assert page.status_code == 401


@pytest.mark.parametrize("how", ["tar", "cp"])
def test_a_running_server_refuses_every_token_of_an_archives_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    how: str,
) -> None:
    store, mine = _own_store(tmp_path)
    assert mine is not None
    planted, author = _author_tokens(tmp_path, monkeypatch)
    with _server(store) as url, httpx2.Client(timeout=60) as h:
        assert open_session(h, url, mine).status_code == 200
        assert open_session(h, url, author).status_code == 401
        with caplog.at_level(logging.WARNING, logger="hindsight.mcp"):
            _unpack(how, planted, store, tmp_path)
            theirs, yours = open_session(h, url, author), open_session(h, url, mine)
        # a new token file of the user's: theirs is gone, the new token works
        made = _run("mcp", "token", "me", "--store", str(store))
        assert "were dropped" in made.stderr, made.output
        new = made.stdout.strip()
        after = [open_session(h, url, t).status_code for t in (author, mine, new)]
    assert [theirs.status_code, yours.status_code] == [401, 401]
    said = [r.getMessage() for r in caplog.records if NOT_YOURS in r.getMessage()]
    assert len(said) == 1, said
    assert after == [401, 401, 200]


def test_your_own_tokens_and_revokes_keep_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, mine = _own_store(tmp_path)
    assert mine is not None
    _, started = _served(store, monkeypatch)
    assert started == store / "mcp-tokens.json"
    entry = trust.entry_of(store)
    assert entry is not None
    written = (store / "mcp-tokens.json").read_text()
    assert token_digest.recorded(entry) == token_digest.of(written)
    with _server(store) as url, httpx2.Client(timeout=60) as h:
        bob = _run("mcp", "token", "bob", "--store", str(store)).stdout.strip()
        opened = [open_session(h, url, t).status_code for t in (mine, bob)]
        _run("mcp", "token", "bob", "--revoke", "--store", str(store))
        revoked = [open_session(h, url, t).status_code for t in (mine, bob)]
    assert opened == [200, 200] and revoked == [200, 401]
    # the file named by --tokens outside a store stays the user's choice, bound to nothing
    own = tmp_path / "own-tokens.json"
    _run("mcp", "token", "me", "--tokens", str(own), "--store", str(store))
    own.write_text(own.read_text().replace('"me"', '"me2"'))
    _run("mcp", "--transport", "http", "--port", "0", "--store", str(store), "--tokens", str(own))


def test_allow_adopts_the_token_file_now_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, mine = _own_store(tmp_path)
    planted, author = _author_tokens(tmp_path, monkeypatch)
    _unpack("cp", planted, store, tmp_path)
    _served(store, monkeypatch, code=1)
    # the user says they wrote (or trust) the file now there
    _run("allow", "--adopt-tokens", str(store))
    _, started = _served(store, monkeypatch)
    assert started == store / "mcp-tokens.json"
    with _server(store) as url, httpx2.Client(timeout=60) as h:
        assert open_session(h, url, author).status_code == 200
        assert open_session(h, url, mine).status_code == 401


def _author_brings(what: str, store: Path, kit: Path) -> None:
    """The archive's other files beside its token file: ``what`` names them."""
    if what == "id":
        # the store is then one no approval names: `allow` is what every line says to run
        shutil.copyfile(kit / trust.ID_FILE, store / trust.ID_FILE)
    elif what == "ledger":
        # the ledger's key is not the one approved: `allow` is what every line says to run
        shutil.copyfile(kit / "ledger.duckdb", store / "ledger.duckdb")


@pytest.mark.parametrize(
    ("what", "how", "token"),
    [
        ("alone", "tar", True),
        ("alone", "cp", True),
        ("id", "tar", True),
        ("ledger", "tar", True),
        ("alone", "tar", False),
        ("id", "tar", False),
    ],
    ids=["tokens-tar", "tokens-cp", "with-id", "with-ledger", "none-before", "none-with-id"],
)
def test_allow_never_adopts_a_token_file_unsaid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str, how: str, token: bool
) -> None:
    """Review AL: `hindsight allow` (which the lines about a store's id, ledger or config tell the
    user to run) approved the token file an archive unpacked beside them, unsaid: the author's token
    then read the user's memories through the user's server. A file the approval does not record
    is now left out, with a warning naming `--adopt-tokens`."""
    store, mine = _own_store(tmp_path, token=token)
    planted, author = _author_tokens(tmp_path, monkeypatch)
    _author_brings(what, store, planted.parent)
    _unpack(how, planted, store, tmp_path)
    allowed = _run("allow", str(store))
    assert "left out" in allowed.stderr and f"--adopt-tokens {store}" in allowed.stderr
    refused, started = _served(store, monkeypatch, code=1)
    assert started is None and NOT_YOURS in refused.output, refused.output
    with pytest.raises(tokens_module.Foreign):
        tokens_module.load(store / "mcp-tokens.json")
    # the user's own file, made again, serves the user's token and not the author's
    again = _run("mcp", "token", "me", "--store", str(store)).stdout.strip()
    entries = tokens_module.load(store / "mcp-tokens.json")
    assert tokens_module.agent_of(entries, again) == "me"
    assert tokens_module.agent_of(entries, author) is None
    assert mine is None or tokens_module.agent_of(entries, mine) is None


def test_allow_keeps_your_own_token_file_without_a_word(tmp_path: Path) -> None:
    """The file the approval records (or none) is approved again as it is, and nothing is said."""
    store, mine = _own_store(tmp_path)
    allowed = _run("allow", str(store))
    assert "token file" not in allowed.stderr
    entries = tokens_module.load(store / "mcp-tokens.json")
    assert mine is not None and tokens_module.agent_of(entries, mine) == "me"


def test_a_token_command_killed_before_its_record_is_refused_until_allow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, mine = _own_store(tmp_path)

    def killed(entry: str, digest: str) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as crash:
        crash.setattr(token_digest, "record", killed)
        done = CliRunner().invoke(app, ["mcp", "token", "bob", "--store", str(store)])
        assert done.exit_code != 0
    bob = done.stdout.strip()
    assert '"bob"' in (store / "mcp-tokens.json").read_text()
    refused, _ = _served(store, monkeypatch, code=1)
    assert NOT_YOURS in refused.output and "hindsight allow" in refused.output
    _run("allow", "--adopt-tokens", str(store))
    with _server(store) as url, httpx2.Client(timeout=60) as h:
        assert [open_session(h, url, t).status_code for t in (mine, bob)] in (
            # the token was printed before the kill, or not
            [[200, 200]] if bob else [[200, 401]]
        )


def _old_style(store: Path) -> Path:
    """The approval as hindsight wrote it before token records: no record beside the entry."""
    entry = trust.entry_of(store)
    assert entry is not None
    os.unlink(entry + token_digest.SUFFIX)
    return Path(entry)


def test_an_old_approvals_token_file_works_until_mcp_token_binds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, mine = _own_store(tmp_path)
    entry = _old_style(store)
    _, started = _served(store, monkeypatch)
    assert started == store / "mcp-tokens.json"
    assert token_digest.recorded(str(entry)) is None
    with _server(store) as url, httpx2.Client(timeout=60) as h:
        assert open_session(h, url, mine).status_code == 200
        bob = _run("mcp", "token", "bob", "--store", str(store)).stdout.strip()
        assert [open_session(h, url, t).status_code for t in (mine, bob)] == [200, 200]
    written = (store / "mcp-tokens.json").read_text()
    assert token_digest.recorded(str(entry)) == token_digest.of(written)
    # bound from then on
    _unpack("tar", _author_tokens(tmp_path, monkeypatch)[0], store, tmp_path)
    _served(store, monkeypatch, code=1)


def test_an_old_approval_is_bound_at_your_next_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/reliability.md: the window an old approval leaves (any token file of the user's is
    taken, an archive's too) closes at the owner's next write, as the ledger key's does."""
    store, _ = _own_store(tmp_path)
    entry = _old_style(store)
    planted, _ = _author_tokens(tmp_path, monkeypatch)
    _run("record", "the api listens on 8443", "--agent", "me", "--store", str(store))
    written = (store / "mcp-tokens.json").read_text()
    assert token_digest.recorded(str(entry)) == token_digest.of(written)
    _served(store, monkeypatch)
    _unpack("cp", planted, store, tmp_path)
    _served(store, monkeypatch, code=1)
    # a store with no token file, approved before records: bound to none at the next write
    other, _ = _own_store(tmp_path / "other", token=False)
    _old_style(other)
    _run("record", "a note", "--store", str(other))
    _unpack("tar", planted, other, tmp_path)
    _served(other, monkeypatch, code=1)


def test_an_archive_bringing_the_stores_id_too_lets_no_token_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The author's `store-id` beside its token file: the store is no longer the one approved at
    this path, and its token file is nobody's approved one."""
    store, mine = _own_store(tmp_path)
    planted, author = _author_tokens(tmp_path, monkeypatch)
    with _server(store) as url, httpx2.Client(timeout=60) as h:
        assert open_session(h, url, mine).status_code == 200
        shutil.copyfile(planted.parent / trust.ID_FILE, store / trust.ID_FILE)
        _unpack("tar", planted, store, tmp_path)
        assert open_session(h, url, author).status_code == 401
    from hindsight_cli.errors import InvalidInput
    from hindsight_cli.ui import prepare

    with pytest.raises(InvalidInput, match="not approved"):
        prepare([Store(store)], host="0.0.0.0", port=0)


@pytest.mark.parametrize(
    "setting",
    ['[mcp]\nallowed_hosts = ["memory.evil.example"]\n', 'default_agent = "me"\n'],
    ids=["allowed_hosts", "default_agent"],
)
def test_an_archives_config_changes_nobody_a_server_lets_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str
) -> None:
    """The store's other file that decides who reaches a server or what a token reads: a
    `config.toml` the archive brings alone. Its settings that do are bound by the approval
    already (`<id>.storage`): the server does not start, nor `hindsight ui`."""
    store, _ = _own_store(tmp_path)
    (store / "config.toml").write_text(setting)
    refused, _ = _served(store, monkeypatch, code=1)
    assert "did not approve" in refused.output, refused.output
    from hindsight_cli.errors import HindsightError
    from hindsight_cli.ui import prepare

    with pytest.raises(HindsightError, match="did not approve"):
        prepare([Store(store)], port=0, token_file=store / "mcp-tokens.json")


def test_a_server_reads_the_file_again_only_when_it_or_its_record_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.core import tokens

    store, mine = _own_store(tmp_path)
    assert mine is not None
    watched = tokens.Watched(store / "mcp-tokens.json")
    reads: list[int] = []
    load = tokens.load
    monkeypatch.setattr(tokens, "load", lambda path: reads.append(1) or load(path))
    for _ in range(5):
        assert tokens.agent_of(watched.entries, mine) == "me"
    assert reads == []
    # the record alone changes (`hindsight allow` adopting the file now there)
    _run("allow", str(store))
    assert tokens.agent_of(watched.entries, mine) == "me"
    assert reads == [1]


def test_token_commands_run_at_once_each_keep_their_token_and_the_record(tmp_path: Path) -> None:
    """Eight `mcp token` runs at once on one store (threads, each its own open of the lock): each
    read the file, added its token and saved it, so tokens were lost and the record could name
    another run's file (every token refused until `allow`). Now one edits the file at a time."""
    import threading

    from hindsight_cli.core import tokens

    store, _ = _own_store(tmp_path, token=False)
    path = store / "mcp-tokens.json"
    made: dict[str, str] = {}
    start = threading.Barrier(8)

    def make(agent: str) -> None:
        start.wait()
        made[agent] = tokens.create(path, agent)

    runs = [threading.Thread(target=make, args=(f"agent{i}",)) for i in range(8)]
    for run in runs:
        run.start()
    for run in runs:
        run.join(60)
    entries = tokens.load(path)
    assert sorted(e["agent"] for e in entries) == sorted(made)
    assert all(tokens.agent_of(entries, token) == agent for agent, token in made.items())


def test_a_token_command_waiting_past_another_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl

    from hindsight_cli.core import tokens

    store, mine = _own_store(tmp_path)
    path = store / "mcp-tokens.json"
    before = path.read_bytes()
    monkeypatch.setattr(tokens, "EDIT_TIMEOUT", 0.0)
    held = os.open(store, os.O_RDONLY | os.O_DIRECTORY)
    try:
        # another run holds the file mid-way
        fcntl.flock(held, fcntl.LOCK_EX)
        result = CliRunner().invoke(app, ["mcp", "token", "bob", "--store", str(store)])
    finally:
        os.close(held)
    assert result.exit_code != 0
    assert "Another `hindsight mcp token` is changing" in result.output
    assert "Nothing was changed" in result.output and "Traceback" not in result.output
    assert path.read_bytes() == before
    assert tokens.agent_of(tokens.load(path), str(mine)) == "me"


def test_a_token_file_in_a_shared_directory_is_locked_where_no_one_else_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review AJ's low: ``mcp token --tokens /tmp/t.json`` locked ``/tmp`` itself, which any
    account can open and hold, so another user could make every such run wait and give up. A
    directory other accounts can read is now never the lock: a lock file of this user's is."""
    import fcntl

    from hindsight_cli.core import tokens

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    path = shared / "team-tokens.json"
    monkeypatch.setattr(tokens, "EDIT_TIMEOUT", 0.0)
    held = os.open(shared, os.O_RDONLY | os.O_DIRECTORY)
    try:
        # someone else holds the directory: it is not ours to wait on
        fcntl.flock(held, fcntl.LOCK_EX)
        made = _run("mcp", "token", "bob", "--tokens", str(path))
    finally:
        os.close(held)
    assert made.stdout.startswith("hst_") and [e["agent"] for e in tokens.load(path)] == ["bob"]
    # two runs on that file are still one at a time, through the lock file only this user can open
    lock = tokens._lock_handle(path)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        busy = _run("mcp", "token", "ann", "--tokens", str(path), code=1)
    finally:
        os.close(lock)
    assert "Another `hindsight mcp token` is changing" in busy.stderr
    assert [e["agent"] for e in tokens.load(path)] == ["bob"]


@pytest.mark.parametrize(
    ("reader", "suffix", "good"),
    [
        (token_digest.recorded, token_digest.SUFFIX, "none"),
        (ledger_key.recorded, ledger_key.KEY_SUFFIX, "0" * 32),
    ],
)
def test_an_approval_record_hindsight_did_not_write_matches_nothing(
    tmp_path: Path, reader: Any, suffix: str, good: str
) -> None:
    """The ledger key's and the token file's records are read alike: missing is an approval from
    before records; anything but what hindsight writes (another length, upper case, a huge file,
    a FIFO, bytes that are not UTF-8) matches nothing, without a traceback or a wait."""
    entry = str(tmp_path / "store-id")
    record = Path(entry + suffix)
    assert reader(entry) is None
    record.write_text(good + "\n")
    record.chmod(0o600)
    assert reader(entry) == good
    for damaged in (good[:-1], good.upper() + "A", "x" * (2 << 20), b"\xff\xfe"):
        record.write_bytes(damaged if isinstance(damaged, bytes) else damaged.encode())
        assert reader(entry) == "", damaged[:8]
    record.unlink()
    os.mkfifo(record, 0o600)
    assert reader(entry) == ""
