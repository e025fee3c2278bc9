"""A Compose file as doctor reads it: the data, the line of every key, and ``${VAR}`` interpolation.

YAML is parsed with PyYAML, which hindsight does not list itself: it comes with fastembed
(through huggingface-hub, which requires it), so it is always installed next to hindsight.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Compose's own lookup order for a project directory.
DEFAULT_NAMES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")

# `$$` is a literal dollar; `${NAME<op>word}` with op one of :- - :? ? :+ +; `$NAME`. A `${` that
# never closes runs to the end of the text, once, and stays as it is written (group 3 empty): tried
# again from every later `${`, each scan to the end made the work quadratic (review AL: 80 KB of
# `${` in a checkout's compose.yaml held `hindsight doctor` for a minute).
_VARIABLE = re.compile(r"\$(?:(\$)|\{([^}]*)(\}|\Z)|([A-Za-z_][A-Za-z0-9_]*))")
_BRACED = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(:?[-?+])?(.*)$", re.DOTALL)


class ComposeError(Exception):
    """The file cannot be read as a Compose file; the message names the line."""


@dataclass(frozen=True)
class Variable:
    """One ``${...}`` or ``$NAME`` in a value."""

    name: str
    # "", ":-", "-", ":?", "?", ":+", "+"
    operator: str
    word: str
    line: int
    text: str


@dataclass
class ComposeFile:
    path: Path
    data: dict[str, Any]
    lines: dict[tuple[Any, ...], int] = field(default_factory=dict)
    # every string value and its line
    scalars: list[tuple[str, int]] = field(default_factory=list)
    # its bytes
    size: int = 0

    # what the checks read of ``data`` once a project (review BI: the services made again for
    # each service, and each port and network of them, made 250 KB of services a minute of doctor)
    memos: dict[str, tuple[Any, Any]] = field(default_factory=dict, repr=False, compare=False)

    def memo(self, name: str, make: Callable[[], Any]) -> Any:
        """``make()``, once while ``data`` stays the same."""
        made = self.memos.get(name)
        if made is None or made[0] is not self.data:
            made = self.memos[name] = (self.data, make())
        return made[1]

    @property
    def services(self) -> dict[str, dict[str, Any]]:
        def make() -> dict[str, dict[str, Any]]:
            services = self.data.get("services") or {}
            return {str(n): (svc if isinstance(svc, dict) else {}) for n, svc in services.items()}

        return self.memo("services", make)

    @property
    def label(self) -> str:
        return self.path.name

    @property
    def parts(self) -> list[ComposeFile]:
        return [self]

    def interpolated(self, text: str, env: Mapping[str, str]) -> str:
        """``interpolate(text, env)``, the project's values ``MAX_INTERPOLATED`` characters in all
        (review BL: 2 KB of `K: $B` entries, aliased to 100 services, beside a `.env` of `B=` and
        8 KiB made 10,000 values of 8 KiB, doctor 7 s; 950 services a minute)."""
        left = self.memo("interpolated", lambda: [MAX_INTERPOLATED])
        value = interpolate(text, env)
        left[0] -= len(value)
        if left[0] < 0:
            from ..safefs.reading import size_text

            raise ComposeError(
                f"its values interpolate to more than {size_text(MAX_INTERPOLATED)} of text "
                "(a `.env` value repeated by aliases?)"
            )
        return value

    def where(self, *keys: Any) -> str:
        """``file:line`` of the deepest of ``keys`` in the file."""
        return f"{self.path.name}:{self.line(*keys)}"

    def line(self, *keys: Any) -> int:
        """The line of the deepest of ``keys`` that is in the file (1 when none is)."""
        for end in range(len(keys), 0, -1):
            if keys[:end] in self.lines:
                return self.lines[keys[:end]]
        return 1


def find(directory: Path) -> Path | None:
    return next((directory / name for name in DEFAULT_NAMES if (directory / name).is_file()), None)


def find_up(directory: Path) -> Path | None:
    """The project's Compose file: here, or (as `docker compose` looks) in a parent up to the root
    of the git checkout this directory is in; outside a checkout, only here."""
    chain = [directory, *directory.parents]
    root = next((i for i, d in enumerate(chain) if (d / ".git").exists()), 0)
    return next((found for d in chain[: root + 1] if (found := find(d)) is not None), None)


def load(path: Path, left: int | None = None) -> ComposeFile:
    """``path`` as a Compose file; ``left``: what the project's files before it leave of
    ``MAX_BYTES``."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - fastembed depends on it
        raise ComposeError(
            "PyYAML is not installed (it comes with fastembed); reinstall hindsight-cli"
        ) from None
    from ..safefs.reading import read_regular, size_text

    try:
        raw = read_regular(path, MAX_BYTES if left is None else left)
        text = raw.decode("utf-8")
    except OSError as error:
        if error.errno == errno.EFBIG and not _alone_too_large(path):
            raise ComposeError(
                f"{path} and the files merged before it are larger than {size_text(MAX_BYTES)} "
                "in all, more than a Compose project holds"
            ) from None
        if error.errno == errno.EFBIG:
            raise ComposeError(
                f"{path} is larger than {size_text(MAX_BYTES)}, more than a Compose file holds"
            ) from None
        raise ComposeError(f"cannot read {path}: {error}") from None
    except UnicodeDecodeError as error:
        raise ComposeError(f"cannot read {path}: {error}") from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_shape(node, yaml)
        data = _constructed(loader, node, yaml) if node is not None else None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ComposeError(f"{where}{problem}") from None
    except RecursionError:
        # PyYAML composes nested collections recursively
        raise ComposeError(f"it is nested more than {MAX_DEPTH} levels deep") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise ComposeError(
            "the file does not hold a mapping (a Compose file starts with `services:`)"
        )
    compose = ComposeFile(path, data, size=len(raw))
    _walk(node, (), compose, yaml)
    _check_types(compose)
    return compose


