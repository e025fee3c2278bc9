"""A running ``hindsight ui`` for tests: bound to a free port before it starts (connections wait in
the socket's queue, so no test waits for readiness) and stopped when the block ends."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli.store import Store
from hindsight_cli.ui import Served, prepare, server

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def running(stores: Sequence[Store], **options: Any) -> Iterator[Served]:
    served = prepare(stores, port=0, **options)
    uvicorn_server: Any = server(served)
    thread = threading.Thread(
        target=uvicorn_server.run, kwargs={"sockets": [served.sock]}, daemon=True
    )
    thread.start()
    try:
        yield served
    finally:
        uvicorn_server.should_exit = True
        thread.join(10)
        served.sock.close()


def base(served: Served) -> str:
    return served.url.split("/login")[0]


def chromium() -> str:
    """The Chromium to drive: Debian's package. Without it (or Playwright) the browser tests skip
    locally and fail in CI (``CI`` set), where .ci/run installs it."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    missing = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "Playwright is not installed (pip install '.[test]')"
    if path is None:
        missing = "no chromium on PATH (apt-get install chromium)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests cannot run in CI: {missing}")
        pytest.skip(f"browser tests need a browser: {missing}")
    assert path is not None
    return path


def profile_dir(root: Path) -> Path:
    path = root / "chromium-profile"
    path.mkdir(exist_ok=True)
    return path
