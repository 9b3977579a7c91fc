"""Turn hwmon chips and DRM cards into device specs, one per owning device.

An amdgpu card's hwmon chip and its DRM device directory are the same PCI device, so their
values go into one record (`source` "amdgpu"). Specs are frozen values: after a rescan, a
device whose spec is unchanged keeps its sampler (and its open files).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kmsgd.sensors.amdgpu import Card, read_cards
from kmsgd.sensors.device import Probe, ProbeDevice, ScaledFile
from kmsgd.sensors.hwmon import Chip, read_chips

GPU_DRIVERS = frozenset({"amdgpu", "radeon", "nouveau", "nvidia", "i915", "xe"})


@dataclass(frozen=True, slots=True)
class FileSpec:
    path: str
    key: str
    scale: float


@dataclass(frozen=True, slots=True)
class DeviceSpec:
    source: str  # "hwmon" or "amdgpu"
    device: str
    driver: str
    power: tuple[FileSpec, ...]
    slow: tuple[FileSpec, ...]

    @property
    def is_gpu(self) -> bool:
        return self.driver in GPU_DRIVERS


def specs_from(chips: list[Chip], cards: list[Card]) -> list[DeviceSpec]:
    """Group chips and cards by owning device (pure: no file is read)."""
    order: list[str] = []
    power: dict[str, list[FileSpec]] = {}
    slow: dict[str, list[FileSpec]] = {}
    driver: dict[str, str] = {}
    source: dict[str, str] = {}

    def ensure(device: str, drv: str, src: str) -> None:
        if device not in power:
            order.append(device)
            power[device], slow[device] = [], []
            driver[device], source[device] = drv, src

    for chip in chips:
        ensure(chip.device, chip.driver or chip.name, "hwmon")
        taken = {f.key for f in (*power[chip.device], *slow[chip.device])}
        for ch in chip.channels:
            # a second chip on the same device: prefix its keys with the chip's name
            key = f"{chip.name}_{ch.key}" if ch.key in taken else ch.key
            (power if ch.is_power else slow)[chip.device].append(FileSpec(ch.path, key, ch.scale))
    for card in cards:
        if not card.extras:
            continue
        ensure(card.device, card.driver, "amdgpu")
        if card.driver == "amdgpu":
            source[card.device] = "amdgpu"
        slow[card.device].extend(FileSpec(path, key, 1.0) for key, path in card.extras)
    return [
        DeviceSpec(source[d], d, driver[d], tuple(power[d]), tuple(slow[d]))
        for d in order
        if power[d] or slow[d]
    ]


def discover(sys_root: Path, hwmon_paths: list[str] | None = None) -> list[DeviceSpec]:
    """Specs for this tree; `hwmon_paths` from udev enumeration, else a directory walk."""
    return specs_from(read_chips(sys_root, hwmon_paths), read_cards(sys_root))


def _probe(spec: FileSpec) -> Probe:
    f = ScaledFile(spec.path, spec.scale)
    digits = 0 if spec.key.endswith(("_bytes", "_pct", "_rpm")) else 3
    return Probe(spec.path, spec.key, f.read, f.close, digits=digits)


def build(spec: DeviceSpec, max_raw: int) -> ProbeDevice:
    """A sampler for one device spec (files opened lazily, by the worker)."""
    return ProbeDevice(
        source=spec.source,
        device=spec.device,
        driver=spec.driver,
        power=[_probe(f) for f in spec.power],
        slow=[_probe(f) for f in spec.slow],
        max_raw=max_raw,
    )
