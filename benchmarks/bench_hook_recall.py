"""Time the hooks' repeat recall on a tool failure at 10k memories: answered warm by a running
``hindsight mcp`` of the store, against the cold path, in the same rounds.

    python benchmarks/bench_hook_recall.py [--size 10000] [--runs 30] [--gap 1.5]
        [--compare OTHER_CHECKOUT]

Builds a store of ``--size`` synthetic memories (``hindsight import``, the bundled model), lets a
session fail and fix a pytest run (the lesson), starts ``hindsight mcp`` on the store, and then, in
every round, runs the failing call of a new session through the command ``hindsight hooks install``
writes (a fresh process, payload on stdin; the recall fires: an earlier session fixed this kind of
error) once per case, the cases taking turns:

- **warm**: the store's settings as ``import`` wrote them (``warm_recall`` on by default): the hook
  asks the running server;
- **cold**: the same with ``[hooks] warm_recall = false``: the hook opens the store itself;
- with ``--compare``, **OTHER cold**: another checkout's hook entry file (say a worktree of main:
  the cold path as it was), same interpreter, same store.

For scale, ``python -S -c pass`` and the same hook on an error of a new kind (spooled, nothing
recalled: the warm case's floor). Every recalling case must print the same block. Bytecode is
cached in a temporary directory, as an installed package has it. The server stays up throughout
(it ingests what the hooks spool, as it would). No timing is asserted in the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hindsight_cli.evals.benchmark import synthetic  # noqa: E402
from hindsight_cli.hooks.install import command  # noqa: E402
from hindsight_cli.safefs import rendezvous  # noqa: E402

FAILED = "pytest tests/test_api.py"
ERROR = "Exit code 1\nE   ModuleNotFoundError: No module named 'requests'"
FLOOR = "python -S -c pass"
RECORDING = "the hook, an error of a new kind (no recall)"


def _payload(project: Path, session: str, fixed: bool = False, new_kind: bool = False) -> str:
    call: dict[str, object] = {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "PostToolUse" if fixed else "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": f"pip install requests && {FAILED}" if fixed else FAILED},
    }
    if fixed:
        call["tool_response"] = {"stdout": "3 passed", "stderr": ""}
    else:
        call["error"] = ERROR.replace("requests", f"pkg_{session}") if new_kind else ERROR
    return json.dumps(call)


def _quantile(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, max(0, round(len(ordered) * q) - 1))]


def _load() -> str:
    return os.getloadavg().__repr__() if hasattr(os, "getloadavg") else "n/a"


def _wait_for_socket(store: Path, server: subprocess.Popen[str]) -> float:
    started = time.perf_counter()
    while server.poll() is None:
        conn = rendezvous.connect(str(store), 1.0)
        if conn is not None:
            conn.close()
            return time.perf_counter() - started
        time.sleep(0.05)
    raise SystemExit("the server exited before it listened")


def _build(root: Path, size: int, env: dict[str, str]) -> Path:
    project = root / "project"
    store = project / ".hindsight"
    store.mkdir(parents=True)
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"from hindsight_cli.safefs import trust; trust.allow({str(store)!r})",
        ],
        env=env,
        cwd=ROOT,
        check=True,
    )
    data = root / "data.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in synthetic(size)))
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "hindsight_cli", "import", str(data), "--store", str(store)],
        env=env,
        check=True,
        capture_output=True,
    )
    print(f"imported {size} memories in {time.perf_counter() - started:.1f} s")
    hook = shlex.split(command("claude-code", "tool-failure", None))
    for name, stdin in (
        ("tool-failure", _payload(project, "s0")),
        ("tool", _payload(project, "s0", fixed=True)),
        ("session-end", json.dumps({"session_id": "s0", "cwd": str(project)})),
    ):
        subprocess.run(
            [*hook[:-3], name, "--client", "claude-code"],
            input=stdin,
            env=env,
            text=True,
            check=True,
            capture_output=True,
        )
    return project


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--compare", type=Path, help="Another checkout whose cold hook to time.")
    parser.add_argument(
        "--gap",
        type=float,
        default=1.5,
        help="Seconds between calls (an agent's calls are seconds apart; the server ingests what "
        "a hook spooled within a second, and a recall meanwhile waits for that write).",
    )
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hindsight-bench-recall-"))
    env = {
        **os.environ,
        "HINDSIGHT_HOME": str(root / "home"),
        "PYTHONPYCACHEPREFIX": str(root / "pycache"),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    server = None
    try:
        print(f"load before: {_load()}")
        project = _build(root, args.size, env)
        store = project / ".hindsight"
        config = store / "config.toml"
        server = subprocess.Popen(
            [sys.executable, "-m", "hindsight_cli", "mcp", "--store", str(store)],
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        print(f"server listening after {_wait_for_socket(store, server):.2f} s")
        installed = shlex.split(command("claude-code", "tool-failure", None))
        # the settings file `import` wrote (its [hooks] section commented out), or the same with
        # warm recall turned off
        template = config.read_text()
        cold_conf = template.replace("[hooks]", "[hooks]\nwarm_recall = false", 1)
        cases: dict[str, tuple[list[str], str]] = {
            "warm (server running)": (installed, template),
            "cold (warm_recall = false)": (installed, cold_conf),
        }
        if args.compare:
            entry = args.compare.resolve() / "hindsight_cli" / "hooks" / "__main__.py"
            cases[f"cold, {args.compare.name}'s hook"] = (
                [installed[0], "-S", str(entry), *installed[-3:]],
                template,
            )
        # for scale: the interpreter, and the same hook on an error of a new kind (spooled, no
        # recall): what any failing call costs, the floor of the warm case
        cases[FLOOR] = ([installed[0], "-S", "-c", "pass"], template)
        cases[RECORDING] = (installed, template)
        times: dict[str, list[float]] = {name: [] for name in cases}
        blocks: dict[str, set[str]] = {name: set() for name in cases}
        session = 0
        for round_ in range(args.runs + 2):
            for name, (argv, conf) in cases.items():
                config.write_text(conf)
                time.sleep(args.gap)
                session += 1
                stdin = _payload(project, f"r{session}", new_kind=name == RECORDING)
                started = time.perf_counter()
                done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env)
                elapsed = time.perf_counter() - started
                if round_ >= 2:
                    times[name].append(elapsed)
                    blocks[name].add(done.stdout)
        print(f"load after: {_load()}")
        print(
            f"{args.size} memories, {args.runs} rounds, {args.gap} s between calls; hook: "
            f"{shlex.join(installed)}"
        )
        for name, values in times.items():
            print(
                f"{name:<46} p50 {statistics.median(values) * 1000:7.1f} ms"
                f"   p95 {_quantile(values, 0.95) * 1000:7.1f} ms"
            )
        answers = {b for n, found in blocks.items() if n not in (FLOOR, RECORDING) for b in found}
        if len(answers) != 1 or not next(iter(answers)):
            raise SystemExit(f"the cases answered differently: {blocks}")
        print(f"every case printed the same block: {json.loads(answers.pop())}")
    finally:
        if server is not None:
            server.stdin.close()  # type: ignore[union-attr]
            server.wait(30)
        for log in (root / "project" / ".hindsight" / "spool" / "hooks.log",):
            if log.exists():
                print(f"hook log:\n{log.read_text()[-1500:]}")
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
