"""`hindsight doctor compose`: the Compose mistakes that schema linters accept and that break a
stack.

Each finding names the rule (``compose.<rule>``), the file and line, and the fix. The rules follow
the project's reference notes on Compose (a service calling ``localhost``, readiness, data volumes,
networks, ``expose``, host ports between services, unset variables).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..safefs.reading import whole_number
from . import Check, compose_mcp, compose_merge, fail, ok, warn
from .compose_file import (
    ComposeError,
    ComposeFile,
    dotenv,
    env_items,
    finding,
    mounts,
    variables,
)

# Database images (no registry, no tag) and where they keep their data inside the container.
DB_DATA_DIRS = {
    "postgres": "/var/lib/postgresql/data",
    "mysql": "/var/lib/mysql",
    "mariadb": "/var/lib/mysql",
    "mongo": "/data/db",
    "redis": "/data",
    "qdrant/qdrant": "/qdrant/storage",
    "neo4j": "/data",
    "elasticsearch": "/usr/share/elasticsearch/data",
    "valkey/valkey": "/data",
    "eqalpha/keydb": "/data",
    "bitnami/redis": "/bitnami/redis/data",
    "redis/redis-stack-server": "/data",
}
# Of those, the caches: usually started empty on purpose, so no volume is a warning, unless the
# command asks them to persist (append-only file, snapshots).
CACHES = {"redis", "valkey/valkey", "eqalpha/keydb", "bitnami/redis", "redis/redis-stack-server"}
HEALTH_HINTS = {
    "postgres": '["CMD-SHELL", "pg_isready -U postgres"]',
    "mysql": '["CMD", "mysqladmin", "ping", "-h", "localhost"]',
    "redis": '["CMD", "redis-cli", "ping"]',
    "mongo": '["CMD", "mongosh", "--quiet", "--eval", "db.runCommand(\'ping\')"]',
}
# The ports those images listen on, so `localhost:5432` can be traced to the service that owns it.
DB_PORTS = {
    "postgres": {5432},
    "mysql": {3306},
    "mariadb": {3306},
    "mongo": {27017},
    "redis": {6379},
    "qdrant/qdrant": {6333, 6334},
    "neo4j": {7474, 7687},
    "elasticsearch": {9200, 9300},
}
# services named in one finding's evidence
_SHOWN = 20
LOOPBACK = {"localhost", "127.0.0.1", "0.0.0.0", "::1"}
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"]+", re.IGNORECASE)
_HOST_PORT = re.compile(r"^\[?([A-Za-z0-9_.:-]+?)\]?:(\d+)$")


def run(
    path: Path | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    required: bool = True,
    files: list[Path] | None = None,
) -> list[Check]:
    """``path`` and ``files``: the files to read (``-f``); none: the ones Compose would read here
    (:mod:`compose_merge`). ``required``: no file fails when asked for, and is skipped in a full
    doctor run."""
    cwd = cwd or Path.cwd()
    env = dict(os.environ if env is None else env)
    given = [*([path] if path else []), *(files or [])]
    paths = compose_merge.files(cwd, given, {**dotenv(cwd / ".env"), **env})
    if not paths:
        if required:
            return [
                fail(
                    "compose.file",
                    "no Compose file here",
                    str(cwd),
                    "name one: `hindsight doctor compose path/to/compose.yaml`",
                )
            ]
        return []
    for each in paths:
        if not each.is_file():
            return [
                fail("compose.file", "the Compose file does not exist", str(each), "check the path")
            ]
    # docker gets the shell's environment only: the checkout's .env must not choose what the CLI
    # loads (DOCKER_CONFIG's cli-plugins, LD_PRELOAD) or where it connects (DOCKER_HOST); Compose
    # reads .env itself for its variables
    shell = env
    # the shell wins over .env, as in Compose; .env sits in the project directory (the first file's)
    env = {**dotenv(paths[0].parent / ".env"), **env}
    try:
        compose = compose_merge.load_project(paths, shell)
    except ComposeError as error:
        return [_invalid(paths, error)]
    try:
        findings = list(lint(compose, env))
    except ComposeError as error:
        return [_invalid(paths, error)]
    count = len(compose.services)
    source = getattr(compose, "source", "")
    head = ok(
        "compose.file",
        f"{compose.label}: {count} service{'s' if count != 1 else ''}",
        "; ".join(str(p) for p in paths) + (f" ({source})" if source else ""),
    )
    if not findings:
        return [head, ok("compose.lint", "none of the classic mistakes found")]
    return [head, *findings]


def _invalid(paths: list[Path], error: ComposeError) -> Check:
    return fail(
        "compose.file",
        f"{' + '.join(_shown(p.name for p in paths))} is not a valid Compose file",
        str(error),
        "fix the YAML at that line; `docker compose config` shows the same file as "
        "Compose reads it",
    )


def lint(compose: ComposeFile, env: Mapping[str, str]) -> Iterator[Check]:
    for part in compose.parts:
        yield from _variables(part, env)
        if "version" in part.data:
            yield finding(
                warn,
                "version",
                part,
                ("version",),
                "top-level `version` is obsolete",
                f"version: {part.data['version']!r}",
                "delete the line: Compose v2 ignores it and warns",
            )
    services = compose.services
    for name, svc in services.items():
        yield from _reachability(compose, name, svc, env)
        yield from _depends_on(compose, name, svc)
        yield from _volumes(compose, name, svc)
        yield from _expose(compose, name, svc)
        yield from _undeclared_networks(compose, name, svc)
        yield from compose_mcp.lint(compose, name, svc, env)


# --- variables
# ------------------------------------------------------------------------------------------


def _variables(compose: ComposeFile, env: Mapping[str, str]) -> Iterator[Check]:
    seen: set[str] = set()
    for var in variables(compose):
        if var.name in seen or var.operator in (":-", "-", ":+", "+"):
            continue
        value = env.get(var.name)
        if var.operator in (":?", "?") and (
            value is None or (var.operator == ":?" and value == "")
        ):
            seen.add(var.name)
            yield fail(
                "compose.variable",
                f"required variable {var.name} has no value",
                f"{compose.path.name}:{var.line}: {var.text}",
                f"set {var.name} in the shell or in the .env next to the file",
            )
        elif not var.operator and value is None:
            seen.add(var.name)
            yield warn(
                "compose.variable",
                f"{var.name} is not set and has no default; Compose uses an empty string",
                f"{compose.path.name}:{var.line}: {var.text}",
                f"add {var.name}=… to the .env next to the file, or write ${{{var.name}:-default}}",
            )


# --- reaching other services
# ----------------------------------------------------------------------------


def _ports(svc: dict[str, Any]) -> list[tuple[int | None, int]]:
    """(host port or None, container port) for each ``ports`` entry; ranges are left out."""
    out = []
    for entry in svc.get("ports") or []:
        if isinstance(entry, dict):
            target, published = str(entry.get("target", "")), str(entry.get("published", ""))
            number = whole_number(target)
            if number is not None:
                out.append((whole_number(published), number))
            continue
        spec = str(entry).split("/")[0]
        rest, _, container = spec.rpartition(":")
        host = rest.rpartition(":")[2] if rest else ""
        number = whole_number(container)
        if number is not None:
            out.append((whole_number(host), number))
    return out


def _container_ports(svc: dict[str, Any]) -> set[int]:
    ports = {container for _, container in _ports(svc)} | DB_PORTS.get(
        _image_base(str(svc.get("image", ""))), set()
    )
    exposed = (whole_number(str(e).split("/")[0]) for e in svc.get("expose") or [])
    ports |= {number for number in exposed if number is not None}
    return ports


def _targets(value: str) -> list[tuple[str, int | None]]:
    """(host, port) pairs a value points at: every URL in it, each pair once and ``_SHOWN`` at
    most (review BL: 8 KiB of `http://localhost:1 ` made 430 findings of one value), or the whole
    value as ``host:port``."""
    found: dict[tuple[str, int | None], None] = {}
    for url in _URL.finditer(value):
        try:
            parts = urlsplit(url.group())
            found[parts.hostname or "", parts.port] = None
        except ValueError:
            continue
        if len(found) >= _SHOWN:
            break
    match = _HOST_PORT.match(value.strip())
    if not found and match:
        found[match.group(1), int(match.group(2))] = None
    return list(found)


def _networks(
    svc: dict[str, Any], services: Mapping[str, dict[str, Any]], depth: int = 0
) -> set[str]:
    mode = svc.get("network_mode")
    if isinstance(mode, str):
        if mode.startswith("service:") and depth < 5:
            return _networks(services.get(mode[8:], {}), services, depth + 1)
        return {f"mode:{mode}"}
    networks = svc.get("networks")
    # names as text: a list of mappings or `true`s is no list of names (review BI)
    return (
        {str(n) for n in networks}
        if isinstance(networks, (list, dict)) and networks
        else {"default"}
    )


@dataclass(frozen=True)
class _Index:
    """Each service's ports and networks, who listens on each port, and what the project
    declares, read once a project (review BI: each read again for every value naming a host)."""

    container: dict[str, set[int]]
    # host port -> the container ports it publishes to
    published: dict[str, dict[int | None, list[int]]]
    networks: dict[str, set[str]]
    sorted_networks: dict[str, list[str]]
    owners: dict[int, list[str]]
    # the container ports of the services sharing each service's network namespace
    shared: dict[str, set[int]]
    volumes: set[Any]
    declared_networks: set[Any]


def _index(compose: ComposeFile) -> _Index:
    def make() -> _Index:
        services = compose.services
        container = {name: _container_ports(svc) for name, svc in services.items()}
        published: dict[str, dict[int | None, list[int]]] = {}
        owners: dict[int, list[str]] = {}
        shared: dict[str, set[int]] = {}
        for name, svc in services.items():
            for host, port in _ports(svc):
                published.setdefault(name, {}).setdefault(host, []).append(port)
            for port in container[name]:
                owners.setdefault(port, []).append(name)
            mode = svc.get("network_mode")
            if isinstance(mode, str) and mode.startswith("service:"):
                shared.setdefault(mode[8:], set()).update(container[name])
        networks = {name: _networks(svc, services) for name, svc in services.items()}
        return _Index(
            container,
            published,
            networks,
            {name: sorted(each) for name, each in networks.items()},
            owners,
            shared,
            set(compose.data.get("volumes") or {}),
            set(compose.data.get("networks") or {}) | {"default"},
        )

    return compose.memo("index", make)


def _reachability(
    compose: ComposeFile, name: str, svc: dict[str, Any], env: Mapping[str, str]
) -> Iterator[Check]:
    services, index = compose.services, _index(compose)
    mode = str(svc.get("network_mode") or "")
    own_ports = index.container[name]
    referenced: dict[str, tuple[Any, ...]] = {dep: ("depends_on", dep) for dep in _depends(svc)}
    for keys, key, raw in env_items(svc):
        value = compose.interpolated(raw, env)
        for host, port in _targets(value):
            where = ("services", name, *keys)
            if host in LOOPBACK and mode != "host" and not mode.startswith("service:"):
                yield from _loopback(compose, name, where, key, value, port, own_ports)
            elif host in services and host != name:
                referenced.setdefault(host, keys)
                yield from _host_port(compose, name, where, key, value, host, port)
    mine = index.networks[name]
    for other, keys in referenced.items():
        if other in services and not mine & index.networks[other]:
            theirs = index.sorted_networks[other]
            yield finding(
                fail,
                "network",
                compose,
                ("services", name, *keys),
                f"{name} and {other} share no network: the name {other!r} will not resolve",
                f"{name} is on {_shown(index.sorted_networks[name])}, {other} on {_shown(theirs)}",
                f"put both on one network (add {theirs[0]!r} to {name}'s networks)",
            )


def _loopback(
    compose: ComposeFile,
    name: str,
    where: tuple[Any, ...],
    key: str,
    value: str,
    port: int | None,
    own_ports: set[int],
) -> Iterator[Check]:
    if port is not None and port in own_ports:
        # the service talking to itself
        return
    index = _index(compose)
    if port in index.shared.get(name, ()):
        # a service sharing this one's network namespace: localhost does reach it
        return
    owners = [o for o in index.owners.get(port, []) if o != name] if port is not None else []
    if owners:
        yield finding(
            fail,
            "localhost",
            compose,
            where,
            f"{name} reaches {owners[0]} through localhost; inside a container localhost is the "
            f"container itself",
            f"{key}={value}",
            f"use the service name: {owners[0]}:{port}",
        )
    else:
        yield finding(
            warn,
            "localhost",
            compose,
            where,
            f"{name} points at localhost, which inside a container is {name} itself",
            f"{key}={value}",
            "if this is another service, use its service name instead of localhost",
        )


def _host_port(
    compose: ComposeFile,
    name: str,
    where: tuple[Any, ...],
    key: str,
    value: str,
    other: str,
    port: int | None,
) -> Iterator[Check]:
    index = _index(compose)
    if port is None or port in index.container[other]:
        return
    for container in index.published.get(other, {}).get(port, []):
        yield finding(
            fail,
            "host-port",
            compose,
            where,
            f"{name} calls {other} on its published host port {port}",
            f"{key}={value}; {other} publishes {port}:{container}",
            f"between services use the container port: {other}:{container}",
        )


# --- depends_on and readiness
# ----------------------------------------------------------------------------


def _depends(svc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    dep = svc.get("depends_on") or {}
    if isinstance(dep, list):
        return {str(d): {} for d in dep}
    return (
        {str(d): (opts if isinstance(opts, dict) else {}) for d, opts in dep.items()}
        if isinstance(dep, dict)
        else {}
    )


def _shown(names: Iterable[str]) -> list[str]:
    """The first names of many, for a finding's evidence (review BI: each finding listed them
    all, every service or every network of one, so many findings made output quadratic)."""
    shown = list(islice(names, _SHOWN + 1))
    return shown[:_SHOWN] + (["…"] if len(shown) > _SHOWN else [])


def _image_base(image: str) -> str:
    name = image.split("@")[0]
    if ":" in name.split("/")[-1]:
        name = name.rsplit(":", 1)[0]
    for prefix in ("docker.io/library/", "docker.io/", "library/"):
        name = name.removeprefix(prefix)
    return name


def _has_healthcheck(svc: dict[str, Any]) -> bool:
    check = svc.get("healthcheck")
    if not isinstance(check, dict) or check.get("disable"):
        return False
    test = check.get("test")
    return bool(test) and test != ["NONE"]


def _depends_on(compose: ComposeFile, name: str, svc: dict[str, Any]) -> Iterator[Check]:
    services = compose.services
    for dep, opts in _depends(svc).items():
        keys = ("services", name, "depends_on", dep)
        if dep not in services:
            yield finding(
                fail,
                "depends-unknown",
                compose,
                keys,
                f"{name} depends on {dep!r}, which is not a service",
                f"services: {', '.join(_shown(services))}",
                "fix the name in depends_on",
            )
            continue
        target = services[dep]
        base = _image_base(str(target.get("image", "")))
        condition = opts.get("condition", "service_started")
        healthy = _has_healthcheck(target)
        if condition == "service_healthy" and not healthy:
            yield finding(
                fail,
                "healthcheck-missing",
                compose,
                keys,
                f"{name} waits for {dep} to be healthy, but {dep} has no healthcheck",
                f"depends_on {dep}: condition: service_healthy",
                f"give {dep} a healthcheck: test: {HEALTH_HINTS.get(base, '[...]')}",
            )
        elif condition == "service_started" and (base in DB_DATA_DIRS or healthy):
            add = (
                ""
                if healthy
                else f"give {dep} a healthcheck (test: {HEALTH_HINTS.get(base, '[...]')}) and "
            )
            yield finding(
                warn,
                "depends-health",
                compose,
                keys,
                f"{name} starts as soon as {dep}'s container starts, before it accepts connections",
                f"depends_on {dep} without condition: service_healthy",
                f"{add}write depends_on: {{{dep}: {{condition: service_healthy}}}}",
            )


# --- volumes, expose, networks
# -------------------------------------------------------------------------------


def _volumes(compose: ComposeFile, name: str, svc: dict[str, Any]) -> Iterator[Check]:
    declared = _index(compose).volumes
    mounted = mounts(svc)
    for index, source, _, named in mounted:
        if named and source not in declared:
            yield finding(
                fail,
                "volume-undeclared",
                compose,
                ("services", name, "volumes", index),
                f"{name} uses the named volume {source!r}, which is not declared",
                f"volumes: {source}:…",
                f"add it at the top level: volumes: {{{source}: {{}}}}",
            )
    base = _image_base(str(svc.get("image", "")))
    data_dir = DB_DATA_DIRS.get(base)
    if data_dir is None:
        return
    on_data = [m for m in mounted if data_dir == m[2] or data_dir.startswith(m[2] + "/")]
    if not on_data:
        cache = base in CACHES and not _persists(svc)
        yield finding(
            warn if cache else fail,
            "db-volume",
            compose,
            ("services", name, "image"),
            f"{name} ({base}) keeps its data in the container: it is lost when the container is "
            f"removed" + (" (fine for a cache that can start empty)" if cache else ""),
            f"nothing is mounted on {data_dir}",
            f'mount a named volume: volumes: ["{name}-data:{data_dir}"] and declare it under '
            f"top-level volumes",
        )
    elif not any(named for *_, named in on_data):
        index, source, target, _ = on_data[0]
        yield finding(
            warn,
            "db-bind-mount",
            compose,
            ("services", name, "volumes", index),
            f"{name} ({base}) keeps its data in a host directory",
            f"{source}:{target}",
            "use a named volume: bind mounts bring permission and fsync problems on Docker "
            "Desktop and WSL",
        )


def _persists(svc: dict[str, Any]) -> bool:
    """The command asks a cache to keep its data: ``--appendonly yes``, or ``--save`` with a
    schedule."""
    command = svc.get("command")
    words = command.split() if isinstance(command, str) else [str(w) for w in command or []]
    settings = dict(zip(words, [*words[1:], ""]))
    env = {key.upper(): value.lower() for _, key, value in env_items(svc)}
    return (
        settings.get("--appendonly", "").lower() == "yes"
        or settings.get("--save", "").strip("\"'") not in ("", "-")
        or env.get("REDIS_AOF_ENABLED") == "yes"
    )


def _expose(compose: ComposeFile, name: str, svc: dict[str, Any]) -> Iterator[Check]:
    for index, entry in enumerate(svc.get("expose") or []):
        if ":" in str(entry):
            container = str(entry).rpartition(":")[2]
            yield finding(
                fail,
                "expose",
                compose,
                ("services", name, "expose", index),
                f"{name}: expose is written like a port mapping",
                f"expose: {entry!r}",
                f'expose takes container ports only (expose: ["{container}"]); '
                f'to publish on the host use ports: ["{entry}"]',
            )


def _undeclared_networks(compose: ComposeFile, name: str, svc: dict[str, Any]) -> Iterator[Check]:
    declared = _index(compose).declared_networks
    networks = svc.get("networks")
    if not isinstance(networks, (list, dict)):
        return
    for network in networks:
        if str(network) not in declared:
            yield finding(
                fail,
                "network-undeclared",
                compose,
                ("services", name, "networks"),
                f"{name} joins the network {network!r}, which is not declared",
                f"networks: {network}",
                f"add it at the top level: networks: {{{network}: {{}}}}",
            )
