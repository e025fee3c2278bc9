"""The signature module reads errors and commands without ``re`` (a recording hook pays for every
module it loads); each scanner is held here to the pattern it stands for, on generated text and on
real errors and commands."""

from __future__ import annotations

import re
import shlex

import pytest
from hypothesis import given, settings, strategies as st

from hindsight_cli.lessons import scanning, signatures

pytestmark = pytest.mark.no_store

_SUFFIXES = "|".join(scanning.SUFFIXES)
EXCEPTION = re.compile(
    r"^\s*(?:E\s+)?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:" + _SUFFIXES + r"))(?::\s*(.*?))?\s*$"
)
MESSAGE = re.compile(
    r"error|not found|no such file|cannot|can't|unrecognized|invalid|unknown option"
    r"|permission denied|failed|unterminated|unexpected",
    re.I,
)
SHORT_QUOTE = re.compile(r"'[^'\s]{1,40}'|\"[^\"\s]{1,40}\"")
QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
PATH = re.compile(r"(?:/[\w.-]+)+")
HEX = re.compile(r"0x[0-9a-fA-F]+")
CAPS = re.compile(r"(?<![\w])[A-Z][A-Z0-9_]{2,}(?![\w])")
DIGITS = re.compile(r"\d+")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
DURATION = re.compile(r"^\d+(?:\.\d+)?[smhd]?$")
PYTHON = re.compile(r"^python(?:\d+(?:\.\d+)*)?$")


def normalise(message: str) -> str:
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(DIGITS.sub("N", match.group(0)))
        return "\0"

    text = SHORT_QUOTE.sub(keep, message.replace("\0", ""))
    for pattern, by in ((QUOTED, "Q"), (PATH, "P"), (HEX, "H"), (CAPS, "C"), (DIGITS, "N")):
        text = pattern.sub(by, text)
    restored = iter(kept)
    text = re.sub("\0", lambda _: next(restored), text)
    return " ".join(text.lower().split()[: signatures.SIGNATURE_WORDS])


def shell_words(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False)
    except ValueError:
        return text.split()


# what errors and commands are made of, and the characters where the patterns and Python's string
# methods could disagree (other scripts' letters and digits, letters that fold to ASCII, spaces)
ALPHABET = st.sampled_from(
    list("aAeEbBxXzZ09_.-/:'\"\\ \t\n=|&;<>()[]{}$`*?!,#%+@~")
    + list("éßДж中ٳ٣²İıſK\u00a0\u2028\x0b")
)
TEXT = st.text(ALPHABET, max_size=60)
WORDS = st.lists(
    st.sampled_from(
        [
            "E",
            "ValueError",
            "os.errors.NotFound",
            "KeyError:",
            "Error:",
            "x.Error",
            "_Exit",
            "DoesNotExist",
            "SystemExit",
            "Invalid",
            "ModuleNotFoundError:",
            "No",
            "module",
            "named",
            "'reproduce_app'",
            '"a b"',
            "/usr/lib/python3.11/x.py",
            "0x7f3a",
            "MAX_SIZE",
            "line",
            "42",
            "3.14",
            "cannot",
            "CAN'T",
            "ſailed",
            "unexpected",
            "python3.11",
            "-m",
            "pytest",
            "FOO=1",
            "10s",
            "&&",
            "||",
            ";",
            "|",
            "<<EOF",
            "\\",
            "'",
            '"',
        ]
    )
    | TEXT,
    max_size=12,
).map(" ".join)
MIXED = TEXT | WORDS

