"""Fake /sys and /proc trees modelled on real machines, shared by the sensor tests.

The amdgpu files follow the real RX 7900 XT / RX 6900 XT snapshots in ../shared/fixtures
(power in µW, temperatures in m°C, labels edge/junction/mem/PPT/vddgfx, NUL padding on the
6900 XT). Symlinks are laid out as in sysfs: class/hwmon/hwmonN -> the device's hwmon directory,
hwmonN/device -> the PCI device, class/drm/cardN/device -> the PCI device.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PAD = b"\n" + b"\0" * 64  # how the RX 6900 XT snapshot pads its values


def put(path: Path, value: str | int, pad: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = str(value).encode()
    path.write_bytes(data + (PAD if pad else b"\n"))


def link(path: Path, target: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(target, path.parent), path)


def driver_dir(sys: Path, driver: str, bus: str = "pci") -> Path:
    d = sys / "bus" / bus / "drivers" / driver
    d.mkdir(parents=True, exist_ok=True)
    return d


def hwmon_chip(
    sys: Path, device: Path, hwmon: str, files: dict[str, str | int], pad: bool = False
) -> Path:
    """A hwmon directory under `device`, registered in class/hwmon."""
    chip = device / "hwmon" / hwmon
    for name, value in files.items():
        put(chip / name, value, pad)
    link(chip / "device", device)
    link(sys / "class" / "hwmon" / hwmon, chip)
    return chip


def amd_card(
    sys: Path,
    card: str,
    pci: str,
    hwmon: str,
    *,
    power_uw: int = 12_000_000,
    pad: bool = False,
    power_file: str = "power1_average",
) -> Path:
    """An RDNA3-like amdgpu card: DRM device files plus its hwmon chip."""
    dev = sys / "devices" / "pci0000:00" / "0000:00:01.1" / pci
    for name, value in {
        "vendor": "0x1002",
        "device": "0x744c",
        "subsystem_vendor": "0x1da2",
        "subsystem_device": "0xe471",
        "vbios_version": "113-D70401XT-N11",
        "current_link_speed": "16.0 GT/s PCIe",
        "current_link_width": 16,
        "max_link_speed": "16.0 GT/s PCIe",
        "max_link_width": 16,
        "gpu_busy_percent": 3,
        "mem_busy_percent": 1,
        "mem_info_vram_used": 668274688,
        "mem_info_vram_total": 25753026560,
        "mem_info_gtt_used": 11796480,
        "mem_info_gtt_total": 33554432000,
        "uevent": f"DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_ID=1002:744C\nPCI_SLOT_NAME={pci}",
    }.items():
        put(dev / name, value, pad)
    put(dev / "iommu_group" / "type", "identity")
    link(dev / "driver", driver_dir(sys, "amdgpu"))
    hwmon_chip(
        sys,
        dev,
        hwmon,
        {
            "name": "amdgpu",
            "temp1_input": 41000,
            "temp1_label": "edge",
            "temp1_crit": 100000,
            "temp2_input": 46000,
            "temp2_label": "junction",
            "temp3_input": 52000,
            "temp3_label": "mem",
            power_file: power_uw,
            "power1_label": "PPT",
            "power1_cap": 289000000,
            "power1_cap_default": 289000000,
            "power1_cap_min": 0,
            "power1_cap_max": 332000000,
            "in0_input": 775,
            "in0_label": "vddgfx",
            "fan1_input": 0,
            "freq1_input": 500000000,
            "freq1_label": "sclk",
            "pwm1": 0,
        },
        pad,
    )
    (sys / "class" / "drm" / card).mkdir(parents=True, exist_ok=True)
    link(sys / "class" / "drm" / card / "device", dev)
    (sys / "class" / "drm" / f"{card}-DP-1").mkdir(parents=True, exist_ok=True)  # a connector
    return dev


@dataclass
class Proc:
    pid: int
    comm: str
    rss_pages: int
    drm: list[tuple[int, str]] = field(default_factory=list)  # (fd, fdinfo text)


LLAMA_FDINFO = (
    "pos:\t0\nflags:\t02100002\nmnt_id:\t25\ndrm-driver:\tamdgpu\ndrm-client-id:\t42\n"
    "drm-memory-vram:\t25165824 KiB\ndrm-memory-gtt:\t2048 KiB\ndrm-memory-cpu:\t0 KiB\n"
)


def proc_tree(
    proc: Path, procs: list[Proc] | None = None, *, psi: bool = True, avail_kib: int = 2_000_000
) -> Path:
    put(
        proc / "meminfo",
        f"MemTotal:       131072000 kB\nMemFree:         1000000 kB\n"
        f"MemAvailable:   {avail_kib:>9} kB\nBuffers:           10000 kB\n"
        f"SwapTotal:       8388604 kB\nSwapFree:        8000000 kB\n",
    )
    if psi:
        put(
            proc / "pressure" / "memory",
            "some avg10=12.50 avg60=3.00 avg300=1.00 total=123456\n"
            "full avg10=4.25 avg60=1.00 avg300=0.50 total=65432",
        )
        put(
            proc / "pressure" / "cpu",
            "some avg10=0.00 avg60=0.00 avg300=0.00 total=42\n"
            "full avg10=0.00 avg60=0.00 avg300=0.00 total=0",
        )
        put(
            proc / "pressure" / "io",
            "some avg10=1.00 avg60=0.00 avg300=0.00 total=7\n"
            "full avg10=0.50 avg60=0.00 avg300=0.00 total=3",
        )
    put(proc / "sys" / "kernel" / "osrelease", "6.8.0-49-generic")
    put(proc / "cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 iommu=pt pcie_aspm=off")
    for name, value in {
        "kernel/panic": 10,
        "kernel/softlockup_panic": 1,
        "kernel/printk": "4\t4\t1\t7",
    }.items():
        put(proc / "sys" / name, value)
    for p in procs or []:
        base = proc / str(p.pid)
        put(base / "statm", f"{p.rss_pages * 2} {p.rss_pages} 100 10 0 500 0")
        put(base / "comm", p.comm)
        (base / "fd").mkdir(parents=True, exist_ok=True)
        os.symlink("/dev/null", base / "fd" / "0")
        put(base / "fdinfo" / "0", "pos:\t0\nflags:\t02\n")
        for fd, info in p.drm:
            os.symlink("/dev/dri/renderD128", base / "fd" / str(fd))
            put(base / "fdinfo" / str(fd), info)
    return proc


def llama_procs() -> list[Proc]:
    """llama-server holds 24 GiB of VRAM (two fds, one DRM client) and little RSS."""
    return [
        Proc(1, "systemd", 3000),
        Proc(812, "python3", 900_000),
        Proc(4242, "llama-server", 200_000, [(7, LLAMA_FDINFO), (8, LLAMA_FDINFO)]),
        Proc(99, "bash", 1000),
    ]


def dual_amdgpu_box(root: Path, *, pad_second: bool = True) -> tuple[Path, Path]:
    """Two RX 7900 XT-class cards, a CPU package sensor and an NVMe drive."""
    sys = root / "sys"
    amd_card(sys, "card0", "0000:03:00.0", "hwmon3")
    amd_card(sys, "card1", "0000:43:00.0", "hwmon4", pad=pad_second, power_file="power1_input")
    coretemp = sys / "devices" / "platform" / "coretemp.0"
    link(coretemp / "driver", driver_dir(sys, "coretemp", "platform"))
    hwmon_chip(
        sys,
        coretemp,
        "hwmon1",
        {
            "name": "coretemp",
            "temp1_input": 45000,
            "temp1_label": "Package id 0",
            "temp2_input": 43000,
            "temp2_label": "Core 0",
        },
    )
    nvme = sys / "devices" / "pci0000:00" / "0000:00:1d.0" / "0000:3c:00.0" / "nvme" / "nvme0"
    hwmon_chip(
        sys, nvme, "hwmon2", {"name": "nvme", "temp1_input": 38850, "temp1_label": "Composite"}
    )
    put(
        sys / "module" / "pcie_aspm" / "parameters" / "policy",
        "default [performance] powersave powersupersave",
    )
    for group, kind in (("0", "identity"), ("1", "identity"), ("2", "DMA-FQ")):
        put(sys / "kernel" / "iommu_groups" / group / "type", kind)
    return sys, proc_tree(root / "proc", llama_procs())


def nvidia_card(sys: Path, device: str = "0x2330") -> Path:
    """An NVIDIA card at 0000:3d:00.0 (card0): a DRM device owned by the proprietary driver
    550.127.05, no hwmon at all."""
    dev = sys / "devices" / "pci0000:3a" / "0000:3a:00.0" / "0000:3d:00.0"
    put(dev / "vendor", "0x10de")
    put(dev / "device", device)
    put(dev / "uevent", f"DRIVER=nvidia\nPCI_ID=10DE:{device[2:]}\nPCI_SLOT_NAME=0000:3d:00.0")
    link(dev / "driver", driver_dir(sys, "nvidia"))
    put(sys / "module" / "nvidia" / "version", "550.127.05")
    (sys / "class" / "drm" / "card0").mkdir(parents=True)
    link(sys / "class" / "drm" / "card0" / "device", dev)
    return dev


def nvidia_box(root: Path) -> tuple[Path, Path]:
    """A box with one NVIDIA card (`nvidia_card`) and vllm running."""
    sys = root / "sys"
    nvidia_card(sys)
    return sys, proc_tree(root / "proc", [Proc(777, "vllm", 50_000)])


def empty_box(root: Path) -> tuple[Path, Path]:
    """A VM: no hwmon, no DRM, no PSI."""
    sys = root / "sys"
    sys.mkdir(parents=True)
    return sys, proc_tree(root / "proc", [Proc(1, "init", 500)], psi=False)


class FakeNvml:
    """pynvml's functions as kmsgd calls them, for one GPU at 0000:3d:00.0 (H100-like)."""

    class Error(Exception):
        pass

    def __init__(self) -> None:
        self.power_mw = 68_000
        self.fail: set[str] = set()
        self.calls = 0

    def _check(self, name: str) -> None:
        self.calls += 1
        if name in self.fail:
            raise FakeNvml.Error(f"{name}: GPU is lost")

    def nvmlDeviceGetCount(self) -> int:
        return 1

    def nvmlDeviceGetHandleByIndex(self, index: int) -> Any:
        return ("handle", index)

    def nvmlDeviceGetPciInfo(self, handle: Any) -> Any:
        return type("Pci", (), {"busId": b"00000000:3D:00.0"})()

    def nvmlDeviceGetName(self, handle: Any) -> Any:
        return "NVIDIA H100 80GB HBM3"

    def nvmlDeviceGetPowerUsage(self, handle: Any) -> int:
        self._check("PowerUsage")
        return self.power_mw

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: Any) -> int:
        return 700_000

    def nvmlDeviceGetPowerManagementDefaultLimit(self, handle: Any) -> int:
        return 700_000

    def nvmlDeviceGetTemperature(self, handle: Any, sensor: int) -> int:
        self._check("Temperature")
        return 34

    def nvmlDeviceGetMemoryInfo(self, handle: Any) -> Any:
        return type("Mem", (), {"used": 5 << 30, "total": 80 << 30, "free": 75 << 30})()

    def nvmlDeviceGetUtilizationRates(self, handle: Any) -> Any:
        return type("Util", (), {"gpu": 97, "memory": 40})()

    def nvmlDeviceGetComputeRunningProcesses(self, handle: Any) -> Any:
        return [type("P", (), {"pid": 777, "usedGpuMemory": 4 << 30})()]

    def nvmlSystemGetDriverVersion(self) -> str:
        return "550.127.05"


