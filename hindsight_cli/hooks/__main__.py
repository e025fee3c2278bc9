"""Entry point of the installed hooks: ``python -m hindsight_cli.hooks EVENT`` or, faster, this file
by path.

Run by path (what ``hindsight hooks install`` writes, under ``python -S``), it registers
``hindsight_cli`` as a bare package so that a recording hook pays neither for the package's
``__init__`` (its models and text tables) nor for importlib; ``run_package_init`` completes the
package, and adds site-packages, before anything that needs the store is imported.
"""

import os
import sys

if __package__:
    from . import main
else:
    _HERE = os.path.dirname(os.path.realpath(__file__))
    if "hindsight_cli" not in sys.modules:
        _package = type(sys)("hindsight_cli")
        _package.__path__ = [os.path.dirname(_HERE)]
        _package.__file__ = os.path.join(_package.__path__[0], "__init__.py")
        _package.__hindsight_bare__ = True  # type: ignore[attr-defined]
        sys.modules["hindsight_cli"] = _package
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != _HERE]
    from hindsight_cli.hooks import main

main()
