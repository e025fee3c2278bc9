"""Writing our hooks into a client's settings: merged, backed up, idempotent, removable exactly.

Reuses the MCP installer's machinery (``clients.Target``/``Plan``/``apply``/``load_json``): the same
atomic write with a backup, the same refusal to touch a file that does not parse. Our entries are
the hook commands that run ``hindsight_cli/hooks/__main__.py``; everything else in the file is kept.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import clients
from ..errors import HindsightError, InvalidInput
from ..safefs.reading import parse_toml
from .events import CLIENTS, NATIVE

# every command we write runs bin/hindsight-hook, or (older installs, bare checkouts) a file under
# hindsight_cli/hooks/
MARKER = "hindsight_cli"
_TOOL_EVENTS = ("tool", "tool-failure")
_TIMEOUTS = {
    "session-start": 30,
    "prompt": 20,
    "tool": 10,
    "tool-failure": 20,
    "stop": 10,
    "pre-compact": 60,
    "session-end": 60,
}


def targets(
    client: str, home: Path, project: Path, env: Mapping[str, str] | None = None
) -> dict[str, clients.Target]:
    """The settings files that hold ``client``'s hooks, by scope."""
    env = os.environ if env is None else env
    codex_home = Path(env.get("CODEX_HOME") or home / ".codex")
    table = {
        "claude-code": {
            "user": home / ".claude" / "settings.json",
            "project": project / ".claude" / "settings.json",
            "local": project / ".claude" / "settings.local.json",
        },
        "codex": {"user": codex_home / "hooks.json", "project": project / ".codex" / "hooks.json"},
        "cursor": {
            "user": home / ".cursor" / "hooks.json",
            "project": project / ".cursor" / "hooks.json",
        },
        "gemini": {
            "user": home / ".gemini" / "settings.json",
            "project": project / ".gemini" / "settings.json",
        },
    }
    if client not in table:
        raise InvalidInput(
            f"Hooks can be installed for {', '.join(CLIENTS)}, not {client!r}; docs/hooks.md says "
            "why the other clients cannot carry them."
        )
    return {
        scope: clients.Target(
            client,
            scope,
            path,
            "hooks",
            "jsonc" if client == "gemini" else "json",
            None if scope == "user" else project,
        )
        for scope, path in table[client].items()
    }


LAUNCHER = "hindsight-hook"


def launcher() -> Path | None:
    """The environment's ``bin/hindsight-hook`` (pyproject's ``shared-scripts``), when installed."""
    import sysconfig

    places = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]
    user = f"{os.name}_user"
    if user in sysconfig.get_scheme_names():
        places.append(Path(sysconfig.get_path("scripts", user)))
    return next((p / LAUNCHER for p in places if (p / LAUNCHER).is_file()), None)


def command(client: str, kind: str, store: Path | None) -> str:
    """The shell command a client runs: this environment's Python and its ``bin/hindsight-hook``,
    paths that survive a rebuild of the environment on another Python (without the script, as in a
    bare checkout: our hook entry file by absolute path). On Linux with ``-S``: skipping
    site-packages saves a recording hook ~6 ms, and the hook adds them itself when it needs the
    store (elsewhere the user directories come from platformdirs, which lives there)."""
    entry = launcher() or Path(__file__).resolve().with_name("__main__.py")
    flags = ["-S"] if sys.platform.startswith("linux") else []
    argv = [sys.executable, *flags, str(entry), kind, "--client", client] + (
        ["--store", str(store)] if store else []
    )
    return _join(argv)


def _join(argv: list[str]) -> str:
    return subprocess.list2cmdline(argv) if os.name == "nt" else shlex.join(argv)


# a Windows command line's words: runs of quoted text and other characters between spaces
_WINDOWS_WORDS = re.compile(r'(?:[^\s"]|"[^"]*+"?)++')


def _split(cmd: str) -> list[str]:
    """A hook command's words, read once ([] for a quote that does not end). Not ``shlex``, which
    adds a word's characters one at a time: a checkout's `.claude/settings.json` whose hook
    command held a quoted word of 300 KB held `hooks status`, `hooks install`, `hooks uninstall`
    and `hindsight doctor` 8 to 18 s, one of 16 MiB hours (review BS, as review BI for doctor's
    commands)."""
    if os.name == "nt":
        return [w.strip('"') for w in _WINDOWS_WORDS.findall(cmd)]
    from ..lessons.scanning import shell_words

    try:
        words = shell_words(cmd)
    except ValueError:
        return []
    return [w.strip('"') for w in words]


