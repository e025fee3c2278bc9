"""`hindsight doctor compose`: one broken file per mistake, each found by its rule, and a clean
file."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

# the CLI here never uses the fixture's store
pytestmark = pytest.mark.no_store

FIXTURES = Path(__file__).parent / "fixtures" / "compose"
ROOT = Path(__file__).parent.parent


def _findings(result) -> list[dict]:
    return [c for c in json.loads(result.stdout)["checks"] if c["status"] in ("warn", "fail")]


@pytest.mark.parametrize(
    ("name", "check_id", "status", "evidence", "fix"),
    [
        (
            "localhost",
            "compose.localhost",
            "fail",
            "localhost.yml:5: DATABASE_URL=postgres://shop:dev@localhost:5432/shop",
            "use the service name: db:5432",
        ),
        (
            "depends-health",
            "compose.depends-health",
            "warn",
            "depends_on db without condition: service_healthy",
            "pg_isready",
        ),
        (
            "healthcheck-missing",
            "compose.healthcheck-missing",
            "fail",
            "healthcheck-missing.yml:5:",
            "redis-cli",
        ),
        (
            "depends-unknown",
            "compose.depends-unknown",
            "fail",
            "services: api, database",
            "depends_on",
        ),
        ("db-volume", "compose.db-volume", "fail", "nothing is mounted on /data", "named volume"),
        (
            "db-bind-mount",
            "compose.db-bind-mount",
            "warn",
            "db-bind-mount.yml:5: ./pgdata:/var/lib/postgresql/data",
            "named volume",
        ),
        (
            "volume-undeclared",
            "compose.volume-undeclared",
            "fail",
            "uploads",
            "volumes: {uploads: {}}",
        ),
        (
            "network",
            "compose.network",
            "fail",
            "api is on ['frontend'], search on ['backend']",
            "'backend'",
        ),
        (
            "network-undeclared",
            "compose.network-undeclared",
            "fail",
            "networks: backend",
            "networks: {backend: {}}",
        ),
        (
            "expose",
            "compose.expose",
            "fail",
            "expose.yml:5: expose: '8080:80'",
            'ports: ["8080:80"]',
        ),
        ("host-port", "compose.host-port", "fail", "web publishes 8080:80", "web:80"),
        ("version", "compose.version", "warn", "version.yml:1:", "delete the line"),
    ],
)
def test_each_broken_file_is_found_by_its_rule(cli, name, check_id, status, evidence, fix) -> None:
    result = cli("doctor", "compose", str(FIXTURES / f"{name}.yml"), "--json", store=False)
    findings = _findings(result)
    assert [(f["id"], f["status"]) for f in findings] == [(check_id, status)]
    assert evidence in findings[0]["evidence"]
    assert fix in findings[0]["fix"]
    assert result.exit_code == (1 if status == "fail" else 0)


def test_the_corrected_file_has_no_findings(cli) -> None:
    result = cli("doctor", "compose", str(FIXTURES / "good.yml"), store=False)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "  ok compose.file: good.yml: 4 services"
    assert "ok compose.lint: none of the classic mistakes found" in result.stdout
    assert " warn " not in result.stdout and "fail " not in result.stdout


def test_the_projects_own_compose_file_has_no_findings(cli) -> None:
    result = cli("doctor", "compose", str(ROOT / "docker-compose.yml"), "--json", store=False)
    assert result.exit_code == 0
    assert _findings(result) == []


def test_the_team_compose_file_needs_only_its_password(cli, monkeypatch) -> None:
    monkeypatch.delenv("POSTGRES_PASSWORD", raising=False)
    unset = _findings(
        cli("doctor", "compose", str(ROOT / "docker-compose.team.yml"), "--json", store=False)
    )
    assert [(f["id"], f["summary"]) for f in unset] == [
        ("compose.variable", "required variable POSTGRES_PASSWORD has no value")
    ]
    monkeypatch.setenv("POSTGRES_PASSWORD", "from-the-environment")
    result = cli("doctor", "compose", str(ROOT / "docker-compose.team.yml"), "--json", store=False)
    assert result.exit_code == 0 and _findings(result) == []
    text = (ROOT / "docker-compose.team.yml").read_text()
    assert (
        "image: pgvector/pgvector:" in text
        and "condition: service_healthy" in text
        and "pg_isready" in text
    )


def test_variables_come_from_the_environment_or_a_dotenv_next_to_the_file(
    cli, tmp_path, monkeypatch
) -> None:
    monkeypatch.delenv("APP_TAG", raising=False)
    monkeypatch.delenv("APP_SECRET", raising=False)
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(FIXTURES / "variable.yml", project / "compose.yaml")
    unset = _findings(
        cli("doctor", "compose", "--json", str(project / "compose.yaml"), store=False)
    )
    assert [(f["id"], f["status"], f["summary"]) for f in unset] == [
        (
            "compose.variable",
            "warn",
            "APP_TAG is not set and has no default; Compose uses an empty string",
        ),
        ("compose.variable", "fail", "required variable APP_SECRET has no value"),
    ]
    assert unset[0]["evidence"] == "compose.yaml:3: ${APP_TAG}"
    (project / ".env").write_text("# local settings\nexport APP_TAG=1.4\n")
    monkeypatch.setenv("APP_SECRET", "s3cret")
    assert (
        _findings(cli("doctor", "compose", "--json", str(project / "compose.yaml"), store=False))
        == []
    )


def test_default_file_is_found_in_the_working_directory(cli, _isolated) -> None:
    missing = cli("doctor", "compose", "--json", store=False)
    assert missing.exit_code == 1
    assert json.loads(missing.stdout)["checks"][0]["summary"] == "no Compose file here"
    shutil.copy(FIXTURES / "expose.yml", _isolated / "docker-compose.yml")
    found = cli("doctor", "compose", store=False)
    assert (
        found.exit_code == 1
        and "fail compose.expose: web: expose is written like a port mapping" in found.stdout
    )


def test_invalid_yaml_names_the_line(cli) -> None:
    result = cli("doctor", "compose", str(FIXTURES / "not-yaml.yml"), "--json", store=False)
    check = json.loads(result.stdout)["checks"][0]
    assert result.exit_code == 1
    assert (check["id"], check["status"]) == ("compose.file", "fail")
    assert check["evidence"].startswith("line 4, column 4:")


def test_loopback_to_the_service_itself_or_an_unknown_port(tmp_path, cli) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text(
        "services:\n  app:\n    image: a:1\n    ports: ['8000:8000']\n    environment:\n"
        "      SELF: http://localhost:8000/health\n      OTHER: localhost:9999\n"
    )
    findings = _findings(cli("doctor", "compose", str(path), "--json", store=False))
    assert [(f["id"], f["status"], f["evidence"]) for f in findings] == [
        ("compose.localhost", "warn", "compose.yaml:7: OTHER=localhost:9999")
    ]


def test_anchors_merge_keys_and_a_shared_network_namespace(tmp_path, cli) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text(
        "x-env: &env\n  DATABASE_URL: postgres://u:p@localhost:5432/x\n"
        "x-app: &app\n  image: shop:1\n  environment: *env\n"
        "services:\n  api:\n    <<: *app\n  sidecar:\n    <<: *app\n    network_mode: host\n"
        "  db:\n    image: postgres:16\n    network_mode: 'service:api'\n"
        "    volumes: [{type: bind, source: ./d, target: /var/lib/postgresql}]\n"
    )
    findings = _findings(cli("doctor", "compose", str(path), "--json", store=False))
    # api shares its namespace with db, so localhost:5432 reaches db; host mode is the host's
    # localhost.
    assert [(f["id"], f["evidence"]) for f in findings] == [
        ("compose.db-bind-mount", "compose.yaml:15: ./d:/var/lib/postgresql")
    ]


def test_full_doctor_lints_the_compose_file_in_the_working_directory(cli, _isolated) -> None:
    def ids() -> list[str]:
        result = cli("doctor", "--no-probe", "--json", store=False)
        return [
            c["id"] for c in json.loads(result.stdout)["checks"] if c["id"].startswith("compose.")
        ]

    assert ids() == []
    shutil.copy(FIXTURES / "expose.yml", _isolated / "compose.yaml")
    assert ids() == ["compose.file", "compose.expose"]


@pytest.mark.parametrize(
    ("name", "status", "evidence"),
    [
        ("db-volume", "fail", "nothing is mounted on /data/db"),
        # a cache may start empty
        ("cache-volume", "warn", "nothing is mounted on /data"),
        # unless its command asks it to persist
        ("cache-persistent", "fail", "nothing is mounted on /data"),
    ],
)
def test_a_cache_without_a_volume_is_a_warning(cli, name, status, evidence) -> None:
    result = cli("doctor", "compose", str(FIXTURES / f"{name}.yml"), "--json", store=False)
    assert [(f["id"], f["status"]) for f in _findings(result)] == [("compose.db-volume", status)]
    assert evidence in _findings(result)[0]["evidence"]
    assert result.exit_code == (1 if status == "fail" else 0)


def _hindsight(tmp_path: Path, service: str, top: str = "") -> Path:
    path = tmp_path / "compose.yaml"
    path.write_text(f"services:\n  memory:\n    image: hindsight-cli:0.1.0\n{service}{top}")
    return path


VOLUME = "volumes:\n  data: {}\n"


@pytest.mark.parametrize(
    ("service", "top", "expected", "evidence", "fix"),
    [
        # The default host inside a container: the published port reaches nothing.
        (
            "    command: hindsight mcp --transport http --port 8765\n    ports: "
            "['127.0.0.1:8765:8765']\n",
            "",
            [("compose.mcp-host", "fail")],
            "compose.yaml:4: hindsight mcp --transport http --port 8765; ports: "
            "127.0.0.1:8765:8765",
            "--host 0.0.0.0",
        ),
        (
            "    command: [python, -m, hindsight_cli, mcp, --transport, http, --host, localhost]\n",
            "",
            [("compose.mcp-host", "warn")],
            "no ports published",
            "--host 0.0.0.0",
        ),
        # Every interface, published, no tokens: hindsight refuses to start.
        (
            "    command: hindsight mcp --transport http --host 0.0.0.0\n    environment: "
            "{HINDSIGHT_STORE: /data/store}\n"
            "    volumes: ['data:/data']\n    ports: ['8765:8765']\n",
            VOLUME,
            [("compose.mcp-tokens", "fail")],
            "ports: 8765:8765; no --tokens, no token file mounted",
            "`docker compose run --rm memory hindsight mcp token AGENT` (it writes "
            "/data/store/mcp-tokens.json on the "
            "volume) and add `--tokens /data/store/mcp-tokens.json`",
        ),
        (
            "    command: [sh, -c, 'exec hindsight mcp --transport=http --host=0.0.0.0']\n    "
            "ports: ['8765:8765']\n",
            "",
            [("compose.mcp-tokens", "fail")],
            "no --tokens",
            "hindsight mcp token AGENT --tokens ./mcp-tokens.json",
        ),
        (
            "    command: hindsight mcp --transport http --host 0.0.0.0\n    ports: "
            "['127.0.0.1:8765:8765']\n"
            "    secrets: [mcp-tokens]\n",
            "secrets:\n  mcp-tokens: {file: ./mcp-tokens.json}\n",
            [("compose.mcp-tokens", "fail")],
            "a token file is mounted at /run/secrets/mcp-tokens, but no --tokens names it",
            "add `--tokens /run/secrets/mcp-tokens`",
        ),
        # --allow-unauthenticated: it starts, and whoever reaches the port reads every memory.
        (
            "    command: hindsight mcp --transport http --host 0.0.0.0 "
            "--allow-unauthenticated\n    ports: ['8765:8765']\n",
            "",
            [("compose.mcp-unauthenticated", "warn")],
            "--allow-unauthenticated",
            "hindsight mcp token AGENT",
        ),
        # Tokens on the volume: nothing to say; on no mount at all: a warning.
        (
            "    command: hindsight mcp --transport http --host 0.0.0.0 --tokens "
            "/data/store/mcp-tokens.json\n"
            "    volumes: ['data:/data']\n    ports: ['127.0.0.1:8765:8765']\n",
            VOLUME,
            [],
            "",
            "",
        ),
        (
            "    command: hindsight mcp --transport http --host 0.0.0.0 --tokens "
            "/etc/mcp-tokens.json\n"
            "    ports: ['127.0.0.1:8765:8765']\n",
            "",
            [("compose.mcp-tokens", "warn")],
            "--tokens /etc/mcp-tokens.json",
            "refuses to start",
        ),
        # The host's own network: its loopback is the host's.
        ("    command: hindsight mcp --transport http\n    network_mode: host\n", "", [], "", ""),
        # A published port that is not the server's.
        (
            "    command: hindsight mcp --transport http --host 0.0.0.0 --port 9000 "
            "--allow-unauthenticated\n"
            "    ports: ['127.0.0.1:8765:8765']\n",
            "",
            [("compose.mcp-port", "fail"), ("compose.mcp-unauthenticated", "warn")],
            "hindsight mcp --transport http --host 0.0.0.0 --port 9000",
            'ports: ["127.0.0.1:9000:9000"]',
        ),
        # stdio and the token subcommand are not HTTP servers.
        ("    command: hindsight mcp token ci-bot\n    ports: ['8765:8765']\n", "", [], "", ""),
    ],
)
def test_hindsight_mcp_over_http_in_a_container(
    cli, tmp_path, service, top, expected, evidence, fix
) -> None:
    result = cli(
        "doctor", "compose", str(_hindsight(tmp_path, service, top)), "--json", store=False
    )
    findings = _findings(result)
    assert [(f["id"], f["status"]) for f in findings] == expected
    assert result.exit_code == (1 if any(s == "fail" for _, s in expected) else 0)
    if expected:
        assert evidence in findings[0]["evidence"] and fix in findings[0]["fix"]


def test_the_command_comes_from_the_dockerfile_the_service_builds(cli, tmp_path) -> None:
    (tmp_path / "image").mkdir()
    (tmp_path / "image" / "Dockerfile.mcp").write_text(
        "# escape=\\\nFROM python:3.11-slim AS base\nENV HINDSIGHT_STORE=/srv/store\n"
        'ENTRYPOINT ["tini", "--"]\nCMD ["hindsight", "mcp"]\n'
        "FROM base AS server\nRUN <<EOF\necho 'CMD [\"ignored\"]'\nEOF\n"
        "CMD hindsight mcp --transport http \\\n    --host 0.0.0.0\n"
    )
    service = (
        "    build: {context: ./image, dockerfile: Dockerfile.mcp, target: server}\n"
        "    volumes: ['data:/srv']\n    ports: ['127.0.0.1:8765:8765']\n"
    )
    result = cli(
        "doctor", "compose", str(_hindsight(tmp_path, service, VOLUME)), "--json", store=False
    )
    findings = _findings(result)
    assert [(f["id"], f["status"]) for f in findings] == [("compose.mcp-tokens", "fail")]
    assert (
        "tini -- /bin/sh -c hindsight mcp --transport http --host 0.0.0.0"
        in findings[0]["evidence"]
    )
    assert "--tokens /srv/store/mcp-tokens.json" in findings[0]["fix"]
    overridden = (
        service
        + "    command: hindsight mcp --transport http --host 0.0.0.0 --tokens /srv/store/t.json\n"
    )
    assert (
        _findings(
            cli(
                "doctor",
                "compose",
                str(_hindsight(tmp_path, overridden, VOLUME)),
                "--json",
                store=False,
            )
        )
        == []
    )


BASE = """services:
  api:
    image: example/api:1
    environment:
      - DATABASE_URL=postgres://app@db:5432/app
    depends_on:
      db:
        condition: service_healthy
  db:
    image: postgres:16
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U postgres"]
"""
OVERRIDE = """services:
  db:
    volumes:
      - pgdata:/var/lib/postgresql/data
