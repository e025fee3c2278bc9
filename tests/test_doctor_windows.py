"""Windows virtualization checks, run on Linux with fake systeminfo, powershell, dism, bcdedit and
VBoxManage programs on PATH that print what the real ones print."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_doctor import _command

from hindsight_cli.doctor import windows_checks

# the CLI here never uses the fixture's store
pytestmark = pytest.mark.no_store


def _systeminfo(requirements: str, model: str = "20XW0055US") -> str:
    lines = [
        "",
        "Host Name:                 DESKTOP-7Q2B1C",
        "OS Name:                   Microsoft Windows 11 Home",
        "OS Version:                10.0.22631 N/A Build 22631",
        "System Manufacturer:       LENOVO",
        f"System Model:              {model}",
        "System Type:               x64-based PC",
        "Total Physical Memory:     16,088 MB",
        requirements,
    ]
    return "\r\n".join(lines) + "\r\n"


HYPERVISOR = (
    "Hyper-V Requirements:      A hypervisor has been detected. Features required for "
    "Hyper-V will not be displayed."
)


def _requirements(firmware: str, vmx: str = "Yes") -> str:
    return (
        f"Hyper-V Requirements:      VM Monitor Mode Extensions: {vmx}\r\n"
        f"                           Virtualization Enabled In Firmware: {firmware}\r\n"
        "                           Second Level Address Translation: Yes\r\n"
        "                           Data Execution Prevention Available: Yes"
    )


BCDEDIT_DENIED = "The boot configuration data store could not be opened.\r\nAccess is denied.\r\n"
BCDEDIT_OFF = (
    "Windows Boot Loader\r\n-------------------\r\nidentifier              {current}\r\n"
    "description             Windows 11\r\nhypervisorlaunchtype    Off\r\n"
)


@pytest.fixture
def windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Puts fake Windows programs on PATH: windows(systeminfo=..., powershell=..., ...)."""
    bin_dir = tmp_path / "win-bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")

    def install(**outputs: str) -> None:
        for name, text in outputs.items():
            (bin_dir / f"{name}.txt").write_text(text, newline="")
            _command(bin_dir, f"{name}.exe", f'#!/bin/sh\ncat "{bin_dir}/{name}.txt"\n')

    return install


def _run() -> dict:
    return {c.id: c for c in windows_checks.run(platform="win32")}


def test_a_healthy_machine(windows) -> None:
    windows(
        systeminfo=_systeminfo(HYPERVISOR),
        powershell="VirtualMachinePlatform=1\r\nMicrosoft-Windows-Subsystem-Linux=1\r\n",
    )
    checks = _run()
    assert {k: c.status for k, c in checks.items()} == {
        "windows.firmware": "ok",
        "windows.hypervisor": "ok",
        "windows.feature.VirtualMachinePlatform": "ok",
        "windows.feature.Microsoft-Windows-Subsystem-Linux": "ok",
    }
    assert checks["windows.hypervisor"].evidence == "A hypervisor has been detected."


def test_virtualization_off_in_firmware_and_vm_platform_disabled(windows, cli) -> None:
    windows(
        systeminfo=_systeminfo(_requirements("No")),
        bcdedit=BCDEDIT_DENIED,
        powershell="VirtualMachinePlatform=2\r\nMicrosoft-Windows-Subsystem-Linux=1\r\n",
    )
    checks = _run()
    assert checks["windows.firmware"].status == "fail"
    assert checks["windows.firmware"].evidence == "Virtualization Enabled In Firmware: No"
    assert (
        "BIOS/UEFI" in checks["windows.firmware"].fix and "VT-x" in checks["windows.firmware"].fix
    )
    assert checks["windows.hypervisor"].status == "fail"
    assert "windows.firmware" in checks["windows.hypervisor"].fix
    vmp = checks["windows.feature.VirtualMachinePlatform"]
    assert (vmp.status, vmp.evidence) == ("fail", "VirtualMachinePlatform: Disabled")
    assert vmp.fix.startswith("`wsl.exe --install --no-distribution`")
    assert checks["windows.feature.Microsoft-Windows-Subsystem-Linux"].status == "ok"


