"""Time the recording hook the way a client runs it: a fresh process per call, payload on stdin.

    python benchmarks/bench_hooks.py [--runs 30] [--no-bytecode] [--bare] [--compare OTHER_CHECKOUT]

Runs the command line that ``hindsight hooks install`` writes, on two failing-tool payloads
(spooled, store untouched): a plain error, and one whose text holds a URL and a ``token=`` (so the
redaction patterns that look for those are compiled and run). For scale: a bare ``python -c pass``
(what any Python hook pays), ``python -S -c pass`` (the same without site-packages, the installed
command's floor) and ``python -m hindsight_cli.hooks`` (the hook through the package's
``__init__``). The cases take turns, so a change in the machine's load hits them alike. Bytecode is
cached in a temporary directory, as an installed package has it; ``--no-bytecode`` compiles our
modules on every call instead (an editable install with PYTHONDONTWRITEBYTECODE set). ``--compare``
times another checkout's installed hook (say, a worktree of main) in the same rounds, each recording
into a store its own ``hindsight init`` made (with the config.toml a user's store has);
``--bare`` records into an approved store directory with no files, as runs before 2026-12-05 did. No
timing is asserted in the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


ERRORS = {
    "plain error": "Exit code 1\nE   ModuleNotFoundError: No module named 'requests'",
    "error with a URL and token=": "Exit code 22\ncurl: (22) "
    "https://api.example.com/v1/items?token=abc123XYZ returned 401",
}


def _payload(project: Path, error: str) -> str:
    # A new session and mostly new words each time: a repeat of an earlier session's error would
    # (rightly) recall, which is not what is timed here.
    noise = " ".join(os.urandom(4).hex() for _ in range(16))
    return json.dumps(
        {
            "session_id": os.urandom(4).hex(),
            "cwd": str(project),
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest tests/test_api.py"},
            "error": f"{error} {noise}",
        }
    )


def _p90(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[max(0, int(len(ordered) * 0.9) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--no-bytecode", action="store_true", help="Compile our modules on every call."
    )
    parser.add_argument(
        "--compare", type=Path, help="Another checkout whose installed hook to time too."
    )
    parser.add_argument(
        "--bare",
        action="store_true",
        help="Stores without hindsight init's files (no config.toml).",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "HINDSIGHT_HOME": str(Path(tmp) / "home"),
            "PATH": "/usr/bin:/bin",
            **(
                {"PYTHONDONTWRITEBYTECODE": "1"}
                if args.no_bytecode
                else {"PYTHONPYCACHEPREFIX": f"{tmp}/pycache"}
            ),
        }
        checkouts = {"": ROOT, **({f"{args.compare.name}: ": args.compare} if args.compare else {})}
        projects = {
            label: _project(Path(tmp) / f"project{i}", checkout, env, args.bare)
            for i, (label, checkout) in enumerate(checkouts.items())
        }
        cases = {
            "python -c pass": ([sys.executable, "-c", "pass"], "", projects[""]),
            "python -S -c pass": ([sys.executable, "-S", "-c", "pass"], "", projects[""]),
        }
        commands = {}
        for label, checkout in checkouts.items():
            commands[label] = shlex.split(_hook_command(checkout))
            for name, error in ERRORS.items():
                cases[f"{label}recording hook as installed, {name}"] = (
                    commands[label],
                    error,
                    projects[label],
                )
        cases["python -m hindsight_cli.hooks, plain error"] = (
            [sys.executable, "-m", "hindsight_cli.hooks", "tool-failure"],
            ERRORS["plain error"],
            projects[""],
        )
        ledgers = {label: _ledger_state(p) for label, p in projects.items()}
        times: dict[str, list[float]] = {name: [] for name in cases}
        # two warm-up rounds fill the bytecode cache
        for round_ in range(args.runs + 2):
            for name, (argv, error, project) in cases.items():
                stdin = _payload(project, error) if error else ""
                start = time.perf_counter()
                subprocess.run(
                    argv, input=stdin, capture_output=True, text=True, check=True, env=env, cwd=ROOT
                )
                if round_ >= 2:
                    times[name].append(time.perf_counter() - start)
        print(f"hook command: {shlex.join(commands[''])}")
        base = statistics.median(times["python -c pass"])
        for name, values in times.items():
            median = statistics.median(values)
            print(
                f"{name:<64} median {median * 1000:6.1f} ms   p90 {_p90(values) * 1000:6.1f} ms"
                f"   over python -c pass {(median - base) * 1000:+6.1f} ms"
            )
        for label, project in projects.items():
            spool = project / ".hindsight" / "spool"
            lines = (spool / "events.jsonl").read_text().count("\n")
            print(
                f"{label or 'this checkout: '}spooled events: {lines}; store opened: "
                f"{_ledger_state(project) != ledgers[label]}"
            )
            failures = [
                p for p in (spool / "hooks.log", Path(tmp) / "home" / "hooks.log") if p.exists()
            ]
            if failures:
                # a hook that failed took another path (and logged a traceback): its times mean
                # nothing
                sys.exit(f"the hooks failed; see {failures[0]}:\n{failures[0].read_text()[-600:]}")


def _project(project: Path, checkout: Path, env: dict[str, str], bare: bool) -> Path:
    """A project whose store ``checkout``'s ``hindsight init`` made (its config.toml, approved):
    what a user's hooks record into; ``bare``: an empty store directory, approved."""
    project.mkdir()
    if bare:
        (project / ".hindsight").mkdir()
        code = (
            f"from hindsight_cli.safefs import trust; trust.allow({str(project / '.hindsight')!r})"
        )
        argv, where = [sys.executable, "-c", code], ROOT
    else:
        argv, where = [sys.executable, "-m", "hindsight_cli", "init"], checkout
    subprocess.run(
        argv,
        env={**os.environ, **env, "PYTHONPATH": str(where)},
        cwd=project,
        check=True,
        capture_output=True,
    )
    return project


def _hook_command(checkout: Path) -> str:
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from hindsight_cli.hooks.install import command; "
            "print(command('claude-code', 'tool-failure', None))",
        ],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _ledger_state(project: Path) -> tuple[int, int] | None:
    """The ledger's size and change time (None: there is none): a recording hook never opens the
    store."""
    try:
        st = (project / ".hindsight" / "ledger.duckdb").stat()
    except FileNotFoundError:
        return None
    return st.st_size, st.st_mtime_ns


if __name__ == "__main__":
    main()
