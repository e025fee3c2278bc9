"""Checks that no other local user controls the store: its directory, what lies above it, what lies
in it, and the files it trusts (``safefs`` holds the rules; a store that fails one is refused)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .. import paths, safefs
from ..errors import HindsightError
from . import Check, fail, ok, skip, warn

_DIRECTORY = {
    "owner": "store directory belongs to another user",
    "mode": "store directory is writable by other users",
    "type": "store path is not a directory",
}
_FILE = {
    "owner": "belongs to another user",
    "mode": "is writable by other users",
    "type": "is not a regular file",
}


def checks(path: Path) -> list[Check]:
    """One line each: the directory, the directories above it, links and other users' files inside
    it, the token file, the store's and the user's config files and hindsight's own directories."""
    from ..paths import TOKENS_FILE as DEFAULT_FILE

    out = [_directory(path), _parents(path)]
    if path.is_dir():
        out += _contents(path)
    out.append(_tokens(path / DEFAULT_FILE))
    out.append(
        _trusted(
            "store.config-file", path / paths.CONFIG_FILE, "The config file", "store config file"
        )
    )
    out.append(
        _trusted(
            "store.user-config", paths.user_config_path(), "The config file", "user config file"
        )
    )
    out.append(_home())
    out.append(_trust(path))
    return out


def _trust(path: Path) -> Check:
    """Whether this user created or approved the store here (a store can arrive with a
    repository)."""
    from ..safefs import trust

    if not path.exists():
        return skip("store.trust", "no store directory yet", str(path))
    if trust.builtin(path):
        return ok("store.trust", "the global store is yours")
    if trust.trusted(path):
        try:
            from ..config import read

            data = read(path / paths.CONFIG_FILE)
        except HindsightError:
            # the config checks say why it cannot be read
            data = {}
        if not trust.approved_redirect(path, data):
            return fail(
                "store.trust",
                f"the store's config.toml now {trust.exposure(data)}, which you did not approve "
                "(it changed after the store was created or allowed: a git pull can change it)",
                f"{path / paths.CONFIG_FILE}: {trust.redirect(data)}",
                f"if you trust it, run `hindsight allow {path}`",
            )
        return _ledger(path)
    return fail(
        "store.trust",
        "store not created or allowed by you on this machine (it may have come with a repository): "
        "hooks and the MCP server leave it alone, and its config cannot send memories to a "
        "database",
        f"{path}: no store id, or one not in {trust.allowed_dir()}",
        f"if you trust it, run `hindsight allow {path}`",
    )


def _ledger(path: Path) -> Check:
    """An approved store whose ledger is another than the one approved (review AE: an archive
    unpacked over the checkout replaced it, keeping the store's id and path)."""
    from ..core import binding
    from ..safefs import ledger_key, trust

    try:
        held = trust.trusted(path, binding.local_key(path))
    except HindsightError as error:
        # the ledger checks say why it cannot be read
        return skip("store.trust", "the ledger could not be read", str(error))
    if held:
        return ok("store.trust", "you created or allowed this store on this machine")
    return fail(
        "store.trust",
        ledger_key.why(str(path.resolve())),
        f"{path / paths.LEDGER_FILE}: no ledger key, or another one than "
        f"{trust.allowed_dir()} records",
        f"if you trust the ledger now there, run `hindsight allow {path}`",
    )


def _directory(path: Path) -> Check:
    findings = safefs.dir_findings(path)
    if findings:
        first = findings[0]
        return fail(
            "store.permissions", _DIRECTORY[first.kind], f"{first.path}: {first.found}", first.fix
        )
    if not path.exists():
        return skip("store.permissions", "no store directory yet", str(path))
    mode = stat.S_IMODE(path.stat().st_mode)
    if not os.access(path, os.W_OK):
        return _not_writable(path, mode)
    if mode & 0o077:
        return warn(
            "store.permissions",
            "store directory is readable by other users",
            f"{path} mode {mode:o}",
            f"chmod 700 {path}",
        )
    return ok(
        "store.permissions", "store directory is yours, private and writable", f"mode {mode:o}"
    )