REAL = [
    "E   ModuleNotFoundError: No module named 'reproduce_app'",
    "Traceback (most recent call last):",
    '  File "/testbed/sympy/core/basic.py", line 1089, in subs',
    "sympy.core.sympify.SympifyError: SympifyError: 'x**2 + 0x1F'",
    "AttributeError: 'NoneType' object has no attribute 'shape'",
    "error: pathspec 'feature/x' did not match any file(s) known to git",
    "bash: line 1: python2: command not found",
    "npm ERR! code ERESOLVE",
    "ls: cannot access '/tmp/nothing': No such file or directory",
    "FAILED tests/test_api.py::test_login - AssertionError: assert 401 == 200",
    "django.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS",
    "thread 'main' panicked at src/main.rs:4:5: index out of bounds",
    "E       assert 0x10 == 17",
    "error[E0382]: borrow of moved value: `v`",
    "Permission denied (publickey).",
]
COMMANDS = [
    "cd /testbed && python reproduce_issue.py",
    "timeout 60 python -m pytest tests/test_x.py -x -q 2>&1 | tail -20",
    'python -c "import sympy; print(sympy.__version__)"',
    "FOO=1 BAR='a b' sudo env python3.11 -W ignore script.py",
    "cat <<'EOF' > fix.py\nprint(1)\nEOF\npython fix.py",
    'grep -rn "def subs" sympy/core/ | head -5; echo done',
    "sed -i 's/old/new/' \"file name.py\" && git diff",
    "echo 'unterminated && python run.py",
]


def _exception(line: str) -> tuple[str, str | None] | None:
    match = EXCEPTION.match(line)
    return None if match is None else (match.group(1), match.group(2))


@settings(max_examples=400, deadline=None)
@given(MIXED)
def test_the_exception_scanner_reads_as_its_pattern(line: str) -> None:
    for text in line.splitlines() or [line]:
        assert scanning.exception(text) == _exception(text)
        assert scanning.says_error(text) == bool(MESSAGE.search(text))


@settings(max_examples=400, deadline=None)
@given(MIXED)
def test_normalise_reads_as_its_patterns(message: str) -> None:
    assert signatures.normalise(message) == normalise(message)


@settings(max_examples=400, deadline=None)
@given(MIXED)
def test_words_split_as_shlex_splits_them(command: str) -> None:
    assert signatures._words(command) == (
        shell_words(command) if any(c in command for c in "'\"\\") else command.split()
    )


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(list("python3.1-_=smhd0Aa5٣²")), max_size=12))
def test_word_tests_read_as_their_patterns(word: str) -> None:
    assert scanning.is_assignment(word) == bool(ASSIGNMENT.match(word))
    assert scanning.is_duration(word) == bool(DURATION.match(word))
    assert scanning.is_python(word) == bool(PYTHON.match(word))


@pytest.mark.parametrize("line", REAL)
def test_real_errors_read_as_the_patterns_read_them(line: str) -> None:
    assert scanning.exception(line) == _exception(line)
    assert scanning.says_error(line) == bool(MESSAGE.search(line))
    assert signatures.normalise(line) == normalise(line)


@pytest.mark.parametrize("command", COMMANDS)
def test_real_commands_split_as_shlex_splits_them(command: str) -> None:
    for part in command.split("\n"):
        assert signatures._words(part) == (
            shell_words(part) if any(c in part for c in "'\"\\") else part.split()
        )


def test_the_signature_of_a_failure_does_not_load_re() -> None:
    import subprocess
    import sys

    from hindsight_cli.lessons import signatures as module

    code = (
        "import sys, types\n"
        "package = types.ModuleType('hindsight_cli')\n"
        f"package.__path__ = [{str(module.__file__).rsplit('/lessons/', 1)[0]!r}]\n"
        "sys.modules['hindsight_cli'] = package\n"
        "from hindsight_cli.lessons import signatures as s\n"
        "output = 'Exit code 1\\nE   ModuleNotFoundError: No module named \"x\" /a/b.py:12 0x1f'\n"
        "family = s.call_family('Bash', 'timeout 9 python -c \"import x\" && pytest -q')\n"
        "print(s.kind(family, s.read_error(output)[0]), 're' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.split("\n")[0] == (
        'pytest | ModuleNotFoundError: no module named "x" p:n h False'
    )
