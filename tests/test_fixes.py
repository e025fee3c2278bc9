"""core.fixes: when a later call fixes a failed one, and how a stored failure gets its fix."""

from __future__ import annotations

from hindsight_cli.core import fixes
from hindsight_cli.models import Filters
from hindsight_cli.store import Store


def test_a_retry_on_related_arguments_fixes_and_an_unrelated_call_does_not() -> None:
    assert fixes.fixes("Bash", "pytest tests/test_api.py", "Bash", "pytest -q tests/test_api.py")
    assert fixes.fixes(
        "Bash", "./deploy.sh --env staging", "Bash", "./deploy.sh --env staging --ssh"
    )
    assert not fixes.fixes("Bash", "pytest tests/test_api.py", "Bash", "ls -la")
    # another tool
    assert not fixes.fixes("Bash", "pytest tests/test_api.py", "Read", "pytest tests/test_api.py")
    # nothing to compare: never a fix
    assert not fixes.fixes("Bash", "", "Bash", "")
    assert fixes.fixes(
        "run_shell_command", "把超时改成 30 秒", "run_shell_command", "把超时改成 30 秒 再试"
    )


def test_the_threshold_is_a_term_overlap() -> None:
    # 2 of 4 terms
    assert fixes.related("alpha beta gamma", "alpha beta delta")
    # 1 of 7
    assert not fixes.related("alpha beta gamma delta", "alpha epsilon zeta eta")
    assert fixes.FIXED_BY == 0.3


def test_tracker_closes_every_earlier_failure_the_success_fixes_and_only_those() -> None:
    tracker = fixes.Tracker()
    tracker.failed("m1", "Bash", "npm test")
    tracker.failed("m2", "Bash", "npm run build")
    tracker.failed("m3", "Bash", "npm test -- --watch=false")
    fixed = tracker.succeeded("Bash", "npm test")
    assert [f.ref for f in fixed] == ["m1", "m3"]
    assert [f.ref for f in tracker.open] == ["m2"]
    # already fixed: not fixed twice
    assert tracker.succeeded("Bash", "npm test") == []


def test_tracker_survives_a_round_trip_and_keeps_only_the_newest_failures() -> None:
    tracker = fixes.Tracker()
    for number in range(fixes.MAX_OPEN + 5):
        tracker.failed(f"m{number}", "Bash", f"make target{number}")
    restored = fixes.Tracker.from_list(tracker.to_list())
    assert len(restored.open) == fixes.MAX_OPEN
    assert restored.open[0].ref == "m5" and restored.open == tracker.open
    copy = restored.copy()
    copy.failed("new", "Bash", "x")
    assert len(restored.open) == fixes.MAX_OPEN and restored.open[-1].ref != "new"


def test_record_fix_supersedes_the_failure_with_its_resolution_once(store: Store) -> None:
    failure = store.record(
        "pytest failed: ModuleNotFoundError requests",
        type="episodic",
        task_id="s1",
        trigger="tool_error",
        outcome="failure",
        source="tool",
        metadata={"tool": "Bash"},
    ).memory
    first = fixes.record_fix(store, failure, "Bash", "pip install requests", key="fix-1").memory
    again = fixes.record_fix(store, failure, "Bash", "pip install requests", key="fix-1").memory
    assert first.id == again.id
    assert first.resolution == "then Bash succeeded with: pip install requests"
    assert first.metadata == {"tool": "Bash", "fixed_by": "pip install requests"}
    assert store.get(failure.id).status == "superseded"
    active = store.list(Filters(task_id="s1"))
    assert [m.id for m in active] == [first.id]
