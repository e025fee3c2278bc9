"""Compose rules for a service that runs hindsight's MCP server over HTTP.

What the service runs is read from its ``entrypoint``/``command``, or from the Dockerfile it builds
(ENTRYPOINT, CMD, ENV), past wrappers such as ``sh -c`` and ``tini --``. Two mistakes are found:

- the server left on its default ``--host 127.0.0.1``: inside a container that is the container's
  own loopback, so a published port (or another service) reaches nothing;
- the server on every interface without tokens: hindsight refuses to start an HTTP server bound to
  a non-loopback address without a token file, unless ``--allow-unauthenticated`` (then a warning,
  since whoever reaches the port reads and writes every memory).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .. import paths
from ..paths import TOKENS_FILE as DEFAULT_FILE
from ..safefs.reading import whole_number
from . import Check, fail, warn
from .command_lines import program, split_words
from .compose_file import ComposeFile, env_items, finding, mounts
from .dockerfile import Builds, for_service

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
EVERY_INTERFACE = {"", "0.0.0.0", "::", "[::]"}


# a service a value calls: `http://name:port`, or `name:port` alone (Compose's names)
_CALLED = re.compile(r"(?://|^)([A-Za-z0-9._-]+):")


@dataclass(frozen=True)
class Server:
    """``hindsight mcp --transport http`` as one service runs it."""

    argv: list[str]
    host: str
    port: int
    tokens: str | None
    unauthenticated: bool
    store: str | None


def _words(value: Any, compose: ComposeFile, env: Mapping[str, str]) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return split_words(compose.interpolated(value, env))
    if isinstance(value, list):
        return [compose.interpolated(str(v), env) for v in value]
    return None


def _argv(
    svc: dict[str, Any], compose: ComposeFile, env: Mapping[str, str]
) -> tuple[list[str], list[str], dict[str, str]]:
    """What the container runs, its entrypoint, and the image's ENV; Compose's entrypoint drops the
    image's CMD."""
    # the images the project's services build, each once (review BI)
    image = for_service(svc, compose.path.parent, compose.memo("builds", Builds))
    entrypoint = _words(svc.get("entrypoint"), compose, env)
    command = _words(svc.get("command"), compose, env)
    image_env = dict(image.env) if image else {}
    if entrypoint is not None:
        return [*entrypoint, *(command or [])], entrypoint, image_env
    base = (image.entrypoint or []) if image else []
    cmd = command if command is not None else ((image.cmd or []) if image else [])
    return [*base, *cmd], base, image_env


def _token_command(name: str, entrypoint: list[str]) -> str:
    """``docker compose run`` replaces the command, not the entrypoint: with hindsight's image
    (ENTRYPOINT hindsight) the arguments start at the subcommand."""
    program_word = "" if program(entrypoint) == "hindsight" else "hindsight "
    return f"docker compose run --rm {name} {program_word}mcp token AGENT"


def _twice(
    compose: ComposeFile, name: str, svc: dict[str, Any], argv: list[str], entrypoint: list[str]
) -> Iterator[Check]:
    """``command: hindsight mcp …`` on an image whose ENTRYPOINT is already hindsight (the form
    of images before 0.1.0's ENTRYPOINT): the container runs ``hindsight hindsight …`` and exits."""
    words = _split(argv)
    if len(words) < 2 or program(words[:1]) != "hindsight" or program(words[1:2]) != "hindsight":
        return
    yield finding(
        fail,
        "mcp-command",
        compose,
        ("services", name, "command" if "command" in svc else "entrypoint"),
        f"{name} runs `{' '.join(words[:3])} …`: the image's entrypoint is already hindsight, so "
        "the container exits with \"No such command 'hindsight'\"",
        " ".join(words),
        'drop the first `hindsight` from command: (command: ["mcp", "--transport", …])'
        if program(entrypoint) == "hindsight"
        else "drop one of the two `hindsight` words",
    )


def _split(argv: list[str]) -> list[str]:
    """Every word, with ``sh -c "…"`` scripts split into theirs."""
    words: list[str] = []
    for word in argv:
        words.extend(split_words(word) if " " in word else [word])
    return words


_OPTIONS = ("--transport", "--port", "--host", "--tokens", "--store")
_SEPARATORS = ("&&", "||", ";", "|")


