"""Entry point of the installed hooks: ``python -m hindsight_cli.hooks EVENT`` or, faster, this file by path.

Run by path (what ``hindsight hooks install`` writes), it registers ``hindsight_cli`` as a bare package
so that a recording hook does not pay for the package's ``__init__`` (its models and text tables);
``run_package_init`` completes the package before anything that needs the store is imported.
"""

if __package__:
    from . import main
else:
    import importlib.util
    import sys
    from pathlib import Path

    _ROOT = Path(__file__).resolve().parent.parent
    if "hindsight_cli" not in sys.modules:
        _spec = importlib.util.spec_from_file_location("hindsight_cli", _ROOT / "__init__.py",
                                                       submodule_search_locations=[str(_ROOT)])
        _package = importlib.util.module_from_spec(_spec)
        _package.__hindsight_bare__ = True
        sys.modules["hindsight_cli"] = _package
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    from hindsight_cli.hooks import main

main()
