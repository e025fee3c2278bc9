"""At session end: whether the agent used what this session's injections gave it, read from the
session's transcript (``core/verdicts.py``), into the injection record. A transcript that cannot be
read judges nothing."""

from __future__ import annotations

import logging
from pathlib import Path

from ..core.verdicts import Call
from ..errors import HindsightError
from ..store import Store
from ..transcripts import CLIENTS, reader

log = logging.getLogger("hindsight.hooks")


def judge_session(store: Store, session: str, client: str, transcript: str | None) -> int:
    """Record a verdict for each memory of this session's injections not judged yet; returns how
    many. Never raises for a transcript it cannot read."""
    if not session or not transcript or client not in CLIENTS or client == "opencode":
        return 0
    try:
        if not Path(transcript).is_file():
            return 0
    # a name past the file system's limit, a directory it may not search: ``is_file`` raises them
    except OSError:
        return 0
    module = reader(client)
    if not hasattr(module, "shell_calls"):
        return 0
    try:
        found = module.shell_calls(Path(transcript))
    except (OSError, ValueError, HindsightError) as error:
        # a hook prints nothing on stderr (WARNING would reach it through logging's last resort)
        log.debug("the transcript %s could not be read for verdicts: %s", transcript, error)
        return 0
    calls = [Call(c.command, c.code, c.output, c.call) for c in found.calls]
    return store.judge_session(session, calls)
