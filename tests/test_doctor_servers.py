"""`hindsight doctor mcp` handshakes every configured server, not only hindsight's: fake third-party
servers (one that answers, one that crashes, one that hangs, one over loopback HTTP) in the config
formats of several clients."""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hindsight_cli import clients
from hindsight_cli.doctor import servers

pytestmark = pytest.mark.no_store

ANSWERS = """import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "weather", "version": "2.1.0"}}
    elif message.get("method") == "tools/list":
        result = {"tools": [{"name": "forecast", "inputSchema": {}}, {"name": "alerts", "inputSchema": {}}]}
    else:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""
CRASHES = "import sys\nsys.stderr.write('Error: GITHUB_TOKEN is not set\\n')\nsys.exit(2)\n"
HANGS = """import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # only SIGKILL stops it
open(sys.argv[1], "w").write(str(os.getpid()))
sys.stderr.write("loading model...\\n"); sys.stderr.flush()
time.sleep(300)
"""


def _server(tmp_path: Path, name: str, body: str) -> list[str]:
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    return [sys.executable, str(path)]


def _write(target: clients.Target, text: str) -> None:
    target.path.parent.mkdir(parents=True, exist_ok=True)
    target.path.write_text(text)


def _checks(result) -> dict[str, dict]:
    return {c["id"]: c for c in json.loads(result.stdout)["checks"]}


@pytest.mark.slow
def test_a_working_and_a_crashing_server(cli, home, _isolated, tmp_path) -> None:
    good, bad = _server(tmp_path, "weather", ANSWERS), _server(tmp_path, "github", CRASHES)
    _write(
        clients.targets("cursor", home, _isolated)["user"],
        json.dumps(
            {
                "mcpServers": {
                    "weather": {"command": good[0], "args": good[1:], "env": {"UNITS": "metric"}},
                    "github": {"command": bad[0], "args": bad[1:]},
                }
            }
        ),
    )
    result = cli("doctor", "mcp", "--json", store=False)
    checks = _checks(result)
    assert result.exit_code == 1
    weather = checks["mcp.cursor.user.weather.handshake"]
    assert weather["status"] == "ok"
    assert weather["evidence"].startswith("weather 2.1.0 (protocol 2025-06-18), 2 tools; ")
    github = checks["mcp.cursor.user.github.handshake"]
    assert (github["status"], github["summary"]) == (
        "fail",
        "github (cursor (user)): handshake failed: crashed",
    )
    assert github["evidence"].startswith("exit code 2: Error: GITHUB_TOKEN is not set")
    assert "run the exact command in a terminal" in github["fix"]
    assert checks["mcp.cursor.user"]["summary"] == "cursor (user) does not run hindsight"


@pytest.mark.slow
def test_a_hung_server_is_killed_after_the_timeout(cli, home, _isolated, tmp_path) -> None:
    pid_file = tmp_path / "hung.pid"
    hung = _server(tmp_path, "slow", HANGS)
    _write(
        clients.targets("claude-code", home, _isolated)["project"],
        json.dumps(
            {
                "mcpServers": {
                    "slow": {"type": "stdio", "command": hung[0], "args": [hung[1], str(pid_file)]}
                }
            }
        ),
    )
    result = cli("doctor", "mcp", "--probe-project", "--timeout", "1", "--json", store=False)
    check = _checks(result)["mcp.claude-code.project.slow.handshake"]
    assert result.exit_code == 1
    assert check["summary"] == "slow (claude-code (project)): handshake failed: timeout"
    assert check["evidence"].startswith("no reply within 1 s; stderr: loading model...")
    # doctor waited for it to die; it ignored SIGTERM
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


@pytest.mark.slow
def test_servers_in_every_config_format(cli, home, _isolated, tmp_path, monkeypatch) -> None:
    good = _server(tmp_path, "weather", ANSWERS)
    monkeypatch.setenv("WEATHER_PY", good[1])
    _write(
        clients.targets("codex", home, _isolated)["user"],
        f'[mcp_servers.weather]\ncommand = "{good[0]}"\nargs = ["{good[1]}"]\n\n'
        '[mcp_servers.off]\ncommand = "/nonexistent"\nenabled = false\n',
    )
    _write(
        clients.targets("vscode", home, _isolated)["project"],
        '{\n  // JSONC, with a variable VS Code expands\n  "servers": {"weather": {"type": '
        '"stdio", '
        f'"command": "{good[0]}", "args": ["${{workspaceFolder}}/../weather.py"]}},\n'
        '    "asks": {"type": "stdio", "command": "/bin/true", "env": {"KEY": '
        '"${input:api-key}"}},}\n}\n',
    )
    (tmp_path / "weather.py").write_text(ANSWERS)
    _write(
        clients.targets("zed", home, _isolated)["user"],
        json.dumps(
            {
                "context_servers": {
                    "weather": {"command": {"path": good[0], "args": ["${WEATHER_PY}"]}}
                }
            }
        ),
    )
    _write(
        clients.targets("claude-code", home, _isolated)["user"],
        json.dumps(
            {
                "projects": {
                    str(_isolated): {
                        "mcpServers": {"weather": {"command": good[0], "args": good[1:]}}
                    }
                }
            }
        ),
    )
    # the project's file is the user's own here
    result = cli("doctor", "mcp", "--probe-project", "--json", store=False)
    checks = _checks(result)
    assert result.exit_code == 0, result.stdout
    for check_id in (
        "mcp.codex.user.weather.handshake",
        "mcp.vscode.project.weather.handshake",
        "mcp.zed.user.weather.handshake",
        "mcp.claude-code.local.weather.handshake",
    ):
        assert checks[check_id]["status"] == "ok", checks[check_id]
        assert checks[check_id]["evidence"].startswith("weather 2.1.0")
    assert (
        checks["mcp.codex.user.off.handshake"]["status"],
        checks["mcp.codex.user.off.handshake"]["evidence"],
    ) == ("skip", "disabled in the config")
    assert (
        checks["mcp.vscode.project.asks.handshake"]["evidence"]
        == "uses ${input:api-key}, which is not set here"
    )
    assert not [
        k
        for k in _checks(cli("doctor", "mcp", "--no-probe", "--json", store=False))
        if "weather" in k
    ]


class _Mcp(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.headers.get("Authorization") != "Bearer s3cret":
            self.send_response(401)
            self.end_headers()
            return
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": message["id"],
                "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "serverInfo": {"name": "notes", "version": "0.3"},
                },
            }
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(f"event: message\ndata: {body}\n\n".encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Mcp)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    server.shutdown()
    server.server_close()


def test_http_servers_are_probed_only_on_loopback(
    cli, home, _isolated, http_server, monkeypatch
) -> None:
    monkeypatch.setenv("NOTES_TOKEN", "s3cret")
    _write(
        clients.targets("claude-code", home, _isolated)["project"],
        json.dumps(
            {
                "mcpServers": {
                    "notes": {
                        "type": "http",
                        "url": http_server,
                        "headers": {"Authorization": "Bearer ${NOTES_TOKEN}"},
                    },
                    "locked": {"type": "http", "url": http_server},
                    "remote": {"type": "http", "url": "https://mcp.example.com/mcp"},
                }
            }
        ),
    )
    result = cli("doctor", "mcp", "--probe-project", "--json", store=False)
    checks = _checks(result)
    notes = checks["mcp.claude-code.project.notes.handshake"]
    assert (notes["status"], notes["evidence"]) == (
        "ok",
        f"notes 0.3 (protocol 2025-06-18); {http_server}",
    )
    locked = checks["mcp.claude-code.project.locked.handshake"]
    assert (locked["status"], locked["summary"]) == (
        "fail",
        "locked (claude-code (project)): handshake failed: unauthorized",
    )
    assert "Authorization: Bearer" in locked["fix"]
    remote = checks["mcp.claude-code.project.remote.handshake"]
    assert (remote["status"], remote["evidence"]) == (
        "skip",
        "https://mcp.example.com/mcp is not a loopback address; doctor makes no network calls",
    )


ECHOES = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line); sys.stdout.flush()\n"
GARBAGE = "import sys\nsys.stdin.readline()\nprint('hello from a shell rc', flush=True)\n"
PINGS_FIRST = """import json, sys
message = json.loads(sys.stdin.readline())
print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "method": "ping"}), flush=True)
result = {"protocolVersion": "2025-06-18", "capabilities": {},
          "serverInfo": {"name": "pinger", "version": "1"}}
