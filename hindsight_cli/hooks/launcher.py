#!/usr/bin/env python3
"""``hindsight-hook``: the hook command ``hindsight hooks install`` writes, from the environment's
``bin/``.

Installed as a script (pyproject's ``shared-scripts``) next to the environment's ``python``, it keeps
its path when the environment is rebuilt, on another Python too (``uv tool upgrade``, ``pipx
reinstall``), where ``lib/python3.X/site-packages/…`` moves. Run as ``python -S hindsight-hook
EVENT …``, it finds ``hindsight_cli`` beside itself without loading site-packages (the environment's
``lib/python3.X/site-packages``, or the checkout an editable install's ``.pth`` names) and runs the
hooks' entry file, which keeps a recording hook off the package's ``__init__``. Anything else: the
full site, then ``python -m hindsight_cli.hooks``.
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
    # bin/ is no place to import from
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != here]
    entry = _entry()
    if entry is None:
        if sys.flags.no_site and "site" not in sys.modules:
            import site

            site.main()
        import runpy

        runpy.run_module("hindsight_cli.hooks", run_name="__main__", alter_sys=True)
        return
    sys.argv[0] = entry
    with open(entry, encoding="utf-8") as source:
        code = compile(source.read(), entry, "exec")
    exec(code, {"__name__": "__main__", "__file__": entry, "__package__": None})


if __name__ == "__main__":
    _run()
