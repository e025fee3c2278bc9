"""`hindsight eval replay`: the probe definition (bench/replay/PROBES.md) on small handmade sessions,
the mini-swe-agent trajectory reader, and the command end to end on three tiny trajectories."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import transcript_fixtures as tf
from fake_embedder import FakeEmbedder
from typer.testing import CliRunner

from hindsight_cli import embedding
from hindsight_cli.evals import probes, sessions
from hindsight_cli.evals.bm25 import BM25
from hindsight_cli.evals.probes import Session, Step
from hindsight_cli.lessons import signatures
from hindsight_cli.transcripts import mini_swe_agent as mini

pytestmark = pytest.mark.no_store


# ---- command family -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "family"),
    [
        ("python reproduce.py", "python script"),
        ("python3.11 -m pytest tests/test_x.py -q", "python -m pytest"),
        ("python -c 'import sympy'", "python -c"),
        ("python tests/runtests.py admin_views", "runtests"),
        ("./tests/runtests.py admin_views", "runtests"),
        ("/usr/bin/grep -rn foo src", "grep"),
        # the last part that is not trivial decides
        ("cd /testbed && python a.py && grep -n x b.py", "grep"),
        ("python a.py && cd /tmp && echo done", "python script"),
        ("cd /testbed; pip install -e . && touch x", None),
        ("mkdir -p out\nls out", "ls"),
        # the first element of a pipeline
        ("python a.py 2>&1 | head -20", "python script"),
        ("false || sed -n 1,5p f.py", "sed"),
        # leading assignments, timeout, sudo, env and bare durations go
        ("PYTHONPATH=. timeout 60 python -m pytest -x", "python -m pytest"),
        ("timeout 30s python3 x.py", "python script"),
        ("env DEBUG=1 sudo /bin/cat /etc/hosts", "cat"),
        ("30 python run.py", "python script"),
        # parts starting with a comment, a subshell or a brace are skipped
        ("# check the file\nwc -l a.py", "wc"),
        ("ls\n(cd docs && make html)", "make"),
        ("ls\n{ echo a; }", "ls"),
        ("", None),
    ],
)
def test_command_family(command: str, family: str | None) -> None:
    assert signatures.family(command) == family


def test_heredoc_bodies_go_and_the_part_holding_the_operator_is_skipped() -> None:
    command = "cat <<'EOF' > fix.py\nimport os; print(os.sep)\nrm -rf x\nEOF\npython fix.py"
    assert signatures.strip_heredocs(command) == "cat <<'EOF' > fix.py\npython fix.py"
    assert signatures.family(command) == "python script"
    # <<- allows tabs before the delimiter; <<"EOF" and << EOF are heredocs too
    assert signatures.family("cat <<-END > a\n\tgrep x\n\tEND\nsed -n 1p a") == "sed"
    assert signatures.family('cat << "EOF" > a.txt\nhello && ls\nEOF') is None
    # an unterminated heredoc swallows the rest; a here-string is not a heredoc
    assert signatures.family("cat <<EOF > a\npython x.py") is None
    assert signatures.family("grep x <<< 'some text'") == "grep"


# ---- error signature ------------------------------------------------------------------------


TRACEBACK = """Traceback (most recent call last):
  File "/testbed/reproduce.py", line 3, in <module>
    from reproduce_app import models
