"""Values are checked, never silently accepted: choices are real choices (refused by the parser with
exit 2, listed by --help, offered by shell completion), contradicting options are usage errors, and
the core refuses the same values through Python (and so through MCP) (issue 20)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BACKEND_PARAMS, Cli, copy_store, postgres_store_dir

from hindsight_cli.errors import BadUsage, InvalidInput
from hindsight_cli.models import AUDIT_ACTIONS, MEMORY_TYPES, OUTCOMES, STATUSES, Filters
from hindsight_cli.search.query import MODES
from hindsight_cli.storage.registry import BACKENDS
from hindsight_cli.store import Store

REPO = Path(__file__).resolve().parents[2]
SEEDS = ("seed memory", "seed memory about the weather")
pytestmark = pytest.mark.xdist_group("choices")


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def seeded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, module_isolated: Path
) -> dict[str, Path]:
    """A local store per seed, each made by ``hindsight record SEED`` once per module (one xdist
    group); none for a database's."""
    made = {}
    if not BACKENDS[request.param].needs_url:
        for seed in SEEDS:
            cli = Cli(tmp_path_factory.mktemp("seeded") / "store")
            assert cli("record", seed).exit_code == 0
            made[seed] = cli.store_path
    return made


def _seeded(
    seeded: dict[str, Path], seed: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Cli:
    """A CLI on a store that holds ``seed`` alone, as ``hindsight record`` left it: a copy of the
    module's local store, or a database's recorded here."""
    if seed in seeded:
        return Cli(copy_store(seeded[seed], tmp_path / "cli-store"))
    cli = Cli(postgres_store_dir(tmp_path / "cli-store", request.getfixturevalue("postgres_url")))
    assert cli("record", seed).exit_code == 0
    return cli


@pytest.mark.parametrize(
    "args",
    [
        ["search", "weather", "--type", "fact"],
        ["search", "weather", "--outcome", "bogus"],
        ["search", "weather", "--mode", "psychic"],
        ["search", "weather", "--format", "yaml"],
        ["list", "--outcome", "bogus"],
        ["list", "--status", "bogus"],
        ["list", "--type", "Fact"],
        ["log", "--action", "delete"],
        ["record", "x", "--type", "fact"],
        ["record", "x", "--outcome", "maybe"],
        ["import", "x.jsonl", "--from", "evernote"],
        ["init", "--backend", "mysql"],
        ["hooks", "install", "--client", "vim"],
        ["mcp", "install", "--client", "vim"],
        ["mcp", "install", "--client", "cursor", "--scope", "galaxy"],
        ["mcp", "config", "--client", "vim"],
        ["hooks", "install", "--client", "codex", "--scope", "galaxy"],
        ["mcp", "--transport", "carrier-pigeon"],
        ["eval", "locomo", "x.json", "--mode", "psychic"],
    ],
)
def test_a_value_outside_its_choices_is_a_usage_error_naming_them(
    seeded: dict[str, Path],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    args: list[str],
) -> None:
    cli = _seeded(seeded, "seed memory", tmp_path, request)
    # eval builds a store of its own
    result = cli(*args, store=args[0] != "eval")
    assert result.exit_code == 2, result.output
    assert "is not one of" in result.stderr and "Traceback" not in result.stderr
    assert [m.content for m in cli.open().list()] == ["seed memory"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "weather", "-k", "0"], "The limit must be a whole number from 1 to 1,000,000"),
        (["search", "weather", "-k", "-3"], "The limit must be a whole number from 1 to 1,000,000"),
        # past what the engines can even read (it was DuckDB's Conversion Error, exit 1)
        (["search", "weather", "-k", "99999999999999999999"], "The limit must be a whole number"),
        (["list", "-n", "99999999999999999999"], "The limit must be a whole number from 0 (all)"),
        (["list", "-n", "1000001"], "The limit must be a whole number from 0 (all)"),
        # a value of the wrong shape is a usage error whichever option it is given to
        (["record", "x", "--ttl", "forever"], "Invalid ttl 'forever'"),
        (["record", "x", "--event-at", "yesterday"], "Invalid event_at 'yesterday'"),
        (["record", "x", "--event-at", "2026-13-45"], "Invalid event_at '2026-13-45'"),
        (["record", "x", "--env", "novalue"], "--env expects KEY=VALUE"),
        (["record", "x", "--meta", "=v"], "--meta expects KEY=VALUE"),
        (["record", "x", "--importance", "2"], "importance must be between 0 and 1"),
        (["record", "x", "--confidence", "-1"], "confidence must be between 0 and 1"),
        (["record", "x", "--task", "a\nb"], "task must be one line"),
        (["record", "x", "--source", "hindsight"], "source 'hindsight' is hindsight's own"),
        (["search", "weather", "--since", "tomorrowish"], "Invalid --since 'tomorrowish'"),
        (["search", "weather", "--until", "2026-02-30"], "Invalid --until '2026-02-30'"),
        (["list", "--since", "last week"], "Invalid --since 'last week'"),
        (["search", "weather", "--budget", "0"], "The budget must be a positive whole number"),
        (["search", "weather", "--json", "--nl"], "Choose one output format: --json and --nl"),
        (["search", "weather", "--format", "json", "--nl"], "Choose one output format"),
        (["search", "weather", "--format", "table", "--json"], "Choose one output format"),
        (["list", "--json", "--nl"], "Choose one output format"),
        (["log", "--json", "--nl"], "Choose one output format"),
        (["record", "gone before it is read", "--ttl", "0"], "ttl must be longer than 0"),
        (["record", "gone before it is read", "--ttl", "0s"], "ttl must be longer than 0"),
        (["forget", "x", "--hard", "--archive", "-y"], "Choose one"),
    ],
)
def test_bad_and_contradicting_values_are_usage_errors(
    seeded: dict[str, Path],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    args: list[str],
    message: str,
) -> None:
    cli = _seeded(seeded, "seed memory about the weather", tmp_path, request)
    result = cli(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"Error: {message}"), result.stderr
    assert [m.content for m in cli.open().list()] == ["seed memory about the weather"]


