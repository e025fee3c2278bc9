"""Where a user's stdio server reaches: each path its words, its shell and the scripts it runs
may lead to, resolved as its start resolves them (reviews AW, AZ, BC), for
``servers.names_project``."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from ..safefs.reading import open_regular
from .command_lines import SHELLS, launched, program, split_words
from .patterns import ANY, GLOB, Looks, Spent, may_match, within

if TYPE_CHECKING:
    from .servers import Server

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
# directories a server's words reach that its relative words are also resolved in (`cd ..; cd x`)
_MAX_BASES = 16
# what a `#!` line holds at most (Linux reads 256 bytes of it)
_SHEBANG = 256
# the files a server's words name that are read for what they reach (a wrapper script, what it
# sources, a script its interpreter runs), and how much of each: a shell script's words whole, the
# rest of a file (and any longer one) searched for the checkout's spellings up to _SEARCHED
_MAX_FILES = 16
_SCRIPT = 64 * 1024
_SEARCHED = 4 * 1024 * 1024
# the looks one file searched costs (review BF): a 64 KiB piece of its most, one each
_SPELLING = _SEARCHED >> 16
# a shell pipe (not `||`): what flows through it (`printf … | xargs node`) may be any path
_PIPE = re.compile(r"(?<!\|)\|(?!\|)")
# what a Python reads at its start that may name a directory it imports from, and how many of each
_PYTHON = re.compile(r"(?:python|pypy)[\d.]*[mtw]?")
_SITE = "lib/python*/*-packages"
_SITE_FILES = ("*.pth", "__editable__*.py", "*.egg-link")
_MAX_SITE = 64
# the entries of a module directory (`node_modules`, site-packages) looked at for links
_MAX_ENTRIES = 4096
# a short option's value written against it (`git -C$HOME/src/repo`, `make -C../repo`)
_ATTACHED = re.compile(r"-[A-Za-z](.+)", re.DOTALL)
# a shell's brace expansion (`{a,b}`, `{1..3}`), not a parameter's `${…}` nor a function's body
_BRACES = re.compile(r"(?<!\$)\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}")
# a quoted word holding a script (`eval "…"`, `sh -c "…"` inside one) is split again, this deep
_DEPTH = 4
# a server's words in all, at most (review BF): longer, it counts as reaching the checkout
_MAX_WORDS = _SCRIPT


def reached(
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
    ``PATH``, not only by its path spelled out. Words longer than ``_MAX_WORDS`` in all, or
    costing more than ``patterns.MAX_LOOKS``, reach it (review BF)."""
    if sum(map(len, values)) > _MAX_WORDS:
        yield real
        return
    try:
        yield from _reached(found, values, home, env, real, Looks())
    except Spent:
        yield real


def _reached(
    found: Server, values: list[str], home: str, env: Mapping[str, str], real: str, looks: Looks
) -> Iterator[str]:
    from .. import safefs
    from .handshake import host_env

    path_list = found.env.get("PATH", env.get("PATH", ""))
    bases = [found.cwd or home]
    # the entry's own HOME is its shell's `~`
    passed = {**host_env(found.env, path_list), "HOME": found.env.get("HOME", home)}
    shell = any(program([word]) in SHELLS for word in found.argv)
    texts = [_computed(value, shell) for value in values]
    if _read_files(found, texts, path_list, passed, bases[0], real, shell, looks):
        yield real
    variables = _variables(texts, passed, bases[0])
    # longer is no path (PATH_MAX)
    seen = {
        part: _expanded(part, variables, bases[0])
        for text in texts
        for part in _parts(text)
        if len(part) <= 4096
    }
    # again while a word reaches a directory more: a `cd` (or CDPATH) written after what it moves
    # to, in the script or the entry's env, counts for it too
    done = 0
    while done < len(bases):
        fresh, done = bases[done:], len(bases)
        for spelled in seen.values():
            # a path from `/` is the same from every directory: resolved once
            if not spelled.startswith(os.sep) or fresh[0] == bases[0]:
                yield from _resolved(spelled, fresh, bases, real, looks)
    yield from map(os.path.realpath, _programs(found, path_list, passed, bases[0]))
    # a directory of the checkout on its PATH: any bare word may be a program run from there (the
    # second command of its script, `nice foo`, `timeout 60 foo`, `npx foo`)
    inside = [
        place
        for place in (
            os.path.realpath(os.path.join(bases[0], p)) for p in path_list.split(os.pathsep) if p
        )
        if within(place, real)
    ]
    for word in seen if inside else ():
        looks.spend()
        if os.sep not in word and safefs.program(word, os.pathsep.join(inside)) is not None:
            yield real


