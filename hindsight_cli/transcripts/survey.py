"""Which coding agents' histories are on this machine, and how much of each a store has mined
(``hindsight mine --all`` shows it first; ``hindsight doctor mine`` reports it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidInput
from . import CLIENTS, reader, state
from .base import Unit


@dataclass
class Found:
    """One client's history: where it is, its transcripts, their size and how much of it is
    mined."""

    client: str
    title: str
    roots: list[Path] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    size: int = 0
    mined: int = 0
    error: str = ""

    @property
    def share(self) -> float:
        return self.mined / self.size if self.size else 1.0


def find(client: str, root: Path | None = None) -> Found:
    """The transcripts of ``client`` under ``root`` (default: where the client keeps them)."""
    module = reader(client)
    found = Found(client, module.TITLE)
    roots = [root] if root is not None else [r for r in module.default_roots() if r.exists()]
    for place in roots:
        try:
            units = list(module.units(place))
        except (OSError, ValueError) as error:
            found.error = f"{place}: {error}"
            continue
        except InvalidInput as error:
            if root is not None:
                # the place the user named: said as the error it is
                raise
            # a client's database another program damaged: its history is skipped and named,
            # never every other client's (`mine --all`, `doctor mine`)
            found.error = str(error)
            continue
        found.roots.append(place)
        found.units.extend(units)
    found.size = sum(u.size for u in found.units)
    return found


def covered(found: Found, store: Path) -> Found:
    """Fill in how much of ``found`` the store at ``store`` has mined (bytes, or messages for
    OpenCode)."""
    states = {s.unit: s for s in state.all_states(store) if s.client == found.client}
    mined = 0
    for unit in found.units:
        saved = states.get(unit.id)
        if saved is None:
            continue
        reached = (
            saved.size if saved.done else (saved.cursor if isinstance(saved.cursor, int) else 0)
        )
        mined += min(unit.size, int(reached or 0)) if saved.stamp != unit.stamp else unit.size
    found.mined = mined
    return found


def survey(store: Path) -> list[Found]:
    """Every client whose history exists here, with what ``store`` has mined of it (one whose
    history could not be read, with ``error`` and no transcripts)."""
    return [covered(f, store) for f in (find(c) for c in CLIENTS) if f.roots or f.error]
