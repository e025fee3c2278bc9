"""The Compose project doctor checks: the files Compose would read, merged as Compose merges them.

Which files: ``-f`` files when given; else ``COMPOSE_FILE`` (split on ``COMPOSE_PATH_SEPARATOR``,
by default the OS path separator) from the shell or the project's ``.env``; else the first of
compose.yaml, compose.yml, docker-compose.yaml, docker-compose.yml (here or up to the checkout's
root) plus the first override file next to it (compose.override.yml, compose.override.yaml,
docker-compose.override.yml, docker-compose.override.yaml), as compose-go's lookup does.

How: mappings merge key by key and a later file's scalar wins; in a service, ``volumes`` merge by
target, ``ports`` and ``expose`` are appended without duplicates, ``environment``, ``depends_on``,
``networks`` and ``labels`` merge as mappings whichever form each file writes them in, and
``command``, ``entrypoint`` and a healthcheck's ``test`` are replaced. When ``docker compose config``
runs and answers, its model is used instead (it knows every rule, extends and includes); the files
still give the line numbers.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import safefs
from . import compose_file
from .compose_file import DEFAULT_NAMES, ComposeError, ComposeFile, dotenv, find_up, load

OVERRIDE_NAMES = (
    "compose.override.yml",
    "compose.override.yaml",
    "docker-compose.override.yml",
    "docker-compose.override.yaml",
)
_BY_TARGET = {"volumes"}
_APPENDED = {"ports", "expose"}
_MAPPINGS = {"environment", "depends_on", "networks", "labels"}
_REPLACED = {"command", "entrypoint"}
# the files one project merges (review BI: `COMPOSE_FILE` in a checkout's `.env` named 80,000)
MAX_FILES = 64
# seconds `docker compose config` gets
_CONFIG_TIMEOUT = 15.0
# Compose (2.24 on) loads an `include` or `extends` named by a git URL (`git ls-remote`, `git
# fetch`) or an OCI reference from there, unless these say false; a checkout's `.env` sets only
# what the environment leaves unset. Linting fetches nothing a checkout names (review AE)
_NO_REMOTE = {
    "COMPOSE_EXPERIMENTAL_GIT_REMOTE": "false",
    "COMPOSE_EXPERIMENTAL_OCI_REMOTE": "false",
}

Origin = tuple[int, tuple[Any, ...]]


@dataclass
class Project(ComposeFile):
    """Several Compose files as one: ``data`` is the merged model; ``where`` finds a key's file and
    line."""

    members: list[ComposeFile] = field(default_factory=list)
    # a merged key whose path differs from its file's (a list entry that moved, a list turned
    # into a mapping): the part it came from and its path there
    origins: dict[tuple[Any, ...], Origin] = field(default_factory=dict)
    source: str = "merged by hindsight"

    @property
    def parts(self) -> list[ComposeFile]:
        return self.members

    @property
    def label(self) -> str:
        return " + ".join(part.path.name for part in self.members)

    def where(self, *keys: Any) -> str:
        for end in range(len(keys), 0, -1):
            if keys[:end] in self.origins:
                index, original = self.origins[keys[:end]]
                part = self.parts[index]
                return f"{part.path.name}:{part.line(*original, *keys[end:])}"
        # a later file overrides an earlier one: the deepest match, the last file on a tie
        best, depth = self.parts[-1], 0
        for part in self.parts:
            found = next((n for n in range(len(keys), 0, -1) if keys[:n] in part.lines), 0)
            if found >= depth and found:
                best, depth = part, found
        return f"{best.path.name}:{best.line(*keys)}"


def files(cwd: Path, given: list[Path], env: Mapping[str, str]) -> list[Path]:
    """The files Compose reads for this directory, in merge order (empty when there are none)."""
    if given:
        return given
    listed = env.get("COMPOSE_FILE") or dotenv(cwd / ".env").get("COMPOSE_FILE")
    if listed:
        separator = env.get("COMPOSE_PATH_SEPARATOR") or os.pathsep
        return [cwd / name for name in listed.split(separator) if name]
    base = find_up(cwd)
    if base is None:
        return []
    override = next((base.parent / n for n in OVERRIDE_NAMES if (base.parent / n).is_file()), None)
    return [base] if override is None else [base, override]


def load_project(paths: list[Path], env: Mapping[str, str]) -> ComposeFile:
    """One file as it is; several merged (by `docker compose config` when it answers). ``env``:
    the environment docker runs in, the shell's and never a project's ``.env``."""
    if len(paths) == 1:
        return load(paths[0])
    # the files together are read to a Compose file's limit, and so many at most (review BI)
    if len(paths) > MAX_FILES:
        raise ComposeError(
            f"{len(paths):,} files are more than the {MAX_FILES} a Compose project merges"
        )
    parts: list[ComposeFile] = []
    for path in paths:
        parts.append(load(path, compose_file.MAX_BYTES - sum(part.size for part in parts)))
    project = Project(paths[0], {}, members=parts)
    merged: dict[str, Any] = {}
    for index, part in enumerate(parts):
        merged = _merge(merged, part.data, (), index, project.origins)
    project.data = merged
    docker = _docker_config(paths, env)
    if docker is not None:
        project.data, project.source = docker, "as `docker compose config` merges them"
    return project


def _merge(
    base: Any, over: Any, path: tuple[Any, ...], index: int, origins: dict[tuple[Any, ...], Origin]
) -> Any:
    if len(path) == 3 and path[0] == "services":
        key = path[2]
        if key in _BY_TARGET or key in _APPENDED:
            return _merge_list(base, over, path, index, origins, by_target=key in _BY_TARGET)
        if key in _MAPPINGS:
            return _merge_mapping(base, over, path, index, origins)
        if key in _REPLACED:
            return over
    if isinstance(over, dict) and not isinstance(base, dict):
        # an empty service (`db:`) in an earlier file: the later one's is shaped as if first
        return _first(over, path, index, origins)
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            out[key] = (
                _merge(base[key], value, (*path, key), index, origins)
                if key in base
                else _first(value, (*path, key), index, origins)
            )
        return out
    return over


def _first(
    value: Any, path: tuple[Any, ...], index: int, origins: dict[tuple[Any, ...], Origin]
) -> Any:
    """A key only one file has so far, shaped as a merge would shape it (so later files merge in)."""
    if isinstance(value, dict) and (len(path) < 3 or path[0] != "services"):
        return {k: _first(v, (*path, k), index, origins) for k, v in value.items()}
    if len(path) == 3 and path[0] == "services" and path[2] in _BY_TARGET | _APPENDED | _MAPPINGS:
        return _merge(None, value, path, index, origins)
    return value


def _target(entry: Any) -> str:
    if isinstance(entry, dict):
        return str(entry.get("target") or "").rstrip("/")
    parts = str(entry).split(":")
    return (parts[1] if len(parts) > 1 else parts[0]).rstrip("/")


def _merge_list(
    base: Any,
    over: Any,
    path: tuple[Any, ...],
    index: int,
    origins: dict[tuple[Any, ...], Origin],
    by_target: bool,
) -> list[Any]:
    old = list(base) if isinstance(base, list) else []
    kept = [(entry, origins.get((*path, i), (index, (*path, i)))) for i, entry in enumerate(old)]
    new = [(entry, (index, (*path, i))) for i, entry in enumerate(over or [])]
    if by_target:
        replaced = {_target(entry) for entry, _ in new}
        kept = [(e, o) for e, o in kept if _target(e) not in replaced]
    else:
        seen = {repr(e) for e, _ in kept}
        new = [(e, o) for e, o in new if repr(e) not in seen]
    out = kept + new
    # the entries' own (review BI: every origin of the project was looked through for each list
    # merged, so two files of 6,000 services with `ports` took 18 s to merge)
    for stale in range(len(old)):
        origins.pop((*path, stale), None)
    for i, (_, origin) in enumerate(out):
        origins[(*path, i)] = origin
    return [entry for entry, _ in out]


def _as_mapping(value: Any, key: str) -> list[tuple[Any, Any, Any]]:
    """(name, value, key in the file) of a list or mapping form."""
    if isinstance(value, dict):
        return [(str(k), v, k) for k, v in value.items()]
    if not isinstance(value, list):
        return []
    out: list[tuple[Any, Any, Any]] = []
    for i, entry in enumerate(value):
        if key in ("environment", "labels"):
            name, sep, text = str(entry).partition("=")
            out.append((name, text if sep else None, i))
        else:
            out.append((str(entry), {} if key == "depends_on" else None, i))
    return out


def _merge_mapping(
    base: Any, over: Any, path: tuple[Any, ...], index: int, origins: dict[tuple[Any, ...], Origin]
) -> dict[str, Any]:
    out = dict(base) if isinstance(base, dict) else {}
    for name, value, original in _as_mapping(over, path[2]):
        if isinstance(out.get(name), dict) and isinstance(value, dict):
            value = {**out[name], **value}
        out[name] = value
        origins[(*path, name)] = (index, (*path, original))
    return out


def _docker_config(paths: list[Path], env: Mapping[str, str]) -> dict[str, Any] | None:
    """The model `docker compose config` prints, or None when there is no Docker or it fails."""
    docker = safefs.program("docker", env.get("PATH"))
    if docker is None:
        return None
    command = [docker, "compose", *(a for p in paths for a in ("-f", str(p))), "config"]
    try:
        done = subprocess.run(
            command,
            cwd=paths[0].parent,
            env={**env, **_NO_REMOTE},
            # not the user's terminal: a checkout's `env_file: /dev/stdin` would read what they
            # type (review AO), `/dev/tty` too, unless docker has no terminal (review AZ)
            stdin=subprocess.DEVNULL,
            start_new_session=os.name != "nt",
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=_CONFIG_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    # what it merged (a checkout's `include`s too) read as a Compose file is (review BF: PyYAML
    # took minutes over megabytes); longer, hindsight merges the files itself
    if done.returncode != 0 or not done.stdout.strip() or len(done.stdout) > compose_file.MAX_BYTES:
        return None
    try:
        import yaml

        data = yaml.safe_load(done.stdout)
    except Exception:  # noqa: BLE001 - any unreadable answer means: merge ourselves
        return None
    return data if isinstance(data, dict) and isinstance(data.get("services"), dict) else None


__all__ = ["DEFAULT_NAMES", "OVERRIDE_NAMES", "ComposeError", "Project", "files", "load_project"]