def test_agreeing_output_options_are_fine(cli) -> None:
    cli("record", "seed memory about the weather")
    result = cli("search", "weather", "--format", "json", "--json")
    assert (
        result.exit_code == 0
        and json.loads(result.stdout)[0]["content"] == "seed memory about the weather"
    )


def test_help_lists_the_choices(cli) -> None:
    search = cli("search", "--help", store=False).stdout
    assert "<" + "|".join(MEMORY_TYPES) + ">" in search and "<" + "|".join(OUTCOMES) + ">" in search
    assert "<" + "|".join(MODES) + ">" in search and "<table|json|nl|context>" in search
    assert "<" + "|".join(STATUSES) + ">" in cli("list", "--help", store=False).stdout
    assert (
        "<claude-code|codex|cursor|gemini>" in cli("hooks", "install", "--help", store=False).stdout
    )


def _complete(words: str) -> list[str]:
    """What bash completion offers after ``words`` (the program's own completion, as installed)."""
    env = {
        **os.environ,
        "_HINDSIGHT_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
    }
    done = subprocess.run(
        [sys.executable, "-m", "hindsight_cli"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return [line.split(",", 1)[-1] for line in done.stdout.splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("words", "offered"),
    [
        ("hindsight record x --type ", list(MEMORY_TYPES)),
        ("hindsight search x --format ", ["table", "json", "nl", "context"]),
        ("hindsight list --status ", list(STATUSES)),
        ("hindsight hooks install --client ", ["claude-code", "codex", "cursor", "gemini"]),
        ("hindsight mcp install --client c", ["claude-desktop", "claude-code", "cursor", "codex"]),
        ("hindsight mcp --transport ", ["stdio", "http"]),
        ("hindsight hooks install --client codex --scope ", ["user", "project", "local"]),
        ("hindsight list --source ", ["user", "tool", "agent", "import", "web"]),
        ("hindsight record x --trigger tool_", ["tool_error", "tool_call"]),
        ("hindsight record x --source w", ["web"]),
    ],
)
def test_shell_completion_offers_the_values(words: str, offered: list[str]) -> None:
    assert sorted(_complete(words)) == sorted(offered)


def test_free_text_options_stay_free(cli) -> None:
    result = cli(
        "record",
        "a note from the nightly job",
        "--trigger",
        "cron",
        "--source",
        "scheduler",
        "--json",
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["trigger"], data["source"]) == ("cron", "scheduler")


def test_the_core_refuses_the_same_values_through_python(store: Store) -> None:
    store.record("the weather API returned 401")
    for bad in ({"types": ("fact",)}, {"outcomes": ("bogus",)}, {"statuses": ("bogus",)}):
        with pytest.raises(BadUsage, match="must be one of"):
            Filters(**bad)  # type: ignore[arg-type]
    # a spelling, not another value
    assert Filters(types=("Episodic",)).types == ("episodic",)
    for k in (0, -3):
        with pytest.raises(BadUsage, match="limit"):
            store.search("weather", k=k)
    with pytest.raises(BadUsage, match="mode"):
        store.search("weather", mode="psychic")
    with pytest.raises(BadUsage, match="ttl must be longer than 0"):
        store.record("gone at once", ttl="0")
    with pytest.raises(BadUsage, match="ttl must be longer than 0"):
        store.record("gone at once", ttl=0)
    with pytest.raises(BadUsage, match="action must be one of"):
        store.log(action="delete")
    with pytest.raises(BadUsage, match="limit"):
        store.list(limit=-3)
    assert [m.content for m in store.list()] == ["the weather API returned 401"]
    # callers catching InvalidInput still catch it
    assert isinstance(BadUsage("x"), InvalidInput)


def test_every_audit_action_the_code_writes_is_a_choice_of_log() -> None:
    source = "\n".join(p.read_text() for p in (REPO / "hindsight_cli").rglob("*.py"))
    # these two pass a variable
    written = set(re.findall(r'audit\("([a-z_]+)"', source)) | {"forget", "expire"}
    assert written <= set(AUDIT_ACTIONS), written - set(AUDIT_ACTIONS)


def test_the_hook_clients_of_the_cli_are_those_of_the_hooks() -> None:
    from hindsight_cli.cli.hooks import HOOK_CLIENTS
    from hindsight_cli.hooks.events import CLIENTS

    assert HOOK_CLIENTS == CLIENTS


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["mcp", "--transport", "http", "--port", "99999"], "is not in the range 0<=x<=65535"),
        (["mcp", "--transport", "http", "--port", "-1"], "is not in the range 0<=x<=65535"),
        (["migrate", "--to", "mysql://x"], "--to is a mysql:// URL, not a directory"),
        (["migrate", "--to", "sqlite:///tmp/x.db"], "--to is a sqlite:// URL, not a directory"),
        (["list", "--store", "redis://cache:6379/0"], "--store is a redis:// URL"),
    ],
)
def test_a_value_refused_as_typed_is_a_usage_error_and_creates_nothing(
    cli, tmp_path: Path, args: list[str], says: str
) -> None:
    before = sorted(p.name for p in Path.cwd().iterdir())
    result = cli(*args, store=args[0] == "migrate")
    assert result.exit_code == 2, result.output
    assert says in result.stderr and "Traceback" not in result.stderr
    # a URL did not become a directory (`./mysql:/x`)
    assert sorted(p.name for p in Path.cwd().iterdir()) == before
