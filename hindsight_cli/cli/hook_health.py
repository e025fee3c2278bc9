"""What the CLI says of installed hooks: the files their commands run, for ``hooks status`` and
``hindsight doctor`` (apart from ``cli/hooks``, which the app's registration imports)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from .. import paths

if TYPE_CHECKING:
    from ..doctor import Check


def project_of(store: Optional[Path]) -> tuple[Path, Optional[Path]]:
    """The project directory, and the store to pin in the hook commands (None: found from the
    session)."""
    location = paths.resolve_store(store)
    if location.reason == "project":
        return location.path.parent, None
    return Path.cwd(), location.path if store is not None else None


def readable(read: Callable[[Any], Any], target: Any) -> Any:
    try:
        return read(target)
    except Exception as error:  # noqa: BLE001  (one broken file must not hide the others)
        return f"unreadable: {error}"


def stale(row: dict[str, Any]) -> str:
    return (
        f"{row['client']}'s {row['scope']} hooks ({row['path']}) run "
        f"{', '.join(row['missing'])}, which no longer exist (hindsight was reinstalled or "
        f"moved): every hook fails until you run `hindsight hooks install --client "
        f"{row['client']} --scope {row['scope']}` again."
    )


def hook_checks(store: Optional[Path]) -> list[Check]:
    """``hindsight doctor``'s word on the installed hooks: do the files their commands run
    exist?"""
    from ..doctor import fail, ok
    from ..hooks import install as hooks_install
    from ..hooks.events import CLIENTS

    project, _ = project_of(store)
    checks = []
    for client in CLIENTS:
        for scope, target in hooks_install.targets(client, Path.home(), project).items():
            events = readable(hooks_install.installed, target)
            gone = readable(hooks_install.broken, target)
            if not isinstance(events, list) or not events or not isinstance(gone, dict):
                continue
            missing = sorted({p for found in gone.values() for p in found})
            where = f"{client} ({scope})"
            if missing:
                checks.append(
                    fail(
                        "hooks.command",
                        f"{where}: the hook commands run files that no longer exist (hindsight "
                        "was reinstalled or moved); every hook fails",
                        f"{target.path}: {', '.join(sorted(gone))} run {', '.join(missing)}",
                        f"hindsight hooks install --client {client} --scope {scope}",
                    )
                )
            else:
                checks.append(
                    ok("hooks.command", f"{where}: {len(events)} hook(s)", str(target.path))
                )
    return checks


def warm_server(store: Path) -> bool:
    """Whether a server of ``store`` answers on its socket (the hooks' warm recall)."""
    from ..safefs import rendezvous

    conn = rendezvous.connect(str(store), 1.0)
    if conn is not None:
        conn.close()
    return conn is not None
