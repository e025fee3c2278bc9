"""A spool of many failures and successes of one session is linked in one read of the session's
open failures, not one per success (review AC).

Before: every success in the spool listed all of its session's open failures from the ledger again
and compared it with each, so ingestion grew with the square of a session: 400 failures and 400
other successes of one session took 8 s, 1,000 of each about 50 s, at every session end,
`hooks flush` and MCP server start (which ingest the spool). Now each session's open failures are
read once per ingestion and looked up by tool (`core.events._OpenFailures`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hindsight_cli.cli import app
from hindsight_cli.storage import spool
from hindsight_cli.store import Store


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), prog_name="hindsight")


def _spool(store: Path, tmp_path: Path, lines: list[dict[str, str]]) -> None:
    for line in lines:
        # as the tool hooks spool them
        line.update(ts="2026-12-06T10:00:00Z", client="claude-code", cwd=str(tmp_path))
        spool.append(spool.spool_dir(store) / spool.EVENTS, line)


def _failure(i: int, session: str, args: str) -> dict[str, str]:
    return dict(
        id=f"f{session}{i}", kind="tool_error", session=session, tool="Bash", args=args,
        error=f"exit 1 from step {i}", call=f"c{session}{i}",
    )  # fmt: skip


def _success(i: int, session: str, args: str) -> dict[str, str]:
    return dict(id=f"o{session}{i}", kind="tool_ok", session=session, tool="Bash", args=args)


@pytest.mark.parametrize("successes", [40, 120])
def test_a_sessions_many_successes_read_its_open_failures_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, successes: int
) -> None:
    store = tmp_path / "s"
    assert _invoke("init", "--store", str(store)).exit_code == 0
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    names = [f"{a}{b}" for a in words for b in words]
    lines = [_failure(i, "S1", f"deploy {names[i]}") for i in range(40)]
    # a success fixing failure 7, one fixing failure 9 of another session (not this one's), then
    # many that fix nothing, and a success before its failure (which it cannot have fixed)
    lines.append(_success(0, "S1", f"deploy {names[7]} --force"))
    lines.append(_failure(9, "S2", f"deploy {names[50]}"))
    lines.append(_success(1, "S2", f"deploy {names[50]} --force"))
    lines += [_success(i, "S1", f"lint module{i} quietly") for i in range(2, successes)]
    lines.append(_success(successes, "S1", "build warehouse parcel"))
    lines.append(_failure(99, "S1", "build warehouse parcel"))
    _spool(store, tmp_path, lines)
    listed = []
    real = Store.list

    def counting(self: Store, *args: Any, **kwargs: Any) -> Any:
        listed.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Store, "list", counting)
    done = _invoke("hooks", "flush", "--store", str(store))
    monkeypatch.setattr(Store, "list", real)
    assert done.exit_code == 0, done.output
    failures = [m for m in Store(store).list(limit=None) if m.trigger == "tool_error"]
    fixed = sorted(str(m.metadata.get("args")) for m in failures if m.resolution)
    assert fixed == [f"deploy {names[7]}", f"deploy {names[50]}"]
    # every failure stored, the two fixed ones as a new version with the fix
    assert len({str(m.metadata.get("args")) for m in failures}) == 42 and len(failures) == 44
    # one read of each session's open failures; before: one for each success
    assert len(listed) <= 2, len(listed)