ModuleNotFoundError: No module named 'reproduce_app'
"""


@pytest.mark.parametrize(
    ("output", "signature"),
    [
        (TRACEBACK, "ModuleNotFoundError: no module named 'reproduce_app'"),
        # the class without its module; constants become C; the first 12 words
        (
            "django.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS, but "
            "settings are not configured. You must either define the environment variable "
            "DJANGO_SETTINGS_MODULE or call settings.configure()",
            "ImproperlyConfigured: requested setting c, but settings are not configured. you "
            "must either define",
        ),
        # pytest's E lines; the last exception line wins
        (
            "E   ValueError: first\n    def test():\nE   AssertionError: assert 3 == 4\n"
            "FAILED tests/test_a.py::test - AssertionError",
            "AssertionError: assert n == n",
        ),
        # paths, hex, digits; a short quoted word is kept (digits as N), a long quote is Q
        (
            "OSError: cannot read /testbed/data/file_2.csv at 0x7f3a2b: 'ab12' and 'not one word'",
            "OSError: cannot read p at h: 'abn' and q",
        ),
        # a short quoted path is kept as it is (it names what went wrong)
        (
            "python: can't open file '/testbed/fix_2.py': [Errno 2] No such file or directory",
            "python: can't open file '/testbed/fix_n.py': [errno n] no such file or directory",
        ),
        # an exception line without a message
        ("  File x.py, line 2\nKeyboardInterrupt", "KeyboardInterrupt: "),
        # without an exception line: the first line that says an error happened
        ("grep: src/app.py: No such file or directory", "grep: srcp: no such file or directory"),
        ("checking...\nbash: line 1: foo: command not found\nError: later", None),
        # "Traceback" alone is no exception line; nothing said: no signature
        ("Traceback (most recent call last):", None),
        ("", None),
        ("3 passed in 0.1s", None),
    ],
)
def test_error_signature(output: str, signature: str | None) -> None:
    if signature is None and "command not found" in output:
        assert signatures.signature(output) == "bash: line n: foo: command not found"
        return
    assert signatures.signature(output) == signature


def test_signature_normalisation_order() -> None:
    # quotes first (a quoted path is not a path), then paths, hex, capitals, digits; lower case
    assert signatures.normalise("Bad 'x' in \"a long one\" at /a/b.py 0xFF MAX_SIZE 42  times") == (
        "bad 'x' in q at p h c n times"
    )
    assert signatures.normalise(" ".join(f"w{i}" for i in range(20))) == " ".join(["wn"] * 12)


# ---- failures, fixes, probes ----------------------------------------------------------------


def _step(command: str, code: int = 0, output: str = "", at: float = 0.0) -> Step:
    return Step(command, code, output, at)


def _session(name: str, steps: list[Step], start: float = 1.0) -> Session:
    timed = [Step(s.command, s.code, s.output, start + i) for i, s in enumerate(steps)]
    return Session(name, "demo", timed)


MISSING = "ModuleNotFoundError: No module named 'reproduce_app'"


def test_a_failure_is_fixed_by_a_success_of_its_family_within_ten_steps() -> None:
    steps = [_step("python repro.py", 1, MISSING)]
    steps += [_step(f"grep -n {i} a.py") for i in range(9)]
    steps += [_step("python repro.py")]
    (failure,) = probes.failures(_session("s", steps))
    assert failure.fixed and failure.index == 0
    assert failure.kind == "python script | ModuleNotFoundError: no module named 'reproduce_app'"
    assert failure.fix == tuple(s.command for s in steps[1:])
    # one step later is too late
    late = steps[:10] + [_step("ls")] + steps[10:]
    assert not probes.failures(_session("s", late))[0].fixed


def test_what_is_not_a_failure() -> None:
    steps = [
        # no signature: a grep that matched nothing
        _step("grep -rn nothing src", 1, ""),
        # exit 0 with an error in the output
        _step("python a.py", 0, "ValueError: handled"),
        # no family
        _step("cd /nowhere", 1, "bash: cd: /nowhere: No such file or directory"),
    ]
    assert probes.failures(_session("s", steps)) == []


def test_first_failure_of_a_kind_per_session_positive_and_negative() -> None:
    earlier = _session(
        "demo-1",
        [
            _step("python repro.py", 1, TRACEBACK),
            _step("pip install -e ."),
            _step("python repro.py"),
            # failed but never fixed: no lesson
            _step("python -m pytest", 1, "E   KeyError: 'a'"),
        ],
        start=100.0,
    )
    later = _session(
        "demo-2",
        [
            _step("python other.py", 1, TRACEBACK.replace("reproduce.py", "other.py")),
            _step("python other.py", 1, TRACEBACK),
            _step("python -m pytest", 1, "E   KeyError: 'a'"),
        ],
        start=200.0,
    )
    # replayed in start order, whatever the order given
    found = probes.probes([later, earlier])
    assert [(p.id, p.positive) for p in found] == [
        ("demo-1#0", False),
        ("demo-1#3", False),
        ("demo-2#0", True),
        ("demo-2#2", False),
    ]
    assert [f.id for f in found[2].earlier] == ["demo-1#0"]
    query = found[2].query
    assert query.startswith("python other.py\nTraceback") and "reproduce_app" in query


def test_repeats_pair_each_failure_with_the_earlier_fixes_of_its_kind() -> None:
    earlier = _session(
        "demo-1",
        [_step("python repro.py", 1, MISSING), _step("pip install -e ."), _step("python repro.py")],
        start=100.0,
    )
    later = _session(
        "demo-2",
        [
            _step("python repro.py", 1, MISSING),
            _step("pip install -e ."),
            _step("python repro.py"),
            # the same error again, after this session's own fix of it
            _step("python repro.py", 1, MISSING),
            # the same error while its fix is still under way is no repeat of a fixed one
            _step("python -m pytest", 1, "E   KeyError: 'a'"),
            _step("python -m pytest", 1, "E   KeyError: 'a'"),
            _step("python -m pytest"),
        ],
        start=200.0,
    )
    found = probes.repeats([later, earlier])
    # latest first: the same session's fix, then the earlier session's
    assert [(f.id, [e.id for e in fixes]) for _, f, fixes in found] == [
        ("demo-2#0", ["demo-1#0"]),
        ("demo-2#3", ["demo-2#0", "demo-1#0"]),
    ]


def test_the_query_is_the_command_then_both_ends_of_the_output() -> None:
    step = _step("x" * 400, 1, "HEAD " + "a " * 1000 + "TAIL")
    query = probes.query_text(step)
    command, output = query.split("\n", 1)
    assert command == "x" * probes.QUERY_COMMAND
    assert output.startswith("HEAD") and output.endswith("TAIL") and " … " in output
    assert len(output) <= probes.QUERY_OUTPUT + 3


def test_bm25_ranks_the_matching_text_first() -> None:
    index = BM25()
    for text in ("pip install numpy", "No module named reproduce_app", "git status"):
        index.add(text)
    assert [position for position, _ in index.top("ModuleNotFoundError reproduce_app", 3)] == [1]


# ---- mini-swe-agent trajectories ------------------------------------------------------------


def _assistant(command: str | None, at: int, extra_block: bool = False) -> dict[str, Any]:
    text = "THOUGHT: next.\n\n"
    if command is not None:
        text += f"```bash\n{command}\n```"
    if extra_block:
        text += "\n\n```bash\nls\n```"
    return {"role": "assistant", "content": text, "extra": {"response": {"created": at}}}


def _answer(code: int | None, output: str, long: bool = False) -> dict[str, Any]:
    if code is None:
        return {"role": "user", "content": "Please always provide EXACTLY ONE action."}
    if long:
        body = (
            "<warning>\nThe output of your last command was too long.\n</warning>"
            f"<output_head>\n{output}\n</output_head>\n<elided_chars>\n12 characters elided\n"
            "</elided_chars>\n<output_tail>\nend\n</output_tail>"
        )
    else:
        body = f"<output>\n{output}\n</output>"
    return {"role": "user", "content": f"<returncode>{code}</returncode>\n{body}"}


def trajectory(instance: str, turns: list[tuple[str, int, str]], start: int) -> dict[str, Any]:
    """A mini-swe-agent 1.x trajectory: the task, then one turn per (command, code, output)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": f"<pr_description>\nFix {instance}.\n</pr_description>"},
    ]
    for position, (command, code, output) in enumerate(turns):
        messages += [_assistant(command, start + position), _answer(code, output)]
    return {
        "instance_id": instance,
        "trajectory_format": "mini-swe-agent-1",
        "info": {"exit_status": "Submitted"},
        "messages": messages,
    }


