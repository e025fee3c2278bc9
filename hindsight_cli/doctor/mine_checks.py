"""Checks of the coding agents' histories on this machine: which exist, and how much of each the
store has mined (``hindsight doctor mine``). Claude Code deletes transcripts after
``cleanupPeriodDays`` (30 by default), so history that is not mined is lost for good."""

from __future__ import annotations

from pathlib import Path

from .. import paths
from . import Check, ok, skip, warn

_CLEANUP_DAYS = 30


def run(store: Path | None = None) -> list[Check]:
    from ..transcripts import CLIENTS, reader, survey

    target = paths.resolve_store(store).path
    checks = []
    for client in CLIENTS:
        found = survey.find(client)
        check_id = f"mine.{client}"
        if not found.roots and found.error:
            checks.append(
                warn(
                    check_id,
                    f"{found.title} history could not be read",
                    found.error,
                    f"check the file it names, then run `hindsight mine {client}`",
                )
            )
            continue
        if not found.roots:
            looked = ", ".join(str(r) for r in reader(client).default_roots())
            checks.append(
                skip(check_id, f"no {found.title} history on this machine", f"looked in {looked}")
            )
            continue
        survey.covered(found, target)
        size = f"{found.size} messages" if client == "opencode" else f"{found.size / 1e6:.1f} MB"
        seen = (
            f"{len(found.units)} transcripts ({size}) in {', '.join(map(str, found.roots))}; "
            f"{found.share:.0%} mined into {target}" + (f"; {found.error}" if found.error else "")
        )
        if found.share >= 0.999 and not found.error:
            checks.append(ok(check_id, f"{found.title} history mined", seen))
            continue
        why = _cleanup(client)
        checks.append(
            warn(
                check_id,
                f"{found.title} history not fully mined" + (f" ({why})" if why else ""),
                seen,
                f"run `hindsight mine {client}` (or `hindsight mine --all`)",
            )
        )
    return checks


def _cleanup(client: str) -> str:
    """Why waiting loses history: Claude Code's retention of transcripts."""
    if client != "claude-code":
        return ""
    from ..safefs.reading import MAX_DOCUMENT, parse_json, read_regular
    from ..transcripts.claude_code import default_roots

    settings = default_roots()[0].parent / "settings.json"
    try:
        days = parse_json(read_regular(settings, MAX_DOCUMENT)).get(
            "cleanupPeriodDays", _CLEANUP_DAYS
        )
    except (OSError, ValueError, AttributeError):
        days = _CLEANUP_DAYS
    return f"Claude Code deletes transcripts after {days} days (cleanupPeriodDays)"
