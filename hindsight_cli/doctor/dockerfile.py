"""What an image built from a Dockerfile runs: its ENTRYPOINT, CMD, ENV, LABELs and HEALTHCHECK, read
from the text.

Enough of the Dockerfile grammar for that: line continuations (and the ``# escape=`` directive),
comments, heredocs (skipped), multi-stage builds (``FROM stage``, ``--target``), exec and shell
forms, and the rule that a new ENTRYPOINT drops the CMD inherited from the base.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_HEREDOC = re.compile(r"<<-?[\"']?([A-Za-z_][A-Za-z0-9_]*)[\"']?")
_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


@dataclass
class Image:
    entrypoint: list[str] | None = None
    cmd: list[str] | None = None
    env: dict[str, str] = field(default_factory=dict)
    inherited_cmd: bool = False
    labels: dict[str, str] = field(default_factory=dict)
    # the HEALTHCHECK's command (None: none, or NONE)
    healthcheck: list[str] | None = None


def _instructions(text: str) -> Iterator[tuple[str, str]]:
    lines = text.splitlines()
    escape = "`" if lines and re.match(r"#\s*escape\s*=\s*`", lines[0]) else "\\"
    pending, heredoc = "", None
    for raw in lines:
        if heredoc is not None:
            heredoc = None if raw.strip() == heredoc else heredoc
            continue
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith(escape):
            pending += stripped[:-1] + " "
            continue
        line, pending = pending + stripped, ""
        instruction, _, args = line.partition(" ")
        found = _HEREDOC.search(args)
        if found and instruction.upper() in ("RUN", "COPY", "ADD"):
            heredoc = found.group(1)
        yield instruction.upper(), args.strip()


def _argv(args: str) -> list[str]:
    if args.startswith("["):
        from ..safefs.reading import parse_json

        try:
            value = parse_json(args)
        except ValueError:
            value = None
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
    return ["/bin/sh", "-c", args]


class TooLarge(Exception):
    """The values a Dockerfile's ``ENV`` and ``LABEL`` make are past what one project's may be."""


def _env(args: str, env: dict[str, str], left: list[int]) -> None:
    def expand(value: str) -> str:
        # to a Compose value's limit (review BI: `ENV A=$A$A` on 30 lines of a 400-byte
        # Dockerfile made a value of 2 GB), and the values of the project's images to
        # ``MAX_INTERPOLATED`` in all (review BL: `ENV K1=$A K2=$A …` of 800 KB, `A` of 8 KiB,
        # made 650 MB of values)
        from .compose_file import substitute

        made = substitute(_REFERENCE, value, lambda m: env.get(m.group(1), ""))
        left[0] -= len(made)
        if left[0] < 0:
            raise TooLarge
        return made

    from ..lessons.scanning import shell_words

    try:
        words = shell_words(args)
    except ValueError:
        return
    # the legacy form: ENV KEY value with spaces
    if words and "=" not in words[0]:
        env[words[0]] = expand(" ".join(words[1:]))
        return
    for word in words:
        key, _, value = word.partition("=")
        env[key] = expand(value)


def _healthcheck(args: str) -> list[str] | None:
    words = args.split()
    # the options (--interval=30s …) come first (review BI: taken off one at a time, 250,000 of
    # them held doctor 17 s)
    first = next((i for i, word in enumerate(words) if not word.startswith("--")), len(words))
    words = words[first:]
    if not words or words[0].upper() != "CMD":
        return None
    return _argv(args.split("CMD", 1)[1].strip())


@dataclass
class _Stage:
    """A build stage as written: the stage it is built ``FROM`` (when one of this file) and its
    instructions that make the image."""

    parent: _Stage | None
    steps: list[tuple[str, str]] = field(default_factory=list)


def parse(text: str, target: str | None = None, left: list[int] | None = None) -> Image:
    """The image of the last stage (or of ``target``): the instructions of it and of the stages it
    is built from, each read once (review BF: each ``FROM stage`` copied that stage's whole image,
    so 20,000 `ENV` lines and 20,000 `FROM a` lines took 3 s, four times as long at each doubling).
    ``left``: the characters its values may still make (``TooLarge`` past them)."""
    stages: dict[str, _Stage] = {}
    current = _Stage(None)
    for instruction, args in _instructions(text):
        if instruction == "FROM":
            words = [w for w in args.split() if not w.startswith("--")]
            current = _Stage(stages.get(words[0].lower()) if words else None)
            if len(words) >= 3 and words[1].lower() == "as":
                stages[words[2].lower()] = current
        elif instruction in ("CMD", "ENTRYPOINT", "ENV", "LABEL", "HEALTHCHECK"):
            current.steps.append((instruction, args))
    if left is None:
        from .compose_file import MAX_INTERPOLATED

        left = [MAX_INTERPOLATED]
    return _built(stages.get(target.lower(), current) if target else current, left)


def _built(stage: _Stage, left: list[int]) -> Image:
    chain: list[_Stage] = []
    node: _Stage | None = stage
    while node is not None:
        chain.append(node)
        node = node.parent
    image = Image()
    for depth, each in enumerate(reversed(chain)):
        if depth:
            # built FROM a stage: its CMD is inherited until one is written
            image.inherited_cmd = True
        for instruction, args in each.steps:
            _apply(image, instruction, args, left)
    return image


def _apply(image: Image, instruction: str, args: str, left: list[int]) -> None:
    if instruction == "CMD":
        image.cmd, image.inherited_cmd = _argv(args), False
    elif instruction == "ENTRYPOINT":
        image.entrypoint = _argv(args)
        if image.inherited_cmd:
            image.cmd = None
    elif instruction == "ENV":
        _env(args, image.env, left)
    elif instruction == "LABEL":
        _env(args, image.labels, left)
    elif instruction == "HEALTHCHECK":
        image.healthcheck = _healthcheck(args)


# the Dockerfile text one Compose project's images are built from, in all (review BI: each service
# that builds read and built its Dockerfile again, so 100 services of `{build: .}` beside a 1 MiB
# Dockerfile took doctor 130 s, and the 14,000 a Compose file's 256 KiB holds, hours); past it an
# image is not read, as when its Dockerfile is not here
MAX_BUILT = 2 << 20


class Builds:
    """The images one Compose project's services build: each Dockerfile and target built once,
    from ``MAX_BUILT`` characters of Dockerfiles in all, their values ``MAX_INTERPOLATED`` (past
    either an image is not read)."""

    def __init__(self) -> None:
        from .compose_file import MAX_INTERPOLATED

        self.images: dict[tuple[str, str | None], Image | None] = {}
        self.left = MAX_BUILT
        # the characters their ``ENV`` and ``LABEL`` values may still make
        self.values = [MAX_INTERPOLATED]

    def image(self, key: str, target: str | None, text: Callable[[int], str]) -> Image | None:
        """The image of ``key`` (a path, or an inline text) at ``target``; ``text`` reads it,
        at most the characters given, or raises ``OSError``."""
        if (key, target) not in self.images:
            try:
                read = text(self.left)
            except OSError:
                read = None
            if read is not None and len(read) > self.left:
                read = None
            self.left -= len(read or "")
            try:
                image = None if read is None else parse(read, target, self.values)
            except TooLarge:
                image = None
            self.images[key, target] = image
        return self.images[key, target]


def for_service(svc: dict[str, Any], compose_dir: Path, builds: Builds) -> Image | None:
    """The image a Compose service builds, when its Dockerfile is readable here (None otherwise)."""
    build = svc.get("build")
    if isinstance(build, str):
        build = {"context": build}
    if not isinstance(build, dict):
        return None
    target = build.get("target") if isinstance(build.get("target"), str) else None
    inline = build.get("dockerfile_inline")
    if isinstance(inline, str):
        return builds.image("\0" + inline, target, lambda _: inline)
    context = str(build.get("context") or ".")
    if "://" in context or context.startswith("git@"):
        # a remote context: nothing to read here
        return None
    path = compose_dir / context / str(build.get("dockerfile") or "Dockerfile")

    def text(limit: int) -> str:
        from ..safefs.reading import MAX_SMALL, read_regular

        return read_regular(path, min(limit, MAX_SMALL)).decode("utf-8", "replace")

    try:
        # the file itself, however its path is spelled: one look (review BL: `os.path.realpath`
        # looked at each part of the path in Python, so 1,000 services aliasing one `build:` of a
        # 2,000-part `context` held doctor 18 s)
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return builds.image(f"{found.st_dev}:{found.st_ino}", target, text)
