"""One store id, one approved path: ``HINDSIGHT_HOME/allowed/<id>`` names the path a store id is
approved at, so approving a second store that holds the same id would withdraw the first's approval.
Two stores hold one id when one is a copy of the other, another clone or worktree of a repository
that commits its store's id, or a repository that took the id of another (review AR: approving it
left the user's own store unapproved, unsaid, and its hooks stopped recording).

Standard library and ``safefs`` only: ``trust.allow`` asks it, giving what it reads with.
"""

from __future__ import annotations

import os

from .. import safefs
from ..errors import UnsafeLocation

# not `typing`: the recording hooks must not import it
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def approved_elsewhere(
    found: str, where: str, allowed: str, id_of: Callable[[str], str | None]
) -> str | None:
    """The other path at which the store id ``found`` is approved (its entry in the allow-list
    directory ``allowed``), while a store holding that id (``id_of``) is still there; None when
    there is none (the approved store moved away, or holds another id)."""
    try:
        text = safefs.read_trusted(os.path.join(allowed, found), "The allow-list entry")
    except (OSError, UnicodeDecodeError, UnsafeLocation):
        return None
    other = (text or "").strip()
    return other if other and other != where and id_of(other) == found else None


def check_alone(
    found: str | None, where: str, allowed: str, id_of: Callable[[str], str | None]
) -> None:
    """Refuse to approve the store at ``where`` under the id ``found`` while that id is approved
    for another store still there (``approved_elsewhere``): one line naming it and how to go on."""
    other = None if found is None else approved_elsewhere(found, where, allowed, id_of)
    if other is not None:
        raise UnsafeLocation(
            f"The store {where} holds the id of the store you approved at {other} (a copy of it, "
            "another clone or worktree of its repository, or a repository that took its id): one "
            "id is approved at one path, and approving this one would withdraw that one. Run "
            f"`hindsight deny {other}` first, or give this store an id of its own (where it holds "
            f"nothing but its config: remove its store-id, then run `hindsight init --store "
            f"{where}`). Nothing was changed."
        )
