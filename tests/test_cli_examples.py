"""docs/cli.md's examples are the real output: the documented commands run in a temp project in the
order the guide tells its story, and their output is compared with the guide's after the parts that
change from run to run (ids, times, ages, scores) are put in placeholders. Examples that depend on
the embedding model (search tables, blocks, explanations) are compared on their stable lines, and
the few that need a machine this is not (a read-only file system, a PostgreSQL server, a year of
transcripts) are marked illustrative in the guide and listed here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hindsight_cli.cli import app

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "docs" / "cli.md").read_text()
DOC_PROJECT = "/tmp/docwork/proj"
# not run here, and said so in the guide
ILLUSTRATIVE = {
    "hindsight init": "the read-only file system example",
    "hindsight mine claude-code": "a real Claude Code history",
    "hindsight migrate --to postgresql://hindsight@db.internal:5432/hindsight": "a PostgreSQL server",
}
# the model decides these hits and scores: the table's or block's header lines are compared
HEADERS_ONLY = {
    'hindsight search "weather API returns 401"': 2,
    'hindsight search "why did the API fail" --format context --budget 300': 1,
    'hindsight search "api failure" --explain': 0,
    'hindsight search "token" --nl | cut -c1-100': 1,
    # which episodes form a pattern is the model's judgement: run, not compared
    "hindsight consolidate --dry-run": 0,
}


def _examples() -> list[tuple[str, list[str]]]:
    """(command, documented output lines) for every ``$ hindsight …`` in a plain code block."""
    found = []
    for block in re.findall(r"```\n(\$ .*?)```", GUIDE, re.S):
        steps = re.split(r"^\$ ", block, flags=re.M)[1:]
        for step in steps:
            command, _, output = step.partition("\n")
            found.append((command.strip(), output.splitlines()))
    return found


UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


def _normal(lines: list[str], project: str) -> list[str]:
    out = []
    for line in lines:
        line = line.replace(project, DOC_PROJECT)
        line = UUID.sub("<ID>", line)
        line = re.sub(r"\b[0-9a-f]{8}\b", "<ID8>", line)
        line = re.sub(r"\d{4}-\d\d-\d\d([ T]\d\d:\d\d:\d\d(\.\d+)?Z?)?", "<DATE>", line)
        line = re.sub(r"\b\d+(s|m|h|d|mo|y)\b", "<AGE>", line)
        line = re.sub(r"\d+\.\d+", "<N>", line)
        line = re.sub(r"\b\d+ (tokens|memories|memory)\b", r"<N> \1", line)
        # which retriever found a hit, and what a JSON line holds after its id
        line = re.sub(r"matched [^;]*;", "matched …;", line)
        line = re.sub(r'^(\{"id": "<ID>", "content": ").*', r"\1…", line)
        # a terminal's message leaves the id out, a log's names it (both documented)
        line = re.sub(r"^Recorded <ID>", "Recorded", line)
        # table rules and padding follow the widest cell
        line = re.sub(r"━+", "━", line)
        line = re.sub(r" +", " ", line).rstrip()
        out.append(line)
    return [line for line in out if line]


def _without_key_points(lines: list[str]) -> list[str]:
    if "Key points:" not in lines or "Errors and fixes:" not in lines:
        return lines
    return lines[: lines.index("Key points:") + 1] + lines[lines.index("Errors and fixes:") :]


TRIP = [
    "Morning! Coffee first, then emails.",
    "I booked the flights for the spring holiday.",
    "Which glacier did you hike on the Iceland trip?",
    "Solheimajokull, with crampons and a guide",
    "Then we drove back to Reykjavik for dinner.",
]


class _Guide:
    """Runs the guide's commands in one project, as a reader typing them would."""

    def __init__(self, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.project, self.monkeypatch = project, monkeypatch
        self.runner = CliRunner()
        self.seen: dict[str, tuple[int, list[str]]] = {}

    def run(self, command: str, cwd: Path | None = None, stdin: str | None = None) -> Any:
        import shlex

        words = shlex.split(
            command.split(" | ")[0].split(" > ")[0].removeprefix("cd sub/deeper && ")
        )
        assert words[0] == "hindsight"
        self.monkeypatch.chdir(cwd or self.project)
        result = self.runner.invoke(app, words[1:], input=stdin, prog_name="hindsight")
        # a terminal shows stdout, then the message on stderr
        shown = result.stderr if " > " in command else result.stdout + result.stderr
        if "| cut -c1-100" in command:
            shown = "\n".join(line[:100] for line in shown.splitlines())
        self.seen[command] = (result.exit_code, shown.splitlines())
        return result


def _tell_the_story(guide: _Guide) -> None:
    project = guide.project
    (project / "sub" / "deeper").mkdir(parents=True)
    # two memories alone in a store of their own: any 4 characters of their ids' start match both
    other = project.parent / "ids"
    other.mkdir()
    guide.run("hindsight init", cwd=other)
    first = guide.run(
        'hindsight record "weather API returned 401: token expired" --trigger tool_error', cwd=other
    ).stdout.strip()
    guide.run('hindsight record "weather API returned 401 again, token expired"', cwd=other)
    ambiguous = "hindsight show 01a2"
    guide.run(ambiguous.replace("01a2", first[:4]), cwd=other)
    guide.seen[ambiguous] = guide.seen.pop(ambiguous.replace("01a2", first[:4]))
    guide.run(f"hindsight show {first[-8:]}", cwd=other)
    guide.seen["hindsight show 442aacdd"] = guide.seen.pop(f"hindsight show {first[-8:]}")
    # two memories where the newer replaced the older, in a store of their own
    deploys = project.parent / "deploys"
    deploys.mkdir()
    guide.run("hindsight init", cwd=deploys)
    jenkins = guide.run('hindsight record "we deploy with Jenkins"', cwd=deploys).stdout.strip()
    argo = guide.run('hindsight record "we deploy with Argo now"', cwd=deploys).stdout.strip()
    documented = 'hindsight supersede 4be1c0d5 --by 9c1e77a4 --reason "Argo replaced Jenkins"'
    run = documented.replace("4be1c0d5", jenkins[-8:]).replace("9c1e77a4", argo[-8:])
    guide.run(run, cwd=deploys)
    guide.seen[documented] = guide.seen.pop(run)
    guide.run("hindsight init")
    guide.run("cd sub/deeper && hindsight where", cwd=project / "sub" / "deeper")
    guide.run("hindsight show nope")
    guide.run(
        'hindsight record "Connecting with password=hunter22 worked after VPN up" --outcome success'
    )
    nightly = guide.run('hindsight record "the nightly job moved to 03:00" > id.txt').stdout
    for verb in ("forget", "restore"):
        guide.run(f"hindsight {verb} {nightly.strip()[-8:]}")
        guide.seen[f"hindsight {verb} c0d5e8a2"] = guide.seen.pop(
            f"hindsight {verb} {nightly.strip()[-8:]}"
        )
    old = guide.run(
        'hindsight record "weather API returns 401 when the token expires"'
    ).stdout.strip()
    # the guide's example names the old memory by the end of its id
    supersede = (
        'hindsight record "The weather API now wants an X-Api-Key header" --supersedes d72811'
    )
    guide.run(supersede.replace("d72811", old[-6:]))
    guide.seen[supersede] = guide.seen.pop(supersede.replace("d72811", old[-6:]))
    guide.run(
        'hindsight record "调用天气API时返回401，原因是token过期" --agent agent-001 --task '
        'task-20240501-001 --trigger tool_error --outcome failure --resolution "刷新token后重试成功"'
    )
    guide.run(
        'hindsight record "The weather API returned 401 because the token had expired" '
        '--outcome failure --resolution "refreshed the token and retried"'
    )
    for command in HEADERS_ONLY:
        guide.run(command)
    guide.run("hindsight list -n 3")
    gone = guide.run('hindsight record "Alice Example, alice@example.com, asked to be forgotten"')
    guide.run(f"hindsight forget {gone.stdout.strip()} --hard -y --reason gdpr")
    guide.run("hindsight log -n 3")
    guide.run("hindsight export -o mem.jsonl")
    guide.run("hindsight import mem.jsonl")
    guide.run("hindsight import -", stdin="not json\n")
    guide.seen["echo 'not json' | hindsight import -"] = guide.seen.pop("hindsight import -")
    for step in range(1, 8):
        failed = step == 3
        guide.run(
            f'hindsight record "step {step}: '
            + (
                'the weather API returned 401 because the token expired" --outcome failure '
                "--resolution refreshed-the-token"
                if failed
                else f'ran the data pipeline stage {step} and checked the row counts" '
                "--outcome success"
            )
            + f" --task t-7 --step {step}"
        )
    guide.run("hindsight summarize --task t-7")
    # a conversation's turns: the answer after the question joins the block under it
    for step, turn in enumerate(TRIP, 1):
        guide.run(f'hindsight record "{turn}" --task trip-planning --step {step}')
    guide.run(
        'hindsight search "Which glacier did she hike in Iceland?" --format context --budget 300'
    )


def test_the_guides_examples_are_the_real_output(
    _isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.cli import render

    # the guide's terminal is 100 columns wide (COLUMNS, as _isolated sets it); a console that fixed
    # its width when it was made, in an earlier test of this process, would wrap at another
    for console in (render.out, render.err):
        monkeypatch.setattr(console, "_width", 100)
    project = _isolated / "proj"
    project.mkdir()
    guide = _Guide(project, monkeypatch)
    _tell_the_story(guide)
    checked, wrong = 0, []
    for command, documented in _examples():
        if command == "echo $?":
            assert guide.seen["hindsight show nope"][0] == int(documented[0])
            continue
        if command in ILLUSTRATIVE and command not in guide.seen:
            continue
        if command == "hindsight init" and documented[0].startswith("Error"):
            continue
        assert command in guide.seen, f"docs/cli.md runs {command!r}, which the test does not"
        _, real = guide.seen[command]
        want, got = _normal(documented, str(project)), _normal(real, str(project))
        if command.startswith("hindsight summarize"):
            # which sentences are central is the model's judgement
            want, got = _without_key_points(want), _without_key_points(got)
        if command.endswith("--explain"):
            # the table is abridged in the guide; its explanation line has the real shape
            assert any(
                re.sub(r"#\d+ <ID8>", "", want[-1]) == re.sub(r"#\d+ <ID8>", "", g) for g in got
            ), (command, want[-1], got)
            want = got = []
        if command in HEADERS_ONLY:
            want, got = want[: HEADERS_ONLY[command]], got[: HEADERS_ONLY[command]]
        elif documented and documented[-1] == "…":
            want, got = want[:-1], got[: len(want) - 1]
        if got != want:
            wrong.append(
                f"$ {command}\n--- documented\n"
                + "\n".join(want)
                + "\n--- real\n"
                + "\n".join(got)
                + "\n--- raw\n"
                + "\n".join(real)
            )
        checked += 1
    assert not wrong, "\n\n".join(wrong)
    assert checked >= 12
