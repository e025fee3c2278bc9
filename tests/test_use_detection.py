"""Use detection without an LLM (issue 36): the detector's verdicts on plain cases, the labelled
cases from real sessions it is measured on, and the verdicts the hooks record at session end from
a Claude Code transcript."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from hook_calls import ERROR, FAILED, fail, learnt, run

from hindsight_cli.lessons.usage import IGNORED, MISLEADING, USED, actions, judge
from hindsight_cli.safefs import trust

CASES = REPO / "benchmarks" / "use_detector"
FIX = [f"pip install requests ; {FAILED}"]


def test_a_fix_applied_then_no_error_is_used() -> None:
    later = [("pip install requests", False), (FAILED, False)]
    assert judge(FIX, later, FAILED) == USED


def test_a_fix_applied_then_the_same_error_is_misleading() -> None:
    later = [("pip install requests", False), (FAILED, True)]
    assert judge(FIX, later, FAILED) == MISLEADING


def test_nothing_of_the_fix_is_ignored() -> None:
    later = [("sed -i 's/a/b/' src/app.py", False), (FAILED, False)]
    assert judge(FIX, later, FAILED) == IGNORED


def test_running_the_failing_command_again_is_not_using_the_fix() -> None:
    assert actions(FIX, FAILED) == [("pip", frozenset({"requests"}))]
    assert judge(FIX, [(FAILED, False)], FAILED) == IGNORED


def test_reading_is_weak_evidence_and_an_action_is_its_program_and_words() -> None:
    fix = ["cat docs/conf.py ; python -m pip install furo --upgrade"]
    # the reading part gives nothing; the install is known by its program and words
    assert actions(fix) == [("python", frozenset({"furo", "--upgrade"}))]
    assert judge(fix, [("grep -n furo docs/conf.py", False)]) == IGNORED
    assert judge(fix, [("python -m pip install sphinx-rtd-theme --upgrade", False)]) == IGNORED
    # another program carrying the same words is not the same action
    assert judge(fix, [("echo furo --upgrade > notes.txt", False)]) == IGNORED
    assert judge(fix, [("python -m pip install --upgrade furo", False)]) == USED


def test_an_edit_known_only_by_its_file_is_not_repeated_by_another_edit_of_it() -> None:
    fix = ["sed -i '/DEBUG:/d' src/app.py"]
    assert actions(fix) == []
    assert judge(fix, [("sed -i '/DEBUG:/d' src/app.py", False)]) == IGNORED
    # an edit with words of its own is repeated only by an edit carrying them
    fix = ["sed -i 's;old_name;new_name;g' src/app.py"]
    assert judge(fix, [("sed -i 's;other;new_name;g' src/app.py", False)]) == IGNORED
    assert judge(fix, [("sed -i 's;old_name;new_name;g' src/app.py", False)]) == USED


def test_separators_inside_quotes_do_not_split_a_command() -> None:
    fix = ["sed -i 's;old_name;new_name;g' src/main.py ; python -m pytest tests/test_names.py"]
    assert actions(fix) == [
        ("sed", frozenset({"old_name", "new_name", "main.py"})),
        ("python", frozenset({"test_names.py"})),
    ]


@pytest.mark.parametrize("name", ["repeats.json", "cases.json"])
def test_the_labelled_cases_hold_what_the_benchmark_says(name: str) -> None:
    data = json.loads((CASES / name).read_text(encoding="utf-8"))
    cases = data["cases"]
    test = [c for c in cases if c["split"] == "test"]
    assert len(test) >= 200
    # measured on projects the detector was not tuned on
    assert not {c["project"] for c in test} & set(data["tune_projects"])
    assert all(c["label"] in (USED, IGNORED, MISLEADING) for c in cases)
    assert not any("django" in c["id"] for c in cases)
    # commands and exit codes only: no outputs kept
    assert {key for c in cases for step in c["later"] for key in step} == {
        "command",
        "code",
        "same_error",
    }


# runs the benchmark script as a process: the full suite's
@pytest.mark.slow
def test_the_benchmark_script_reports_precision_and_recall() -> None:
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_use_detector.py"), "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result = json.loads(out.stdout)
    assert result["cases"] >= 200
    assert result["true_positives"] + result["false_negatives"] == result["labels"]["used"]
    assert 0 <= result["used_precision"] <= 1 and 0 <= result["used_recall"] <= 1


# --- the hooks' verdicts at session end ---------------------------------------------------------


@pytest.fixture
def project(_isolated: Path) -> Path:
    (_isolated / ".hindsight").mkdir()
    trust.allow(_isolated / ".hindsight")
    return _isolated


def transcript(path: Path, session: str, calls: list[tuple[str, str, str]]) -> str:
    """A Claude Code transcript of Bash calls: (the client's call id, command, output)."""
    lines = []
    for call, command, output in calls:
        use = {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}
        result = {"type": "tool_result", "tool_use_id": call, "content": output}
        for kind, block in (("assistant", use), ("user", result)):
            lines.append({"type": kind, "sessionId": session, "message": {"content": [block]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


@pytest.mark.parametrize(
    ("after", "verdict"),
    [
        ([("pip install requests", "ok"), (FAILED, "3 passed")], USED),
        ([("pip install requests", "ok"), (FAILED, ERROR)], MISLEADING),
        ([("git status", "clean"), ("sed -i 's/x/y/' app.py", "")], IGNORED),
    ],
)
def test_session_end_records_whether_the_repeat_recall_was_used(
    project: Path, tmp_path: Path, after: list[tuple[str, str]], verdict: str
) -> None:
    store = learnt(project)
    assert "pip install requests" in fail(project, "s2", call="c-fail")
    [injection] = [i for i in store.injections()[0] if i.event == "repeat-error"]
    assert injection.call == "c-fail"
    calls = [("c-start", "ls", ""), ("c-fail", FAILED, ERROR)]
    calls += [(f"c{i}", command, output) for i, (command, output) in enumerate(after)]
    path = transcript(tmp_path / "s2.jsonl", "s2", calls)
    run(project, "SessionEnd", "s2", reason="exit", transcript_path=path)
    verdicts = store.injections()[1]
    assert [(v.injection, v.memory, v.verdict) for v in verdicts] == [
        (injection.id, injection.ids[0], verdict)
    ]
    # judged once: another session end adds nothing
    run(project, "SessionEnd", "s2", reason="exit", transcript_path=path)
    assert len(store.injections()[1]) == 1
    shares = store.recall_stats()["shares"]
    assert shares[verdict] == 1.0


def test_an_unreadable_transcript_judges_nothing_and_breaks_nothing(project: Path) -> None:
    store = learnt(project)
    fail(project, "s2")
    out = run(project, "SessionEnd", "s2", reason="exit", transcript_path="/nonexistent/s2.jsonl")
    assert out == ""
    assert store.injections()[1] == []