volumes:
  pgdata: {}
"""


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    for name, text in files.items():
        (project / name).write_text(text)
    return project


@pytest.fixture
def no_docker(tmp_path, monkeypatch) -> None:
    """A PATH without docker, so the merge is hindsight's own."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("COMPOSE_FILE", raising=False)


@pytest.mark.parametrize(
    ("base", "override"),
    [
        ("compose.yaml", "compose.override.yaml"),
        ("compose.yml", "compose.override.yml"),
        ("docker-compose.yml", "docker-compose.override.yml"),
        ("docker-compose.yaml", "compose.override.yaml"),
    ],
)
def test_the_volume_in_the_override_file_counts(
    cli, tmp_path, monkeypatch, no_docker, base, override
) -> None:
    project = _project(tmp_path, {base: BASE, override: OVERRIDE})
    monkeypatch.chdir(project)
    result = cli("doctor", "compose", store=False)
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[:3] == [
        f"  ok compose.file: {base} + {override}: 2 services",
        f"     saw: {project / base}; {project / override} (merged by hindsight)",
        "  ok compose.lint: none of the classic mistakes found",
    ]
    # the base file alone is still the failure it was
    alone = cli("doctor", "compose", str(project / base), store=False)
    assert alone.exit_code == 1
    assert "fail compose.db-volume: db (postgres) keeps its data in the container" in alone.stdout