print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""
EMPTY_RESULT = """import json, sys
message = json.loads(sys.stdin.readline())
print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {}}), flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("body", "evidence"),
    [
        (ECHOES, "stdout line 1 is a request ('initialize'), not a reply: the command echoes"),
        (EMPTY_RESULT, "the initialize result lacks protocolVersion, capabilities, serverInfo"),
        (GARBAGE, "stdout line 1: 'hello from a shell rc'"),
    ],
    ids=["echo", "empty-result", "garbage"],
)
def test_a_command_that_is_not_an_mcp_server_fails(
    cli, home, _isolated, tmp_path, body, evidence
) -> None:
    fake = _server(tmp_path, "fake", body)
    _write(
        clients.targets("cursor", home, _isolated)["user"],
        json.dumps({"mcpServers": {"fake": {"command": fake[0], "args": fake[1:]}}}),
    )
    result = cli("doctor", "mcp", "--json", store=False)
    check = _checks(result)["mcp.cursor.user.fake.handshake"]
    assert result.exit_code == 1
    assert check["status"] == "fail"
    assert check["evidence"].startswith(evidence)
    if body is not GARBAGE:
        assert check["summary"] == "fake (cursor (user)): handshake failed: not-mcp"
        assert check["fix"].startswith("the command is not an MCP server")
    human = cli("doctor", "mcp", store=False)
    assert human.exit_code == 1
    assert "fake (cursor (user)): handshake failed:" in human.stdout


def test_cat_as_the_server_fails(cli, home, _isolated) -> None:
    _write(
        clients.targets("cursor", home, _isolated)["user"],
        json.dumps({"mcpServers": {"cat": {"command": "cat"}}}),
    )
    result = cli("doctor", "mcp", "--json", store=False)
    check = _checks(result)["mcp.cursor.user.cat.handshake"]
    assert (result.exit_code, check["status"]) == (1, "fail")
    assert check["summary"] == "cat (cursor (user)): handshake failed: not-mcp"


@pytest.mark.slow
def test_a_server_request_under_the_same_id_is_not_taken_for_an_echo(
    cli, home, _isolated, tmp_path
) -> None:
    pinger = _server(tmp_path, "pinger", PINGS_FIRST)
    _write(
        clients.targets("cursor", home, _isolated)["user"],
        json.dumps({"mcpServers": {"pinger": {"command": pinger[0], "args": pinger[1:]}}}),
    )
    check = _checks(cli("doctor", "mcp", "--json", store=False))["mcp.cursor.user.pinger.handshake"]
    assert check["status"] == "ok"
    assert check["evidence"].startswith("pinger 1 (protocol 2025-06-18)")


@pytest.mark.parametrize("entry", ["", "."], ids=["empty", "dot"])
def test_a_checkouts_program_is_never_started_for_your_server(
    cli, home, _isolated, tmp_path, monkeypatch, entry
) -> None:
    """Review AR: a server of the user's own config named by a bare command (`docs-mcp`), the
    user's PATH holding an empty entry (a trailing `:`) or `.`; `hindsight doctor mcp` in a
    checkout holding a program of that name started the checkout's. Now a bare command is found
    in the absolute directories of PATH only."""
    marker = tmp_path / "ran"
    program = _isolated / "docs-mcp"
    program.write_text(f"#!/bin/sh\necho ran > {marker}\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{entry}{os.pathsep}{os.environ['PATH']}")
    _write(
        clients.targets("cursor", home, _isolated)["user"],
        json.dumps({"mcpServers": {"docs": {"command": "docs-mcp"}}}),
    )
    result = cli("doctor", "mcp", "--json", store=False)
    check = _checks(result)["mcp.cursor.user.docs.handshake"]
    assert (check["status"], check["summary"]) == (
        "fail",
        "docs (cursor (user)): handshake failed: not-found",
    )
    assert not marker.exists()


WHERE = """import os, sys
open(sys.argv[1], "w").write(os.getcwd())
"""


@pytest.mark.parametrize("scope", ["user", "project"])
def test_a_server_is_never_started_in_the_checkout(cli, home, _isolated, tmp_path, scope) -> None:
    """Review AR: doctor started every server of the user's own config in its working directory,
    a checkout, where a launcher reads the repository's files: `npx -y some-mcp` runs the
    checkout's `node_modules/.bin/some-mcp` (checked: its code ran). Now a server starts in the
    directory its entry names, else the user's home; a project's own (started only with
    --probe-project, the user trusting the checkout) in the project, as its client starts it."""
    where = tmp_path / "cwd"
    server = _server(tmp_path, "where", WHERE)
    _write(
        clients.targets("cursor", home, _isolated)[scope],
        json.dumps(
            {"mcpServers": {"where": {"command": server[0], "args": [server[1], str(where)]}}}
        ),
    )
    cli("doctor", "mcp", "--probe-project", "--timeout", "5", "--json", store=False)
    assert where.read_text() == str(home if scope == "user" else _isolated)


@pytest.mark.parametrize(
    "entry",
    [
        {"cwd": "${workspaceFolder}"},
        {"cwd": "."},
        {"cwd": "${env:PWD}"},
        {"args": ["${workspaceFolder}/server.py"]},
        {"args": ["{project}/server.py"]},
        {"env": {"PYTHONPATH": "${workspaceFolder}"}},
    ],
    ids=["cwd-workspace", "cwd-relative", "cwd-pwd", "args-workspace", "args-path", "env"],
)
def test_your_server_that_runs_in_the_checkout_or_names_it_is_never_started(
    cli, home, _isolated, tmp_path, monkeypatch, entry
) -> None:
    """Review AT: a server of the user's own config whose `cwd` is the workspace
    (`${workspaceFolder}`, `.`, `${env:PWD}`), or whose arguments or env name it (`node
    ${workspaceFolder}/build/index.js`, the common shape for a server under development), was
    started by `doctor mcp` in a checkout: `npx -y foo-mcp` there ran the checkout's
    `node_modules/.bin/foo-mcp` (checked), `python ${workspaceFolder}/server.py` its code. Now such
    a server is started only with --probe-project, as a project's own is."""
    monkeypatch.setenv("PWD", str(_isolated))
    marker = tmp_path / "ran"
    (_isolated / "server.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    # the user's launcher: what it starts, in the directory it is given, comes from there
    launcher = _server(tmp_path, "launcher", "import runpy; runpy.run_path('server.py')\n")
    shape = json.loads(json.dumps(entry).replace("{project}", str(_isolated)))
    _assert_not_started(
        cli, home, _isolated, {"command": launcher[0], "args": launcher[1:], **shape}
    )
    assert not marker.exists()
    # the user trusts the checkout: started as configured
    cli("doctor", "mcp", "--probe-project", "--timeout", "5", "--json", store=False)
    assert marker.exists() == ("cwd" in entry or "args" in entry)


@pytest.mark.parametrize(
    "shape",
    [
        {"args": ["{link}/server.py"]},
        {"args": ["{tmp}/elsewhere/../work/server.py"]},
        {"command": "/bin/sh", "args": ["-c", "exec {python} ~/../work/server.py"]},
        {"command": "/bin/sh", "args": ["-c", 'exec {python} "$HOME/../work/server.py"']},
        {"command": "/bin/sh", "args": ["-c", "cd ../work && exec {python} server.py"]},
        {"command": "/bin/sh", "args": ["-c", 'exec {python} "{tmp}/a link/server.py"']},
        {"command": "made-mcp", "args": []},
        {"command": "made-mcp", "args": [], "env": {"PATH": "{link}/bin:/usr/bin:/bin"}},
        # review AZ: what only the shell or the program knows
        {
            "command": "/bin/sh",
            "args": ["-c", "exec {python} {tmp}/$P/server.py"],
            "env": {"P": "work"},
        },
        {"command": "/bin/sh", "args": ["-c", "D={tmp}; exec {python} $D/work/server.py"]},
        {"command": "/bin/sh", "args": ["-c", "cd .. && cd work && exec {python} server.py"]},
        {"command": "/usr/bin/env", "args": ["-C", "..", "{python}", "work/server.py"]},
        {"command": "/bin/sh", "args": ["-c", "exec {python} {tmp}/wor*/server.py"]},
        {"command": "/bin/sh", "args": ["-c", "exec {python} {tmp}/l[i]nk/server.py"]},
        {"command": "/bin/sh", "args": ["-c", 'exec {python} "$(dirname $HOME)/work/server.py"']},
        {"command": "/bin/sh", "args": ["-c", "exec {python} `dirname ~`/work/server.py"]},
        {"command": "/bin/bash", "args": ["-c", "exec {python} ~+/../work/server.py"]},
        {"command": "/bin/sh", "args": ["-c", "cd {tmp} && made-mcp"]},
        {"command": "nice", "args": ["made-mcp"]},
        {"command": "timeout", "args": ["60", "made-mcp"]},
        {
            "command": "/bin/sh",
            "args": ["-c", "cd work && exec {python} server.py"],
            "env": {"CDPATH": "{tmp}"},
        },
        {
            "command": "/bin/sh",
            "args": ["-c", "exec {python} ~/work/server.py"],
            "env": {"HOME": "{tmp}"},
        },
        {
            "command": "/bin/sh",
            "args": ["-c", "f() { cd work; }; cd ..; f; exec {python} server.py"],
        },
        {"command": "/bin/sh", "args": ["-c", "exec ~/../work/.venv/bin/python -c pass"]},
        {"command": "{tmp}/elsewhere/serve", "args": []},
        # review BC: what the files it runs say, a script's words split again, a pipe's output
        {"command": "{tmp}/elsewhere/start", "args": []},
        {"command": "/bin/sh", "args": ["{tmp}/elsewhere/start"]},
        {"command": "/bin/bash", "args": ["-c", ". {tmp}/elsewhere/env.sh; exec {python} s*.py"]},
        {"command": "/usr/bin/env", "args": ["{python}", "{tmp}/elsewhere/run.py"]},
        {"command": "/bin/sh", "args": ["-c", 'eval "cd {tmp}/wo""rk; exec {python} server.py"']},
        {"command": "/bin/sh", "args": ["-c", "sh -c \"exec {python} {tmp}/wo''rk/server.py\""]},
        {
            "command": "/bin/sh",
            "args": ["-c", "printf %s%s {tmp}/wo rk | xargs -I@ {python} @/server.py"],
        },
        {"command": "{tmp}/tools/bin/python", "args": ["-m", "server"]},
        {"command": "{tmp}/tools/bin/served", "args": []},
        {"command": "/usr/bin/env", "args": ["-C../work", "{python}", "server.py"]},
        {"command": "/bin/sh", "args": ["-c", "exec env -C$HOME/../work {python} server.py"]},
        {"command": "/bin/bash", "args": ["-c", "exec {python} ../{wo,x}rk/server.py"]},
    ],
    ids=[
        "link",
        "dotdot",
        "sh-tilde",
        "sh-home",
        "sh-relative",
        "sh-quoted",
        "path",
        "entry-path",
        "sh-variable",
        "sh-assigned",
        "sh-two-cds",
        "env-chdir",
        "sh-glob",
        "sh-glob-link",
        "sh-substitution",
        "sh-backquotes",
        "bash-tilde-plus",
        "path-second-command",
        "path-nice",
        "path-timeout",
        "sh-cdpath",
        "sh-entry-home",
        "sh-cd-later",
        "venv-link",
        "shebang",
        "wrapper-script",
        "sh-script-file",
        "sh-sourced",
        "python-script",
        "sh-eval",
        "sh-in-sh",
        "sh-pipe-xargs",
        "editable-install",
        "editable-script",
        "option-attached",
        "sh-option-attached",
        "bash-braces",
    ],
)
def test_your_server_that_reaches_the_checkout_another_way_is_never_started(
    cli, home, _isolated, tmp_path, monkeypatch, shape
) -> None:
    """Review AW: a server of the user's own config counted as the checkout's only when its words
    spelled the checkout's path: one reaching it through a link to it, a `..`, a `~` or `$HOME`
    its shell expands, a path relative to where doctor starts it (the user's home), or a bare
    command `PATH` finds in the checkout (a `bin/` of it on the user's or the entry's `PATH`) was
    started by `doctor mcp`, and the repository's code ran (checked). Review AZ: so was one
    reaching it through what its shell or program alone resolves: a variable of its env or its
    script, two `cd`s, `env -C`, a glob, a command's output (`$(dirname $HOME)`), `~+`. Now each
    path such a server names is resolved as it will be, a pattern as what it may match, and one in
    the checkout keeps it unstarted. Review BC: so was one whose wrapper script (`~/bin/start`, `sh
    ~/bin/start`), a file its shell sources or the script its interpreter runs changes to or names
    the checkout (only a `#!` line was read), a quoted word its shell splits again (`eval "cd
    /a""b"`, `sh -c` inside `sh -c`), or a path a pipe carries (`printf … | xargs`). Now the words
    of a shell script it runs count as its own, another file it names counts when it spells the
    checkout's path, a quoted word is split again, and a pipe's output is any path."""
    marker = tmp_path / "ran"
    (_isolated / "server.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    made = _isolated / "bin" / "made-mcp"
    made.parent.mkdir()
    made.write_text(f"#!/bin/sh\nexec {sys.executable} {_isolated / 'server.py'}\n")
    made.chmod(0o755)
    (tmp_path / "link").symlink_to(_isolated)
    (tmp_path / "a link").symlink_to(_isolated)
    (tmp_path / "elsewhere").mkdir()
    # the checkout's virtual environment: its Python a link out, its site-packages in it
    venv = _isolated / ".venv"
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    site.mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
    (site / "ran.pth").write_text(
        f"import runpy; runpy.run_path({str(_isolated / 'server.py')!r})\n"
    )
    serve = tmp_path / "elsewhere" / "serve"
    serve.write_text(f"#!{venv / 'bin' / 'python'}\npass\n")
    serve.chmod(0o755)
    start = tmp_path / "elsewhere" / "start"
    start.write_text(f"#!/bin/sh\ncd {_isolated} && exec {sys.executable} server.py\n")
    start.chmod(0o755)
    (tmp_path / "elsewhere" / "env.sh").write_text("cd ~/../work\n")
    (tmp_path / "elsewhere" / "run.py").write_text(
        f"import runpy\nrunpy.run_path({str(_isolated / 'server.py')!r})\n"
    )
    # a tool's environment outside it with the checkout installed editable (`uv tool install -e`)
    _environment(tmp_path / "tools", f"{_isolated}\n")
    served = tmp_path / "tools" / "bin" / "served"
    served.write_text(f"#!{tmp_path / 'tools' / 'bin' / 'python'}\nimport server\n")
    served.chmod(0o755)
    if "env" not in shape:
        monkeypatch.setenv("PATH", f"{_isolated / 'bin'}{os.pathsep}{os.environ['PATH']}")
    spelled = (
        json.dumps(shape)
        .replace("{link}", str(tmp_path / "link"))
        .replace("{tmp}", str(tmp_path))
        .replace("{python}", sys.executable)
    )
    _assert_not_started(cli, home, _isolated, {"command": sys.executable, **json.loads(spelled)})
    assert not marker.exists()


def _environment(root: Path, pth: str) -> Path:
    """A virtual environment at ``root`` whose site-packages holds a ``.pth`` of ``pth``."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    site = root / "lib" / version / "site-packages"
    site.mkdir(parents=True)
    (root / "bin").mkdir()
    (root / "bin" / "python").symlink_to(sys.executable)
    (root / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
    (site / "_installed.pth").write_text(pth)
    return root / "bin" / "python"


def _assert_not_started(cli, home: Path, project: Path, server: dict) -> None:
    """The user's own server ``server`` (Cursor's config) is reported, not started, by doctor."""
    _write(
        clients.targets("cursor", home, project)["user"], json.dumps({"mcpServers": {"s": server}})
    )
    result = cli("doctor", "mcp", "--timeout", "5", "--json", store=False)
    check = _checks(result)["mcp.cursor.user.s.handshake"]
    assert check["status"] == "skip" and "runs in this checkout or names it" in check["summary"]
    assert "--probe-project" in check["fix"]


@pytest.mark.parametrize(
    "script",
    [
        'exec node ~/mcp/server.js "$@"',
        "exec {python} {tmp}/elsewhere/*.py",
        "cd {tmp}/elsewhere && exec ./serve",
        "D={tmp}/elsewhere; exec $D/serve $1",
        "exec {python} {tmp}/w?rk-not/server.py",
        "exec env -C{tmp}/elsewhere {python} x.py",
    ],
)
def test_a_server_that_reaches_elsewhere_is_not_counted_as_the_checkouts(
    home, _isolated, tmp_path, script
) -> None:
    """Review AZ: resolving a server's words as its shell does (variables, patterns, directories it
    changes to) counts only what may reach the checkout: a server under the user's home, another
    directory, a pattern naming no path in it is still started by `doctor mcp`."""
    (tmp_path / "elsewhere").mkdir()
    spelled = script.replace("{tmp}", str(tmp_path)).replace("{python}", sys.executable)
    found = servers.Server("cursor", "user", "s", home, command="/bin/sh", args=("-c", spelled))
    assert not servers.names_project(found, _isolated, {"PATH": "/usr/bin:/bin"}, home)


@pytest.mark.parametrize(
    ("body", "reaches"),
    [
        ("#!/bin/sh\ncd ~/src/repo && exec node index.js\n", True),
        ("#!/bin/sh\nD=~/src; cd $D/re''po\nexec node index.js\n", True),
        ("#!/usr/bin/env node\nrequire(require('os').homedir() + '/src/repo/x')\n", True),
        ("import os\nos.chdir(os.path.expanduser('~/src/repo'))\n", True),
        ("#!/bin/sh\ncd ~/src/repo2 && exec node index.js\n", False),
        ("#!/bin/sh\ncd ~/mcp && exec node index.js\n", False),
        ("#!/usr/bin/env node\nconsole.log(`${process.env.HOME}/mcp`)\n", False),
        ("import os\nos.chdir(os.path.expanduser('~/src/repo-old'))\n", False),
    ],
    ids=[
        "sh-tilde",
        "sh-variable",
        "node-homedir",
        "python-tilde",
        "sh-another-repo",
        "sh-elsewhere",
        "node-template",
        "python-another-repo",
    ],
)
def test_a_script_a_server_runs_counts_for_what_it_reaches(home, body, reaches) -> None:
    """Review BC: the files a user's server runs say where it goes (a wrapper in `~/bin`, the
    script its interpreter is given): a shell script's words are resolved as the server's own, any
    other script counts when it spells the checkout's path or its path from the home; one going
    elsewhere leaves the server started."""
    project = home / "src" / "repo"
    project.mkdir(parents=True)
    script = home / "bin" / "start"
    script.parent.mkdir()
    script.write_text(body)
    script.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin"}
    for command, args in ((str(script), ()), ("/usr/bin/env", ("node", "~/bin/start"))):
        found = servers.Server("cursor", "user", "s", home, command=command, args=args)
        assert servers.names_project(found, project, env, home) == reaches


@pytest.mark.parametrize(
    ("pth", "reaches"),
    [
        ("{project}\n", True),
        ("import __editable___repo_finder; __editable___repo_finder.install()\n", True),
        ("{project}-old\n", False),
        ("import _virtualenv\n", False),
    ],
    ids=["pth-path", "editable-finder", "pth-elsewhere", "pth-other"],
)
def test_a_python_whose_environment_imports_from_the_checkout_counts(
    home, tmp_path, pth, reaches
) -> None:
    """Review BC: a user's server run by a Python (its command, a script's `#!`, a word of its
    shell) whose environment has the checkout installed editable reaches it: a `.pth` of its
    site-packages, or the finder an editable install puts beside it, names the checkout."""
    project = home / "src" / "repo"
    project.mkdir(parents=True)
    python = _environment(tmp_path / "tools", pth.replace("{project}", str(project)))
    if "finder" in pth:
        finder = (
            next(python.parent.parent.glob("lib/*/site-packages")) / "__editable___repo_finder.py"
        )
        finder.write_text(f"MAPPING = {{'repo': {str(project / 'repo')!r}}}\n")
    tool = python.parent / "tool"
    tool.write_text(f"#!{python}\nfrom repo import main\n")
    env = {"PATH": "/usr/bin:/bin"}
    for command, args in (
        (str(python), ("-m", "repo")),
        (str(tool), ()),
        ("/bin/sh", (str(tool),)),
    ):
        found = servers.Server("cursor", "user", "s", home, command=command, args=args)
        assert servers.names_project(found, project, env, home) == reaches


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("node", ("{home}/mcp/index.js",)),
        ("/bin/sh", ("-c", "cd ~/mcp && exec node index.js")),
        ("/bin/sh", ("-c", "cd mcp/lib && exec node ../index.js")),
        ("{python}", ("-m", "repo")),
    ],
    ids=["node-script", "sh-cd-node", "sh-nested-dir", "python-site-link"],
)
@pytest.mark.parametrize("target", ["checkout", "elsewhere"])
def test_a_package_linked_into_the_checkout_counts(home, tmp_path, command, args, target) -> None:
    """Review BC: a user's server whose Node or Python finds a package that is a link into the
    checkout (`npm link`, a `file:` dependency or a workspace in `~/mcp/node_modules`, a package
    linked into its environment's site-packages) runs the checkout's code: it counts as the
    checkout's; a link elsewhere does not."""
    project = home / "src" / "repo"
    project.mkdir(parents=True)
    other = tmp_path / "other"
    other.mkdir()
    linked = project if target == "checkout" else other
    mcp = home / "mcp"
    (mcp / "lib").mkdir(parents=True)
    (mcp / "index.js").write_text("require('@me/lib')\n")
    (mcp / "node_modules" / "@me").mkdir(parents=True)
    (mcp / "node_modules" / "@me" / "lib").symlink_to(linked)
    python = _environment(tmp_path / "tools", "")
    next(python.parent.parent.glob("lib/*/site-packages")).joinpath("repo").symlink_to(linked)
    command = command.replace("{python}", str(python))
    args = tuple(arg.replace("{home}", str(home)) for arg in args)
    found = servers.Server("cursor", "user", "s", home, command=command, args=args)
    reaches = servers.names_project(found, project, {"PATH": "/usr/bin:/bin"}, home)
    assert reaches == (target == "checkout")


def _loop(tmp_path: Path) -> Path:
    """A directory outside the checkout of four links to itself (as `/proc/*/root` is to `/`)."""
    loop = tmp_path / "loop"
    loop.mkdir()
    for name in "abcd":
        (loop / name).symlink_to(".")
    return loop


@pytest.mark.parametrize(
    "shape", ["link-loop", "proc-root", "many-words", "many-directories", "long-word", "script"]
)
def test_a_servers_words_cost_doctor_a_bounded_look(home, tmp_path, monkeypatch, shape) -> None:
    """Review BF: reading where a server's words reach (a project's `.mcp.json` too, whose
    repository chose every word) looks at the file system a bounded number of times; past that,
    or past ``_MAX_WORDS`` of words, the server counts as reaching the checkout. One pattern
    through `/proc/*/root/proc/*/root/…` kept doctor walking for ever, 20,000 words cost it minutes
    (every word resolved from every directory another reaches)."""
    from hindsight_cli.doctor import patterns, reach

    if shape == "proc-root" and not Path("/proc/self/root").exists():
        pytest.skip("no /proc here")
    monkeypatch.setattr(patterns, "MAX_LOOKS", 200)
    monkeypatch.setattr(reach, "_MAX_WORDS", 4000)
    project = tmp_path / "checkout"
    project.mkdir()
    loop = _loop(tmp_path)
    args = {
        "link-loop": [f"{loop}/*/*/*/*/*/none"],
        "proc-root": ["/proc/*/root/*/none*"],
        "many-words": [f"w{i}" for i in range(300)],
        "many-directories": [str(tmp_path), str(loop), *(f"w{i}" for i in range(60))],
        "long-word": ["x" * 4001],
        "script": ["-c", " ".join(f"cd w{i};" for i in range(300))],
    }[shape]
    command = "/bin/sh" if shape == "script" else "node"
    for scope in ("project", "user"):
        found = servers.Server(
            "cursor", scope, "s", home, command=command, args=tuple(args), cwd=str(tmp_path)
        )
        assert servers.names_project(found, project, {"PATH": "/usr/bin:/bin"}, home)


def test_a_user_server_through_a_link_loop_is_not_started(
    cli, home, _isolated, tmp_path, monkeypatch
) -> None:
    """Review BF: `doctor mcp` finishes on a server whose pattern walks a link loop, and reports
    it not started (it may reach the checkout) rather than walking on."""
    from hindsight_cli.doctor import patterns

    monkeypatch.setattr(patterns, "MAX_LOOKS", 200)
    loop = _loop(tmp_path)
    _assert_not_started(
        cli, home, _isolated, {"command": "node", "args": [f"{loop}/*/*/*/*/*/none.js"]}
    )


@pytest.mark.parametrize("where", ["checkout", "elsewhere"])
def test_a_pythons_site_packages_cost_doctor_a_bounded_read(
    home, tmp_path, monkeypatch, where
) -> None:
    """Review BF: a project's `.mcp.json` whose server runs the checkout's `.venv/bin/python`
    (spelled from an absolute `cwd` outside) made doctor read every `.pth` of the site-packages
    beside it, 4 MiB each: links to one large file outside the checkout (12,288 of them) kept it
    reading for minutes. A Python whose environment lies in the checkout reaches it, read for
    nothing; one elsewhere costs a look per 64 KiB its files may hold, and past the looks it
    counts as reaching the checkout."""
    from hindsight_cli.doctor import patterns, reach

    monkeypatch.setattr(patterns, "MAX_LOOKS", 200)
    project = tmp_path / "checkout"
    project.mkdir()
    large = tmp_path / "large.bin"
    large.write_bytes(b"a" * 1024)
    python = _environment((project if where == "checkout" else tmp_path) / "venv", "")
    site = next(python.parent.parent.glob("lib/*/site-packages"))
    for n in range(8):
        (site / f"x{n}.pth").symlink_to(large)
    read: list[str] = []
    spells = reach._spells
    monkeypatch.setattr(
        reach, "_spells", lambda path, *rest: read.append(path) or spells(path, *rest)
    )
    found = servers.Server(
        "cursor", "project", "s", home, command=os.path.relpath(python, "/"), cwd="/"
    )
    assert servers.names_project(found, project, {"PATH": "/usr/bin:/bin"}, home)
    assert len(read) <= (0 if where == "checkout" else 200 // reach._SPELLING)


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"command": "hindsight", "args": 5}, "`args` is not a list"),
        ({"command": {"path": "hindsight", "args": 5}}, "`command.args` is not a list"),
        ({"command": "hindsight", "env_vars": 5}, "`env_vars` is not a list"),
        ({"command": "hindsight", "env": ["A=1"]}, "`env` is not an object"),
        ({"url": "http://127.0.0.1:9/mcp", "headers": "ab"}, "`headers` is not an object"),
        ({"url": "http://127.0.0.1:9/mcp", "env_http_headers": 5}, "`env_http_headers` is not"),
        ({"url": "http://127.0.0.1:9/mcp", "env_http_headers": {"A": {"b": 1}}}, None),
        ({"command": "hindsight", "args": None}, None),
    ],
    ids=["args", "zed-args", "env-vars", "env", "headers", "env-headers", "header-var", "null"],
)
@pytest.mark.parametrize(
    ("file", "key"),
    [
        (".mcp.json", "mcpServers"),
        (".vscode/mcp.json", "servers"),
        (".cursor/mcp.json", "mcpServers"),
        (".gemini/settings.json", "mcpServers"),
    ],
)
def test_a_checkouts_server_entry_of_the_wrong_shape_is_reported_in_one_line(
    home, tmp_path, file, key, entry, said
) -> None:
    """Review BL: a checkout's `.mcp.json` (or `.vscode/mcp.json`, …) whose entry holds `args: 5`,
    `headers: "ab"`, `env_vars: 5` or a header's variable that is an object ended `hindsight
    doctor` and `doctor --fix` with a traceback, under hindsight's name or any other. Each key is
    read as the kind its client reads (``clients.entry_problem``): hindsight's entry fails naming
    the key, another server is left unresolved, and null is as absent."""
    from hindsight_cli.doctor import mcp_checks, needs

    project = tmp_path / "checkout"
    (project / ".git").mkdir(parents=True)
    path = project / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({key: {"hindsight": entry, "other": entry}}))
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    checks = mcp_checks.run(home=home, project=project, probe=False, env=env, fix=True)
    assert needs.docker(project, home, env=env) == []
    reported = [c for c in checks if c.id.endswith(".entry")]
    if said:
        assert [(c.status, said in c.summary) for c in reported] == [("fail", True)]
        (other,) = [s for s in servers.configured(home, project, env=env) if s.name == "other"]
        assert said in other.unresolved
    else:
        assert all(c.status != "fail" or "absolute" in c.summary for c in checks)


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('command = "hindsight"\nargs = 5\n', "`args` is not a list"),
        ('url = "http://127.0.0.1:9/mcp"\nhttp_headers = [1]\n', "`http_headers` is not an object"),
    ],
    ids=["args", "headers"],
)
def test_a_checkouts_codex_server_of_the_wrong_shape_is_reported_in_one_line(
    home, tmp_path, table, said
) -> None:
    """Review BL: the same in a checkout's `.codex/config.toml` (`args = 5`: a traceback)."""
    from hindsight_cli.doctor import mcp_checks

    project = tmp_path / "checkout"
    (project / ".codex").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".codex" / "config.toml").write_text(f"[mcp_servers.hindsight]\n{table}")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    checks = mcp_checks.run(home=home, project=project, probe=False, env=env, fix=True)
    assert [c.status for c in checks if c.id.endswith(".entry") and said in c.summary] == ["fail"]