def find_server(argv: list[str], env: Mapping[str, str]) -> Server | None:
    """The ``hindsight mcp`` HTTP server in a command line, if it runs one: the first
    ``hindsight mcp`` (or ``-m hindsight_cli mcp``) whose words up to the end of its command (``&&``,
    ``||``, ``;``, ``|``) ask for ``--transport http``."""
    words = _split(argv)
    count = len(words)
    # read from the right once (review BI: the words after each `hindsight` were copied and read
    # again, so a Dockerfile's `CMD ["hindsight", …]` of 20,000 words held doctor 128 s): for each
    # word, each option's first value at or after it, the first word that is no option, and
    # whether `--allow-unauthenticated` follows, within its command
    ahead: dict[str, list[str | None]] = {name: [None] * (count + 1) for name in _OPTIONS}
    plain, loose = [count] * (count + 1), [False] * (count + 1)
    end = count
    for index in range(count - 1, -1, -1):
        word = words[index]
        if word in _SEPARATORS:
            end = index
            continue
        for name in _OPTIONS:
            if word == name and index + 1 < end:
                ahead[name][index] = words[index + 1]
            elif word.startswith(name + "="):
                ahead[name][index] = word.split("=", 1)[1]
            else:
                ahead[name][index] = ahead[name][index + 1]
        plain[index] = plain[index + 1] if word.startswith("-") else index
        loose[index] = loose[index + 1] or word == "--allow-unauthenticated"
    for index, word in enumerate(words[:-1]):
        if program([word]) != "hindsight" and not (
            word == "hindsight_cli" and words[index - 1 : index] == ["-m"]
        ):
            continue
        second = plain[index + 2]
        if (
            words[index + 1] != "mcp"
            or (second < count and words[second] in ("token", "install", "config"))
            or ahead["--transport"][index + 1] != "http"
        ):
            continue
        port = whole_number(ahead["--port"][index + 1] or str(DEFAULT_PORT))
        store = (
            ahead["--store"][index + 1]
            or env.get(paths.ENV_STORE)
            or (posixpath.join(env[paths.ENV_HOME], "store") if env.get(paths.ENV_HOME) else None)
        )
        return Server(
            words,
            ahead["--host"][index + 1] or DEFAULT_HOST,
            DEFAULT_PORT if port is None else port,
            ahead["--tokens"][index + 1],
            loose[index + 1],
            store,
        )
    return None


