"""Discover hwmon chips and their channels under `<sys_root>/class/hwmon`.

Units follow Documentation/hwmon/sysfs-interface.rst: temperature m°C, voltage mV, current mA,
power µW, energy µJ, fan RPM, frequency Hz. Channel numbering has no fixed meaning, so a
channel is named by its `*_label` when it has one (amdgpu: edge/junction/mem, PPT, vddgfx).
Discovery lists directories and reads only `name` and `*_label` (static strings in every
driver); the value files are opened later, by the worker thread that samples them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from kmsgd.sensors.attrfiles import read_text

_VALUE_FILE = re.compile(r"^(temp|in|curr|power|energy|fan|freq)(\d+)_(input|average)$")
_CAP_FILE = re.compile(r"^(power\d+)_(cap|cap_default|cap_min|cap_max)$")

# hwmon prefix -> (quantity_unit used in record keys, factor from the sysfs integer)
QUANTITIES: dict[str, tuple[str, float]] = {
    "temp": ("temp_c", 1e-3),
    "in": ("volt_v", 1e-3),
    "curr": ("curr_a", 1e-3),
    "power": ("power_w", 1e-6),
    "energy": ("energy_j", 1e-6),
    "fan": ("fan_rpm", 1.0),
    "freq": ("freq_mhz", 1e-6),
}


@dataclass(frozen=True, slots=True)
class Channel:
    """One value file of a chip; `key` is the record key (`junction.temp_c`)."""

    path: str
    key: str
    scale: float
    label: str  # the raw *_label text, or ""
    attr: str  # "power1_input", kept so the inventory says which file power came from

    @property
    def is_power(self) -> bool:
        return self.key.endswith(".power_w")


@dataclass(frozen=True, slots=True)
class Chip:
    """One hwmon chip and the device that owns it."""

    hwmon: str  # "hwmon4": not stable across boots, key by `device` instead
    path: str
    name: str  # the chip's `name` attribute ("amdgpu", "coretemp", "nvme")
    device: str  # PCI address, the owning device's sysfs name, or "<name>.<hwmonN>"
    device_path: str  # realpath of the `device` link, "" without one
    driver: str
    channels: tuple[Channel, ...]
    cap_paths: tuple[tuple[str, str], ...]  # ("power1.cap_w", path) ...


def normalise_label(label: str) -> str:
    """`Package id 0` -> `package_id_0`: a stable, JSON-friendly sensor name."""
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def device_identity(device_path: str) -> tuple[str, str]:
    """(device name, driver) of a sysfs device directory; ("", "") when there is none."""
    if not device_path:
        return "", ""
    driver = ""
    link = os.path.join(device_path, "driver")
    if os.path.islink(link):
        driver = os.path.basename(os.path.realpath(link))
    else:
        uevent = read_text(os.path.join(device_path, "uevent")) or ""
        for line in uevent.splitlines():
            if line.startswith("DRIVER="):
                driver = line[7:].strip("\x00 ")
    return os.path.basename(device_path), driver


def scan_channels(path: str, names: list[str]) -> tuple[Channel, ...]:
    """The readable value channels among a chip directory's file names (pure but for labels)."""
    present = set(names)
    chosen: list[tuple[str, str, int]] = []
    for fname in sorted(names):
        m = _VALUE_FILE.match(fname)
        if not m:
            continue
        prefix, index, suffix = m.group(1), m.group(2), m.group(3)
        # Most AMD GPUs expose only one of power1_input / power1_average; prefer input.
        if prefix == "power" and suffix == "average" and f"power{index}_input" in present:
            continue
        if prefix != "power" and suffix == "average":
            continue
        chosen.append((fname, prefix, int(index)))
    channels: list[Channel] = []
    used: set[str] = set()
    for fname, prefix, index in sorted(chosen, key=lambda c: (c[1], c[2])):
        quantity, scale = QUANTITIES[prefix]
        label = read_text(os.path.join(path, f"{prefix}{index}_label")) or ""
        sensor = normalise_label(label) or f"{prefix}{index}"
        key = f"{sensor}.{quantity}"
        if key in used:  # two channels with one label: keep both, told apart by index
            key = f"{sensor}_{prefix}{index}.{quantity}"
        used.add(key)
        channels.append(Channel(os.path.join(path, fname), key, scale, label, fname))
    return tuple(channels)


def read_chip(path: str) -> Chip | None:
    """One hwmon directory as a Chip; None when it is gone or has no `name`."""
    try:
        names = os.listdir(path)
    except OSError:
        return None
    name = read_text(os.path.join(path, "name"))
    if not name:
        return None
    link = os.path.join(path, "device")
    device_path = os.path.realpath(link) if os.path.exists(link) else ""
    device, driver = device_identity(device_path)
    hwmon = os.path.basename(path)
    caps = tuple(
        (f"{m.group(1)}.{m.group(2)}_w", os.path.join(path, fname))
        for fname in sorted(names)
        if (m := _CAP_FILE.match(fname))
    )
    return Chip(
        hwmon=hwmon,
        path=path,
        name=name,
        device=device or f"{name}.{hwmon}",
        device_path=device_path,
        driver=driver,
        channels=scan_channels(path, names),
        cap_paths=caps,
    )


def list_chip_paths(sys_root: Path) -> list[str]:
    """The hwmonN directories under `<sys_root>/class/hwmon`, by a plain directory walk."""
    base = sys_root / "class" / "hwmon"
    try:
        entries = sorted(os.listdir(base), key=lambda n: (len(n), n))
    except OSError:
        return []
    return [os.path.realpath(os.path.join(base, e)) for e in entries if e.startswith("hwmon")]


def read_chips(sys_root: Path, paths: list[str] | None = None) -> list[Chip]:
    """Every readable chip; `paths` (from udev enumeration) overrides the directory walk."""
    chips = []
    for path in list_chip_paths(sys_root) if paths is None else paths:
        chip = read_chip(path)
        if chip is not None:
            chips.append(chip)
    return chips