AER_COR = "RxErr 0\nBadTLP {n}\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR {n}\n"


def link_state(
    dev: Path,
    *,
    aer_cor: int = 0,
    bridge_speed: str = "2.5 GT/s PCIe",
    metrics: bytes | None = None,
    runtime: str = "active",
) -> Path:
    """Incident-snapshot files on an amd_card device: AER counters, runtime PM, gpu_metrics,
    and the bridge above it trained at `bridge_speed` x16 though capable of 16 GT/s x16."""
    put(dev / "aer_dev_correctable", AER_COR.format(n=aer_cor))
    put(dev / "aer_dev_nonfatal", "Undefined 0\nDLP 0\nTOTAL_ERR_NONFATAL 0")
    put(dev / "aer_dev_fatal", "Undefined 0\nDLP 0\nTOTAL_ERR_FATAL 0")
    put(dev / "power" / "runtime_status", runtime)
    bridge = dev.parent
    for name, value in {
        "current_link_speed": bridge_speed,
        "current_link_width": 16,
        "max_link_speed": "16.0 GT/s PCIe",
        "max_link_width": 16,
    }.items():
        put(bridge / name, value)
    if metrics is not None:
        (dev / "gpu_metrics").write_bytes(metrics)
    return dev


# amdgpu on 6.11+: drm_print_memory_stats (drivers/gpu/drm/drm_file.c) per region, sizes in the
# largest unit that divides them, then the legacy drm-memory-* aliases and amdgpu's own keys.
AMD_FDINFO_6_11 = (
    "pos:\t0\nflags:\t02100002\nmnt_id:\t25\nino:\t1098\ndrm-driver:\tamdgpu\n"
    "drm-client-id:\t77\ndrm-pdev:\t0000:03:00.0\npasid:\t32771\n"
    "drm-total-cpu:\t0\ndrm-shared-cpu:\t0\ndrm-resident-cpu:\t0\ndrm-purgeable-cpu:\t0\n"
    "drm-total-gtt:\t1 MiB\ndrm-shared-gtt:\t0\ndrm-resident-gtt:\t1 MiB\ndrm-purgeable-gtt:\t0\n"
    "drm-total-vram:\t8192 MiB\ndrm-shared-vram:\t0\ndrm-resident-vram:\t8192 MiB\n"
    "drm-purgeable-vram:\t0\ndrm-memory-vram:\t8388608 KiB\ndrm-memory-gtt: \t1024 KiB\n"
    "drm-memory-cpu: \t0 KiB\namd-memory-visible-vram:\t262144 KiB\namd-evicted-vram:\t0 KiB\n"
    "amd-evicted-visible-vram:\t0 KiB\namd-requested-vram:\t8388608 KiB\n"
    "amd-requested-visible-vram:\t0 KiB\namd-requested-gtt:\t1024 KiB\n"
    "drm-engine-gfx:\t1734851 ns\n"
)
