"""Reinforcement (issue 36): the agent's use of a memory, as the injection record's verdicts say,
moves its standing (bounded, decaying); search ranks by it and ``--explain`` says so; the hooks stop
injecting a memory the agent keeps ignoring and put the ones it used first."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hook_calls import fail, learnt, run

from hindsight_cli.core.injections import Verdict, standing
from hindsight_cli.safefs import trust
from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only
NOW = datetime(2026, 6, 1, 12, 0)


def verdict(memory: str, kind: str, days_ago: float = 0.0) -> Verdict:
    at = (NOW - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return Verdict(at=at, injection="i", memory=memory, verdict=kind)


def test_standing_is_bounded_and_decays() -> None:
    many = [verdict("a", "used") for _ in range(50)]
    assert 0.99 < standing(many, NOW, 30)["a"] <= 1.0
    assert standing([verdict("b", "used")], NOW, 30)["b"] == pytest.approx(math.tanh(1.0))
    # a month-old use weighs half
    assert standing([verdict("c", "used", 30)], NOW, 30)["c"] == pytest.approx(math.tanh(0.5))
    # three ignores undo one use; misleading weighs as much as a use
    mixed = [verdict("d", "used")] + [verdict("d", "ignored") for _ in range(3)]
    assert abs(standing(mixed, NOW, 30)["d"]) < 0.05
    assert standing([verdict("e", "misleading")], NOW, 30)["e"] == pytest.approx(-math.tanh(1.0))


def test_a_used_memory_ranks_higher_and_explain_says_why(store: Store) -> None:
    memory = store.record("deploys to staging need make deploy ENV=staging").memory
    before = store.search("deploy to staging").hits[0]
    assert before.memory.id == memory.id
    assert not any("reinforcement" in n for n in before.explain["notes"])
    store.record_verdict("i1", memory.id, "used")
    after = store.search("deploy to staging").hits[0]
    factor = 1 + store.config.ranking.use_factor * math.tanh(1.0)
    assert after.score == pytest.approx(before.score * factor, rel=1e-3)
    assert any(n.startswith("reinforcement: standing +0.76") for n in after.explain["notes"])


def test_a_lesson_the_agent_keeps_ignoring_is_no_longer_injected(project: Path) -> None:
    config = project / ".hindsight" / "config.toml"
    # by default nothing is left out for being ignored (docs/benchmarks.md says why)
    config.write_text("[ranking]\nignored_cutoff = -0.5\n")
    store = learnt(project)
    assert fail(project, "s2")
    [lesson] = store.injections()[0][-1].ids
    store.record_verdict("i2", lesson, "ignored")
    # one ignore is not enough to leave it out
    assert fail(project, "s3")
    store.record_verdict("i3", lesson, "ignored")
    assert store.standing()[lesson] <= store.config.ranking.ignored_cutoff
    assert fail(project, "s4") == ""
    # reinforcement off: injected again
    config.write_text("[ranking]\nignored_cutoff = -0.5\nuse_factor = 0.0\n")
    assert "pip install requests" in fail(project, "s5")


def test_used_lessons_come_first_at_session_start(project: Path) -> None:
    store = learnt(project)
    # a newer lesson of another kind
    run(
        project,
        "PostToolUseFailure",
        "s2",
        tool_name="Bash",
        tool_input={"command": "make docs"},
        error="Exit code 2\nmake: *** No rule to make target 'docs'.  Stop.",
    )
    run(
        project,
        "PostToolUse",
        "s2",
        tool_name="Bash",
        tool_input={"command": "make html"},
        tool_response={"stdout": "build succeeded", "stderr": ""},
    )
    run(project, "SessionEnd", "s2", reason="exit")

    def lessons(session: str) -> list[str]:
        out = json.loads(run(project, "SessionStart", session, source="startup"))
        block = out["hookSpecificOutput"]["additionalContext"]
        return [line for line in block.splitlines() if " — fix: " in line]

    assert "make" in lessons("s3")[0]
    older = next(m for m in store.list() if m.resolution and "requests" in m.resolution)
    store.record_verdict("i5", older.id, "used")
    assert "requests" in lessons("s4")[0]


def test_the_replay_judges_each_session_when_reinforcing(_isolated: Path) -> None:
    """``hindsight eval replay --reinforce``: each replayed session's injections are judged from
    its own steps, as the hooks judge a transcript; without it nothing is."""
    from hindsight_cli import hooks as hook_entry
    from hindsight_cli.evals.probes import Session, Step
    from hindsight_cli.evals.replay_systems import Hooks

    def send(event: str, payload: dict[str, object], where: Path) -> tuple[str, bool]:
        return hook_entry.run(event, "claude-code", json.dumps(payload), str(where))

    missing = "ModuleNotFoundError: No module named 'requests'"
    first = Session(
        "demo-1",
        "demo",
        [Step("python app.py", 1, missing, 1.0), Step("pip install requests", 0, "", 2.0)]
        + [Step("python app.py", 0, "ok", 3.0)],
    )
    second = Session(
        "demo-2",
        "demo",
        [Step("python app.py", 1, missing, 10.0), Step("pip install requests", 0, "", 11.0)]
        + [Step("python app.py", 0, "ok", 12.0)],
    )
    for reinforce, expected in ((False, []), (True, ["used"])):
        root = _isolated / f"replay-{reinforce}"
        (root / ".hindsight").mkdir(parents=True)
        trust.allow(root / ".hindsight")
        system = Hooks(root, send, reinforce)
        system.replay(first, {})
        system.replay(second, {})
        verdicts = Store(root / ".hindsight").injections()[1]
        repeat = [v.verdict for v in verdicts if v.session == "demo-2"]
        assert repeat[-1:] == expected
