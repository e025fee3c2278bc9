"""A process killed (SIGKILL) at the worst moment of creating a store: the next run finishes the job,
and the store stays this user's, approved (review F).

Each kill happens at a named point, in the process itself (a driver replaces the function at that
point with one that kills its own process), never after a delay.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

# Runs `hindsight ARGS…` with a kill at one point: before the approval (`allow`), right after the
# ledger is created, or as the store's id or its allow-list entry is written.
DRIVER = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding, safefs
from hindsight_cli.safefs import trust
from hindsight_cli.storage.sql import duckdb_ledger
embedding._CACHE[embedding.DEFAULT_MODEL] = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
point = sys.argv[1]
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
if point == "approval":
    trust.allow = die
elif point == "ledger":
    created = duckdb_ledger.DuckDBLedger.create
    def create(self, *args, **kwargs):
        created(self, *args, **kwargs)
        die()
    duckdb_ledger.DuckDBLedger.create = create
else:
    written = safefs.write_private
    allowed = os.environ["HINDSIGHT_ALLOWED_DIR"]
    def write_private(path, *args, **kwargs):
        where = os.fspath(path)
        if (point == "id" and where.endswith("store-id")) or (
            point == "entry" and where.startswith(allowed) and not where.endswith(".storage")
        ):
            die()
        return written(path, *args, **kwargs)
    safefs.write_private = write_private
sys.argv = ["hindsight", *sys.argv[2:]]
from hindsight_cli.cli import main
main()
"""
PROMPT = "how do I rotate the staging deploy key before friday"


def _killed(tmp_path: Path, point: str, *args: str, stdin: str = "") -> None:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER.format(tests=str(Path(__file__).parent)))
    done = subprocess.run(
        [sys.executable, str(driver), point, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr


def _hook(store: Path, prompt: str = PROMPT, pinned: bool = True) -> None:
    """The prompt hook, its store given (``pinned``) or found above the session's directory."""
    payload = {"session_id": "s1", "cwd": str(store.parent), "prompt": prompt}
    done = subprocess.run(
        [sys.executable, "-m", "hindsight_cli", "hook", "prompt"]
        + (["--store", str(store)] if pinned else []),
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def _spooled(store: Path) -> str:
    events = store / "spool" / "events.jsonl"
    return events.read_text(encoding="utf-8") if events.exists() else ""


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    driver = (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from conftest import FakeEmbedder\n"
        "from hindsight_cli import embedding\n"
        "embedding._CACHE[embedding.DEFAULT_MODEL] = "
        "FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)\n"
        "sys.argv = ['hindsight', *sys.argv[1:]]\n"
        "from hindsight_cli.cli import main\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", driver, *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
@pytest.mark.parametrize("point", ["approval", "ledger", "id", "entry"])
def test_a_first_record_killed_while_creating_the_store_leaves_it_approved(
    tmp_path: Path, point: str
) -> None:
    """Before: a first `record` killed after the ledger was written and before the store was
    approved (`ledger`, `approval`, `entry`) left the user's own store unapproved for good: every
    hook did nothing (logged `… was not created or approved by you …`), `hindsight mcp` refused it,
    and a rerun did not approve it (the store was no longer fresh)."""
    store = tmp_path / "memories"
    _killed(tmp_path, point, "record", "the first memory", "--store", str(store))
    again = _cli("record", "the staging database listens on 5433", "--store", str(store))
    assert again.returncode == 0, again.stderr
    _hook(store)
    assert PROMPT in _spooled(store)
    listed = _cli("list", "--store", str(store))
    assert listed.returncode == 0 and "5433" in listed.stdout
    done = _cli("doctor", "store", "--store", str(store), "--json")
    checks = {c["id"]: c["status"] for c in json.loads(done.stdout)["checks"]}
    assert checks.get("store.trust") == "ok", done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("point", ["approval", "id", "entry"])
def test_a_first_hook_killed_while_creating_a_pinned_store_leaves_it_approved(
    tmp_path: Path, point: str
) -> None:
    """Before: a pinned store's first hook event killed after it made the directory and before the
    approval (`approval`, `entry`) left an empty directory no later hook took (`adopt` makes only a
    directory that does not exist): the hooks recorded nothing, silently, from then on."""
    store = tmp_path / "memories"
    payload = {"session_id": "s1", "cwd": str(tmp_path), "prompt": "the first prompt of all"}
    _killed(
        tmp_path,
        point,
        "hook",
        "prompt",
        "--store",
        str(store),
        stdin=json.dumps(payload),
    )
    _hook(store)
    assert PROMPT in _spooled(store)
    flushed = _cli("hooks", "flush", "--store", str(store))
    assert flushed.returncode == 0, flushed.stderr
    listed = _cli("list", "--store", str(store))
    assert listed.returncode == 0 and "rotate the staging deploy key" in listed.stdout


def test_a_repositorys_store_stays_unapproved_however_little_it_holds(tmp_path: Path) -> None:
    """What the empty directory a killed hook leaves may be adopted as, and nothing more: a
    `.hindsight/` holding any file (git checks out no empty directory) stays a repository's."""
    for shipped in (["store-id"], [".gitignore"], ["config.toml"]):
        store = tmp_path / f"checkout-{shipped[0]}" / ".hindsight"
        store.mkdir(parents=True, mode=0o700)
        for name in shipped:
            (store / name).write_text("*\n" if name == ".gitignore" else "\n")
        _hook(store, pinned=False)
        assert _spooled(store) == "", shipped
    link = tmp_path / "checkout-link" / ".hindsight"
    link.parent.mkdir()
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    os.symlink(tmp_path / "elsewhere", link)
    _hook(link, pinned=False)
    assert not list((tmp_path / "elsewhere").iterdir())