def test_a_finding_names_the_file_and_line_it_comes_from(
    cli, tmp_path, monkeypatch, no_docker
) -> None:
    override = OVERRIDE.replace("pgdata:/var", "./pgdata:/var").replace(
        "volumes:\n  pgdata",
        "  api:\n    environment:\n      DATABASE_URL: postgres://app@localhost:5432/app\n"
        "volumes:\n  pgdata",
    )
    project = _project(tmp_path, {"compose.yaml": BASE, "compose.override.yaml": override})
    monkeypatch.chdir(project)
    findings = {f["id"]: f for f in _findings(cli("doctor", "compose", "--json", store=False))}
    assert findings["compose.db-bind-mount"]["evidence"] == (
        "compose.override.yaml:4: ./pgdata:/var/lib/postgresql/data"
    )
    # the override's mapping entry replaces the base file's list entry of the same name
    assert findings["compose.localhost"]["evidence"] == (
        "compose.override.yaml:7: DATABASE_URL=postgres://app@localhost:5432/app"
    )


def test_volumes_merge_by_target_and_ports_append(cli, tmp_path, monkeypatch, no_docker) -> None:
    base = BASE + "    volumes:\n      - ./old:/var/lib/postgresql/data\n    ports: ['5432:5432']\n"
    override = OVERRIDE.replace(
        "    volumes:\n", "    ports: ['5432:5432', '6432:5432']\n    volumes:\n", 1
    )
    project = _project(tmp_path, {"compose.yaml": base, "compose.override.yaml": override})
    monkeypatch.chdir(project)
    result = cli("doctor", "compose", "--json", store=False)
    # the named volume on the same target replaced the bind mount: no db-bind-mount warning
    assert _findings(result) == [], result.stdout
    from hindsight_cli.doctor import compose_merge

    merged = compose_merge.load_project(
        compose_merge.files(project, [], {"PATH": ""}), {"PATH": ""}
    )
    assert merged.data["services"]["db"]["volumes"] == ["pgdata:/var/lib/postgresql/data"]
    assert merged.data["services"]["db"]["ports"] == ["5432:5432", "6432:5432"]


def test_f_files_and_compose_file_choose_the_files(cli, tmp_path, monkeypatch, no_docker) -> None:
    project = _project(
        tmp_path,
        {"base.yml": BASE, "prod.yml": OVERRIDE, "compose.override.yaml": "services: {}\n"},
    )
    monkeypatch.chdir(project)
    given = cli("doctor", "compose", "-f", "base.yml", "-f", "prod.yml", store=False)
    assert given.exit_code == 0, given.stdout
    assert given.stdout.startswith("  ok compose.file: base.yml + prod.yml: 2 services\n")
    monkeypatch.setenv("COMPOSE_FILE", os.pathsep.join(["base.yml", "prod.yml"]))
    listed = cli("doctor", "compose", store=False)
    assert listed.stdout.startswith("  ok compose.file: base.yml + prod.yml: 2 services\n")
    monkeypatch.setenv("COMPOSE_FILE", "base.yml")
    only = cli("doctor", "compose", store=False)
    assert only.exit_code == 1 and "fail compose.db-volume" in only.stdout


FAKE_DOCKER_CONFIG = """#!/bin/sh
# `docker compose -f … config`: prints a merged model (as Compose would) and records its arguments
echo "$@" > "$(dirname "$0")/args"
cat <<'YAML'
name: project
services:
  api:
    image: example/api:1
    environment:
      DATABASE_URL: postgres://app@db:5432/app
  db:
    image: postgres:16
    volumes:
      - type: volume
        source: pgdata
        target: /var/lib/postgresql/data
volumes:
  pgdata:
    name: project_pgdata
YAML
"""