def _programs(found: Server, path_list: str, passed: Mapping[str, str], start: str) -> list[str]:
    """The files its command and the program past its wrappers are: a bare name as ``PATH``
    finds it, a path from the directory it starts in."""
    from .. import safefs

    programs = []
    for command in {found.command or "", *launched(found.argv)[:1]}:
        spelled = _expanded(command, passed, start)
        if not spelled or ANY in spelled:
            continue
        if os.path.dirname(spelled):
            programs.append(os.path.join(start, spelled))
        elif (program := safefs.program(spelled, path_list)) is not None:
            programs.append(program)
    return programs


def _computed(text: str, shell: bool) -> str:
    """``text`` with what only running it gives (a command's output; in a shell's text, what a
    pipe carries, and a brace expansion's words: ``{wo,x}rk``) as ``ANY``."""
    text = _SUBSTITUTION.sub(ANY, text)
    if not shell:
        return text
    text = _BRACES.sub(ANY, text)
    return f"{ANY} {text}" if _PIPE.search(text) else text


def _parts(text: str) -> Iterator[str]:
    """Every word of ``text`` as a shell splits it, a quoted word again (``eval "cd /a""b"``, an
    ``sh -c`` inside one), and their parts (a ``PATH`` list, ``--x=path``, the value of a short
    option it is written against: ``-C$HOME/src/repo``, ``-r../repo/x.js``)."""
    words, depth = [text], 0
    while words and depth < _DEPTH:
        for word in words:
            yield from (part for part in (word, *_PARTS.split(word)) if part)
            if (attached := _ATTACHED.fullmatch(word)) is not None:
                yield attached[1]
        words = [w for word in words for w in split_words(word) if w != word]
        depth += 1


def _read_files(
    found: Server,
    texts: list[str],
    path_list: str,
    passed: Mapping[str, str],
    start: str,
    real: str,
    shell: bool,
    looks: Looks,
) -> bool:
    """Add to ``texts`` the words of the scripts a server runs (review BC): the ``#!`` line of its
    program (``#!/home/u/src/repo/.venv/bin/python``), the whole of a shell script it runs or one
    of its words names (a wrapper `~/bin/start-mcp` doing `cd ~/src/repo`, a file it sources), in
    turn for what they name, at most ``_MAX_FILES``. Whether another file a word names (a Python
    or JavaScript file its interpreter runs) spells the checkout's path, or ``~/…`` to it."""
    queue = [(path, False) for path in _programs(found, path_list, passed, start)]
    done: set[str] = set()
    first = 0
    home = os.fspath(passed["HOME"])
    # what `npx foo`, `node -e` find from where it starts
    looked: set[str] = set()
    bases = [start]
    if _modules_reach(iter(bases), real, looked):
        return True
    while len(done) < _MAX_FILES:
        variables = _variables(texts, passed, start)
        places = (
            _expanded(part, variables, start) for text in texts[first:] for part in _parts(text)
        )
        if _named(places, bases, queue, real, looked, shell, looks):
            return True
        first = len(texts)
        if not queue:
            break
        while queue and len(done) < _MAX_FILES:
            path, from_shell = queue.pop(0)
            looks.spend()
            try:
                place = os.path.realpath(path)
            except (OSError, ValueError):
                continue
            if _PYTHON.fullmatch(program([path])) and _python_reaches(path, home, real, looks):
                return True
            if place in done or within(place, real) or not os.path.isfile(place):
                continue
            done.add(place)
            scripts = (os.path.dirname(os.path.abspath(path)), os.path.dirname(place))
            if _modules_reach(iter(scripts), real, looked):
                return True
            if _read_one(place, from_shell, texts, queue, path_list, real, home):
                return True
            break
    return False


