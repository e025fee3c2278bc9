"""What the injection record (issue 36) costs a hook that injects.

    python benchmarks/bench_injection_record.py [--runs 30]

One store holds a lesson (a session failed with ``ModuleNotFoundError`` and fixed it); then each
round runs the repeat-recall hook (``PostToolUseFailure`` of the same error in a new session, the
hook's slow path: the lesson is looked up, the block built, the answer printed) twice, in-process:
once with the record on (``[injections] keep_days = 30``) and once with it off (``keep_days = 0``),
in alternating order so a change of the machine's load hits both alike. It prints both medians and
p90s, the difference, and the cost of ``Store.record_injection`` alone. The fake embedder stands in
for the model: the path times a lookup by tag, not an embedding. No timing is asserted in the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def _payload(project: Path, session: str, event: str, **fields: object) -> str:
    return json.dumps(
        {"session_id": session, "cwd": str(project), "hook_event_name": event, **fields}
    )


ERROR = "Exit code 1\nE   ModuleNotFoundError: No module named 'requests'"


def _fail(project: Path, session: str) -> str:
    from hindsight_cli import hooks

    out, ok = hooks.run(
        "PostToolUseFailure",
        "claude-code",
        _payload(
            project,
            session,
            "PostToolUseFailure",
            tool_name="Bash",
            tool_input={"command": "pytest tests/test_api.py"},
            error=ERROR,
        ),
    )
    assert ok, "the hook failed: see the store's spool/hooks.log"
    return out


def _seed(project: Path) -> None:
    from hindsight_cli import hooks

    _fail(project, "s0")
    hooks.run(
        "PostToolUse",
        "claude-code",
        _payload(
            project,
            "s0",
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "pip install requests && pytest tests/test_api.py"},
            tool_response={"stdout": "3 passed", "stderr": ""},
        ),
    )
    hooks.run("SessionEnd", "claude-code", _payload(project, "s0", "SessionEnd", reason="exit"))


def _p90(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[max(0, int(len(ordered) * 0.9) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ["HINDSIGHT_HOME"] = str(home)
        os.environ["XDG_CONFIG_HOME"] = str(home / "config")
        project = Path(tmp) / "project"
        (project / ".hindsight").mkdir(parents=True)
        from conftest import FakeEmbedder

        from hindsight_cli import embedding
        from hindsight_cli.safefs import trust
        from hindsight_cli.store import Store

        embedding._CACHE[embedding.DEFAULT_MODEL] = FakeEmbedder(
            embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM
        )
        trust.allow(project / ".hindsight")
        _seed(project)
        config = project / ".hindsight" / "config.toml"
        times: dict[str, list[float]] = {"record on": [], "record off": []}
        for n in range(args.runs):
            order = ["record on", "record off"] if n % 2 else ["record off", "record on"]
            for case in order:
                config.write_text("" if case == "record on" else "[injections]\nkeep_days = 0\n")
                start = time.perf_counter()
                out = _fail(project, f"{case.replace(' ', '-')}-{n}")
                times[case].append((time.perf_counter() - start) * 1000)
                assert "pip install requests" in out, "no lesson was injected"
        config.write_text("")
        store = Store(project / ".hindsight")
        alone = []
        for _ in range(args.runs):
            start = time.perf_counter()
            store.record_injection("repeat-error", ["m1", "m2"], 120, session="x", budget=400)
            alone.append((time.perf_counter() - start) * 1000)
        lines = len(store.injections()[0])
    for case, values in times.items():
        print(
            f"repeat-recall hook, {case:<10}  median {statistics.median(values):6.1f} ms"
            f"   p90 {_p90(values):6.1f} ms"
        )
    on, off = (statistics.median(times[c]) for c in ("record on", "record off"))
    print(f"difference of the medians: {on - off:+.1f} ms")
    print(
        f"Store.record_injection alone: median {statistics.median(alone):.2f} ms over "
        f"{args.runs} appends (record of {lines} lines)"
    )


if __name__ == "__main__":
    main()
