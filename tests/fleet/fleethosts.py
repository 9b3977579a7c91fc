"""Fake hosts for the fleet tests: boots played through the real recorder, judged by the real
`kmsgd last-boot --format export`, stored by the real `systemd-journal-remote`.

Each host has its own sysfs tree (an amdgpu or NVIDIA card with its firmware, DMI) and /proc
(host name, kernel, command line, CPU, RAM); the recorder records the inventory read from them
the way the sampler does at a boot's start. `fleet()` runs the command over what they stored.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import scenario
from click.testing import CliRunner
from conftest import make_proc
from fakes import amd_card, nvidia_card, put
from scenario import AMDGPU_CHAIN, Machine

from kmsgd.cli import main
from kmsgd.ring.records import Kind
from kmsgd.sensors.inventory_scan import read_inventory

REMOTE = ("/lib/systemd/systemd-journal-remote", "/usr/lib/systemd/systemd-journal-remote")


def journal_remote() -> str:
    """The collector's binary, or a skip saying how to get it."""
    found = shutil.which("systemd-journal-remote")
    exe = found or next((p for p in REMOTE if os.access(p, os.X_OK)), None)
    if exe is None:
        pytest.skip(
            "systemd-journal-remote is not installed (apt-get install systemd-journal-remote; "
            "tools/bootstrap does it for tools/dev test)"
        )
    return exe


@dataclass(frozen=True)
class Host:
    name: str
    amd: bool
    iommu_pt: bool
    kernel: str
    smc: str  # amdgpu SMU firmware ("" for NVIDIA)
    freezes: tuple[int, ...]  # which of the judged boots end in the amdgpu freeze

    @property
    def machine_id(self) -> str:
        return (self.name.encode().hex() + "0" * 32)[:32]

    @property
    def cmdline(self) -> str:
        extra = " iommu=pt" if self.iommu_pt else ""
        return f"BOOT_IMAGE=/vmlinuz-{self.kernel} root=UUID=1234 ro quiet pcie_aspm=off{extra}"


def build_sys(host: Host, root: Path) -> Path:
    """The host's /sys: its GPU and DMI."""
    sys = root / "sys"
    if host.amd:
        dev = amd_card(sys, "card0", "0000:03:00.0", "hwmon3")
        for name, value in (("smc", host.smc), ("mec", "0x000001f4"), ("sos", "0x00270058")):
            put(dev / "fw_version" / f"{name}_fw_version", value)
    else:
        nvidia_card(sys, "0x2684")
    dmi = sys / "class" / "dmi" / "id"
    for name, value in (
        ("bios_vendor", "American Megatrends International, LLC."),
        ("bios_version", "1.40"),
        ("bios_date", "03/01/2024"),
        ("board_vendor", "ASRockRack"),
        ("board_name", "WRX90 WS EVO"),
        ("sys_vendor", "ASRockRack"),
        ("product_name", "WRX90 WS EVO"),
    ):
        put(dmi / name, value)
    return sys


def play(host: Host, root: Path, boots: int, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """`boots` ended boots and a running one of `host`, recorded into root/ring."""

    def host_proc(path: Path, boot_id: str | None = None, *, uptime_s: float = 12.5) -> Path:
        proc = make_proc(path, boot_id, uptime_s=uptime_s)
        (proc / "sys/kernel/hostname").write_text(host.name + "\n")
        (proc / "sys/kernel/osrelease").write_text(host.kernel + "\n")
        (proc / "cmdline").write_bytes(host.cmdline.encode() + b"\0")
        (proc / "cpuinfo").write_text("processor\t: 0\nmodel name\t: AMD EPYC 9354 32-Core\n")
        (proc / "meminfo").write_text("MemTotal:       263856092 kB\nMemFree: 1 kB\n")
        return proc

    monkeypatch.setattr(scenario, "make_proc", host_proc)
    m = Machine(root)
    (m.etc / "machine-id").write_text(host.machine_id + "\n")
    sys = build_sys(host, root)
    for n in range(boots + 1):
        b = m.boot(after_s=60)
        proc = root / f"proc{n}"
        b.emit(Kind.INVENTORY, read_inventory(sys, proc), True)
        b.log("Linux version " + host.kernel)
        b.run(5)
        if n == boots:
            break  # the running boot
        if n in host.freezes:
            for line in AMDGPU_CHAIN:
                b.log(line, 3)
            b.run(3)
            b.die()
        else:
            b.run(2)
            b.shutdown(reboot=True)
    return m


def exports(m: Machine, root: Path) -> Iterator[bytes]:
    """`kmsgd last-boot --boot ID --format export` of every ended boot of `m`, in-process."""
    cfg = root / "kmsgd.toml"
    cfg.write_text(f'[kmsgd]\netc_root = "{m.etc}"\n')
    live = m.boots[-1]
    proc = root / f"proc{len(m.boots) - 1}"
    runner = CliRunner()
    for b in m.boots[:-1]:
        args = ["last-boot", "--ring", str(m.ring), "--boot", b.boot_id, "--format", "export"]
        args += ["--no-journal", "--proc", str(proc), "--config", str(cfg)]
        result = runner.invoke(main, args)
        assert result.exit_code == 0, (result.output, repr(result.exception), live.boot_id)
        yield result.stdout_bytes


def store(exe: str, out: Path, name: str, data: bytes) -> Path:
    """What a collector does with one box's upload: `systemd-journal-remote -o FILE -`."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"remote-{name}.journal"
    subprocess.run(
        [exe, f"--output={path}", "-"], input=data, check=True, capture_output=True, timeout=60
    )
    return path


def fleet(*args: str) -> subprocess.CompletedProcess[str]:
    """`kmsgd fleet ARGS` as a subprocess, as an operator runs it."""
    return subprocess.run(
        [sys.executable, "-m", "kmsgd.cli", "fleet", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