def _read_one(
    place: str,
    from_shell: bool,
    texts: list[str],
    queue: list[tuple[str, bool]],
    path_list: str,
    real: str,
    home: str,
) -> bool:
    """Read one file a server runs or names: its ``#!`` line to ``texts`` and what it names
    first in ``queue``, a shell script's text to ``texts`` (one whose ``#!`` names a shell, or
    one without it that a shell runs); whether another text file spells ``real``."""
    from .. import safefs

    head, data = _script(place)
    runs = launched(split_words(head)) if head else []
    if head:
        texts.append(_computed(head, False))
        # what runs it, found as the kernel finds it (or `env` in PATH)
        interpreter = runs[0] if runs and os.path.dirname(runs[0]) else None
        if runs and interpreter is None:
            interpreter = safefs.program(runs[0], path_list)
        if interpreter:
            queue.insert(0, (interpreter, False))
    if b"\0" in data:
        # a program, not a script
        return False
    if len(data) <= _SCRIPT and (program(runs) in SHELLS if head else from_shell):
        texts.append(_computed(data.decode("utf-8", "replace"), True))
        return False
    return _spells(place, real, home)


def _named(
    places: Iterator[str],
    bases: list[str],
    queue: list[tuple[str, bool]],
    real: str,
    looked: set[str],
    shell: bool,
    looks: Looks,
) -> bool:
    """Queue the files ``places`` (expanded parts) name, from each of ``bases``; a directory one
    names is a base too (where it may go: `cd ~/mcp && node index.js`, its files and its
    modules); whether the modules of one reach ``real``."""
    for spelled in places:
        looks.spend()
        if ANY in spelled or GLOB.search(spelled) or len(spelled) > 4096:
            continue
        for base in bases[:1] if os.path.isabs(spelled) else list(bases):
            looks.spend()
            named = os.path.join(base, spelled)
            if os.path.isdir(named) and len(bases) < _MAX_BASES and named not in bases:
                bases.append(named)
                if _modules_reach(iter((named,)), real, looked):
                    return True
            queue.append((named, shell))
    return False


def _python_reaches(interpreter: str, home: str, real: str, looks: Looks) -> bool:
    """Whether a Python imports from ``real`` at its start: a ``.pth`` file (or an editable
    install's finder, a ``.egg-link``) of its environment's site-packages (beside the path it is
    started as, a virtual environment's, and its real one) or of the user's (``~/.local``) names
    it (`uv tool install -e ~/src/repo`), or a package there is a link into it; one whose
    environment lies in ``real`` (a checkout's `.venv/bin/python`, whose site-packages review BF
    filled with links to a large file) reaches it. Each file read costs ``_SPELLING`` looks."""
    import glob
    from itertools import islice

    prefixes = {
        os.path.dirname(os.path.dirname(os.path.abspath(interpreter))),
        os.path.dirname(os.path.dirname(os.path.realpath(interpreter))),
        os.path.join(home, ".local"),
    }
    if any(within(os.path.realpath(prefix), real) for prefix in prefixes):
        return True
    for prefix in sorted(prefixes):
        for site in islice(glob.iglob(os.path.join(glob.escape(prefix), _SITE)), _MAX_SITE):
            if _linked_into(site, real):
                return True
            for pattern in _SITE_FILES:
                found = glob.iglob(os.path.join(glob.escape(site), pattern))
                for name in islice(found, _MAX_SITE):
                    looks.spend(_SPELLING)
                    if _spells(name, real, home):
                        return True
    return False


