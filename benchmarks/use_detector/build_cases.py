"""Build the unlabelled cases of the use detector's benchmark from mini-swe-agent trajectories.

    python benchmarks/use_detector/build_cases.py /work/replay-data/dev > cases.json

A case is a failure of a session (the first of its kind in that session, as the replay's probes
take them), a memory that could have been injected for it (the fix of a failure of another session
of the same project: one of the same kind, ``same-kind``, and one of the same command family but
another error, ``same-family``), and the session's next ten commands with their exit codes and
whether each failed with the same kind of error again. Only what the detector and a reader need is
kept: commands cut to 120 characters, the fix's last four commands, the session's ten commands
before the failure, no outputs. Labels are added by hand (``label``) in
``cases.json``; ``bench_use_detector.py`` reports the detector against them.
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
# commands of the memory's fix kept (its last ones: the acting part and the success)
FIX = 4


def _cut(text: str) -> str:
    return text if len(text) <= CUT else text[:CUT] + "…"


def _pick(failure: probes.Failure, pool: list[tuple[float, probes.Failure]], start: float):
    """The fix of the latest earlier session, else of the first later one."""
    earlier = [f for t, f in pool if t < start]
    later = [f for t, f in pool if t >= start]
    return earlier[-1] if earlier else (later[0] if later else None)


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


def build(folder: Path) -> list[dict[str, object]]:
    found = sessions.load(sorted(folder.glob("*/*.traj.json")))
    by_project: dict[str, list[probes.Session]] = defaultdict(list)
    for session in found:
        by_project[session.project].append(session)
    cases: list[dict[str, object]] = []
    for project, members in sorted(by_project.items()):
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
                        cases.append(_case(project, "same-session", session, failure, earlier))
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
                    if memory is None:
                        continue
                    cases.append(_case(project, relation, session, failure, memory))
    return cases


def _case(
    project: str,
    relation: str,
    session: probes.Session,
    failure: probes.Failure,
    memory: probes.Failure,
) -> dict[str, object]:
    return {
        "id": f"{failure.id}~{memory.id}",
        "project": project,
        "relation": relation,
        "kind": failure.kind,
        "failed": _cut(session.steps[failure.index].command),
        "fix": [_cut(c) for c in memory.fix[-FIX:]],
        "memory_kind": memory.kind,
        "earlier": [
            _cut(s.command) for s in session.steps[max(0, failure.index - EARLIER) : failure.index]
        ],
        "later": _later(session, failure),
    }


if __name__ == "__main__":
    json.dump(build(Path(sys.argv[1])), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
