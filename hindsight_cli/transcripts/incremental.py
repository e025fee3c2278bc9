"""What the hooks call: mine one transcript from where its last run stopped, and the transcripts
that session-closing events name, without one unreadable transcript ever holding the spool up."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from . import state
from .base import file_unit
from .miner import Miner, Tally

if TYPE_CHECKING:
    from ..models import JSONObject
    from ..store import Store

# where the hooks' ingestion reports a transcript it could not mine
_hook_log = logging.getLogger("hindsight.hooks")


def mine_transcript(
    store: Store, path: str | Path, client: str = "claude-code", *, summaries: bool = False
) -> Tally:
    """Mine one transcript incrementally (what the Stop / SessionEnd hook calls): only what was
    appended since the last call is read. Cheap when nothing is new: see ``pending``."""
    from . import reader

    # what it skips (a transcript it cannot read) goes where the hooks' ingestion reports
    return Miner(store, summaries=summaries, warn=_hook_log.warning).mine(
        reader(client), [file_unit(client, Path(path))]
    )


def pending(store_path: str | Path, path: str | Path, client: str = "claude-code") -> bool:
    """Whether a transcript has anything new to mine, without opening the store (a stat and a small
    read)."""
    try:
        unit = file_unit(client, Path(path))
    except OSError:
        return False
    saved = state.load(Path(store_path), unit.id, client)
    return not (saved.done and saved.stamp == unit.stamp)


def mine_named(store: Store, lines: list[JSONObject]) -> int:
    """The transcripts that session-closing events named are mined (only what was appended since the
    last time), so a session keeps its whole exchange, not only its errors. A missing or unreadable
    transcript is skipped: it must not keep the spool from being ingested."""
    from . import CLIENTS

    mined = 0
    for client, path in sorted(
        {
            (str(x.get("client")), str(x.get("transcript")))
            for x in lines
            if x.get("transcript") and x.get("client") in CLIENTS
        }
    ):
        try:
            if pending(store.path, path, client):
                mine_transcript(store, path, client)
                mined += 1
        # anything else too (a value a reader never met): one transcript never keeps the spool
        # from being ingested, which would retry it, and fail, at every later ingestion
        except Exception as error:  # noqa: BLE001
            _hook_log.warning("could not mine %s: %s: %s", path, type(error).__name__, error)
    return mined