def missing(cmd: str) -> list[str]:
    """The files one of our hook commands runs (its Python, its script) that no longer exist: the
    environment was removed, or rebuilt where the old command's path does not reach."""
    words = _split(cmd)
    program = words[0] if words else ""
    script = next((w for w in words[1:] if not w.startswith("-")), "")
    return [w for w in (program, script) if w and not Path(w).exists()]


def _handler(client: str, kind: str, store: Path | None) -> dict[str, Any]:
    cmd = command(client, kind, store)
    if client == "cursor":
        return {"command": cmd}
    if client == "gemini":
        return {
            "name": f"hindsight-{kind}",
            "type": "command",
            "command": cmd,
            "timeout": _TIMEOUTS[kind] * 1000,
        }
    if client == "codex":
        return {"type": "command", "command": cmd}
    return {"type": "command", "command": cmd, "timeout": _TIMEOUTS[kind]}


def entries(client: str, store: Path | None) -> dict[str, list[dict[str, Any]]]:
    """Our hook groups, by the client's event name."""
    out: dict[str, list[dict[str, Any]]] = {}
    for kind, native in NATIVE[client].items():
        handler = _handler(client, kind, store)
        if client == "cursor":
            out[native] = [handler]
        else:
            group: dict[str, Any] = {"hooks": [handler]}
            if kind in _TOOL_EVENTS:
                group = {"matcher": ".*" if client == "gemini" else "*", **group}
            out[native] = [group]
    return out


