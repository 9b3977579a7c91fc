"""The `inventory` record: what hardware and configuration a boot had
(kmsgd/sensors/inventory_scan.py reads it; docs/telemetry.md lists the keys).

A GPU, a hwmon chip and the host are open attribute maps: the keys are what the driver's
sysfs files and NVML offered on that box (a card without `fw_version/` has no `firmware`), and
the judge diffs them by key (judge/changes.py `GPU_FACTS`). Their values are JSON values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# A JSON value as the record holds it (a GPU's `firmware` is an object of strings).
JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]
Attributes = Mapping[str, JsonValue]

# The GPU keys that move without a configuration change (amdgpu DPM moves the link between
# 2.5 and 16 GT/s with load).
VOLATILE_GPU_KEYS = ("link_speed", "link_width")


@dataclass(frozen=True, slots=True)
class Inventory:
    """Hardware and configuration at one instant; `same_as` ignores when it was taken."""

    mono_us: int
    kernel: str
    cmdline: str
    gpus: tuple[Attributes, ...] = ()
    hwmon: tuple[Attributes, ...] = ()
    iommu_group_types: Mapping[str, int] = field(default_factory=dict)
    aspm_policy: str = ""
    sysctls: Mapping[str, str] = field(default_factory=dict)
    host: Attributes = field(default_factory=dict)  # DMI, CPU model, RAM

    def to_payload(self) -> dict[str, Any]:
        return {
            "mono_us": self.mono_us,
            "kernel": self.kernel,
            "cmdline": self.cmdline,
            "gpus": [dict(g) for g in self.gpus],
            "hwmon": [dict(h) for h in self.hwmon],
            "iommu_group_types": dict(self.iommu_group_types),
            "aspm_policy": self.aspm_policy,
            "sysctls": dict(self.sysctls),
            "host": dict(self.host),
        }

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> Inventory:
        """The record's fields; one of the wrong type (another writer's, damage) reads as
        absent, as a missing file does when the inventory is taken."""
        mono = data.get("mono_us")
        types = _object(data.get("iommu_group_types"))
        return cls(
            mono_us=mono if isinstance(mono, int) and not isinstance(mono, bool) else 0,
            kernel=str(data.get("kernel", "")),
            cmdline=str(data.get("cmdline", "")),
            gpus=_objects(data.get("gpus")),
            hwmon=_objects(data.get("hwmon")),
            iommu_group_types={
                str(k): v
                for k, v in types.items()
                if isinstance(v, int) and not isinstance(v, bool)
            },
            aspm_policy=str(data.get("aspm_policy", "")),
            sysctls={str(k): str(v) for k, v in _object(data.get("sysctls")).items()},
            host=_object(data.get("host")),
        )

    def same_as(self, other: Inventory) -> bool:
        """Equal but for when it was taken and the GPUs' current link (not a configuration
        change)."""
        return _stable(self) == _stable(other)


def _object(value: object) -> dict[str, Any]:
    return {str(k): v for k, v in value.items()} if isinstance(value, Mapping) else {}


def _objects(value: object) -> tuple[Attributes, ...]:
    rows = value if isinstance(value, list) else ()
    return tuple(_object(row) for row in rows if isinstance(row, Mapping))


def _stable(inv: Inventory) -> dict[str, Any]:
    out = inv.to_payload()
    out.pop("mono_us")
    for gpu in out["gpus"]:
        for key in VOLATILE_GPU_KEYS:
            gpu.pop(key, None)
    return out
