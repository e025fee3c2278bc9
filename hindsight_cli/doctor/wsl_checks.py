"""WSL checks: running inside WSL (which version), the default WSL version, and the WSL kernel.

Facts come from ``/proc/version``, the environment and ``wsl.exe`` output, which a test can fake.
``wsl.exe`` writes UTF-16LE to pipes unless ``WSL_UTF8=1``; both are decoded.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from .. import safefs
from . import Check, fail, ok, skip, warn

_MIN_KERNEL = (5, 10)


def _decode(raw: bytes) -> str:
    # UTF-16LE from an older wsl.exe
    if raw.count(b"\x00") > len(raw) // 4:
        return raw.decode("utf-16-le", errors="replace").replace("\ufeff", "")
    return raw.decode("utf-8", errors="replace")


def run_exe(exe: str, *args: str, timeout: float = 20) -> tuple[int, str]:
    """Run a Windows program (also through WSL interop); stdout and stderr together, decoded."""
    env = {**os.environ, "WSL_UTF8": "1"}
    env["WSLENV"] = ":".join(filter(None, [os.environ.get("WSLENV"), "WSL_UTF8"]))
    try:
        done = subprocess.run(
            [exe, *args], check=False, capture_output=True, timeout=timeout, env=env
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return 127, str(error)
    return done.returncode, _decode(done.stdout + done.stderr)


def inside_wsl(proc_version: Path, env: Mapping[str, str]) -> int | None:
    """1 or 2 when running inside WSL, else None."""
    try:
        text = proc_version.read_text(errors="replace")
    except OSError:
        text = ""
    if "microsoft" not in text.lower() and not env.get("WSL_DISTRO_NAME"):
        return None
    return 2 if ("WSL2" in text or env.get("WSL_INTEROP")) else 1


def run(
    proc_version: Path = Path("/proc/version"),
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
) -> list[Check]:
    env = os.environ if env is None else env
    platform = platform or sys.platform
    version = inside_wsl(proc_version, env)
    exe = safefs.program("wsl.exe") or (safefs.program("wsl") if platform == "win32" else None)
    if version is None and exe is None:
        return [skip("wsl.detect", "not WSL, and no wsl.exe here")]
    checks: list[Check] = []
    if version == 1:
        distro = env.get("WSL_DISTRO_NAME", "<distro>")
        checks.append(
            warn(
                "wsl.version",
                "running inside WSL 1",
                proc_version.read_text(errors="replace").strip(),
                f"Docker and fast file access need WSL 2: from Windows, `wsl --set-version "
                f"{distro} 2`",
            )
        )
    elif version == 2:
        checks.append(
            ok("wsl.version", f"running inside WSL 2 ({env.get('WSL_DISTRO_NAME', 'distro')})")
        )
    if exe is None:
        checks.append(skip("wsl.exe", "wsl.exe is not reachable (interop off?)"))
        return checks
    checks.append(_default_version(exe))
    checks.append(_kernel(exe))
    return checks


def _default_version(exe: str) -> Check:
    code, text = run_exe(exe, "-l", "-v")
    rows = [
        line for line in text.splitlines() if line.strip() and not line.strip().startswith("NAME")
    ]
    default = next((line for line in rows if line.lstrip().startswith("*")), None)
    if code != 0 or default is None:
        first = text.strip().splitlines()[0] if text.strip() else f"exit code {code}"
        if "Virtual Machine Platform" in text or "HCS_E_HYPERV_NOT_INSTALLED" in text:
            return fail(
                "wsl.default",
                "WSL 2 cannot start: Virtual Machine Platform or virtualization is off",
                first,
                "run `wsl.exe --install --no-distribution`, enable virtualization in the "
                "BIOS/UEFI, reboot",
            )
        return warn(
            "wsl.default",
            "could not read the WSL distributions",
            first,
            "run `wsl.exe -l -v` to see why",
        )
    parts = default.replace("*", " ").split()
    name, version = parts[0], parts[-1]
    if version == "1":
        return warn(
            "wsl.default",
            f"the default distribution {name} runs WSL 1",
            default.strip(),
            f"`wsl --set-version {name} 2` and `wsl --set-default-version 2`",
        )
    return ok("wsl.default", f"default distribution {name} runs WSL {version}", default.strip())


def _kernel(exe: str) -> Check:
    code, text = run_exe(exe, "--version")
    match = re.search(
        r"(?:Kernel version|Kernelversion|kernel)\D*(\d+)\.(\d+)\.(\d+)", text, re.IGNORECASE
    )
    if code != 0 or not match:
        return skip(
            "wsl.kernel",
            "kernel version not reported (an older, inbox WSL?)",
            text.strip().splitlines()[0] if text.strip() else "",
        )
    kernel = tuple(int(g) for g in match.groups())
    shown = ".".join(map(str, kernel))
    if kernel[:2] < _MIN_KERNEL:
        return warn(
            "wsl.kernel",
            f"WSL kernel {shown} is old",
            match.group(0),
            "run `wsl --update` from Windows",
        )
    return ok("wsl.kernel", f"WSL kernel {shown}")
