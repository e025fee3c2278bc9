"""Windows virtualization checks: what "Virtualization support not detected" or "unable to detect a
Hypervisor" comes from. Run on Windows, and from WSL through interop (``systeminfo.exe`` on PATH).

Each fact comes from program output a test can fake: ``systeminfo`` (its "Hyper-V Requirements"
block and "System Model"), ``powershell.exe`` (the optional features, readable without elevation),
``dism.exe`` when PowerShell cannot say, ``bcdedit.exe`` (``hypervisorlaunchtype``; needs elevation,
so it only adds evidence) and ``VBoxManage --version``. Doctor reports the raw signals as well as a
verdict, since Docker Desktop itself has reported "not detected" with every signal on.
"""

from __future__ import annotations

import re
import sys

from .. import safefs
from . import Check, fail, ok, skip, warn
from .wsl_checks import run_exe

FEATURES = {
    "VirtualMachinePlatform": ("Virtual Machine Platform", "wsl.exe --install --no-distribution"),
    "Microsoft-Windows-Subsystem-Linux": (
        "Windows Subsystem for Linux",
        "wsl.exe --install --no-distribution",
    ),
}
_FEATURE_QUERY = (
    "Get-CimInstance Win32_OptionalFeature -Filter \"Name='VirtualMachinePlatform' or "
    "Name='Microsoft-Windows-Subsystem-Linux'\" | ForEach-Object { $_.Name + '=' + "
    "$_.InstallState }"
)
_INSTALL_STATES = {"1": "Enabled", "2": "Disabled", "3": "Absent", "4": "Unknown"}
_VM_MODELS = {
    "virtualbox": "VirtualBox",
    "vmware": "VMware",
    "virtual machine": "Hyper-V",
    "kvm": "KVM",
    "qemu": "QEMU",
    "standard pc": "QEMU/KVM",
    "parallels": "Parallels",
}
_NESTED = {
    "VirtualBox": "VM settings → System → Processor: Enable Nested VT-x/AMD-V",
    "VMware": "VM settings → Processors: Virtualize Intel VT-x/EPT or AMD-V/RVI",
    "Hyper-V": "on the host: Set-VMProcessor -VMName <vm> -ExposeVirtualizationExtensions $true",
}


def _find(name: str, platform: str) -> str | None:
    return safefs.program(f"{name}.exe") or (safefs.program(name) if platform == "win32" else None)


def run(platform: str | None = None) -> list[Check]:
    """Windows virtualization checks; nothing when neither Windows nor its programs are
    reachable."""
    platform = platform or sys.platform
    systeminfo = _find("systeminfo", platform)
    if systeminfo is None:
        return (
            [skip("windows.systeminfo", "systeminfo is not reachable")]
            if platform == "win32"
            else []
        )
    code, text = run_exe(systeminfo, timeout=60)
    facts = _systeminfo(text)
    if code != 0 or not facts:
        return [
            skip(
                "windows.systeminfo",
                "could not read systeminfo (a localized Windows?)",
                text.strip().splitlines()[0] if text.strip() else f"exit code {code}",
            )
        ]
    checks = [_firmware(facts), _hypervisor(facts, platform)]
    checks.extend(_features(platform))
    vm = _vm(facts)
    if vm is not None:
        checks.append(vm)
    checks.extend(_virtualbox(platform, hypervisor="hypervisor" in facts))
    return checks


def _systeminfo(text: str) -> dict[str, str]:
    facts = {}
    if "A hypervisor has been detected" in text:
        facts["hypervisor"] = "A hypervisor has been detected."
    for key, label in (
        ("firmware", "Virtualization Enabled In Firmware"),
        ("vmx", "VM Monitor Mode Extensions"),
        ("slat", "Second Level Address Translation"),
        ("model", "System Model"),
        ("os", "OS Name"),
    ):
        match = re.search(rf"{label}:\s*(.+)", text)
        if match:
            facts[key] = match.group(1).strip()
    return facts


def _firmware(facts: dict[str, str]) -> Check:
    if "hypervisor" in facts:
        return ok(
            "windows.firmware",
            "virtualization is on (a hypervisor is running)",
            facts["hypervisor"],
        )
    if facts.get("vmx") == "No":
        return fail(
            "windows.firmware",
            "the processor offers no hardware virtualization (VT-x / AMD-V)",
            f"VM Monitor Mode Extensions: {facts['vmx']}",
            "WSL 2 and Docker Desktop need VT-x or AMD-V; in a VM, enable nested virtualization "
            "on the host",
        )
    firmware = facts.get("firmware")
    if firmware == "Yes":
        slat = facts.get("slat")
        if slat == "No":
            return fail(
                "windows.firmware",
                "the processor lacks SLAT, which WSL 2 and Hyper-V need",
                "Second Level Address Translation: No",
                "WSL 2 cannot run on this processor; use WSL 1",
            )
        return ok(
            "windows.firmware",
            "virtualization is enabled in firmware",
            "Virtualization Enabled In Firmware: Yes",
        )
    if firmware == "No":
        return fail(
            "windows.firmware",
            "virtualization is disabled in the BIOS/UEFI",
            "Virtualization Enabled In Firmware: No",
            "reboot into the BIOS/UEFI setup and enable Intel VT-x (Virtualization Technology) "
            "or AMD SVM",
        )
    return skip("windows.firmware", "systeminfo did not report the Hyper-V requirements", "")