def test_mini_swe_agent_steps() -> None:
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "task"},
        _assistant("python a.py", 10),
        _answer(1, "ValueError: x", long=True),
        # no block, and two blocks: format errors, answered without a return code
        _assistant(None, 11),
        _answer(None, ""),
        _assistant("ls", 12, extra_block=True),
        _answer(None, ""),
        # a block answered without a return code (a timeout)
        _assistant("sleep 999", 13),
        {"role": "user", "content": "The last command timed out and has been killed."},
        _assistant("ls -la", 14),
        _answer(0, "a.py"),
    ]
    found = mini.steps(messages)
    assert [(s.command, s.code, s.at) for s in found] == [
        ("python a.py", 1, 10.0),
        ("ls -la", 0, 14.0),
    ]
    # the tags go, what they held stays
    assert found[0].output == (
        "The output of your last command was too long.\n\nValueError: x\n\n\n"
        "12 characters elided\n\n\nend"
    )
    assert mini.project("sympy__sympy-20590") == "sympy__sympy"
    assert mini.project("astropy__astropy-13033") == "astropy__astropy"


def test_sessions_load_trajectories_from_a_directory(tmp_path: Path) -> None:
    for instance in ("demo__demo-2", "demo__demo-1"):
        folder = tmp_path / instance
        folder.mkdir()
        data = trajectory(instance, [("python a.py", 0, "ok")], start=100)
        (folder / f"{instance}.traj.json").write_text(json.dumps(data))
    (tmp_path / "notes.traj.json").write_text("{}")
    warned: list[str] = []
    found = sessions.load([tmp_path], warn=warned.append)
    assert [(s.id, s.project, len(s.steps)) for s in found] == [
        ("demo__demo-1", "demo__demo", 1),
        ("demo__demo-2", "demo__demo", 1),
    ]
    assert len(warned) == 1 and "notes.traj.json" in warned[0]


