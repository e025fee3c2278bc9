"""`hindsight doctor`: ordered checks that name the cause of a problem and its fix.

Each check reports ok / warn / fail / skip, the evidence it saw and the fix in one line. Checks
change nothing. This package imports no heavy library at import time; a check that needs one imports
it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

STATUSES = ("ok", "warn", "fail", "skip")


@dataclass(frozen=True)
class Check:
    """One finding: what was checked, how it went, what was seen, and what to do about it."""

    id: str
    status: str
    summary: str
    evidence: str = ""
    fix: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def ok(id: str, summary: str, evidence: str = "") -> Check:
    return Check(id, "ok", summary, evidence)


def warn(id: str, summary: str, evidence: str = "", fix: str = "") -> Check:
    return Check(id, "warn", summary, evidence, fix)


def fail(id: str, summary: str, evidence: str = "", fix: str = "") -> Check:
    return Check(id, "fail", summary, evidence, fix)


def skip(id: str, summary: str, evidence: str = "", fix: str = "") -> Check:
    return Check(id, "skip", summary, evidence, fix)