def _modules_reach(places: Iterator[str], real: str, looked: set[str]) -> bool:
    """Whether a package Node finds from one of ``places`` (a script's directory, the start's) is
    a link into ``real``: the ``node_modules`` of it and of every directory above it, as `npm
    link`, a `file:` dependency or a workspace make one (``looked``: those already listed)."""
    for place in places:
        here = place
        while True:
            modules = os.path.join(here, "node_modules")
            if modules not in looked:
                looked.add(modules)
                if _linked_into(modules, real):
                    return True
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    return False


def _linked_into(directory: str, real: str, depth: int = 2) -> bool:
    """Whether an entry of ``directory`` (or of an ``@scope`` in it), of the first
    ``_MAX_ENTRIES``, is a link whose target lies in ``real``."""
    from itertools import islice

    try:
        with os.scandir(directory) as listing:
            entries = list(islice(listing, _MAX_ENTRIES))
    except (OSError, ValueError):
        return False
    for entry in entries:
        try:
            if entry.is_symlink() and within(os.path.realpath(entry.path), real):
                return True
            if depth > 1 and entry.name.startswith("@") and entry.is_dir(follow_symlinks=False):
                if _linked_into(entry.path, real, depth - 1):
                    return True
        except (OSError, ValueError):
            continue
    return False


def _script(path: str) -> tuple[str, bytes]:
    """A file's ``#!`` line (else nothing) and its first ``_SCRIPT`` bytes and one more."""
    try:
        with open_regular(path) as handle:
            data = handle.read(_SCRIPT + 1)
    except OSError:
        return "", b""
    head = data[2:_SHEBANG].split(b"\n")[0] if data.startswith(b"#!") else b""
    return head.decode("utf-8", "replace"), data


def _spells(path: str, real: str, home: str) -> bool:
    """Whether a file's first ``_SEARCHED`` bytes spell the checkout's path, or (when it is under
    the home) its path from there after a ``~`` or a home (``~/src/repo``, ``$HOME/src/repo``,
    ``os.homedir() + '/src/repo'``)."""
    try:
        with open_regular(path) as handle:
            text = os.fsdecode(handle.read(_SEARCHED))
    except OSError:
        return False
    after = r"(?![\w.~+@-])"
    if re.search(re.escape(real) + after, text):
        return True
    if not within(real, home) or real == home:
        return False
    # each spelling from the home, then a `~` or a home before it on its line (40 characters)
    for match in re.finditer(re.escape(os.path.relpath(real, home)) + after, text):
        before = text[max(0, match.start() - 40) : match.start()].rsplit("\n", 1)[-1]
        if "~" in before or "home" in before.lower():
            return True
    return False


def _variables(texts: list[str], passed: Mapping[str, str], start: str) -> dict[str, str]:
    """The parameters a server's shell knows: its environment, then what its script assigns (one
    set twice, to two values, may be either at a point of the script: ``ANY``)."""
    assigned: dict[str, str] = {}
    for text in texts:
        for word in (w for words in split_words(text) for w in _OPERATORS.split(words)):
            if (assignment := _ASSIGNMENT.match(word)) is not None:
                value = _expanded(assignment[2], passed, start)
                if assigned.setdefault(assignment[1], value) != value:
                    assigned[assignment[1]] = ANY
    return {**passed, **assigned}


def _resolved(
    spelled: str, fresh: list[str], bases: list[str], real: str, looks: Looks
) -> Iterator[str]:
    """The places one expanded part reaches from each directory in ``fresh`` (a directory it
    reaches is added to ``bases``); ``real`` where, a pattern, it may reach it."""
    # what a command prints or the script sets, first: any path at all
    if spelled.startswith(ANY):
        yield real
        return
    for base in fresh[:1] if spelled.startswith(os.sep) else fresh:
        looks.spend()
        if ANY in spelled or GLOB.search(spelled):
            if may_match(os.path.join(base, spelled), real, looks):
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
    from ``variables``; an unset one or one with an operator is ``ANY`` (the script may set it),
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
        return ANY

    return _PARAMETER.sub(parameter, _TILDE.sub(tilde, part))