def _docker_and_project(tmp_path: Path, monkeypatch, script: str) -> tuple[Path, Path]:
    """A `docker` on PATH running ``script``, and a project of a base and an override file as
    the working directory."""
    monkeypatch.delenv("COMPOSE_FILE", raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    docker = bin_dir / "docker"
    docker.write_text(script)
    docker.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    project = _project(
        tmp_path, {"compose.yaml": BASE, "compose.override.yaml": "services:\n  db: {}\n"}
    )
    monkeypatch.chdir(project)
    return docker, project


def test_docker_compose_config_is_preferred_when_it_answers(cli, tmp_path, monkeypatch) -> None:
    # hindsight's own merge would find no volume: only docker's model has it
    docker, project = _docker_and_project(tmp_path, monkeypatch, FAKE_DOCKER_CONFIG)
    bin_dir = docker.parent
    result = cli("doctor", "compose", store=False)
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[1].endswith("(as `docker compose config` merges them)")
    assert (bin_dir / "args").read_text().split() == [
        "compose",
        "-f",
        str(project / "compose.yaml"),
        "-f",
        str(project / "compose.override.yaml"),
        "config",
    ]
    # a docker that fails: hindsight merges, and finds what the files say
    docker.write_text("#!/bin/sh\necho 'unknown command: docker compose' >&2\nexit 1\n")
    fallback = cli("doctor", "compose", store=False)
    assert fallback.exit_code == 1
    assert "(merged by hindsight)" in fallback.stdout
    assert "fail compose.db-volume" in fallback.stdout


def test_an_empty_service_in_the_base_file_takes_the_overrides(
    cli, tmp_path, monkeypatch, no_docker
) -> None:
    base = "services:\n  db:\n    image: postgres:16\n  cache:\n"
    override = "services:\n  cache:\n    image: redis:7\n    expose: ['6379:6379']\n"
    project = _project(tmp_path, {"compose.yaml": base, "compose.override.yaml": override})
    monkeypatch.chdir(project)
    findings = _findings(cli("doctor", "compose", "--json", store=False))
    expose = [f for f in findings if f["id"] == "compose.expose"]
    assert [f["evidence"] for f in expose] == ["compose.override.yaml:4: expose: '6379:6379'"]


def _bomb(levels: int) -> str:
    """A Compose file of a few hundred bytes whose aliases of aliases expand to 9**levels values."""
    lines = ["services:", "  app:", "    image: a:1", 'x-0: &a0 ["$A", "$B", "$C"]']
    lines += [f"x-{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        # 9**12 values from 600 bytes: doctor hung (and grew) walking every expansion
        (_bomb(12), "line 9: its aliases expand to more than 200,000 values (a YAML bomb?)"),
        # as an environment, where the variables are read from
        (
            _bomb(8).replace("services:\n  app:\n    image: a:1\n", "")
            + "services:\n  app:\n    image: a:1\n    environment: *a8\n",
            "its aliases expand to more than 200,000 values",
        ),
        # an alias inside its own anchor: a RecursionError traceback
        (
            "services:\n  app: &a\n    image: a:1\n    more: *a\n",
            "line 2: an alias names the anchor it is inside (the value would never end)",
        ),
        ("services:\n  app: &a [*a]\n", "an alias names the anchor it is inside"),
        # nested past any walker's stack, in flow and in block style: RecursionError tracebacks
        ("services: " + "[" * 50_000 + "]" * 50_000 + "\n", "nested more than 200 levels deep"),
        (
            "services:\n"
            + "".join("  " * n + "a:\n" for n in range(1, 400))
            + "  " * 400
            + "x: 1\n",
            "nested more than 200 levels deep",
        ),
    ],
)
def test_a_compose_file_of_aliases_or_nesting_without_end_is_refused_in_one_line(
    tmp_path: Path, text: str, evidence: str
) -> None:
    """A repository's Compose file that `hindsight doctor` lints (review R)."""
    import subprocess
    import sys

    path = tmp_path / "compose.yaml"
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "hindsight_cli", "doctor", "compose", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "HINDSIGHT_HOME": str(tmp_path / "home")},
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    (check,) = json.loads(done.stdout)["checks"]
    assert (check["id"], check["status"]) == ("compose.file", "fail")
    assert evidence in check["evidence"]


@pytest.mark.parametrize("where", ["environment", "image"])
def test_a_checkouts_compose_variable_that_never_closes_is_read_once(
    cli, tmp_path, monkeypatch, no_docker, where
) -> None:
    """Review AL: a `${` that never closes was tried again from every later `${`, each scan
    running to the end of the value: 80 KB of them in a checkout's compose.yaml held `hindsight
    doctor` for a minute, 1 MB for hours. Now it runs to the end once and stays as written."""
    value = "${" * 300_000
    image, env = (value, "x") if where == "image" else ("app", value)
    text = f"services:\n  api:\n    image: '{image}'\n    environment:\n      A: '{env}'\n"
    project = _project(tmp_path, {"compose.yaml": text})
    monkeypatch.chdir(project)
    result = cli("doctor", "compose", "--json", store=False)
    assert "Traceback" not in result.output
    assert json.loads(result.stdout)["checks"]


def test_compose_variables_read_as_before_where_each_closes() -> None:
    from hindsight_cli.doctor.compose_file import interpolate

    env = {"B": "b", "C": "c", "E": ""}
    assert interpolate("a ${A:-d} $B $$ ${C} ${E:-e} ${E-f} ${C:+g}", env) == "a d b $ c e  g"


@pytest.mark.parametrize(
    ("files", "big"),
    [
        ({"compose.yaml": "services:\n  a:\n    image: " + "x" * 5000 + "\n"}, "compose.yaml"),
        (
            {"compose.yaml": "services:\n  a:\n    command: [" + ",".join(["0"] * 3000) + "]\n"},
            "compose.yaml",
        ),
        (
            {
                "compose.yaml": "services:\n  a:\n    image: a:1\n",
                "compose.override.yaml": "services:\n"
                + "".join(f"  s{n}:\n    image: b:1\n" for n in range(300)),
            },
            "compose.override.yaml",
        ),
    ],
    ids=["long-scalar", "dense-flow", "override-of-many-services"],
)
def test_a_compose_file_past_its_limit_is_refused_in_one_line(
    cli, tmp_path, monkeypatch, no_docker, files, big
) -> None:
    """Review BF: a checkout's Compose file (or its override) that `hindsight doctor` lints is read
    to ``MAX_BYTES`` at most: PyYAML took 54 s and 780 MB for 2 MB of `[0,0,…]`, and 256 MiB were
    allowed (hours, tens of GB). Past it, `compose.file` fails naming the file and the limit."""
    from hindsight_cli.doctor import compose_file

    monkeypatch.setattr(compose_file, "MAX_BYTES", 4096)
    monkeypatch.chdir(_project(tmp_path, files))
    for result in (
        cli("doctor", "compose", "--json", store=False),
        cli("doctor", "--no-probe", "--json", store=False),
    ):
        check = next(c for c in json.loads(result.stdout)["checks"] if c["id"] == "compose.file")
        assert result.exit_code == 1 and check["status"] == "fail"
        assert check["evidence"].endswith(
            f"{big} is larger than 4 KiB, more than a Compose file holds"
        )