def test_sessions_read_the_bash_calls_of_a_claude_code_transcript(tmp_path: Path) -> None:
    path = tmp_path / "projects" / "-work-app" / "s-1.jsonl"
    path.parent.mkdir(parents=True)
    lines = tf.claude_lines(tf.STORY, "s-1", "/work/app")
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (session,) = sessions.load([tmp_path / "projects"])
    assert (session.id, session.project, session.client) == ("s-1", "/work/app", "claude-code")
    assert session.prompt == "Run the weather tests"
    shell = [c.args["command"] for turn in tf.STORY for c in turn.calls if c.kind == "shell"]
    assert [s.command for s in session.steps] == shell
    assert [s.code for s in session.steps][:3] == [1, 0, 0]
    assert 0 < session.steps[0].at <= session.steps[-1].at
    (failure,) = [f for f in probes.failures(session) if f.index == 0]
    assert failure.kind == "pytest | ModuleNotFoundError: no module named 'requests'"
    assert failure.fixed and failure.fix == ("pip install requests", shell[2])


# ---- the command end to end -----------------------------------------------------------------


REPRO = "python reproduce.py"
SESSIONS = {
    # fails on a missing module, installs it (a trivial part), and the script runs
    "demo__demo-1": (
        [(REPRO, 1, TRACEBACK), ("pip install -e . && pip list", 0, "ok"), (REPRO, 0, "fine")],
        1_700_000_000,
    ),
    # the same failure (positive), then an error nobody fixed before (negative)
    "demo__demo-2": (
        [
            (REPRO, 1, TRACEBACK),
            ("pip install -e .", 0, "ok"),
            (REPRO, 0, "fine"),
            ("python -m pytest tests", 1, "E   TypeError: unsupported operand type(s)"),
        ],
        1_700_100_000,
    ),
    # a new kind of error (negative)
    "demo__demo-3": (
        [("sed -n 1,5p missing.py", 2, "sed: can't read missing.py: No such file or directory")],
        1_700_200_000,
    ),
}
CONTRACT = {"positives", "negatives", "hit@1", "hit@3", "in_block", "block_tokens"}
CONTRACT |= {"false_recall", "p50_ms"}


class Fake384(FakeEmbedder):
    """The fake embedder under the default model's name and dimension, which new stores expect."""

    name, dim = embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM


