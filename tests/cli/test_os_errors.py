"""Every OSError that reaches a face is one `Error:` line naming the path and the fix (exit 1),
never a traceback, and nothing is left half-written (issue 20)."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile import hindsight

from hindsight_cli.errors import FileProblem, HindsightError, from_os_error
from hindsight_cli.store import Store


@pytest.fixture
def unwritable(tmp_path: Path) -> Iterator[Path]:
    """A directory nothing can be created in: read-only for a user, immutable (chattr +i) for root,
    whom permission bits do not stop."""
    place = tmp_path / "locked"
    place.mkdir()
    if os.geteuid() == 0:
        done = subprocess.run(["chattr", "+i", str(place)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot make a directory immutable here: {done.stderr.strip()}")
    else:
        place.chmod(0o555)
    yield place
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(place)], check=True)
    else:
        place.chmod(0o755)


def _one_error_line(result: subprocess.CompletedProcess[str], *names: str) -> str:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    line = result.stderr.strip()
    assert line.startswith("Error: ") and "\n" not in line, result.stderr
    for name in names:
        assert name in line, line
    return line


@pytest.mark.slow
def test_init_under_an_unwritable_parent(unwritable: Path) -> None:
    line = _one_error_line(hindsight("init", cwd=unwritable), str(unwritable / ".hindsight"))
    # the fix, not only the failure
    assert "chattr -i" in line or "permissions" in line
    assert list(unwritable.iterdir()) == []


@pytest.mark.slow
def test_record_into_a_store_under_an_unwritable_parent(unwritable: Path) -> None:
    store = unwritable / "deep" / "store"
    _one_error_line(
        hindsight("record", "a note that cannot be kept", "--store", str(store)),
        str(unwritable / "deep"),
    )
    assert list(unwritable.iterdir()) == []


@pytest.mark.slow
@pytest.mark.parametrize("below", ["", "sub"])
def test_hindsight_home_at_a_file(
    tmp_path: Path, below: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "home-file"
    file.write_text("not a directory\n")
    monkeypatch.setenv("HINDSIGHT_HOME", str(file / below) if below else str(file))
    store = tmp_path / "store"
    line = _one_error_line(hindsight("record", "a note", "--store", str(store)), str(file))
    assert "move" in line
    # refused before the store was made, not after
    assert not store.exists()
    assert file.read_text() == "not a directory\n"


@pytest.mark.slow
@pytest.mark.parametrize("target", ["/proc/nope.jsonl", "{locked}/out.jsonl"])
def test_export_to_a_place_that_takes_no_file(
    tmp_path: Path, unwritable: Path, target: str
) -> None:
    store = tmp_path / "store"
    assert hindsight("record", "something to export", "--store", str(store)).returncode == 0
    path = target.format(locked=unwritable)
    line = _one_error_line(hindsight("export", "-o", path, "--store", str(store)), path)
    # the file asked for, not the temp file beside it
    assert ".tmp" not in line
    assert not Path(path).exists() and list(unwritable.iterdir()) == []


def test_the_core_raises_the_os_error_and_the_translation_names_path_and_fix(
    unwritable: Path,
) -> None:
    """Through the Python API the OSError itself arrives (with errno and filename), nothing is made,
    and ``from_os_error`` is what every face turns it into."""
    with pytest.raises(OSError) as raised:
        Store(unwritable / "store").init()
    assert raised.value.errno in (errno.EPERM, errno.EACCES, errno.EROFS)
    assert raised.value.filename == str(unwritable / "store")
    assert list(unwritable.iterdir()) == []
    problem = from_os_error(raised.value)
    assert isinstance(problem, FileProblem) and isinstance(problem, HindsightError)
    assert str(unwritable / "store") in str(problem) and str(unwritable) in str(problem)


@pytest.mark.parametrize(
    ("error", "fix"),
    [
        (
            OSError(errno.ENOSPC, "No space left on device", "/data/store/ledger.duckdb"),
            "free some space",
        ),
        (OSError(errno.EROFS, "Read-only file system", "/mnt/ro/store"), "remount it read-write"),
        (OSError(errno.EACCES, "Permission denied", "/srv/store"), "ls -ld /srv"),
        (OSError(errno.EMFILE, "Too many open files"), "ulimit -n"),
    ],
)
def test_each_kind_of_os_error_says_what_to_do(error: OSError, fix: str) -> None:
    text = str(from_os_error(error))
    assert fix in text and "\n" not in text
    if error.filename:
        assert error.filename in text


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_through_mcp_an_os_error_is_a_tool_error_naming_path_and_fix(
    unwritable: Path, anyio_backend: str, tmp_path: Path
) -> None:
    """The MCP face words it as the CLI does, as the tool's error text, and the server keeps
    serving."""
    from mcp import Client

    from hindsight_cli.mcp_server import build_server

    store = unwritable / "store"
    async with Client(build_server(Store(store))) as client:
        written = await client.call_tool("memory_write", {"content": "a note that cannot be kept"})
        again = await client.call_tool("memory_write", {"content": "and another one"})
    for result in (written, again):
        assert result.is_error
        text = result.content[0].text
        # the SDK names the tool
        assert f"memory_write: Cannot use {store}: " in text and "\n" not in text, text
        assert "chattr -i" in text or "permissions" in text
        assert "Traceback" not in text and "Errno" not in text
    assert list(unwritable.iterdir()) == []


@pytest.mark.slow
def test_an_mcp_server_with_its_home_at_a_file_does_not_start_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store is opened before the server starts, so the refusal is the command's one line, not a
    tool error a client might never show."""
    file = tmp_path / "home-file"
    file.write_text("not a directory\n")
    monkeypatch.setenv("HINDSIGHT_HOME", str(file))
    store = tmp_path / "store"
    _one_error_line(hindsight("mcp", "--store", str(store)), str(file), "move")
    assert not store.exists() and file.read_text() == "not a directory\n"
