"""Every MCP server the clients on this machine are configured to run, read from their config files.

One shape for all clients: a stdio server (command, args, env, cwd) or a remote one (url, headers),
whatever the client calls its keys (``serverUrl``, ``httpUrl``, Zed's nested ``command``, Codex's
``bearer_token_env_var``). Variables are expanded as the clients do (``${VAR}``,
``${VAR:-default}``, ``${env:VAR}``, ``${workspaceFolder}``, ``${userHome}``); a value that needs
the client itself (VS Code's ``${input:…}`` prompts) leaves the server unresolved, with the reason.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from .. import clients
from ..errors import HindsightError
from ..safefs.reading import open_regular, parse_toml
from .command_lines import launched, split_words

# a `${` that never closes runs to the end of the text, once, and stays as written (group 2 empty):
# tried again from every later `${`, the work was quadratic (review AL, as `compose_file._VARIABLE`)
_VARIABLE = re.compile(r"\$\{([^}]+)(\}|\Z)")


@dataclass(frozen=True)
class Server:
    """One configured server, with the variables expanded."""

    client: str
    scope: str
    name: str
    path: Path
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    # stdio | http | sse
    transport: str = "stdio"
    headers: Mapping[str, str] = field(default_factory=dict)
    disabled: bool = False
    # why it cannot be started as configured
    unresolved: str = ""
    # what it runs reads the project, the checkout (``names_project``)
    in_project: bool = False

    @property
    def where(self) -> str:
        return f"{self.client} ({self.scope})"

    @property
    def argv(self) -> list[str]:
        return [self.command, *self.args] if self.command else []


def read(target: clients.Target) -> dict[str, Any]:
    """The parsed file; raises HindsightError (JSON) or TOMLDecodeError with the line."""
    from ..safefs.outside import read_outside

    # bounded, a regular file, no link out of the project
    text = (read_outside(target.path, target.root) or b"").decode("utf-8", "replace")
    if target.fmt == "toml":
        return parse_toml(text)
    return clients.load_json(target, text)[0]


def _expander(project: Path, home: Path, env: Mapping[str, str]) -> Any:
    missing: list[str] = []

    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        if not match.group(2):
            return match.group(0)
        if body in ("workspaceFolder", "workspaceRoot"):
            return str(project)
        if body == "userHome":
            return str(home)
        name, sep, default = body.removeprefix("env:").partition(":-")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            missing.append(match.group(0))
            return match.group(0)
        if name in env and (env[name] or not sep):
            return env[name]
        if sep:
            return default
        missing.append(match.group(0))
        return match.group(0)

    def expand(value: Any) -> str:
        return _VARIABLE.sub(one, str(value))

    return expand, missing


def _headers(entry: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    headers = dict(entry.get("headers") or entry.get("http_headers") or {})
    # Codex
    for header, variable in (entry.get("env_http_headers") or {}).items():
        if variable in env:
            headers[header] = env[variable]
    token_var = entry.get("bearer_token_env_var")
    if isinstance(token_var, str) and token_var in env:
        headers["Authorization"] = f"Bearer {env[token_var]}"
    return {str(k): str(v) for k, v in headers.items()}


def server(
    target: clients.Target,
    name: str,
    entry: Any,
    project: Path,
    home: Path,
    env: Mapping[str, str] | None = None,
    scope: str | None = None,
) -> Server:
    """One entry of a config file as a :class:`Server`."""
    env = os.environ if env is None else env
    make = partial(Server, target.client, scope or target.scope, name, target.path)
    if not isinstance(entry, dict):
        return make(unresolved=f"the entry is not an object: {entry!r}"[:120])
    disabled = entry.get("disabled") is True or entry.get("enabled") is False
    command: Any = entry.get("command")
    args, own_env = entry.get("args") or [], entry.get("env") or {}
    # Zed's older nested form
    if isinstance(command, dict):
        command, args, own_env = (
            command.get("path"),
            command.get("args") or [],
            command.get("env") or own_env,
        )
    expand, missing = _expander(project, home, env)
    own_env = {str(k): expand(v) for k, v in own_env.items()} if isinstance(own_env, dict) else {}
    # Codex: forwarded from the client's environment
    for variable in entry.get("env_vars") or []:
        if isinstance(variable, str) and variable in env:
            own_env.setdefault(variable, env[variable])
    url = entry.get("url") or entry.get("serverUrl") or entry.get("httpUrl")
    if command:
        found = make(
            command=expand(command),
            args=tuple(expand(a) for a in args),
            env=own_env,
            # a project's server (started only when the user trusts the checkout, as its client
            # does) in the project; any other in the user's home (``handshake.stdio``)
            cwd=expand(entry["cwd"])
            if entry.get("cwd")
            else (str(project) if target.root is not None else None),
            disabled=disabled,
        )
        found = replace(found, in_project=names_project(found, project, env, home))
    elif isinstance(url, str):
        kind = str(entry.get("type") or entry.get("transport") or "")
        sse = kind == "sse" or (
            target.client == "gemini" and "url" in entry and "httpUrl" not in entry
        )
        found = make(
            url=expand(url),
            transport="sse" if sse else "http",
            headers={k: expand(v) for k, v in _headers(entry, env).items()},
            disabled=disabled,
        )
    else:
        return make(disabled=disabled, unresolved="neither a command nor a url")
    if missing:
        return replace(
            found, unresolved=f"uses {', '.join(dict.fromkeys(missing))}, which is not set here"
        )
    return found


def names_project(
    found: Server, project: Path, env: Mapping[str, str], home: Path | None = None
) -> bool:
    """Whether a stdio server, as expanded, runs in or names the project, the checkout: a ``cwd``
    in it or relative (a client resolves it there), or a command, argument or variable naming a
    path in it (``${workspaceFolder}``, ``${env:PWD}``, the path written out). Whatever the file
    that configures it, what it starts then reads what the repository put there: `node
    ${workspaceFolder}/build/index.js` runs the checkout's code, `npx foo-mcp` started there its
    ``node_modules/.bin/foo-mcp``, `uvx` its ``uv.toml`` (review AT). A path reaching it another way
    counts too: through a link, ``..``, ``~``, relative to the start, a ``PATH`` entry in it
    (``_reached``, review AW). Never when the project holds the user's home (doctor run there): a
    checkout is no such place."""
    real = os.path.realpath(project)
    if home is not None and _within(os.path.realpath(home), real):
        return False
    if found.cwd is not None and (
        not os.path.isabs(found.cwd) or _within(os.path.realpath(found.cwd), real)
    ):
        return True
    spellings = {str(project), real}
    logical = env.get("PWD")
    if logical and os.path.isabs(logical) and os.path.realpath(logical) == real:
        spellings.add(logical)
    # the path, then nothing that goes on with its last name
    named = re.compile(
        "|".join(re.escape(place.rstrip("/\\")) for place in sorted(spellings)) + r"(?![\w.~+@-])"
    )
    values = [found.command or "", *found.args, *found.env.values(), found.cwd or ""]
    if any(named.search(value) for value in values):
        return True
    home_text = os.fspath(home) if home is not None else os.path.expanduser("~")
    return any(_within(place, real) for place in _reached(found, values, home_text, env, real))


# where a shell word parts into paths: a PATH list, a `--flag=value`, a shell's operators
_PARTS = re.compile(r"[=:;,&|()<>`'\"]+")
# what a shell reads as a home at the start of a word: `~`, `~+` (where it is), `~name`
_TILDE = re.compile(r"\A~([\w.+-]*)(?=/|\Z)")
# what a shell puts in place of a command's output, `$(…)` or backquoted: any path at all
_SUBSTITUTION = re.compile(r"\$\([^()]*\)?|`[^`]*`?")
# a parameter: `$NAME`, `${NAME}`, `${NAME…}` (an operator on it: any path), `$1`, `$@`
_PARAMETER = re.compile(r"\$(?:\{([^}]*)\}?|([A-Za-z_]\w*)|[0-9@*#?$!-])")
_NAME = re.compile(r"[A-Za-z_]\w*")
# a shell variable the script sets: `D=~/src`, `export D=~/src`
_OPERATORS = re.compile(r"[;&|()<>]+")
_ASSIGNMENT = re.compile(r"\A([A-Za-z_]\w*)=(.*)\Z", re.DOTALL)
# what stands for a part of a path the shell alone knows (an unset or operated-on parameter, a
# command's output): any characters, `/` too
_ANY = "\0"
_GLOB = re.compile(r"[*?[]")
# directories a server's words reach that its relative words are also resolved in (`cd ..; cd x`)
_MAX_BASES = 16
# what a `#!` line holds at most (Linux reads 256 bytes of it)
_SHEBANG = 256
# places a pattern (`~/src/*/index.js`) is matched to, for the links among them
_MAX_MATCHES = 64


def _reached(
    found: Server, values: list[str], home: str, env: Mapping[str, str], real: str
) -> Iterator[str]:
    """Every place a stdio server's words reach, resolved as its start resolves them (reviews AW,
    AZ): each value, its words as a shell splits them and their parts (a ``PATH`` list,
    ``--x=path``) as a path: ``~``, ``~name`` and the parameters of the environment it gets (its
    entry's, doctor's, the variables its script sets) expanded, relative to the directory it
    starts in and to every directory an earlier word reached (``cd ..; cd repo``, ``env -C ..
    node repo/x.js``), links and ``..`` followed; a pattern (``~/src/*/x.js``, ``$(pwd)/x``,
    ``${HOME%/u}/x``) reaches ``real`` when a path it may stand for lies in it. And the program
    a bare command is found as in ``PATH`` (the entry's own, else this one's), and any bare word
    naming a program in a directory of ``real`` on that ``PATH``: a checkout is
    reached through a link to it, ``~/src/it``, ``$PROJECTS/it`` or a ``bin/`` of it on
    ``PATH``, not only by its path spelled out."""
    from .. import safefs
    from .handshake import host_env

    path_list = found.env.get("PATH", env.get("PATH", ""))
    bases = [found.cwd or home]
    # the entry's own HOME is its shell's `~`
    passed = {**host_env(found.env, path_list), "HOME": found.env.get("HOME", home)}
    programs = _programs(found, path_list, passed, bases[0])
    # a script's `#!` line names what runs it (`#!/home/u/src/repo/.venv/bin/python`)
    texts = [_SUBSTITUTION.sub(_ANY, v) for v in (*values, *map(_interpreter, programs))]
    variables = _variables(texts, passed, bases[0])
    # longer is no path (PATH_MAX)
    seen = {
        part: _expanded(part, variables, bases[0])
        for text in texts
        for word in (text, *split_words(text))
        for part in (word, *_PARTS.split(word))
        if part and len(part) <= 4096
    }
    # again while a word reaches a directory more: a `cd` (or CDPATH) written after what it moves
    # to, in the script or the entry's env, counts for it too
    done = 0
    while done < len(bases):
        fresh, done = bases[done:], len(bases)
        for spelled in seen.values():
            # a path from `/` is the same from every directory: resolved once
            if not spelled.startswith(os.sep) or fresh[0] == bases[0]:
                yield from _resolved(spelled, fresh, bases, real)
    yield from map(os.path.realpath, programs)
    # a directory of the checkout on its PATH: any bare word may be a program run from there (the
    # second command of its script, `nice foo`, `timeout 60 foo`, `npx foo`)
    inside = [
        place
        for place in (
            os.path.realpath(os.path.join(bases[0], p)) for p in path_list.split(os.pathsep) if p
        )
        if _within(place, real)
    ]
    for word in seen if inside else ():
        if os.sep not in word and safefs.program(word, os.pathsep.join(inside)) is not None:
            yield real


def _programs(found: Server, path_list: str, passed: Mapping[str, str], start: str) -> list[str]:
    """The files its command and the program past its wrappers are: a bare name as ``PATH``
    finds it, a path from the directory it starts in."""
    from .. import safefs

    programs = []
    for command in {found.command or "", *launched(found.argv)[:1]}:
        spelled = _expanded(command, passed, start)
        if not spelled or _ANY in spelled:
            continue
        if os.path.dirname(spelled):
            programs.append(os.path.join(start, spelled))
        elif (program := safefs.program(spelled, path_list)) is not None:
            programs.append(program)
    return programs


def _interpreter(program: str) -> str:
    """What follows ``#!`` on a script's first line, else nothing."""
    try:
        with open_regular(program) as handle:
            head = handle.read(_SHEBANG)
    except OSError:
        return ""
    return head[2:].split(b"\n")[0].decode("utf-8", "replace") if head.startswith(b"#!") else ""


def _variables(texts: list[str], passed: Mapping[str, str], start: str) -> dict[str, str]:
    """The parameters a server's shell knows: its environment, then what its script assigns (one
    set twice, to two values, may be either at a point of the script: ``_ANY``)."""
    assigned: dict[str, str] = {}
    for text in texts:
        for word in (w for words in split_words(text) for w in _OPERATORS.split(words)):
            if (assignment := _ASSIGNMENT.match(word)) is not None:
                value = _expanded(assignment[2], passed, start)
                if assigned.setdefault(assignment[1], value) != value:
                    assigned[assignment[1]] = _ANY
    return {**passed, **assigned}


def _resolved(spelled: str, fresh: list[str], bases: list[str], real: str) -> Iterator[str]:
    """The places one expanded part reaches from each directory in ``fresh`` (a directory it
    reaches is added to ``bases``); ``real`` where, a pattern, it may reach it."""
    # what a command prints or the script sets, first: any path at all
    if spelled.startswith(_ANY):
        yield real
        return
    for base in fresh[:1] if spelled.startswith(os.sep) else fresh:
        if _ANY in spelled or _GLOB.search(spelled):
            if _may_match(os.path.join(base, spelled), real):
                yield real
            continue
        try:
            place = os.path.realpath(os.path.join(base, spelled))
            # a link runs from where it lies too: a checkout's `.venv/bin/python`, a link to
            # Python, reads the `pyvenv.cfg` and site-packages beside it
            head, name = os.path.split(os.path.join(base, spelled))
            if name not in ("", ".", ".."):
                yield os.path.join(os.path.realpath(head), name)
        except (OSError, ValueError):
            continue
        yield place
        if len(bases) < _MAX_BASES and place not in bases and os.path.isdir(place):
            bases.append(place)


def _expanded(part: str, variables: Mapping[str, str], start: str) -> str:
    """``part`` as a shell expands it: a leading ``~`` (``~+``, ``~name``), then its parameters
    from ``variables``; an unset one or one with an operator is ``_ANY`` (the script may set it),
    a positional one nothing (its values are the words checked anyway)."""

    def tilde(match: re.Match[str]) -> str:
        name = match[1]
        if not name:
            return variables["HOME"]
        if name == "+":
            return start
        try:
            import pwd

            return pwd.getpwnam(name).pw_dir
        except (ImportError, KeyError):
            return match[0]

    def parameter(match: re.Match[str]) -> str:
        name = match[2] or match[1]
        if name is None:
            return ""
        if _NAME.fullmatch(name) and name in variables:
            return variables[name]
        return _ANY

    return _PARAMETER.sub(parameter, _TILDE.sub(tilde, part))


def _may_match(pattern: str, real: str) -> bool:
    """Whether a path ``pattern`` stands for (``*``, ``?``, ``[…]`` within a name, ``_ANY``
    anything) may lie in ``real``: its directory before the first pattern holds ``real`` (and
    the rest may name it) or lies in it, or a path it matches now is in ``real`` (through a
    link)."""
    import fnmatch
    import glob
    from itertools import islice

    names = pattern.split(os.sep)
    fixed = next(i for i, name in enumerate(names) if _ANY in name or _GLOB.search(name))
    try:
        prefix = os.path.realpath(os.sep.join(names[:fixed]) or os.sep)
    except (OSError, ValueError):
        return True
    if _within(prefix, real):
        return True
    rest = names[fixed:]
    if _within(real, prefix):
        inside = os.path.relpath(real, prefix).split(os.sep)
        if any(_ANY in name or name == ".." for name in rest) or (
            len(rest) >= len(inside)
            and all(fnmatch.fnmatchcase(have, want) for have, want in zip(inside, rest))
        ):
            return True
    if _ANY in pattern:
        return False
    try:
        matches = list(islice(glob.iglob(pattern), _MAX_MATCHES))
    except (OSError, ValueError):
        return True
    return any(_within(os.path.realpath(match), real) for match in matches)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def entries(
    target: clients.Target,
    data: Mapping[str, Any],
    project: Path,
    home: Path,
    env: Mapping[str, str] | None = None,
) -> Iterator[Server]:
    """Every server in one parsed file; Claude Code's ``~/.claude.json`` also holds the local scope
    (``projects[<this project>].mcpServers``)."""
    servers = data.get(target.key)
    if isinstance(servers, dict):
        for name, entry in servers.items():
            yield server(target, str(name), entry, project, home, env)
    if target.client == "claude-code" and target.scope == "user":
        local = (data.get("projects") or {}).get(str(project)) or {}
        for name, entry in (
            (local.get("mcpServers") or {}).items() if isinstance(local, dict) else ()
        ):
            yield server(target, str(name), entry, project, home, env, scope="local")


def configured(
    home: Path, project: Path, env: Mapping[str, str] | None = None, platform: str | None = None
) -> Iterator[Server]:
    """Every server in every config file that exists and parses (the mcp checks report the
    others)."""
    for client in clients.CLIENTS:
        for target in clients.targets(client, home, project, env=env, platform=platform).values():
            if not target.path.is_file():
                continue
            try:
                data = read(target)
            except (OSError, HindsightError, tomllib.TOMLDecodeError):
                continue
            yield from entries(target, data, project, home, env)