def _not_writable(path: Path, mode: int) -> Check:
    """Why a store directory refuses writes, from the error a write gets: the mode bits (EACCES),
    an immutable or append-only attribute (EPERM, which chmod cannot fix) or a read-only mount."""
    from ..errors import os_error_fix

    probe = path / f".hindsight-doctor-{os.getpid()}"
    try:
        # access() said no, so this fails and changes nothing; its errno names the cause
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as error:
        reason = (error.strerror or type(error).__name__).lower()
        fix = (
            f"give your user write access: chmod u+w {path}"
            if error.errno == errno.EACCES
            else os_error_fix(error)
        )
        return fail(
            "store.permissions",
            f"store directory is not writable: {reason}",
            f"{path} mode {mode:o}",
            fix,
        )
    probe.unlink(missing_ok=True)
    return warn(
        "store.permissions",
        "store directory looks read-only to access() but a file could be created in it",
        f"{path} mode {mode:o}",
        "check its ACLs (getfacl) and the security policy (SELinux, AppArmor)",
    )


def _parents(path: Path) -> Check:
    swaps = safefs.parent_findings(path)
    if swaps:
        places = "; ".join(f"{f.path} ({f.found}, no sticky bit)" for f in swaps)
        return fail(
            "store.parents",
            "other users can swap the store: a directory above it is writable by them "
            "without the sticky bit",
            places,
            swaps[0].fix,
        )
    owned = safefs.parent_warnings(path)
    if owned:
        places = "; ".join(f"{f.path} ({f.found})" for f in owned)
        return warn(
            "store.parents",
            "a directory above the store belongs to another user",
            places,
            owned[0].fix,
        )
    return ok("store.parents", "no other user can rename the store directory")


def _contents(path: Path) -> list[Check]:
    findings = safefs.entry_findings(path, deep=True)
    links = [f for f in findings if f.kind == "link"]
    foreign = [f for f in findings if f.kind == "foreign"]
    out = []
    if links:
        out.append(
            fail(
                "store.links",
                f"{len(links)} symbolic link{'s' if len(links) > 1 else ''} inside the store",
                "; ".join(f"{f.path} {f.found}" for f in links[:5]),
                "hindsight never writes through a link in a store: remove "
                + ("it: " if len(links) == 1 else "them: ")
                + "rm "
                + " ".join(f.path for f in links[:5]),
            )
        )
    else:
        out.append(ok("store.links", "no symbolic link inside the store"))
    if foreign:
        out.append(
            fail(
                "store.owners",
                f"{len(foreign)} file{'s' if len(foreign) > 1 else ''} inside the store "
                f"belong{'' if len(foreign) > 1 else 's'} to another user",
                "; ".join(f"{f.path} ({f.found})" for f in foreign[:5]),
                foreign[0].fix,
            )
        )
    else:
        out.append(ok("store.owners", "every file inside the store is yours"))
    return out


def _trusted(id: str, file: Path, what: str, name: str) -> Check:
    try:
        st = os.stat(file)
    except (FileNotFoundError, NotADirectoryError):
        return skip(id, f"no {name}", str(file))
    finding = safefs.file_finding(file, st, what)
    if finding is None:
        return ok(id, f"{name} is yours and writable only by you", str(file))
    return fail(id, f"{name} {_FILE[finding.kind]}", f"{file}: {finding.found}", finding.fix)


def _tokens(file: Path) -> Check:
    """The token file is the user's own, and the one `hindsight mcp token` wrote (review AE)."""
    found = _trusted("store.tokens", file, "The token file", "token file")
    if found.status != "ok":
        return found
    from ..core import tokens

    try:
        tokens.load(file)
    except tokens.Foreign:
        return fail(
            "store.tokens",
            "token file is not the one `hindsight mcp token` wrote: it lets no token in",
            f"{file}: its SHA-256 is not the one your approval of the store records",
            f"run `hindsight mcp token AGENT` to make a new one, or, if you wrote it, "
            f"`hindsight allow --adopt-tokens {file.parent}`",
        )
    except HindsightError:
        # said where the file is used (git tracks it, the store is not approved)
        pass
    return found


def _home() -> Check:
    for finding in safefs.home_findings():
        return fail(
            "store.home",
            "a hindsight directory (config, cache or HINDSIGHT_HOME) is not private",
            f"{finding.path}: {finding.found}",
            finding.fix,
        )
    return ok("store.home", "hindsight's config and cache directories are yours")