def _constructed(loader: Any, node: Any, yaml: Any) -> Any:
    """``node`` built as PyYAML's safe loader builds it, except that a scalar it reads as a date
    or a number Python cannot hold (`2024-13-01`, an integer of more than 4,300 digits) stays its
    text, as Compose's YAML 1.2 reads it (review BO: its ``ValueError`` ended `hindsight doctor`
    in a checkout with a traceback)."""
    construct = loader.construct_object

    def guarded(child: Any, deep: bool = False) -> Any:
        try:
            return construct(child, deep)
        except yaml.YAMLError:
            raise
        # a scalar tagged with a type its text is not (`!!bool maybe`, `!!timestamp nope`, `!!int
        # ""`) raised KeyError, AttributeError or IndexError, the same traceback (review BS): what
        # the text of a scalar makes its constructor raise, it stays that text
        except Exception as error:
            if not isinstance(child, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    None, None, str(error), child.start_mark
                ) from None
            loader.recursive_objects.pop(child, None)
            loader.constructed_objects[child] = child.value
            return child.value

    loader.construct_object = guarded
    return loader.construct_document(node)


# the kinds of value a Compose file's sections and a service's keys hold, as Compose's schema
# says, where the checks read them (review BI: `services:` written as a list, or `volumes: 5`,
# ended `hindsight doctor` in a checkout with a traceback)
_SECTIONS = ("services", "volumes", "networks", "secrets", "configs")
_SERVICE_KINDS: dict[str, tuple[type, ...]] = {
    "ports": (list,),
    "expose": (list,),
    "volumes": (list,),
    "secrets": (list,),
    "configs": (list,),
    "command": (str, list),
    "entrypoint": (str, list),
    "environment": (list, dict),
    "labels": (list, dict),
    "depends_on": (list, dict),
    "networks": (list, dict),
    "build": (str, dict),
    "healthcheck": (dict,),
}
_KIND_NAMES: dict[type, str] = {list: "a list", dict: "a mapping", str: "a string"}


def _check_types(compose: ComposeFile) -> None:
    """Refuse a section or a service's key holding another kind of value than Compose's schema
    allows, naming its line."""

    def wrong(value: Any, kinds: tuple[type, ...], keys: tuple[Any, ...]) -> None:
        if value is not None and not isinstance(value, kinds):
            raise ComposeError(
                f"line {compose.line(*keys)}: `{keys[-1]}` must be "
                f"{' or '.join(_KIND_NAMES[kind] for kind in kinds)}"
            )

    for section in _SECTIONS:
        wrong(compose.data.get(section), (dict,), (section,))
    for name, svc in (compose.data.get("services") or {}).items():
        if isinstance(svc, dict):
            for key, kinds in _SERVICE_KINDS.items():
                wrong(svc.get(key), kinds, ("services", name, key))


