"""doctor's hints name the real cause: an immutable directory (EPERM, which chmod cannot fix), a
read-only mount, plain mode bits, and a store path that does not exist (a typo in --store or
$HINDSIGHT_STORE, or a store not created yet). `chattr +i` needs root and ext4, so the write
errors are faked at the one call that meets them."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from hindsight_cli.errors import from_os_error

pytestmark = pytest.mark.local_only


def _checks(result) -> dict[str, dict]:
    return {c["id"]: c for c in json.loads(result.stdout)["checks"]}


def _refuse_writes(monkeypatch: pytest.MonkeyPatch, store: Path, code: int) -> None:
    """The store directory refuses new files with ``code``, as the kernel would."""
    real_access, real_open = os.access, os.open

    def access(path, mode, *args, **kwargs):
        if Path(path) == store and mode & os.W_OK:
            return False
        return real_access(path, mode, *args, **kwargs)

    def open_(path, flags, *args, **kwargs):
        if Path(path).parent == store and flags & os.O_CREAT:
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(os, "open", open_)


def test_an_immutable_store_directory_names_chattr_not_chmod(cli, monkeypatch) -> None:
    cli("record", "a memory so the store exists")
    store = cli.store_path.resolve()
    _refuse_writes(monkeypatch, store, errno.EPERM)
    result = cli("doctor", "store")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    head = lines.index(
        "fail store.permissions: store directory is not writable: operation not permitted"
    )
    assert lines[head + 1] == "     saw: " + f"{store} mode 700"
    assert lines[head + 2] == (
        f"     fix: {store} or the file is immutable or append-only (`lsattr -d {store}` shows an "
        f"i or a): `sudo chattr -i -a {store}`, or choose another location"
    )


@pytest.mark.parametrize(
    ("code", "fix"),
    [
        (errno.EACCES, "give your user write access: chmod u+w {store}"),
        (errno.EROFS, "the file system is mounted read-only: remount it read-write"),
    ],
    ids=["mode-bits", "read-only-mount"],
)
def test_other_write_refusals_keep_their_own_fix(cli, monkeypatch, code: int, fix: str) -> None:
    cli("record", "a memory so the store exists")
    store = cli.store_path.resolve()
    _refuse_writes(monkeypatch, store, code)
    check = _checks(cli("doctor", "store", "--json"))["store.permissions"]
    assert check["status"] == "fail"
    assert check["summary"] == f"store directory is not writable: {os.strerror(code).lower()}"
    assert check["fix"].startswith(fix.format(store=store))


def test_a_store_path_that_does_not_exist_names_the_option_and_init_there(cli, tmp_path) -> None:
    typo = tmp_path / "stor"
    result = cli("doctor", "store", "--store", str(typo))
    assert result.exit_code == 0
    assert (
        "warn store.exists: no store at the path --store names\n"
        f"     saw: {typo} does not exist\n"
        "     fix: if --store has a typo, fix it; to create a store there, run "
        f"`hindsight init --store {typo}`\n"
    ) in result.stdout


def test_a_store_path_from_the_environment_names_the_variable(cli, tmp_path, monkeypatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("HINDSIGHT_STORE", str(empty))
    check = _checks(cli("doctor", "store", "--json", store=False))["store.exists"]
    assert check["summary"] == "no store at the path $HINDSIGHT_STORE names"
    assert check["evidence"] == f"{empty / 'ledger.duckdb'} is missing"
    assert check["fix"].endswith(f"run `hindsight init --store {empty}`")


def test_no_global_store_yet_says_recording_creates_it(cli, monkeypatch) -> None:
    monkeypatch.delenv("HINDSIGHT_STORE", raising=False)
    check = _checks(cli("doctor", "store", "--json", store=False))["store.exists"]
    assert check["summary"] == "no global store yet"
    assert check["fix"] == (
        "record a memory, which creates it; or `hindsight init` for a store in this project"
    )


def test_eperm_anywhere_is_explained_as_an_attribute(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    error = OSError(errno.EPERM, "Operation not permitted", str(tmp_path / "ledger.duckdb"))
    assert str(from_os_error(error)) == (
        f"Cannot use {tmp_path / 'ledger.duckdb'}: operation not permitted; {tmp_path} or the file "
        f"is immutable or append-only (`lsattr -d {tmp_path}` shows an i or a): "
        f"`sudo chattr -i -a {tmp_path}`, or choose another location."
    )
    monkeypatch.setattr("sys.platform", "darwin")
    assert f"chflags nouchg {tmp_path}" in str(from_os_error(error))
