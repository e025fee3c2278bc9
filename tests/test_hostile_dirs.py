"""Hostile shared directories (issue 16, point 9): a store directory another user made or can write,
a directory above it in which another user can swap it, a loose HINDSIGHT_HOME. Each is refused
before anything is read from it or written to it, through the CLI, the Python API and the hooks, and
`doctor store` fails on it. Root runs these tests too: the other user is uid 65534 (a file root
gives away is refused for root as well)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from hostile import OTHER, cli, doctor, give_away, hindsight, refused, snapshot

from hindsight_cli import safefs
from hindsight_cli.errors import UnsafeLocation
from hindsight_cli.store import Store, open_store

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="no file owners on Windows")
TOKEN = "hst_planted-by-the-other-user"


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    """The issue's case: in a shared directory (sticky, like /tmp) another user made `.hindsight`
    0777, with a token file of its own and a dangling `.gitignore` link to a path it will read."""
    shared, attacker = tmp_path / "shared", tmp_path / "attacker"
    shared.mkdir()
    shared.chmod(0o1777)
    attacker.mkdir()
    store = shared / ".hindsight"
    store.mkdir()
    store.chmod(0o777)
    (store / ".gitignore").symlink_to(attacker / "planted")
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    (store / "mcp-tokens.json").write_text(
        json.dumps({"tokens": [{"agent": "default", "sha256": digest}]})
    )
    give_away(store, store / ".gitignore", store / "mcp-tokens.json")
    (shared / "project").mkdir()
    return store, attacker


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["record", "the deploy key lives in vault"],
        ["init", "--store", "../.hindsight"],
        ["search", "deploy"],
        ["list"],
        ["export"],
        ["mcp"],
        ["stats"],
    ],
)
def test_a_store_directory_of_another_user_is_refused_by_every_command(
    planted, args: list[str]
) -> None:
    store, attacker = planted
    before = snapshot(store)
    # Found by walking up from a project below it, as a victim's `hindsight` would find it.
    result = hindsight(*args, cwd=store.parent / "project")
    refused(
        result,
        f"The store directory {store} belongs to another user",
        f"uid {OTHER}",
        "mode 777",
        f"mv {store} {store}.untrusted",
    )
    assert snapshot(store) == before and not (attacker / "planted").exists()


def test_the_python_api_refuses_it_too_and_doctor_names_each_problem(planted) -> None:
    store, attacker = planted
    before = snapshot(store)
    for opening in (lambda: Store(store), lambda: open_store(store), lambda: Store(store).init()):
        with pytest.raises(
            UnsafeLocation, match=f"^The store directory {store} belongs to another user"
        ):
            opening()
    assert snapshot(store) == before and not (attacker / "planted").exists()
    code, checks = doctor(store)
    assert code == 1
    assert {
        k: checks[k]["status"]
        for k in ("store.permissions", "store.links", "store.owners", "store.tokens")
    } == dict.fromkeys(("store.permissions", "store.links", "store.owners", "store.tokens"), "fail")
    assert checks["store.permissions"]["summary"] == "store directory belongs to another user"
    assert str(store / ".gitignore") in checks["store.links"]["evidence"]
    assert f"uid {OTHER}" in checks["store.tokens"]["evidence"]
    # doctor changes nothing
    assert snapshot(store) == before


@pytest.mark.slow
@pytest.mark.parametrize("mode", [0o777, 0o703, 0o1777, 0o722])
def test_a_store_other_users_can_write_is_refused_until_chmod_700(
    tmp_path: Path, fake, mode: int
) -> None:
    store = tmp_path / "store"
    Store(store, embedder=fake).record("the staging password rotates on Mondays")
    store.chmod(mode)
    before = snapshot(store)
    fix = f"run chmod 700 {store}"
    refused(
        cli("search", "password", "--store", str(store)),
        f"The store directory {store} is writable by other users",
        f"mode {mode:o}",
        fix,
    )
    refused(
        hindsight("record", "more", "--store", str(store)),
        f"The store directory {store} is writable",
        fix,
    )
    with pytest.raises(UnsafeLocation, match=fix):
        Store(store, embedder=fake)
    assert snapshot(store) == before
    code, checks = doctor(store)
    assert code == 1 and checks["store.permissions"]["status"] == "fail"
    assert checks["store.permissions"]["fix"].startswith(f"anyone could replace its files: {fix}")
    # the fix the message gives is enough
    store.chmod(0o700)
    assert Store(store, embedder=fake).search("password").hits


def test_group_write_counts_unless_the_group_is_the_owners_own(tmp_path: Path, fake) -> None:
    store = tmp_path / "store"
    Store(store, embedder=fake).record("a memory")
    store.chmod(0o770)
    st = store.stat()
    # a user private group (umask 002 systems): nobody else
    if safefs._private_group(st.st_uid, st.st_gid):
        assert Store(store, embedder=fake).list()
    try:
        # a group other users are in
        os.chown(store, -1, OTHER)
    except PermissionError:
        pytest.skip("changing a directory's group to another group needs root")
    if safefs._private_group(st.st_uid, OTHER):
        pytest.skip("group 65534 is this user's own group here")
    with pytest.raises(UnsafeLocation, match="is writable by other users"):
        Store(store, embedder=fake)


@pytest.mark.slow
def test_a_parent_others_can_write_without_the_sticky_bit_is_refused(tmp_path: Path, fake) -> None:
    """Whoever can write a directory can rename what is in it: the store could be swapped for
    another user's under a running server, after every check at its start passed."""
    loose = tmp_path / "loose"
    loose.mkdir()
    store = loose / "deeper" / "store"
    Store(store, embedder=fake).record("the release checklist is in docs/release.md")
    loose.chmod(0o777)
    before = snapshot(loose)
    refused(
        hindsight("list", "--store", str(store)),
        f"{store} lies in {loose}, which other users can write without the sticky bit",
        f"run chmod go-w {loose} (or chmod +t {loose})",
    )
    # an existing store, and one that would be created there
    for path in (store, loose / "new-store"):
        with pytest.raises(UnsafeLocation, match=f"lies in {loose}, which other users can write"):
            Store(path, embedder=fake).record("not written")
    assert snapshot(loose) == before
    code, checks = doctor(store)
    assert (
        code == 1
        and checks["store.parents"]["status"] == "fail"
        and str(loose) in checks["store.parents"]["evidence"]
    )
    # sticky, like /tmp: only an entry's owner may rename it
    loose.chmod(0o1777)
    assert [m.content for m in Store(store, embedder=fake).list()] == [
        "the release checklist is in docs/release.md"
    ]
    assert doctor(store)[1]["store.parents"]["status"] == "ok"