def _alone_too_large(path: Path) -> bool:
    try:
        return path.stat().st_size > MAX_BYTES
    except OSError:
        return True


# A Compose file's values as its aliases expand them (``<<: *common`` repeats a node wherever it is
# named): a few hundred bytes of aliases of aliases expand to billions, and an alias inside its own
# anchor never ends. Far past any real file's.
MAX_NODES = 200_000
MAX_DEPTH = 200
# A Compose file's bytes (review BF): PyYAML composes some 70 KB a second of one, holding a few
# hundred bytes a node, so the 256 MiB of a JSON document took hours and tens of GB; the largest
# real ones are tens of KB. The files of one project, together (review BI: a checkout's `.env` of
# `COMPOSE_FILE=` naming one 43 KB file 200 times held doctor 65 s; 1 MiB of `.env` names it
# 80,000 times: hours)
MAX_BYTES = 256 << 10
# A value interpolated, in characters (review BF): a 4 KB Compose file of `K: "$A$A…"` and a
# `.env` of `A=` 1 MB made 2 GB values, doctor past 120 s; the rest is no host or port to check
MAX_VALUE = 8 << 10
# A project's text as its aliases expand it, and its values as interpolation makes them, in
# characters (review BL): each node counted once by ``MAX_NODES`` could still be a 200 KiB string,
# or a `$B` of 8 KiB, repeated by aliases 200,000 times; the largest real files expand to a few
# times their own size
MAX_EXPANDED = 4 << 20
MAX_INTERPOLATED = 4 << 20


def _check_shape(root: Any, yaml: Any) -> None:
    """Refuse a document whose aliases make it endless or larger than ``MAX_NODES`` values or
    ``MAX_EXPANDED`` characters (or deeper than ``MAX_DEPTH``) once expanded, before anything walks
    it: each node's expanded size is counted once (iteratively, the nodes shared by aliases
    remembered), so the check costs the file's own size."""
    sizes: dict[int, tuple[int, int, int]] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node, yaml)
        if done:
            open_.discard(key)
            size, depth = 1, 0
            text = len(node.value) if isinstance(node, yaml.ScalarNode) else 0
            for child in children:
                child_size, child_depth, child_text = sizes[id(child)]
                size += child_size
                depth = max(depth, child_depth + 1)
                text += child_text
            if size > MAX_NODES or text > MAX_EXPANDED:
                from ..safefs.reading import size_text

                more = (
                    f"{MAX_NODES:,} values"
                    if size > MAX_NODES
                    else f"{size_text(MAX_EXPANDED)} of text"
                )
                raise ComposeError(
                    f"line {node.start_mark.line + 1}: its aliases expand to more than "
                    f"{more} (a YAML bomb?)"
                )
            if depth > MAX_DEPTH:
                raise ComposeError(
                    f"line {node.start_mark.line + 1}: it is nested more than {MAX_DEPTH} levels deep"
                )
            sizes[key] = (size, depth, text)
            continue
        if key in sizes:
            continue
        if key in open_:
            raise ComposeError(
                f"line {node.start_mark.line + 1}: an alias names the anchor it is inside "
                "(the value would never end)"
            )
        open_.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in open_:
                raise ComposeError(
                    f"line {child.start_mark.line + 1}: an alias names the anchor it is inside "
                    "(the value would never end)"
                )
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node: Any, yaml: Any) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _walk(node: Any, prefix: tuple[Any, ...], compose: ComposeFile, yaml: Any) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            compose.lines[prefix + (name,)] = key.start_mark.line + 1
            _walk(value, prefix + (name,), compose, yaml)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            compose.lines[prefix + (index,)] = item.start_mark.line + 1
            _walk(item, prefix + (index,), compose, yaml)
    elif isinstance(node, yaml.ScalarNode) and "$" in node.value:
        compose.scalars.append((node.value, node.start_mark.line + 1))


