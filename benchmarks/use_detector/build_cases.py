"""Build the unlabelled cases of the use detector's benchmark from mini-swe-agent trajectories.

    python benchmarks/use_detector/build_cases.py /work/replay-data/dev > repeats.json
    python benchmarks/use_detector/build_cases.py --pairs /work/replay-data/dev > cases.json

A case of ``repeats.json`` is a **repeat**: a failure whose kind (``family | signature``) was
fixed before it, earlier in the same session or in an earlier session of the same project
(``hindsight_cli.evals.probes.repeats``, over the failures, kinds and fixes ``hindsight eval
replay`` uses). It is paired with a memory the hooks could have injected there: the fix that
resolved an earlier occurrence (the commands from that failure to the success of the same family:
``same-session`` or
``earlier-session``, up to three distinct fixes, latest first), or, as a negative, the fix of a
*different* error of the same project fixed before it (``decoy``: one of the same command family
when there is one, one of another family). The agent's next ten commands, with their exit codes and
whether each failed with the same kind of error again, show whether it did that fix again. Only
what the detector and a reader need is kept: commands cut to 120 characters, the session's ten
commands before the failure, no outputs. Labels are added by reading each case (``label``);
``bench_use_detector.py`` reports the detector against them. ``django`` is never read: it is the
replay's held-out project.

``--pairs`` builds the first set, ``cases.json``: a session's first failure of each kind paired with
the fix of a failure of another session of the same project (one of the same kind, ``same-kind``;
one of the same command family and another error, ``same-family``; the fix's last four commands),
or with the session's own earlier fix of it (``same-session``). An agent that never saw a memory
applies another session's fix only by coincidence, so that set holds few positives.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hindsight_cli.evals import probes, sessions  # noqa: E402
from hindsight_cli.lessons.signatures import family, signature  # noqa: E402

CUT = 120
LATER = 10
# commands of the session before the failure kept (what the agent already had in hand)
EARLIER = 10
# distinct earlier fixes kept per repeat
FIXES = 3
# commands of another session's fix kept in a pair (its last ones: the acting part and the success)
PAIR_FIX = 4
HELD_OUT = "django"


def _cut(text: str) -> str:
    return text if len(text) <= CUT else text[:CUT] + "…"


def _later(session: probes.Session, failure: probes.Failure) -> list[dict[str, object]]:
    out = []
    for step in session.steps[failure.index + 1 : failure.index + 1 + LATER]:
        name = family(step.command)
        sign = signature(step.output) if step.code and name else None
        out.append(
            {
                "command": _cut(step.command),
                "code": step.code,
                "same_error": bool(sign) and f"{name} | {sign}" == failure.kind,
            }
        )
    return out


def _memories(
    failure: probes.Failure,
    earlier: list[probes.Failure],
    before: list[probes.Failure],
) -> list[tuple[str, probes.Failure]]:
    """The earlier fixes of the repeat (distinct commands), then the decoys: the latest fixed
    failure of another kind of the same family, and of another family."""
    out: list[tuple[str, probes.Failure]] = []
    seen: set[tuple[str, ...]] = set()
    for memory in earlier:
        if memory.fix not in seen and len(seen) < FIXES:
            seen.add(memory.fix)
            relation = "same-session" if memory.session == failure.session else "earlier-session"
            out.append((relation, memory))
    others = [f for f in before[::-1] if f.kind != failure.kind and f.fix not in seen]
    for same_family in (True, False):
        decoy = next((f for f in others if (f.family == failure.family) == same_family), None)
        if decoy is not None:
            out.append(("decoy", decoy))
    return out


def _projects(folder: Path) -> list[tuple[str, list[probes.Session]]]:
    paths = [p for p in sorted(folder.glob("*/*.traj.json")) if HELD_OUT not in p.name]
    by_project: dict[str, list[probes.Session]] = defaultdict(list)
    for session in sessions.load(paths):
        by_project[session.project].append(session)
    return sorted(by_project.items())


def build(folder: Path) -> list[dict[str, object]]:
    cases: list[dict[str, object]] = []
    for project, members in _projects(folder):
        fixed = {s.id: [f for f in probes.failures(s) if f.fixed] for s in probes.ordered(members)}
        order = list(fixed)
        for session, failure, earlier in probes.repeats(members):
            before = [f for sid in order[: order.index(session.id)] for f in fixed[sid]]
            before += [f for f in fixed[session.id] if f.index + len(f.fix) < failure.index]
            for relation, memory in _memories(failure, earlier, before):
                cases.append(_case(project, relation, session, failure, memory))
    return cases


def _pick(failure: probes.Failure, pool: list[tuple[float, probes.Failure]], start: float):
    """The fix of the latest earlier session, else of the first later one."""
    earlier = [f for t, f in pool if t < start]
    later = [f for t, f in pool if t >= start]
    return earlier[-1] if earlier else (later[0] if later else None)


def build_pairs(folder: Path) -> list[dict[str, object]]:
    cases: list[dict[str, object]] = []
    for project, members in _projects(folder):
        ordered = probes.ordered(members)
        fixed = [(s.start, s.id, f) for s in ordered for f in probes.failures(s) if f.fixed]
        for session in ordered:
            seen: set[str] = set()
            fixed_here: dict[str, probes.Failure] = {}
            for failure in probes.failures(session):
                if failure.kind in seen:
                    # the same error again in the session, after a fix of it: that fix
                    earlier = fixed_here.get(failure.kind)
                    # fixed before this failure (not by commands that come after it)
                    if earlier is not None and earlier.index + len(earlier.fix) < failure.index:
                        cases.append(
                            _case(project, "same-session", session, failure, earlier, PAIR_FIX)
                        )
                    continue
                seen.add(failure.kind)
                if failure.fixed:
                    fixed_here[failure.kind] = failure
                others = [(t, f) for t, sid, f in fixed if sid != session.id]
                for relation, pool in (
                    ("same-kind", [(t, f) for t, f in others if f.kind == failure.kind]),
                    (
                        "same-family",
                        [
                            (t, f)
                            for t, f in others
                            if f.family == failure.family and f.kind != failure.kind
                        ],
                    ),
                ):
                    memory = _pick(failure, pool, session.start)
                    if memory is not None:
                        cases.append(_case(project, relation, session, failure, memory, PAIR_FIX))
    return cases


def _case(
    project: str,
    relation: str,
    session: probes.Session,
    failure: probes.Failure,
    memory: probes.Failure,
    keep: int = 0,
) -> dict[str, object]:
    return {
        "id": f"{failure.id}~{memory.id}",
        "project": project,
        "relation": relation,
        "kind": failure.kind,
        "failed": _cut(session.steps[failure.index].command),
        "fix": [_cut(c) for c in memory.fix[-keep:]],
        "memory_kind": memory.kind,
        "earlier": [
            _cut(s.command) for s in session.steps[max(0, failure.index - EARLIER) : failure.index]
        ],
        "later": _later(session, failure),
    }


if __name__ == "__main__":
    pairs = sys.argv[1] == "--pairs"
    folder = Path(sys.argv[-1])
    json.dump((build_pairs if pairs else build)(folder), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