def _ours(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    cmd = str(item.get("command", ""))
    # the script follows the Python, or its -S
    return (MARKER in cmd and "hooks" in cmd) or any(
        Path(w).name == LAUNCHER for w in _split(cmd)[1:3]
    )


def _commands(groups: Any) -> list[str]:
    """Our hook commands among one event's groups."""
    found = []
    for group in groups if isinstance(groups, list) else []:
        inner = group.get("hooks") if isinstance(group, dict) else None
        for item in [group, *(inner if isinstance(inner, list) else [])]:
            if _ours(item):
                found.append(str(item["command"]))
    return found


def _without_ours(groups: list[Any]) -> list[Any]:
    kept = []
    for group in groups:
        if _ours(group):
            continue
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            inner = [h for h in group["hooks"] if not _ours(h)]
            if not inner and group["hooks"]:
                continue
            group = {**group, "hooks": inner}
        kept.append(group)
    return kept


def _load(target: clients.Target) -> tuple[str | None, dict[str, Any]]:
    before = target.read()
    data, _ = clients.load_json(target, before or "")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise HindsightError(
            f"{target.path}: 'hooks' is not an object; fix it first. Nothing was changed."
        )
    return before, data


def _dump(target: clients.Target, data: dict[str, Any]) -> str:
    return clients.json_text(target, data)


def plan_install(target: clients.Target, store: Path | None) -> clients.Plan:
    before, data = _load(target)
    hooks = dict(data.get("hooks") or {})
    for event, groups in entries(target.client, store).items():
        found = hooks.get(event)
        current = found if isinstance(found, list) else []
        hooks[event] = _without_ours(current) + groups
    if target.client == "cursor":
        data.setdefault("version", 1)
    data["hooks"] = hooks
    after = _dump(target, data)
    if before is not None and clients.load_json(target, before)[0] == data:
        # already installed exactly so: leave the bytes alone
        after = before
    return clients.Plan(target, before, after)


def plan_uninstall(target: clients.Target) -> clients.Plan:
    before, data = _load(target)
    if before is None:
        return clients.Plan(target, None, "")
    hooks = dict(data.get("hooks") or {})
    for event in list(hooks):
        if isinstance(hooks[event], list):
            kept = _without_ours(hooks[event])
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if hooks:
        data["hooks"] = hooks
    else:
        data.pop("hooks", None)
    if data == clients.load_json(target, before)[0]:
        return clients.Plan(target, before, before)
    if not data or data == {"version": 1}:
        # nothing left but what we wrote: the file goes
        return clients.Plan(target, before, "")
    return clients.Plan(target, before, _dump(target, data))


def broken(target: clients.Target) -> dict[str, list[str]]:
    """The files our hooks in this file run that no longer exist, by client event name."""
    if not target.path.exists():
        return {}
    _, data = _load(target)
    out = {}
    for event, groups in (data.get("hooks") or {}).items():
        gone = sorted({path for cmd in _commands(groups) for path in missing(cmd)})
        if gone:
            out[event] = gone
    return out


def others(change: clients.Plan, store: Path | None) -> list[str]:
    """The hooks that turning Codex's hooks on beside the file ``change`` writes would run besides
    the ones it adds: every handler of that ``hooks.json`` as written, and of the inline ``[hooks]``
    tables of the ``config.toml`` beside it (Codex runs both), but the exact handlers this install
    writes, however much one looks like hindsight's (a checkout's `curl … # hindsight_cli hooks`,
    or a `hindsight-hook` path followed by its own commands, in an event hindsight does not
    install: review AR; our command with a ``commandWindows`` of the checkout's, or a table of
    ``config.toml``: review AT). Each is named by its command, else by what it holds."""
    target = change.target
    ours = [_handler(target.client, kind, store) for kind in NATIVE[target.client]]
    config = codex_config(target)
    tables = [
        clients.load_json(target, change.after)[0].get("hooks"),
        _toml(config, config.read() or "").get("hooks"),
    ]
    found = []
    for table in tables:
        for groups in table.values() if isinstance(table, dict) else ():
            for group in groups if isinstance(groups, list) else []:
                inner = group.get("hooks") if isinstance(group, dict) else None
                # a group of handlers, or a handler itself (a command beside its handlers too)
                handlers = [
                    *(inner if isinstance(inner, list) else []),
                    *([group] if not isinstance(inner, list) or "command" in group else []),
                ]
                found += [_named(item) for item in handlers if item not in ours]
    return found


def _shaped(cmd: str, client: str) -> bool:
    """Whether ``cmd`` has the shape ``command`` writes for ``client`` (a Python, maybe ``-S``, our
    launcher or the hook package's entry file, one of the client's kinds, ``--client`` it, maybe
    ``--store``): a command that only names hindsight (a checkout's ``curl … # hindsight_cli
    hooks``) is removed by uninstall as ours, but never counted as installed (review AR). Both
    paths absolute, as ``command`` writes them: a checkout's ``sh hindsight_cli/hooks/__main__.py``
    runs its own file there (review AW)."""
    words = _split(cmd)
    if _join(words) != cmd.strip():
        # the words as `command` writes them, and nothing the shell would expand: a checkout's
        # `--store "$(curl …|sh)"` read as hindsight's installed hook (review BS2, low)
        return False
    del words[1 : 2 if words[1:2] == ["-S"] else 1]
    if len(words) not in (5, 7) or words[3:5] != ["--client", client]:
        return False
    script = Path(words[1])
    return (
        os.path.isabs(words[0])
        and script.is_absolute()
        and (script.name == LAUNCHER or script.parts[-3:] == (MARKER, "hooks", "__main__.py"))
        and words[2] in NATIVE[client]
        and words[5:6] in ([], ["--store"])
    )


def _named(handler: Any) -> str:
    command = handler.get("command") if isinstance(handler, dict) else None
    return str(command) if command else json.dumps(handler, ensure_ascii=False)[:200]


def installed(target: clients.Target) -> list[str]:
    """The client event names that run our hooks in this file."""
    if not target.path.exists():
        return []
    _, data = _load(target)
    return [
        event
        for event, groups in (data.get("hooks") or {}).items()
        if any(_shaped(cmd, target.client) for cmd in _commands(groups))
    ]


# --- Codex's feature flag
# ------------------------------------------------------------------------------- Codex runs hooks
# only with `[features] hooks = true` in its config.toml (on by default in current versions;
# `codex_hooks` is the older, now deprecated, name). Install adds the line, marked, when the file
# does not set the flag; uninstall removes only marked lines. There is no TOML writer in the
# standard library, so the text is edited and the result is checked with tomllib before anything is
# written.

FLAG_MARK = "# added by hindsight hooks install"
_FEATURES_HEADER = re.compile(
    r"""^[ \t]*\[[ \t]*(?:features|"features"|'features')[ \t]*\][ \t]*(?:#.*)?$"""
)


def codex_config(hooks_file: clients.Target) -> clients.Target:
    """The config.toml next to a Codex hooks.json: the same scope, the same directory."""
    return clients.Target(
        "codex",
        hooks_file.scope,
        hooks_file.path.with_name("config.toml"),
        "features",
        "toml",
        hooks_file.root,
    )


def _toml(target: clients.Target, text: str) -> dict[str, Any]:
    try:
        data = parse_toml(text)
    except tomllib.TOMLDecodeError as error:
        raise HindsightError(
            f"{target.path} is not valid TOML ({error}); fix it or move it aside, then run the "
            "command again. Nothing was changed."
        ) from None
    if not isinstance(data.get("features", {}), dict):
        raise HindsightError(
            f"{target.path}: 'features' is not a table; fix it first. Nothing was changed."
        )
    return data


def codex_flag(target: clients.Target) -> bool | None:
    """Whether the file turns Codex's hooks on (True), off (False) or leaves them to Codex's default
    (None)."""
    text = target.read() or ""
    features = _toml(target, text).get("features", {})
    value = features.get("hooks", features.get("codex_hooks"))
    return value if isinstance(value, bool) else None


def _with_flag(text: str) -> str:
    line = f"hooks = true  {FLAG_MARK}\n"
    lines = text.splitlines(keepends=True)
    for number, header in enumerate(lines):
        if _FEATURES_HEADER.match(header.rstrip("\n")):
            lines[number] = header if header.endswith("\n") else header + "\n"
            return "".join(lines[: number + 1] + [line] + lines[number + 1 :])
    gap = "" if not text else "\n" if text.endswith("\n") else "\n\n"
    return f"{text}{gap}[features]  {FLAG_MARK}\n{line}"


def _without_flag(text: str) -> str:
    def marked(line: str) -> bool:
        return line.rstrip().endswith(FLAG_MARK)

    lines = [
        line
        for line in text.splitlines(keepends=True)
        if not (marked(line) and not line.lstrip().startswith("["))
    ]
    # the headers we added
    for number in reversed([n for n, line in enumerate(lines) if marked(line)]):
        rest = [
            x.strip() for x in lines[number + 1 :] if x.strip() and not x.lstrip().startswith("#")
        ]
        if rest and not rest[0].startswith("["):
            # the user has put keys in the table we added: it stays
            continue
        start = number - 1 if number and not lines[number - 1].strip() else number
        del lines[start : number + 1]
    return "".join(lines)


def _besides_flag(data: dict[str, Any]) -> dict[str, Any]:
    table = data.get("features")
    features = (
        {key: value for key, value in table.items() if key != "hooks"}
        if isinstance(table, dict)
        else table
    )
    return {key: value for key, value in data.items() if key != "features"} | (
        {"features": features} if features else {}
    )


def plan_codex_flag(target: clients.Target, on: bool) -> clients.Plan:
    """Add (``on``) or remove our ``hooks = true``. A flag the user set, either way, is left
    alone."""
    before = target.read()
    text = before or ""
    data = _toml(target, text)
    features = data.get("features", {})
    if on and "hooks" not in features and features.get("codex_hooks") is not False:
        after = _with_flag(text)
    elif not on and FLAG_MARK in text:
        after = _without_flag(text)
    else:
        return clients.Plan(target, before, text)
    try:
        result = parse_toml(after)
    except tomllib.TOMLDecodeError:
        result = {"features": "unreadable"}
    if _besides_flag(result) != _besides_flag(data) or (
        on and result.get("features", {}).get("hooks") is not True
    ):
        raise HindsightError(
            f"{target.path} sets its [features] in a form this installer does not edit; "
            f"{'add' if on else 'remove'} `hooks = true` under [features] yourself. Nothing was "
            f"changed."
        )
    return clients.Plan(target, before, after)
