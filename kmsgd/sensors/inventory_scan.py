"""The inventory record: what hardware and configuration this boot had.

The post-mortem diffs it against the previous boot: a GPU missing, a power cap changed,
`iommu=pt` added, a forensic sysctl different. Values are read back from the kernel, never
assumed from what kmsgd or the admin wrote. Missing files give absent keys, not errors.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from kmsgd.ring.inventory import Attributes, Inventory
from kmsgd.sensors.amdgpu import read_card_info, read_cards
from kmsgd.sensors.attrfiles import read_int, read_text
from kmsgd.sensors.hwmon import Chip, read_chips

# The sysctls that decide what a lockup or OOM does to this boot
# (Documentation/admin-guide/sysctl/kernel.rst).
FORENSIC_SYSCTLS = (
    "kernel/panic",
    "kernel/panic_on_oops",
    "kernel/panic_on_warn",
    "kernel/softlockup_panic",
    "kernel/hardlockup_panic",
    "kernel/nmi_watchdog",
    "kernel/watchdog_thresh",
    "kernel/hung_task_panic",
    "kernel/hung_task_timeout_secs",
    "kernel/panic_on_rcu_stall",
    "kernel/sysrq",
    "kernel/printk",
    "kernel/printk_devkmsg",
    "vm/panic_on_oom",
    "vm/overcommit_memory",
    "vm/min_free_kbytes",
)


def parse_bracketed(text: str) -> str:
    """`default [performance] powersave` -> `performance` (the active choice)."""
    start, end = text.find("["), text.find("]")
    return text[start + 1 : end] if 0 <= start < end else text.strip()


def read_caps(chip: Chip) -> dict[str, float]:
    """Power caps (W) of a chip: power1.cap_w, power1.cap_default_w, ...; unreadable ones absent."""
    caps = {}
    for key, path in chip.cap_paths:
        value = read_int(path)
        if value is not None:
            caps[key] = round(value * 1e-6, 1)
    return caps


def _iommu_types(sys_root: Path) -> dict[str, int]:
    base = os.path.join(sys_root, "kernel", "iommu_groups")
    counts: dict[str, int] = {}
    try:
        groups = os.listdir(base)
    except OSError:
        return counts
    for group in groups:
        kind = read_text(os.path.join(base, group, "type"))
        if kind:
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def _driver_version(sys_root: Path, driver: str) -> str:
    return read_text(os.path.join(sys_root, "module", driver, "version")) or "" if driver else ""


# /sys/class/dmi/id files any user may read (the serial numbers are root-only and not taken:
# a fleet groups boxes by model and firmware, never by serial).
DMI_FILES = (
    "bios_vendor",
    "bios_version",
    "bios_date",
    "board_vendor",
    "board_name",
    "board_version",
    "sys_vendor",
    "product_name",
)


def _cpu_model(proc_root: Path) -> str:
    """`model name` of the first CPU (x86); ARM kernels say `Hardware` or nothing."""
    text = read_text(os.path.join(proc_root, "cpuinfo")) or ""
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("model name", "Hardware", "cpu model"):
            return " ".join(value.split())
    return ""


def _mem_total_bytes(proc_root: Path) -> int | None:
    text = read_text(os.path.join(proc_root, "meminfo")) or ""
    for line in text.splitlines():
        if line.startswith("MemTotal:"):
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                return int(parts[1]) * 1024  # meminfo's "kB" are KiB
    return None


def read_host(sys_root: Path, proc_root: Path) -> dict[str, Any]:
    """What the box is: DMI (BIOS, board, system), CPU model, RAM. Missing files: absent keys."""
    host: dict[str, Any] = {}
    for name in DMI_FILES:
        value = read_text(os.path.join(sys_root, "class", "dmi", "id", name))
        if value:
            host[name] = " ".join(value.split())
    cpu = _cpu_model(proc_root)
    if cpu:
        host["cpu_model"] = cpu
    mem = _mem_total_bytes(proc_root)
    if mem is not None:
        host["mem_total_bytes"] = mem
    return host


def read_firmware(device_path: str) -> dict[str, str]:
    """amdgpu's firmware versions (`fw_version/smc_fw_version` -> {"smc": "0x00553700"});
    other drivers have no such directory and give {}."""
    base = os.path.join(device_path, "fw_version")
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return {}
    out = {}
    for name in names:
        value = read_text(os.path.join(base, name))
        if value and name.endswith("_fw_version"):
            out[name.removesuffix("_fw_version")] = value
    return out


def _pci_ids(sys_root: Path, device: str) -> dict[str, str]:
    """vendor_id/device_id/subsystem_id of a PCI device from sysfs (for NVML's GPUs, which
    name only the address)."""
    base = os.path.join(sys_root, "bus", "pci", "devices", device)
    ids = {}
    for key, files in (
        ("vendor_id", ("vendor",)),
        ("device_id", ("device",)),
        ("subsystem_id", ("subsystem_vendor", "subsystem_device")),
    ):
        values = [read_int(os.path.join(base, f)) for f in files]
        if all(v is not None for v in values):
            ids[key] = ":".join(f"{v:04x}" for v in values if v is not None)
    return ids


def read_inventory(
    sys_root: Path, proc_root: Path, extra_gpus: list[dict[str, Any]] | None = None
) -> Inventory:
    """Everything the inventory holds; `extra_gpus` are NVML's GPUs (`nvml.gpu_entry`)."""
    chips = read_chips(sys_root)
    caps_by_device = {c.device: read_caps(c) for c in chips if c.cap_paths}
    gpus: list[dict[str, Any]] = []
    for card in read_cards(sys_root):
        entry = read_card_info(card).to_payload()
        entry["driver_version"] = _driver_version(sys_root, card.driver)
        firmware = read_firmware(card.device_path)
        if firmware:
            entry["firmware"] = firmware
        group_type = read_text(os.path.join(card.device_path, "iommu_group", "type"))
        if group_type:
            entry["iommu_group_type"] = group_type
        entry.update(caps_by_device.get(card.device, {}))
        gpus.append(entry)
    known = {g["device"] for g in gpus}
    for g in extra_gpus or ():
        if g.get("device") not in known:
            gpus.append({**_pci_ids(sys_root, str(g.get("device", ""))), **g})
    hwmon: tuple[Attributes, ...] = tuple(
        {
            "hwmon": c.hwmon,
            "name": c.name,
            "device": c.device,
            "driver": c.driver,
            "channels": {ch.key: ch.attr for ch in c.channels},
        }
        for c in chips
    )
    sysctls = {}
    for name in FORENSIC_SYSCTLS:
        value = read_text(os.path.join(proc_root, "sys", name))
        if value is not None:
            sysctls[name.replace("/", ".")] = " ".join(value.split())
    return Inventory(
        mono_us=time.monotonic_ns() // 1000,
        kernel=read_text(os.path.join(proc_root, "sys", "kernel", "osrelease")) or "",
        cmdline=read_text(os.path.join(proc_root, "cmdline")) or "",
        gpus=tuple(gpus),
        hwmon=hwmon,
        iommu_group_types=_iommu_types(sys_root),
        aspm_policy=parse_bracketed(
            read_text(os.path.join(sys_root, "module", "pcie_aspm", "parameters", "policy")) or ""
        ),
        sysctls=sysctls,
        host=read_host(sys_root, proc_root),
    )
