#!/usr/bin/env python3
"""``hindsight-hook``: the hook command ``hindsight hooks install`` writes, from the environment's
``bin/``.

Installed as a script (pyproject's ``shared-scripts``) next to the environment's ``python``, it keeps
its path when the environment is rebuilt, on another Python too (``uv tool upgrade``, ``pipx
reinstall``), where ``lib/python3.X/site-packages/…`` moves. Run as ``python -S hindsight-hook
EVENT …``, it finds ``hindsight_cli`` beside itself without loading site-packages (the environment's
``lib/python3.X/site-packages``, or the checkout an editable install's ``.pth`` names) and runs the
hooks from there off the package's ``__init__``, as the entry file ``hooks/__main__.py`` does when
run by path, but from cached bytecode. Anything else: the full site, then ``python -m
hindsight_cli.hooks``.
"""

import os
import sys

_ENTRY = os.path.join("hindsight_cli", "hooks", "__main__.py")


def _site_dirs(env: str) -> tuple[str, str]:
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return (
        os.path.join(env, "lib", version, "site-packages"),
        os.path.join(env, "Lib", "site-packages"),
    )


def _entry() -> str | None:
    """The hooks' entry file of the environment this script is in, or None."""
    env = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    for site_dir in _site_dirs(env):
        found = os.path.join(site_dir, _ENTRY)
        if os.path.isfile(found):
            return found
        try:
            names = os.listdir(site_dir)
        except OSError:
            continue
        # an editable install: a .pth file names the checkout
        for name in names:
            if name.endswith(".pth") and "hindsight_cli" in name:
                with open(os.path.join(site_dir, name), encoding="utf-8") as pth:
                    for line in pth:
                        found = os.path.join(line.strip(), _ENTRY)
                        if line.strip() and os.path.isfile(found):
                            return found
    return None


def _run() -> None:
    here = os.path.dirname(os.path.realpath(__file__))
    # bin/ is no place to import from (sys.path[0] is this script's directory, links resolved)
    if sys.path and os.path.realpath(sys.path[0] or ".") == here:
        del sys.path[0]
    entry = _entry()
    if entry is None:
        if sys.flags.no_site and "site" not in sys.modules:
            import site

            site.main()
        import runpy

        runpy.run_module("hindsight_cli.hooks", run_name="__main__", alter_sys=True)
        return
    # What the entry file does when run by path (hooks/__main__.py), but imported from the
    # package's cached bytecode instead of compiled from source on every call: a bare package,
    # without its __init__, which hooks.run_package_init completes when the store is needed.
    package_dir = os.path.dirname(os.path.dirname(entry))
    if "hindsight_cli" not in sys.modules:
        package = type(sys)("hindsight_cli")
        package.__path__ = [package_dir]
        package.__file__ = os.path.join(package_dir, "__init__.py")
        package.__hindsight_bare__ = True  # type: ignore[attr-defined]
        sys.modules["hindsight_cli"] = package
    sys.argv[0] = entry
    from hindsight_cli.hooks import main

    main()


if __name__ == "__main__":
    _run()