@pytest.mark.parametrize(
    ("text", "target", "image"),
    [
        # a stage built from a stage: its ENV, LABEL and HEALTHCHECK, and CMD until ENTRYPOINT
        (
            'FROM x AS a\nENV A=1\nLABEL l=1\nCMD ["a"]\nHEALTHCHECK CMD ["h"]\n'
            'FROM a AS b\nENV B=$A\nFROM b\nENTRYPOINT ["e"]\n',
            None,
            (["e"], None, {"A": "1", "B": "1"}, {"l": "1"}, ["h"]),
        ),
        # a CMD written in the child stays past its ENTRYPOINT
        (
            'FROM x AS a\nCMD ["a"]\nFROM a\nCMD ["c"]\nENTRYPOINT ["e"]\n',
            None,
            (["e"], ["c"], {}, {}, None),
        ),
        # a target; a name used again names the later stage, built from the earlier
        (
            "FROM x AS a\nENV A=1\nFROM a AS a\nENV B=2\nFROM y\nENV C=3\n",
            "a",
            (None, None, {"A": "1", "B": "2"}, {}, None),
        ),
        ('FROM x AS a\nENV A=1\nFROM scratch\nCMD ["s"]\n', None, (None, ["s"], {}, {}, None)),
    ],
    ids=["chain", "own-cmd", "target-renamed", "unrelated"],
)
def test_a_dockerfiles_stages_are_read_once_each(monkeypatch, text, target, image) -> None:
    """Review BF: the image a service builds is its stage's instructions and those of the stages
    it is built from, each read once: each `FROM stage` copied the whole image of that stage, so
    20,000 `ENV` lines and 20,000 `FROM a` lines (390 KB, doctor read 256 MiB of a Dockerfile)
    took 3 s, four times as long at each doubling. Counted in values copied from image to image."""
    from hindsight_cli.doctor import dockerfile

    built = dockerfile.parse(text, target)
    assert (built.entrypoint, built.cmd, built.env, built.labels, built.healthcheck) == image
    copied = []

    class Counted(dockerfile.Image):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            copied.append(len(self.env) + len(self.labels))

    monkeypatch.setattr(dockerfile, "Image", Counted)
    many = "FROM x AS a\n" + "".join(f"ENV A{n}=1\n" for n in range(200)) + "FROM a\n" * 200
    assert len(dockerfile.parse(many).env) == 200 and sum(copied) == 0


def test_a_docker_model_past_the_limit_is_merged_by_hindsight(cli, tmp_path, monkeypatch) -> None:
    """Review BF: what `docker compose config` prints (a checkout's `include`d files merged in,
    of any size) was read whole by PyYAML; past a Compose file's limit hindsight merges the files
    itself, as when docker fails."""
    from hindsight_cli.doctor import compose_file

    monkeypatch.setattr(compose_file, "MAX_BYTES", 4096)
    services = "".join(f"  s{n}:\n    image: b:1\n" for n in range(300))
    _docker_and_project(
        tmp_path, monkeypatch, f"#!/bin/sh\ncat <<'EOF'\nservices:\n{services}EOF\n"
    )
    result = cli("doctor", "compose", store=False)
    assert "(merged by hindsight)" in result.stdout and "300 services" not in result.stdout


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("$A" * 100, {"A": "x" * 1000}, "x" * 2048),
        ("${A}-" * 100, {"A": "y" * 30}, ("y" * 30 + "-") * 66 + "y" * 2),
        ("${B:-" + "z" * 50 + "}" * 100, {}, "z" * 50 + "}" * 99),
        ("$A and ${A:+set} $$A", {"A": "v"}, "v and set $A"),
    ],
    ids=["repeated", "braced", "default", "short"],
)
def test_an_interpolated_value_stops_at_its_limit(
    cli, tmp_path, monkeypatch, text, env, expected
) -> None:
    """Review BF: a 4 KB Compose file of `K: "$A$A…"` beside a `.env` of `A=` and 1 MB made a value
    of 2 GB, doctor past 120 s; an interpolated value stops at ``MAX_VALUE`` characters, and one
    within it is what Compose makes."""
    from hindsight_cli.doctor import compose_file

    monkeypatch.setattr(compose_file, "MAX_VALUE", 2048)
    assert compose_file.interpolate(text, env) == expected[:2048]
    project = _project(
        tmp_path,
        {
            ".env": "A=" + "x" * 4000 + "\n",
            "compose.yaml": 'services:\n  a:\n    image: x\n    environment:\n      K: "'
            + "$A" * 500
            + ' localhost:9"\n',
        },
    )
    result = cli("doctor", "compose", str(project / "compose.yaml"), store=False)
    assert result.exit_code == 0 and "compose.lint: none of the classic mistakes" in result.stdout


def test_each_dockerfile_is_built_once_and_boundedly(tmp_path, monkeypatch) -> None:
    """Review BI: each service that builds read and built its Dockerfile again, so 100 services of
    `{build: .}` beside a 1 MiB Dockerfile took doctor 130 s (a Compose file's 256 KiB holds
    14,000). Each Dockerfile (however its path is spelled) and inline text is built once a target,
    from ``MAX_BUILT`` characters in all; past them an image is not read."""
    import json as json_module

    from hindsight_cli.doctor import compose_checks, dockerfile

    text = "FROM x AS server\n" + "ENV A=1\n" * 50 + "CMD hindsight mcp --transport http\n"
    ports = "ports: ['127.0.0.1:9:9']"
    spelled = [".", "./", "./.", "../project"]
    inline = json_module.dumps(text)
    project = _project(
        tmp_path,
        {
            "Dockerfile": text,
            "compose.yaml": "services:\n"
            + "".join(f"  p{n}: {{build: {spelled[n % 4]}, {ports}}}\n" for n in range(40))
            + "".join(
                f"  i{n}: {{build: {{dockerfile_inline: {inline}}}, {ports}}}\n" for n in range(40)
            ),
        },
    )
    built = []
    parse = dockerfile.parse
    monkeypatch.setattr(dockerfile, "parse", lambda *a: built.append(a[1]) or parse(*a))

    def port_findings() -> int:
        checks = compose_checks.run(cwd=project, env={"PATH": ""}, required=False)
        return sum(c.id == "compose.mcp-port" for c in checks)

    assert port_findings() == 80 and len(built) == 2
    # distinct targets: each built once, until the text read reaches the limit
    monkeypatch.setattr(dockerfile, "MAX_BUILT", len(text) * 3)
    built.clear()
    targets = ["server"] * 20 + [f"t{n}" for n in range(40)]
    (project / "compose.yaml").write_text(
        "services:\n"
        + "".join(
            f"  s{n}: {{build: {{context: ., target: {target}}}, {ports}}}\n"
            for n, target in enumerate(targets)
        )
    )
    assert port_findings() == 20 + 2 and len(built) == 3


_SHAPES = {
    # each service calls the next through localhost: every value looked for its port's owner
    "localhost": lambda n: "".join(
        f"  s{i}: {{image: postgres, environment: [U=http://localhost:{i + 1}], "
        f"ports: ['{i}:{i}'], depends_on: [s{(i + 1) % n}], networks: [n{i}]}}\n"
        for i in range(n)
    ),
    "unknown-depends": lambda n: "".join(f"  s{i}: {{depends_on: [x{i}]}}\n" for i in range(n)),
    "mcp-loopback": lambda n: "".join(
        f"  s{i}: {{command: hindsight mcp --transport http, environment: [A=http://s{i}:1]}}\n"
        for i in range(n)
    ),
    "host-port": lambda n: (
        "  a: {ports: ["
        + ",".join(f"'{i}:{i + 1000}'" for i in range(n))
        + "]}\n  b: {environment: ["
        + ",".join(f"U{i}=a:{i}" for i in range(n))
        + "]}\n"
    ),
    "volumes": lambda n: (
        "".join(f"  s{i}: {{volumes: ['v{i}:/x']}}\n" for i in range(n))
        + "volumes:\n"
        + "".join(f"  v{i}: {{}}\n" for i in range(n))
    ),
    "networks": lambda n: (
        "  a: {networks: ["
        + ",".join(f"n{i}" for i in range(n))
        + "]}\n"
        + "".join(f"  s{i}: {{environment: [U=http://a:1], networks: [n]}}\n" for i in range(n))
    ),
}


