"""Which redaction rules and detector patterns take longer than linear time on their own words.

Not a test (pytest does not collect it); run it by hand:

    python benchmarks/rule_scaling.py            # every rule and pattern
    python benchmarks/rule_scaling.py --rule 42  # one (its number as the list prints it)
    python benchmarks/rule_scaling.py --list     # the numbers and where each comes from
    python benchmarks/rule_scaling.py --from 900 # the rest of a run cut short

Each redaction rule of ``hindsight_cli/redact`` (its pattern as ``redact._apply`` compiles it, and
its check) and each pattern of ``hindsight_cli/poisoning`` (module-level ones, those its cached
functions compile, and every slot of ``detect._families()``) is run on texts made of its own literal
words (the runs of literal characters in its source, and a redaction rule's trigger words) repeated
with a dozen separators, at 4, 16 and 64 KB. The time is the CPU time of that rule alone (its
``finditer`` and, for a redaction rule, its check on every match). A rule whose time grows faster
than linear (more than ``RATIO`` times from one size to the next four times as long, and past
``FLOOR`` seconds at the largest) is printed with the ratio, and the script exits 1. A rule that
would take longer than ``CAP`` seconds at 64 KB from its 16 KB ratio is reported without the run.

Reviews BD and BG found eleven such rules this way by hand (docs/reliability.md).

A pattern is timed alone on the whole text: where its caller reads it on a bounded window (the
detector's vocatives, a sentence its needles chose), check a flagged one through
``poisoning.instruction_like`` or ``redact.redact`` before calling it a break.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SIZES = (4_096, 16_384, 65_536)
SEPARATORS = ("", " ", "=", "=x", ":", "-", "/", ".", "_", ",", '"', "\n", " = ", ";")
# linear is 4 from one size to the next; quadratic 16
RATIO = 8.0
# below this at the largest size, a rule is fast whatever its ratio (timer noise)
FLOOR = 0.05
# a run that would take longer than this is extrapolated, not run
CAP = 20.0
# literal words read from one pattern
MAX_WORDS = 6

_Run = Callable[[str], None]


def _literals(source: str, flags: int = 0) -> list[str]:
    """Runs of two or more literal characters in a pattern's source (its words), lowest first."""
    from re import _parser  # type: ignore[attr-defined]

    try:
        tree = _parser.parse(source, flags)
    except Exception:
        return []
    found: list[str] = []

    def walk(items: object) -> None:
        run: list[str] = []
        for op, value in items:  # type: ignore[attr-defined]
            if op is _parser.LITERAL:
                run.append(chr(value))
                continue
            if len(run) > 1:
                found.append("".join(run))
            run = []
            if op is _parser.BRANCH:
                for branch in value[1]:
                    walk(branch)
            elif op is _parser.SUBPATTERN:
                walk(value[-1])
            elif op is _parser.ATOMIC_GROUP:
                walk(value)
            elif op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT):
                walk(value[2])
            elif op in (_parser.ASSERT, _parser.ASSERT_NOT):
                walk(value[1])
        if len(run) > 1:
            found.append("".join(run))

    walk(tree)
    return found