def test_hypervisor_switched_off_at_boot(windows) -> None:
    windows(
        systeminfo=_systeminfo(_requirements("Yes")),
        bcdedit=BCDEDIT_OFF,
        powershell="VirtualMachinePlatform=1\r\nMicrosoft-Windows-Subsystem-Linux=1\r\n",
    )
    checks = _run()
    assert checks["windows.firmware"].status == "ok"
    hypervisor = checks["windows.hypervisor"]
    assert (hypervisor.status, hypervisor.summary) == (
        "fail",
        "the hypervisor is switched off at boot",
    )
    assert hypervisor.evidence.endswith("hypervisorlaunchtype Off")
    assert "bcdedit /set hypervisorlaunchtype auto" in hypervisor.fix


def test_a_vm_without_nested_virtualization_and_an_old_virtualbox(windows) -> None:
    windows(
        systeminfo=_systeminfo(_requirements("No", vmx="No"), model="VirtualBox"),
        powershell="VirtualMachinePlatform=1\r\nMicrosoft-Windows-Subsystem-Linux=1\r\n",
        VBoxManage="5.2.44r139111\r\n",
    )
    checks = _run()
    assert (
        checks["windows.firmware"].summary
        == "the processor offers no hardware virtualization (VT-x / AMD-V)"
    )
    assert checks["windows.vm"].status == "fail" and "Nested VT-x/AMD-V" in checks["windows.vm"].fix
    conflict = checks["windows.conflicts"]
    assert conflict.status == "warn" and "VirtualBox 5.2.44r139111" in conflict.summary


def test_old_virtualbox_beside_a_running_hypervisor_fails(windows) -> None:
    windows(
        systeminfo=_systeminfo(HYPERVISOR, model="Virtual Machine"),
        powershell="VirtualMachinePlatform=1\r\nMicrosoft-Windows-Subsystem-Linux=1\r\n",
        VBoxManage="5.2.44r139111",
    )
    checks = _run()
    assert (
        checks["windows.vm"].status == "ok"
        and "Hyper-V VM with nested" in checks["windows.vm"].summary
    )
    assert checks["windows.conflicts"].status == "fail" and "6.1" in checks["windows.conflicts"].fix


def test_features_fall_back_to_dism(windows) -> None:
    windows(
        systeminfo=_systeminfo(HYPERVISOR),
        dism="Deployment Image Servicing and Management tool\r\nVersion: 10.0.22621.2792\r\n\r\n"
        "Feature Information:\r\n\r\nFeature Name : VirtualMachinePlatform\r\n"
        "Display Name : Virtual Machine Platform\r\nRestart Required : Possible\r\nState : "
        "Enable Pending\r\n",
    )
    checks = _run()
    assert checks["windows.feature.VirtualMachinePlatform"].status == "warn"
    assert checks["windows.feature.VirtualMachinePlatform"].fix == "reboot Windows"


def test_dism_without_elevation_is_a_skip(windows) -> None:
    windows(
        systeminfo=_systeminfo(HYPERVISOR),
        dism="\r\nDeployment Image Servicing and Management tool\r\nVersion: "
        "10.0.22621.2792\r\n\r\n\r\n"
        "Error: 740\r\n\r\nElevated permissions are required to run DISM.\r\n"
        "Use an elevated command prompt to complete these tasks.\r\n",
    )
    check = _run()["windows.feature.VirtualMachinePlatform"]
    assert (check.status, check.evidence) == ("skip", "dism needs an elevated prompt (Error: 740)")


def test_not_windows_and_no_interop(tmp_path, monkeypatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert windows_checks.run(platform="linux") == []
    assert [c.id for c in windows_checks.run(platform="win32")] == ["windows.systeminfo"]


def test_doctor_wsl_includes_the_windows_checks_from_wsl_interop(windows, cli) -> None:
    windows(
        systeminfo=_systeminfo(_requirements("No")),
        powershell="VirtualMachinePlatform=2\r\nMicrosoft-Windows-Subsystem-Linux=1\r\n",
        wsl="",
    )
    result = cli("doctor", "wsl", store=False)
    assert result.exit_code == 1
    assert "fail windows.firmware: virtualization is disabled in the BIOS/UEFI" in result.stdout
    assert (
        "fail windows.feature.VirtualMachinePlatform: Virtual Machine Platform is not enabled"
        in result.stdout
    )