@pytest.mark.parametrize("shape", list(_SHAPES))
def test_a_compose_files_services_are_read_once_each(tmp_path, monkeypatch, shape) -> None:
    """Review BI: each service's checks made the project's services again, and looked through
    every other service's ports, networks, environment and the top-level volumes, and listed every
    service or network in a finding: one 250 KB `compose.yaml` of services calling each other on
    localhost held `hindsight doctor` 100 s (of many networks, output grew as the square). Each is
    read once a project now, and a finding names 20 at most. Counted in services' parts read."""
    from hindsight_cli.doctor import compose_checks, compose_mcp

    read: list[str] = []
    for module, name in (
        (compose_checks, "_container_ports"),
        (compose_checks, "_networks"),
        (compose_checks, "_ports"),
        (compose_mcp, "env_items"),
        (compose_checks, "env_items"),
    ):
        real = getattr(module, name)
        monkeypatch.setattr(
            module, name, lambda *a, _real=real, _name=name: read.append(_name) or _real(*a)
        )
    n = 300
    project = _project(tmp_path, {"compose.yaml": "services:\n" + _SHAPES[shape](n)})
    checks = compose_checks.run(cwd=project, env={"PATH": ""}, required=False)
    assert len(read) <= 8 * n and all(len(c.evidence) < 1000 for c in checks)
    if shape == "localhost":
        assert sum("reaches s" in c.summary for c in checks) == n - 1
    if shape == "networks":
        assert sum(c.id == "compose.network" for c in checks) == n
        assert all("…" in c.evidence for c in checks if c.id == "compose.network")
    if shape == "host-port":
        assert sum(c.id == "compose.host-port" for c in checks) == n


def test_a_projects_files_are_read_and_merged_boundedly(cli, tmp_path, monkeypatch, no_docker):
    """Review BI: `COMPOSE_FILE` in a checkout's `.env` named one 43 KB file 200 times and doctor
    read each (65 s; 1 MiB of `.env` names it 80,000 times); a project's files are 64 at most and
    read to ``MAX_BYTES`` together. And each list merged looked through every origin of the
    project (two files of 6,000 services with `ports`: 18 s); now its own entries'."""
    from hindsight_cli.doctor import compose_file, compose_merge

    monkeypatch.setattr(compose_file, "MAX_BYTES", 4096)
    services = "services:\n" + "".join(f"  s{n}: {{ports: ['{n}:1']}}\n" for n in range(120))
    project = _project(tmp_path, {"compose.yaml": services, "compose.override.yaml": services})
    monkeypatch.chdir(project)
    for listed, said in (
        (["compose.yaml"] * 100, "100 files are more than the 64 a Compose project merges"),
        (
            ["compose.yaml", "compose.override.yaml"],
            "compose.override.yaml and the files merged before it are larger than 4 KiB in all",
        ),
    ):
        (project / ".env").write_text("COMPOSE_FILE=" + os.pathsep.join(listed) + "\n")
        result = cli("doctor", "compose", "--json", store=False)
        check = next(c for c in json.loads(result.stdout)["checks"] if c["id"] == "compose.file")
        assert result.exit_code == 1, check
        assert said in check["evidence"] and len(check["summary"]) < 800
    looked = []

    class Origins(dict):
        def __iter__(self):
            looked.append(len(self))
            return super().__iter__()

    project_class = compose_merge.Project
    monkeypatch.setattr(
        compose_merge, "Project", lambda *a, **k: project_class(*a, **k, origins=Origins())
    )
    monkeypatch.setattr(compose_file, "MAX_BYTES", 1 << 20)
    (project / ".env").unlink()
    result = cli("doctor", "compose", "--json", store=False)
    assert result.exit_code == 0 and "120 services" in result.stdout and sum(looked) < 1000


@pytest.mark.parametrize(
    "repeated",
    [["hindsight"], ["hindsight", "mcp"], ["python", "-m", "hindsight_cli", "mcp"], ["sh -c x"]],
    ids=["hindsight", "hindsight-mcp", "module", "script"],
)
def test_a_long_command_is_read_once_for_hindsights_server(monkeypatch, repeated) -> None:
    """Review BI: the words after each `hindsight` of a command were copied and read again, so a
    Dockerfile's `CMD ["hindsight", …]` of 20,000 words (260 KB, a Dockerfile is read to 1 MiB)
    held doctor 128 s. They are read once now, from the right; the server found is the same.
    Counted in words copied."""
    from hindsight_cli.doctor import compose_mcp

    copied = []

    class Words(list):
        def __getitem__(self, index):
            got = super().__getitem__(index)
            if isinstance(index, slice):
                copied.append(len(got))
            return got

    split = compose_mcp._split
    monkeypatch.setattr(compose_mcp, "_split", lambda argv: Words(split(argv)))
    n = 2000
    argv = repeated * n + ["hindsight", "mcp", "--transport", "http", "--port", "9"]
    server = compose_mcp.find_server(argv, {})
    assert server is not None and server.port == 9 and sum(copied) < 4 * len(argv)
    copied.clear()
    assert compose_mcp.find_server(argv[:-4] + ["&&", "--transport", "http"], {}) is None
    assert sum(copied) < 4 * len(argv)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("services:\n  - a\n", "line 1: `services` must be a mapping"),
        ("services: {a: {image: postgres}}\nvolumes: 5\n", "line 2: `volumes` must be a mapping"),
        ("services: {a: {image: x}}\nnetworks: [n]\n", "line 2: `networks` must be a mapping"),
        ("services:\n  a:\n    image: x\n    ports: 5\n", "line 4: `ports` must be a list"),
        ("services:\n  a:\n    configs: 5\n", "line 3: `configs` must be a list"),
        (
            "services:\n  a:\n    image: redis\n    command: 5\n",
            "line 4: `command` must be a string or a list",
        ),
    ],
    ids=["services-list", "volumes-number", "networks-list", "ports", "configs", "command"],
)
def test_a_compose_file_of_the_wrong_shape_fails_in_one_line(
    cli, tmp_path, monkeypatch, no_docker, text, said
) -> None:
    """Review BI: a checkout's `compose.yaml` whose `services:` is a list, or a section or a
    service's key of another kind than Compose's schema allows, ended `hindsight doctor` (and
    `doctor compose`) with a traceback; `compose.file` fails naming the line."""
    monkeypatch.chdir(_project(tmp_path, {"compose.yaml": text}))
    # a whole `doctor` run once: it reads the Compose file as `doctor compose` does
    whole = ("doctor", "--no-probe", "--json") if "services" in said else ()
    for result in [cli("doctor", "compose", "--json", store=False)] + (
        [cli(*whole, store=False)] if whole else []
    ):
        check = next(c for c in json.loads(result.stdout)["checks"] if c["id"] == "compose.file")
        assert result.exit_code == 1 and check["status"] == "fail" and check["evidence"] == said