def test_eval_replay_json_on_three_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.cli import app

    # the fake embedder: what is checked here is the bookkeeping, not the model's ranking
    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, Fake384())
    data = tmp_path / "trajs"
    for instance, (turns, start) in SESSIONS.items():
        (data / instance).mkdir(parents=True)
        (data / instance / f"{instance}.traj.json").write_text(
            json.dumps(trajectory(instance, turns, start))
        )
    from hindsight_cli.safefs import trust

    approved = sorted(os.listdir(trust.allowed_dir())) if os.path.isdir(trust.allowed_dir()) else []
    result = CliRunner().invoke(app, ["eval", "replay", str(data), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert "demo__demo: 3 sessions, 1 positive and 3 negative probes" in result.stderr
    # the replay's temporary stores were approved in a list of its own, not the user's
    after = sorted(os.listdir(trust.allowed_dir())) if os.path.isdir(trust.allowed_dir()) else []
    assert after == approved
    assert list(report["systems"]) == ["hooks", "mine", "bm25", "recency"]
    for figures in report["systems"].values():
        assert CONTRACT <= set(figures)
        assert (figures["positives"], figures["negatives"]) == (1, 3)
    assert report["projects"]["demo__demo"]["sessions"] == 3
    assert report["budgets"] == {"hooks": 400, "mine": 800, "bm25": 800, "recency": 800}
    assert report["hook_errors"] == 0
    probed = {p["id"]: p for p in report["probes"]}
    assert [(p["id"], p["kind"]) for p in report["probes"]] == [
        ("demo__demo-1#0", "negative"),
        ("demo__demo-2#0", "positive"),
        ("demo__demo-2#3", "negative"),
        ("demo__demo-3#0", "negative"),
    ]
    positive = probed["demo__demo-2#0"]["systems"]
    for name in ("hooks", "mine", "bm25", "recency"):
        assert set(positive[name]) >= {"block", "sources"}
    # the baselines hold exactly the earlier fixed failure
    assert positive["bm25"]["sources"] == ["demo__demo-1#0"]
    assert positive["recency"]["sources"] == ["demo__demo-1#0"]
    assert report["systems"]["bm25"]["in_block"] == 1.0
    # the hook answered the repeated failure with the earlier one, named by its tool_use_id
    assert "demo__demo-1#0" in positive["hooks"]["sources"]
    assert "reproduce_app" in positive["hooks"]["block"]
    assert report["systems"]["hooks"]["hit@1"] == 1.0
    # mined: the earlier failure's lesson first (named by its call), then its session's exchange
    assert positive["mine"]["sources"][0] == "demo__demo-1#0"
    assert set(positive["mine"]["sources"]) <= {"demo__demo-1#0", "demo__demo-1"}
    # a new kind of error: the hooks stay quiet
    assert probed["demo__demo-3#0"]["systems"]["hooks"]["block"] == ""


def test_eval_replay_refuses_unknown_systems(tmp_path: Path) -> None:
    from hindsight_cli.cli import app

    result = CliRunner().invoke(app, ["eval", "replay", str(tmp_path), "--systems", "grep"])
    assert result.exit_code == 1
    assert "--systems takes some of hooks, mine, bm25, recency" in result.stderr


def test_eval_replay_reads_claude_code_transcripts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.cli import app

    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, Fake384())
    folder = tmp_path / "projects" / "-work-app"
    folder.mkdir(parents=True)
    for number, session in enumerate(("cc-1", "cc-2")):
        lines = tf.claude_lines(tf.STORY[:1], session, "/work/app", offset=number)
        (folder / f"{session}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = CliRunner().invoke(app, ["eval", "replay", str(tmp_path / "projects"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert list(report["projects"]) == ["/work/app"] and report["hook_errors"] == 0
    assert [(p["id"], p["kind"]) for p in report["probes"]] == [
        ("cc-1#0", "negative"),
        ("cc-2#0", "positive"),
    ]
    assert report["probes"][1]["systems"]["bm25"]["sources"] == ["cc-1#0"]
    # a mined failure is named by its step, not by Claude Code's id of the call
    assert report["probes"][1]["systems"]["mine"]["sources"][0] == "cc-1#0"