def _pick(words: list[str]) -> list[str]:
    """At most ``MAX_WORDS`` distinct words: the first ones and the longest ones."""
    unique = list(dict.fromkeys(w for w in words if w.strip()))
    chosen = unique[: MAX_WORDS // 2] + sorted(unique, key=len, reverse=True)[: MAX_WORDS // 2]
    return list(dict.fromkeys(chosen))


def _redaction_rules() -> Iterator[tuple[str, list[str], Callable[[str], _Run]]]:
    from hindsight_cli import redact
    from hindsight_cli.redact import blanks
    from hindsight_cli.redact.words import fold

    for position, (kind, pattern, words, check, _) in enumerate(redact._RULES):
        literal = _literals(pattern.replace("{words}", "(?!)"))
        sample = _pick(literal + list(words))

        def prepare(text: str, pattern: str = pattern, words=words, check=check) -> _Run:
            folded = fold(text)
            compiled = redact._compiled(pattern, words, folded)
            view = blanks.view(text)[0]

            def run(_: str) -> None:
                for match in compiled.finditer(view):
                    if check is not None:
                        check(match, False)

            return run

        yield f"redact[{position}] {kind}", sample, prepare


def _poisoning_patterns() -> Iterator[tuple[str, list[str], Callable[[str], _Run]]]:
    seen: dict[tuple[str, int], str] = {}
    compile_ = re.compile

    def recorded(source: str, flags: int = 0) -> re.Pattern[str]:
        # the patterns the detector's cached functions compile when they are first called
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.startswith("hindsight_cli.poisoning") and isinstance(source, str):
            seen.setdefault((source, int(flags)), f"{caller.rsplit('.', 1)[-1]} (compiled)")
        return compile_(source, flags)

    re.compile = recorded  # type: ignore[assignment]
    try:
        import hindsight_cli.poisoning as poisoning

        corpus = Path(__file__).resolve().parents[1] / "tests" / "data" / "poisoning"
        for path in sorted(corpus.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                poisoning.instruction_like(json.loads(line).get("text") or line)
    finally:
        re.compile = compile_  # type: ignore[assignment]
    for info in pkgutil.iter_modules(poisoning.__path__):
        module = importlib.import_module(f"{poisoning.__name__}.{info.name}")
        for name, value in sorted(vars(module).items()):
            for found in _patterns_in(value):
                seen.setdefault((found.pattern, found.flags), f"{info.name}.{name}")
            cached = getattr(value, "cache_info", None)
            if cached is not None and getattr(value, "__module__", "") == module.__name__:
                try:
                    result = value()
                except TypeError:
                    continue
                for found in _patterns_in(result):
                    seen.setdefault((found.pattern, found.flags), f"{info.name}.{name}()")
    from hindsight_cli.poisoning import detect

    for _, families in detect._families():
        for family in families:
            for index in range(len(family.slots)):
                found = family.slot(index)
                seen.setdefault((found.pattern, found.flags), f"{family.kind} slot {index}")
    for (source, flags), where in seen.items():
        if not isinstance(source, str):
            continue
        sample = _pick([w.lower() for w in _literals(source, flags)])

        def prepare(text: str, compiled=re.compile(source, flags)) -> _Run:
            def run(_: str) -> None:
                for _match in compiled.finditer(text.lower()):
                    pass

            return run

        yield f"poisoning {where}", sample, prepare


def _patterns_in(value: object, depth: int = 0) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 3 and isinstance(value, (tuple, list, frozenset, set)):
        for item in value:
            yield from _patterns_in(item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, depth + 1)


def _text(word: str, separator: str, size: int) -> str:
    unit = word + separator
    return (unit * (size // len(unit) + 1))[:size]


def _seconds(prepare: Callable[[str], _Run], text: str) -> float:
    run = prepare(text)
    started = time.process_time()
    run(text)
    return time.process_time() - started


def _scaling(prepare: Callable[[str], _Run], words: list[str]) -> tuple[float, str, list[float]]:
    """The worst growth over the rule's words and separators: (ratio, the case, its times)."""
    worst: tuple[float, str, list[float]] = (0.0, "", [])
    for word in words:
        for separator in SEPARATORS:
            times: list[float] = []
            for size in SIZES:
                if len(times) > 1:
                    ratio = times[-1] / max(times[-2], 1e-4)
                    if times[-1] * 16 < FLOOR and ratio <= RATIO:
                        # not past the floor at the next size even if quadratic from here
                        break
                    if times[-1] * ratio > CAP:
                        times.append(times[-1] * ratio)
                        break
                times.append(_seconds(prepare, _text(word, separator, size)))
            ratio = times[-1] / max(times[-2], 1e-4)
            if times[-1] >= FLOOR and ratio > worst[0]:
                worst = (ratio, f"{word!r} + {separator!r}", times)
    return worst


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rule", type=int, help="only this rule (its number in --list)")
    parser.add_argument("--list", action="store_true", help="print the rules' numbers and stop")
    parser.add_argument("--from", dest="start", type=int, default=0, help="start at this number")
    args = parser.parse_args()
    rules = [*_redaction_rules(), *_poisoning_patterns()]
    if args.list:
        for number, (name, words, _) in enumerate(rules):
            print(f"{number:5d}  {name}  {words[:3]}")
        return 0
    chosen = [rules[args.rule]] if args.rule is not None else rules[args.start :]
    numbers = [args.rule] if args.rule is not None else range(args.start, len(rules))
    slow = 0
    for number, (name, words, prepare) in zip(numbers, chosen, strict=True):
        if number % 100 == 0:
            print(f"... {number} of {len(rules)}", file=sys.stderr, flush=True)
        ratio, case, times = _scaling(prepare, words)
        if ratio > RATIO:
            slow += 1
            shown = ", ".join(f"{t:.3f}" for t in times)
            print(f"{number:5d}  {name}: x{ratio:.1f} per 4x ({case}; {shown} s)", flush=True)
        elif args.rule is not None:
            print(f"{number:5d}  {name}: linear (worst x{ratio:.1f}, {case or 'all fast'})")
    print(f"{slow} of {len(chosen)} faster than linear")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