def test_a_link_to_the_store_from_a_loose_directory_is_refused(tmp_path: Path, fake) -> None:
    store, loose = tmp_path / "private" / "store", tmp_path / "loose"
    Store(store, embedder=fake).record("a memory")
    loose.mkdir()
    # anyone who can write `loose` can point this elsewhere
    (loose / "store").symlink_to(store)
    loose.chmod(0o777)
    with pytest.raises(UnsafeLocation, match=f"lies in {loose}, which other users can write"):
        Store(loose / "store", embedder=fake)
    # the store itself, by its own path, is fine
    assert Store(store, embedder=fake).list()


@pytest.mark.slow
def test_a_loose_hindsight_home_is_refused(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HINDSIGHT_HOME holds the user config and the unpacked model: another user's or a writable one
    is refused as a store would be."""
    home = tmp_path / "shared-home"
    home.mkdir()
    home.chmod(0o777)
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    store = tmp_path / "store"
    refused(
        hindsight("record", "x", "--store", str(store)),
        f"The hindsight directory {home} is writable by other users",
        f"chmod 700 {home}",
    )
    with pytest.raises(UnsafeLocation, match=f"The hindsight directory {home}"):
        Store(store, embedder=fake)
    assert not store.exists() and os.listdir(home) == []
    payload = json.dumps(
        {"session_id": "s1", "cwd": str(tmp_path), "prompt": "deploy the staging branch"}
    )
    # its settings live there
    hooked = hindsight("hook", "prompt", "--store", str(store), input=payload)
    assert (hooked.returncode, hooked.stdout, hooked.stderr) == (0, "", "")
    # the refusal, nothing spooled
    assert os.listdir(store / "spool") == ["hooks.log"] and os.listdir(home) == []
    assert (
        f"The hindsight directory {home} is writable" in (store / "spool" / "hooks.log").read_text()
    )
    code, checks = doctor(store)
    assert code == 1 and checks["store.home"]["status"] == "fail"


@pytest.mark.slow
def test_a_recording_hook_never_spools_into_a_hostile_store(planted, tmp_path: Path) -> None:
    """Hooks never break the agent (exit 0, nothing printed), so the refusal goes to the hook log in
    HINDSIGHT_HOME, not into the other user's directory."""
    store, attacker = planted
    before = snapshot(store)
    payload = {
        "session_id": "s1",
        "cwd": str(store.parent / "project"),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "make deploy"},
        "error": "Exit code 2: secret missing",
    }
    result = hindsight(
        "hook", "tool-failure", input=json.dumps(payload), cwd=store.parent / "project"
    )
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""
    assert snapshot(store) == before and not (attacker / "planted").exists()
    log = Path(os.environ["HINDSIGHT_HOME"]) / "hooks.log"
    assert f"The store directory {store} belongs to another user" in log.read_text()