@pytest.mark.parametrize(
    "value",
    [
        "2024-13-01",
        "2024-02-30",
        "2024-01-01 25:00:00",
        "!!timestamp 2024-99-99",
        "1" * 5000,
        "1" * 5000 + ":30",
        "-" + "9" * 5000,
        "!!bool maybe",
        "!!timestamp nope",
        '!!int ""',
        '!!int "+"',
        '!!bool ""',
    ],
    ids=[
        "month",
        "day",
        "hour",
        "tagged",
        "digits",
        "sexagesimal",
        "negative",
        "bool",
        "timestamp",
        "empty-int",
        "sign",
        "empty-bool",
    ],
)
@pytest.mark.parametrize("where", ["value", "key", "alias", "override"])
def test_a_date_or_number_python_cannot_hold_stays_text(
    cli, tmp_path, monkeypatch, no_docker, value, where
) -> None:
    """Review BO: a scalar PyYAML reads as a date or an integer that Python cannot build
    (`2024-13-01`, 5,000 digits) raised ``ValueError`` out of the YAML loader, and a checkout's
    `compose.yaml` holding one ended `hindsight doctor` with a traceback. It stays its text, as
    Compose's YAML 1.2 reads it, and the rest of the file is checked. Review BS: a scalar tagged
    with a type its text is not (`!!bool maybe`, `!!timestamp nope`, `!!int ""`) raised
    ``KeyError``, ``AttributeError`` or ``IndexError`` there, the same traceback; the same now."""
    service = "services:\n  app:\n    image: a:1\n    environment:\n"
    files = {
        "value": {"compose.yaml": f"{service}      D: {value}\n      OTHER: localhost:9999\n"},
        "key": {
            "compose.yaml": f"{service}      ? {value}\n      : x\n      OTHER: localhost:9999\n"
        },
        "alias": {
            "compose.yaml": f"x-d: &d {value}\n{service}      D: *d\n      E: *d\n"
            "      OTHER: localhost:9999\n"
        },
        "override": {
            "compose.yaml": f"{service}      OTHER: localhost:9999\n",
            "compose.override.yaml": f"x-d: {value}\nservices:\n  app:\n    labels: [{value}]\n",
        },
    }[where]
    monkeypatch.chdir(_project(tmp_path, files))
    result = cli("doctor", "compose", "--json", store=False)
    checks = {c["id"]: c for c in json.loads(result.stdout)["checks"]}
    assert result.exit_code == 0 and checks["compose.file"]["status"] == "ok", result.output
    assert checks["compose.localhost"]["evidence"].endswith("OTHER=localhost:9999")