def _hypervisor(facts: dict[str, str], platform: str) -> Check:
    if "hypervisor" in facts:
        return ok("windows.hypervisor", "a hypervisor is running", facts["hypervisor"])
    evidence = "systeminfo lists the Hyper-V requirements instead of a running hypervisor"
    bcdedit = _find("bcdedit", platform)
    if bcdedit:
        _, text = run_exe(bcdedit, "/enum", "{current}")
        launch = re.search(r"hypervisorlaunchtype\s+(\w+)", text, re.IGNORECASE)
        if launch:
            evidence += f"; hypervisorlaunchtype {launch.group(1)}"
            if launch.group(1).lower() == "off":
                return fail(
                    "windows.hypervisor",
                    "the hypervisor is switched off at boot",
                    evidence,
                    "in an elevated prompt: `bcdedit /set hypervisorlaunchtype auto`, then reboot",
                )
    if facts.get("firmware") == "No":
        fix = "enable virtualization in the BIOS/UEFI first (see windows.firmware)"
    else:
        fix = "enable Virtual Machine Platform (`wsl.exe --install --no-distribution`), reboot"
    return fail(
        "windows.hypervisor",
        "no hypervisor is running: WSL 2 and Docker Desktop cannot start their VM",
        evidence,
        fix,
    )


def _feature_states(platform: str) -> tuple[dict[str, str], str]:
    """Feature name -> Enabled / Disabled / Enable Pending / …, and what was run when it says
    nothing."""
    powershell = _find("powershell", platform)
    states: dict[str, str] = {}
    if powershell:
        _, text = run_exe(
            powershell, "-NoProfile", "-NonInteractive", "-Command", _FEATURE_QUERY, timeout=60
        )
        for name, state in re.findall(r"^\s*([\w-]+)=(\d)\s*$", text, re.MULTILINE):
            states[name] = _INSTALL_STATES.get(state, "Unknown")
    if set(FEATURES) <= set(states):
        return states, ""
    dism = _find("dism", platform)
    if dism is None:
        return states, "neither PowerShell nor dism answered"
    for name in FEATURES:
        if name not in states:
            _, text = run_exe(
                dism, "/English", "/online", "/get-featureinfo", f"/featurename:{name}", timeout=60
            )
            match = re.search(r"^State\s*:\s*(.+)$", text, re.MULTILINE)
            if match:
                states[name] = match.group(1).strip()
            elif "740" in text or "Elevated permissions" in text:
                return states, "dism needs an elevated prompt (Error: 740)"
    return states, ""


def _features(platform: str) -> list[Check]:
    states, why = _feature_states(platform)
    checks = []
    for name, (label, enable) in FEATURES.items():
        check_id = f"windows.feature.{name}"
        state = states.get(name)
        if state is None:
            checks.append(skip(check_id, f"could not read whether {label} is on", why))
        elif state == "Enabled":
            checks.append(ok(check_id, f"{label} is enabled", f"{name}: {state}"))
        elif "Pending" in state:
            checks.append(
                warn(check_id, f"{label} waits for a reboot", f"{name}: {state}", "reboot Windows")
            )
        else:
            checks.append(
                fail(
                    check_id,
                    f"{label} is not enabled",
                    f"{name}: {state}",
                    f"`{enable}` (or `dism /online /enable-feature /featurename:{name} /all "
                    f"/norestart` "
                    "in an elevated prompt), then reboot",
                )
            )
    return checks


def _vm(facts: dict[str, str]) -> Check | None:
    model = facts.get("model", "")
    kind = next((name for key, name in _VM_MODELS.items() if key in model.lower()), None)
    if kind is None:
        return None
    if "hypervisor" in facts or facts.get("firmware") == "Yes":
        return ok(
            "windows.vm",
            f"Windows runs in a {kind} VM with nested virtualization",
            f"System Model: {model}",
        )
    return fail(
        "windows.vm",
        f"Windows runs in a {kind} VM without nested virtualization",
        f"System Model: {model}",
        _NESTED.get(kind, "enable nested virtualization for this VM on its host"),
    )


def _virtualbox(platform: str, hypervisor: bool) -> list[Check]:
    vbox = _find("VBoxManage", platform)
    if vbox is None:
        return []
    code, text = run_exe(vbox, "--version")
    match = re.match(r"\s*(\d+)\.(\d+)", text)
    if code != 0 or not match:
        return [
            skip(
                "windows.conflicts",
                "VirtualBox is installed; its version is unknown",
                text.strip()[:120],
            )
        ]
    version = text.strip()
    if (int(match.group(1)), int(match.group(2))) >= (6, 0):
        return [ok("windows.conflicts", f"VirtualBox {version} can run beside Hyper-V", vbox)]
    if hypervisor:
        return [
            fail(
                "windows.conflicts",
                f"VirtualBox {version} cannot run VMs while Hyper-V's hypervisor is on",
                f"{vbox}: {version} (its VMs fail with VERR_VMX_NO_VMX)",
                "upgrade VirtualBox to 6.1 or newer",
            )
        ]
    return [
        warn(
            "windows.conflicts",
            f"VirtualBox {version} stops working once WSL 2 or Docker Desktop turn the "
            "hypervisor on",
            f"{vbox}: {version}",
            "upgrade VirtualBox to 6.1 or newer first",
        )
    ]