def _published(svc: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(host address, host port, container port) for each ``ports`` entry."""
    out = []
    for entry in svc.get("ports") or []:
        if isinstance(entry, dict):
            target = str(entry.get("target", ""))
            number = whole_number(target)
            if number is not None:
                out.append((str(entry.get("host_ip", "")), str(entry.get("published", "")), number))
            continue
        spec = str(entry).split("/")[0]
        rest, _, container = spec.rpartition(":")
        address, _, host_port = (
            rest.rpartition(":") if rest.count(":") or rest.startswith("[") else ("", "", rest)
        )
        number = whole_number(container)
        if number is not None:
            out.append((address, host_port, number))
    return out


def _mount_targets(svc: dict[str, Any]) -> list[str]:
    """Where volumes, secrets and configs appear inside the container."""
    targets = [target for _, _, target, _ in mounts(svc)]
    for key, default_dir in (("secrets", "/run/secrets"), ("configs", "/")):
        for entry in svc.get(key) or []:
            source = entry.get("source") if isinstance(entry, dict) else entry
            target = entry.get("target") if isinstance(entry, dict) else None
            target = str(target or source or "")
            targets.append(
                target if target.startswith("/") else posixpath.join(default_dir, target)
            )
    return targets


def _under(path: str, targets: list[str]) -> bool:
    return any(path == t or path.startswith(t.rstrip("/") + "/") for t in targets)


def lint(
    compose: ComposeFile, name: str, svc: dict[str, Any], env: Mapping[str, str]
) -> Iterator[Check]:
    argv, entrypoint, image_env = _argv(svc, compose, env)
    yield from _twice(compose, name, svc, argv, entrypoint)
    service_env = {
        **image_env,
        **{key: compose.interpolated(value, env) for _, key, value in env_items(svc)},
    }
    server = find_server(argv, service_env)
    if server is None:
        return
    keys = ("services", name, "command") if "command" in svc else ("services", name, "build")
    ports = [p for p in _published(svc) if p[2] == server.port]
    shown = ", ".join(
        f"{a + ':' if a else ''}{h + ':' if h else ''}{c}" for a, h, c in _published(svc)
    )
    evidence = f"{' '.join(server.argv)}" + (
        f"; ports: {shown}" if shown else "; no ports published"
    )
    if _published(svc) and not ports:
        yield finding(
            fail,
            "mcp-port",
            compose,
            ("services", name, "ports"),
            f"{name} publishes no port to hindsight's {server.port}",
            evidence,
            f"publish the port the server listens on: ports: "
            f'["127.0.0.1:{server.port}:{server.port}"], '
            "or change --port",
        )
    host_network = svc.get("network_mode") == "host"
    if server.host in LOOPBACK:
        if not host_network:
            reached = (
                "its published port reaches nothing"
                if ports
                else "the services that call it reach nothing"
                if _called(compose, name)
                else ""
            )
            yield from _loopback(compose, name, keys, server, evidence, reached)
        return
    yield from _tokens(
        compose, name, svc, keys, server, evidence, ports, _token_command(name, entrypoint)
    )


def _called(compose: ComposeFile, name: str) -> bool:
    """Another service's environment names this one (``http://hindsight:8765``)."""

    def make() -> dict[str, set[str]]:
        # each name a value calls, and who calls it, read once a project (review BI)
        callers: dict[str, set[str]] = {}
        for other, svc in compose.services.items():
            for _, _, value in env_items(svc):
                for called in _CALLED.findall(value):
                    callers.setdefault(called, set()).add(other)
        return callers

    return bool(compose.memo("callers", make).get(name, set()) - {name})


def _loopback(
    compose: ComposeFile,
    name: str,
    keys: tuple[Any, ...],
    server: Server,
    evidence: str,
    reached: str,
) -> Iterator[Check]:
    how = (
        "no --host: the default 127.0.0.1"
        if server.host == DEFAULT_HOST and "--host" not in server.argv
        else f"--host {server.host}"
    )
    yield finding(
        fail if reached else warn,
        "mcp-host",
        compose,
        keys,
        f"{name} runs hindsight's HTTP server on the container's own loopback ({how}): "
        + (reached or "nothing outside the container reaches it"),
        evidence,
        "add `--host 0.0.0.0` (inside a container the server must listen on every interface; "
        'keep the host side private with ports: ["127.0.0.1:PORT:PORT"]) and give it tokens: '
        "`hindsight mcp token AGENT`, then `--tokens FILE`",
    )


def _tokens(
    compose: ComposeFile,
    name: str,
    svc: dict[str, Any],
    keys: tuple[Any, ...],
    server: Server,
    evidence: str,
    ports: list[tuple[str, str, int]],
    token_command: str,
) -> Iterator[Check]:
    targets = _mount_targets(svc)
    exposed = [f"{a or '0.0.0.0'}:{h or c}" for a, h, c in ports]
    everywhere = any(a in EVERY_INTERFACE for a, _, _ in ports)
    reach = (
        f"published on every interface of the host ({', '.join(exposed)})"
        if everywhere
        else f"published at {', '.join(exposed)}"
        if exposed
        else "reachable from the other services"
    )
    store = server.store or "<store>"
    default_file = posixpath.join(store, DEFAULT_FILE)
    if server.unauthenticated:
        yield finding(
            warn,
            "mcp-unauthenticated",
            compose,
            keys,
            f"{name} serves every memory without tokens (--allow-unauthenticated), {reach}",
            evidence,
            f"make one token per agent (`{token_command}`) and "
            f"replace --allow-unauthenticated with --tokens {default_file}",
        )
    elif server.tokens is not None:
        if not _under(server.tokens, targets):
            yield finding(
                warn,
                "mcp-tokens",
                compose,
                keys,
                f"{name}'s token file {server.tokens} is on no volume, secret or config",
                evidence,
                f"unless the image holds it, the server refuses to start: keep it on the store's "
                f"volume (--tokens {default_file}) or mount the file there",
            )
    elif default_file not in targets:
        yield _no_tokens(
            compose, name, keys, server, (evidence, reach, token_command), targets, default_file
        )


def _no_tokens(
    compose: ComposeFile,
    name: str,
    keys: tuple[Any, ...],
    server: Server,
    said: tuple[str, str, str],
    targets: list[str],
    default_file: str,
) -> Check:
    evidence, reach, token_command = said
    mounted = [t for t in targets if "token" in posixpath.basename(t).lower()]
    if mounted:
        seen, fix = (
            f"; a token file is mounted at {mounted[0]}, but no --tokens names it",
            f"add `--tokens {mounted[0]}` to the command",
        )
    elif server.store and _under(server.store, targets):
        seen, fix = (
            "; no --tokens, no token file mounted",
            (
                f"make a token per agent with `{token_command}` (it writes "
                f"{default_file} on the volume) and add `--tokens {default_file}` to the command"
            ),
        )
    else:
        seen, fix = (
            "; no --tokens, no token file mounted",
            (
                "make a token per agent with `hindsight mcp token AGENT --tokens "
                "./mcp-tokens.json`, mount that file "
                "into the container, readable by its user (it holds only hashes) (volumes: "
                '["./mcp-tokens.json:/run/mcp-tokens.json:ro"]) and add '
                "`--tokens /run/mcp-tokens.json` to the command"
            ),
        )
    return finding(
        fail,
        "mcp-tokens",
        compose,
        keys,
        f"{name} runs hindsight's HTTP server on {server.host} without tokens, {reach}: "
        "hindsight refuses to start it",
        evidence + seen,
        fix + " (on a trusted network only: --allow-unauthenticated instead)",
    )