def variables(compose: ComposeFile) -> Iterator[Variable]:
    for text, line in compose.scalars:
        for match in _VARIABLE.finditer(text):
            if match.group(1) or match.group(3) == "":
                continue
            if match.group(4):
                yield Variable(match.group(4), "", "", line, match.group(0))
                continue
            braced = _BRACED.match(match.group(2))
            if braced:
                yield Variable(
                    braced.group(1), braced.group(2) or "", braced.group(3), line, match.group(0)
                )


def dotenv(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines of a ``.env`` file (``export`` prefixes, comments and quotes allowed)."""
    values: dict[str, str] = {}
    from ..safefs.reading import MAX_SMALL, read_regular

    try:
        text = read_regular(path, MAX_SMALL).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return values
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """Substitute variables the way Compose does (unset and no default: an empty string), to
    ``MAX_VALUE`` characters at most."""

    def one(match: re.Match[str]) -> str:
        if match.group(1):
            return "$"
        if match.group(4):
            return env.get(match.group(4), "")
        braced = _BRACED.match(match.group(2))
        if not braced or not match.group(3):
            return match.group(0)
        name, op, word = braced.group(1), braced.group(2) or "", braced.group(3)
        value = env.get(name)
        if op in (":-", "-"):
            return word if value is None or (op == ":-" and value == "") else value
        if op in (":+", "+"):
            return word if value is not None and (op == "+" or value != "") else ""
        return value or ""

    return substitute(_VARIABLE, text, one)


def substitute(pattern: re.Pattern[str], text: str, one: Callable[[re.Match[str]], str]) -> str:
    """``pattern.sub(one, text)`` to ``MAX_VALUE`` characters: its pieces to the limit (review
    BF: `$A$A…` of a 1 MiB `.env` value grew without end; review BI: a Dockerfile's `ENV A=$A$A`
    doubles at each line)."""
    pieces: list[str] = []
    size = last = 0
    for match in pattern.finditer(text):
        pieces += (text[last : match.start()], one(match))
        size += len(pieces[-2]) + len(pieces[-1])
        last = match.end()
        if size > MAX_VALUE:
            break
    else:
        pieces.append(text[last:])
    return "".join(pieces)[:MAX_VALUE]


# --- a service's parts, as the checks read them
# -------------------------------------------------------


def finding(
    make: Any,
    rule: str,
    compose: ComposeFile,
    keys: tuple[Any, ...],
    summary: str,
    evidence: str,
    fix: str,
) -> Any:
    """``make`` (doctor's ok/warn/fail) of ``compose.<rule>``, its evidence led by the file and
    line and cut at ``MAX_EVIDENCE`` characters (review BL: each of 356,000 findings from 24 KB of
    a checkout's files carried a whole 8 KiB value, 3 GB of output)."""
    if len(evidence) > MAX_EVIDENCE:
        evidence = evidence[:MAX_EVIDENCE] + "…"
    return make(f"compose.{rule}", summary, f"{compose.where(*keys)}: {evidence}", fix)


MAX_EVIDENCE = 300


def env_items(svc: dict[str, Any]) -> list[tuple[Any, str, str]]:
    """(key path inside the service, variable name, value) for each environment entry."""
    env = svc.get("environment") or {}
    if isinstance(env, list):
        items = []
        for index, entry in enumerate(env):
            key, _, value = str(entry).partition("=")
            items.append((("environment", index), key, value))
        return items
    if isinstance(env, dict):
        return [
            (("environment", key), str(key), "" if value is None else str(value))
            for key, value in env.items()
        ]
    return []


def mounts(svc: dict[str, Any]) -> list[tuple[int, str, str, bool]]:
    """(index, source, target, is_named_volume) for each ``volumes`` entry of a service."""
    out = []
    for index, entry in enumerate(svc.get("volumes") or []):
        if isinstance(entry, dict):
            source, target = str(entry.get("source") or ""), str(entry.get("target") or "")
            named = entry.get("type", "volume") == "volume" and bool(source)
        else:
            parts = str(entry).split(":")
            source, target = (parts[0], parts[1]) if len(parts) > 1 else ("", parts[0])
            named = (
                bool(source) and not source.startswith((".", "/", "~", "$")) and "/" not in source
            )
        out.append((index, source, target.rstrip("/") or "/", named))
    return out