@pytest.mark.parametrize(
    "line", ["ENV A=$A$A", "ENV A=${A}${A}", "ENV A $A$A", "LABEL A=$A$A"], ids=str
)
def test_a_dockerfiles_values_stop_at_a_values_limit(line) -> None:
    """Review BI: a Dockerfile's `ENV A=$A$A` doubled its value at each line, so 30 such lines (a
    400-byte file a checkout ships beside its `compose.yaml`) made a value of 2 GB, 34 of 32 GB. A
    value stops at a Compose value's limit (``compose_file.MAX_VALUE``); short ones as before."""
    from hindsight_cli.doctor import compose_file, dockerfile

    image = dockerfile.parse("FROM x\nENV A=ab\nLABEL A=ab\n" + f"{line}\n" * 20)
    values = image.labels if line.startswith("LABEL") else image.env
    assert values["A"] == "ab" * (compose_file.MAX_VALUE // 2)
    assert dockerfile.parse('FROM x\nENV A=1 B=${A}2 C="$B $A"\n').env == {
        "A": "1",
        "B": "12",
        "C": "12 1",
    }


@pytest.mark.parametrize(
    "text",
    ['a \'b c\' "d \\" e" f\\ g', "x=\"1 2\" y='' z", "'unclosed", "tail\\", "a\tb\rc\nd \x0be"],
    ids=["quotes", "empty", "unclosed", "escape", "blanks"],
)
def test_doctors_words_are_split_as_a_shell_does_in_one_read(monkeypatch, text) -> None:
    """Review BI: doctor split a command's words and a Dockerfile's `ENV` with ``shlex``, which
    adds a word's characters one at a time: a quoted word of 256 KB took 6 s, an `ENV A="…"` of
    800 KB 36 s; and a `HEALTHCHECK` of 250,000 options, or `env`/`wsl` before 200,000 of them,
    was taken off a word at a time. The words are the same, read once (``shlex`` is not asked)."""
    import shlex

    from hindsight_cli.doctor import command_lines, dockerfile

    try:
        expected = shlex.split(text)
    except ValueError:
        expected = text.split()

    def refused(*_: object, **__: object) -> list[str]:
        raise AssertionError("shlex read it")

    monkeypatch.setattr(shlex, "split", refused)
    assert command_lines.split_words(text) == expected
    image = dockerfile.parse(f"FROM x\nENV K={text}\nHEALTHCHECK --retries=2 --a CMD {text}\n")
    if "\n" not in text and not text.endswith("\\"):
        assert image.healthcheck == ["/bin/sh", "-c", text]
    assert command_lines.launched(["env", "A=1", "-i", "wsl", "-d", "U", "--", "node"]) == [
        "wsl",
        "node",
    ]


def test_a_services_networks_of_any_kind_are_read_as_names(tmp_path) -> None:
    """Review BI: a service's `networks` list holding a mapping, or `true` beside a name, ended
    `doctor compose` with a traceback (a mapping is no set member; names of two kinds do not
    sort); each is read as its text."""
    from hindsight_cli.doctor import compose_checks

    project = _project(
        tmp_path,
        {
            "compose.yaml": "services:\n  a:\n    image: x\n    networks: [{n: 1}, true, m]\n"
            "    environment: [U=http://b:1]\n  b:\n    image: x\n    networks: [true, o]\n"
        },
    )
    checks = compose_checks.run(cwd=project, env={"PATH": ""}, required=False)
    assert checks[0].status == "ok"
    assert {c.id for c in checks[1:]} == {"compose.network-undeclared"}


@pytest.mark.parametrize(
    ("files", "limit", "evidence"),
    [
        # a 200 KiB-like string aliased into a list doctor reads entry by entry
        (
            {
                "compose.yaml": "x-a: &a '" + "x" * 3000 + "'\nservices:\n  app:\n    image: x\n"
                "    ports: [" + ", ".join(["*a"] * 40) + "]\n"
            },
            "MAX_EXPANDED",
            "its aliases expand to more than 64 KiB of text (a YAML bomb?)",
        ),
        # as the values of an environment, and as a command
        (
            {
                "compose.yaml": "x-a: &a 'http://db:1/" + "y" * 3000 + "'\nservices:\n"
                "  db: {image: postgres}\n  app:\n    image: x\n    environment:\n"
                + "".join(f"      K{i}: *a\n" for i in range(40))
            },
            "MAX_EXPANDED",
            "its aliases expand to more than 64 KiB of text",
        ),
        # a `$B` of the checkout's `.env`, a few bytes in the file, each value of it 4 KiB
        (
            {
                ".env": "B=" + "z" * 4000 + "\n",
                "compose.yaml": "x-e: &e\n"
                + "".join(f"  K{i}: $B\n" for i in range(10))
                + "x-s: &s {image: x, environment: *e}\nservices:\n"
                + "".join(f"  s{i}: *s\n" for i in range(10)),
            },
            "MAX_INTERPOLATED",
            "its values interpolate to more than 64 KiB of text",
        ),
        (
            {
                ".env": "B=" + "z" * 4000 + "\n",
                "compose.yaml": "x-c: &c [hindsight, $B, $B, $B]\nservices:\n"
                + "".join(f"  s{i}: {{image: x, command: *c}}\n" for i in range(10)),
            },
            "MAX_INTERPOLATED",
            "its values interpolate to more than 64 KiB of text",
        ),
        (
            {
                ".env": "B=" + "z" * 4000 + "\n",
                "compose.yaml": "services:\n"
                + "".join(f"  s{i}: {{image: x, entrypoint: 'sh -c $B'}}\n" for i in range(20)),
            },
            "MAX_INTERPOLATED",
            "its values interpolate to more than 64 KiB of text",
        ),
    ],
    ids=["list", "environment", "dotenv-environment", "dotenv-command", "dotenv-entrypoint"],
)
def test_a_checkouts_compose_text_repeated_by_aliases_or_interpolation_is_refused_in_one_line(
    cli, tmp_path, monkeypatch, no_docker, files, limit, evidence
) -> None:
    """Review BL: ``MAX_NODES`` counted values, not their text: a 200 KiB string aliased 200,000
    times, or a `$B` of a checkout's `.env` grown to 8 KiB in each of them, was read again at
    each (2 KB of `K: $B` aliased to 100 services beside an 8 KiB `.env` value: doctor 7 s, 950
    services a minute). Now a project's text as its aliases expand it and its values as
    interpolation makes them are bounded (limits made 64 KiB here), refused in one line."""
    from hindsight_cli.doctor import compose_file

    monkeypatch.setattr(compose_file, limit, 64 << 10)
    monkeypatch.chdir(_project(tmp_path, files))
    result = cli("doctor", "compose", "--json", store=False)
    assert result.exit_code == 1 and "Traceback" not in result.output
    (check,) = json.loads(result.stdout)["checks"]
    assert (check["id"], check["status"]) == ("compose.file", "fail")
    assert evidence in check["evidence"]


@pytest.mark.parametrize(
    "value",
    [
        " ".join(f"http://localhost:{port}/" for port in range(1, 400)),
        " ".join(["postgres://u:p@localhost:5432/db"] * 400),
        " ".join(f"http://db:5433/{page}" for page in range(1, 400)),
    ],
    ids=["ports", "repeated", "service"],
)
def test_a_value_naming_many_hosts_makes_few_short_findings(
    cli, tmp_path, monkeypatch, no_docker, value
) -> None:
    """Review BL: each URL of a value made its own finding carrying the whole value: 24 KB of a
    checkout's files made 356,000 findings and 3 GB of output. Now a value's targets are read once
    each, 20 at most, and a finding's evidence is cut."""
    text = (
        "services:\n  db:\n    image: postgres\n    ports: ['5432:5432', '5433:1']\n"
        f"  app:\n    image: x\n    environment:\n      A: '{value}'\n      B: '{value}'\n"
    )
    monkeypatch.chdir(_project(tmp_path, {"compose.yaml": text}))
    findings = _findings(cli("doctor", "compose", "--json", store=False))
    reached = [f for f in findings if f["id"] in ("compose.localhost", "compose.host-port")]
    assert 1 <= len(reached) <= 40
    assert all(len(f["evidence"]) < 400 for f in findings)


@pytest.mark.parametrize(
    ("base", "two", "found"),
    [
        (["ENV " + " ".join(f"K{n}=$A" for n in range(20))], [], set()),
        ([f"ENV K{n} $A" for n in range(20)], [], set()),
        (
            ["LABEL A=" + "a" * 4000, "LABEL " + " ".join(f"K{n}=${{A}}" for n in range(20))],
            [],
            set(),
        ),
        # two targets of one Dockerfile, each within the limit, past it together: the second
        # built (base, for a) is not read
        ([f"ENV K{n}=$A" for n in range(5)], [f"ENV J{n}=$A" for n in range(5)], {"b"}),
        # within it: as before
        (["ENV K=$A", "LABEL K=$A"], ["ENV J=$A"], {"a", "b"}),
    ],
    ids=["env", "legacy-env", "label", "targets", "within"],
)
def test_a_dockerfiles_values_are_bounded_in_all(
    tmp_path, monkeypatch, no_docker, base, two, found
) -> None:
    """Review BL: each of a Dockerfile's values stopped at 8 KiB, but their number did not: `ENV
    K1=$A K2=$A …` of 800 KB beside a checkout's `compose.yaml`, `A` of 8 KiB, made 650 MB of
    values. A project's images now make ``MAX_INTERPOLATED`` characters of values in all (made 64
    KiB here, values of 4 KiB); past it an image is not read, as when its Dockerfile is not there,
    and within it it is read as before (hindsight's server found on its loopback)."""
    from hindsight_cli.doctor import compose_checks, compose_file

    monkeypatch.setattr(compose_file, "MAX_INTERPOLATED", 64 << 10)
    server = ["ENV A=" + "a" * 4000, 'CMD ["hindsight", "mcp", "--transport", "http"]']
    text = ["FROM python AS base", *server, *base, "FROM base AS two", *two]
    (tmp_path / "Dockerfile").write_text("\n".join(text) + "\n")
    (tmp_path / "compose.yaml").write_text(
        "services:\n  b: {build: {context: ., target: two}}\n"
        "  a: {build: {context: ., target: base}}\n"
    )
    checks = compose_checks.run(cwd=tmp_path, env={"PATH": os.environ["PATH"]})
    assert {c.summary.split()[0] for c in checks if c.id == "compose.mcp-host"} == found


@pytest.mark.parametrize("shape", ["alias", "dockerfiles", "there"])
def test_a_long_build_path_is_looked_at_once_a_service(tmp_path, monkeypatch, shape) -> None:
    """Review BL: the Dockerfile a service builds was named by ``os.path.realpath``, which looks at
    each part of its path in Python: 1,000 services aliasing one `build:` of a 2,000-part
    `context` (24 KB of a checkout's `compose.yaml`) held doctor 18 s. The file is named by what
    one look finds there now (the same file however spelled, as before), counted here in looks."""
    from hindsight_cli.doctor import compose_checks

    parts = "a/" * 200
    if shape == "there":
        (tmp_path / parts).mkdir(parents=True)
        (tmp_path / parts / "Dockerfile").write_text("FROM x\n")
    build = "*b" if shape != "dockerfiles" else "{context: *c, dockerfile: D%d}"
    (tmp_path / "compose.yaml").write_text(
        f"x-c: &c '{parts}'\nx-b: &b {{context: *c}}\nservices:\n"
        + "".join(f"  s{n}: {{build: {build.replace('%d', str(n))}}}\n" for n in range(100))
    )
    looks = []
    for name in ("stat", "lstat"):
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda *a, real=real, **k: looks.append(a) or real(*a, **k))
    checks = compose_checks.run(cwd=tmp_path, env={"PATH": ""})
    assert checks[0].summary == "compose.yaml: 100 services"
    assert len(looks) < 1000
