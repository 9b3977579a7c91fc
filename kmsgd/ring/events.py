"""The `event` and `device` record shapes of the sensors, and how to read them back.

Event payloads carry `"event"` naming what happened (`EventName`); `device` payloads are udev
events. See docs/telemetry.md for every key and its unit.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class EventName(enum.StrEnum):
    SENSOR_STALL = "sensor_stall"  # a read has been blocked longer than the stall limit
    SENSOR_STALL_END = "sensor_stall_end"  # ... and finally returned
    SENSOR_ERROR = "sensor_error"  # a file started failing
    SENSOR_RECOVERED = "sensor_recovered"  # ... and reads again
    DEVCOREDUMP_SAVED = "devcoredump_saved"
    DEVCOREDUMP_FAILED = "devcoredump_failed"


@dataclass(frozen=True, slots=True)
class SensorEvent:
    """A stall, failure or recovery of one sensor read (`path` is a file or `nvml:<call>`)."""

    event: EventName
    path: str
    device: str
    mono_us: int
    reason: str = ""  # errno name, "empty", "garbage", ... for errors
    detail: str = ""
    duration_s: float = 0.0  # how long blocked (stall) or failing (recovered)

    def to_payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "event": self.event.value,
            "path": self.path,
            "device": self.device,
            "mono_us": self.mono_us,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.detail:
            out["detail"] = self.detail
        if self.duration_s:
            out["duration_s"] = round(self.duration_s, 3)
        return out

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> SensorEvent:
        return cls(
            event=EventName(data["event"]),
            path=str(data.get("path", "")),
            device=str(data.get("device", "")),
            mono_us=int(data.get("mono_us", 0)),
            reason=str(data.get("reason", "")),
            detail=str(data.get("detail", "")),
            duration_s=float(data.get("duration_s", 0.0)),
        )


@dataclass(frozen=True, slots=True)
class DeviceEvent:
    """A udev/kernel uevent for a watched subsystem (a GPU falling off the bus is `remove`)."""

    action: str  # add, remove, change, bind, unbind, ...
    subsystem: str
    devpath: str  # "/devices/pci0000:00/.../0000:03:00.0/drm/card1"
    sys_name: str
    mono_us: int
    driver: str = ""
    pci: str = ""  # the deepest PCI address in devpath, "" when none
    seqnum: int | None = None

    def to_payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "action": self.action,
            "subsystem": self.subsystem,
            "devpath": self.devpath,
            "sys_name": self.sys_name,
            "mono_us": self.mono_us,
        }
        if self.driver:
            out["driver"] = self.driver
        if self.pci:
            out["pci"] = self.pci
        if self.seqnum is not None:
            out["seqnum"] = self.seqnum
        return out

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> DeviceEvent:
        seqnum = data.get("seqnum")
        return cls(
            action=str(data.get("action", "")),
            subsystem=str(data.get("subsystem", "")),
            devpath=str(data.get("devpath", "")),
            sys_name=str(data.get("sys_name", "")),
            mono_us=int(data.get("mono_us", 0)),
            driver=str(data.get("driver", "")),
            pci=str(data.get("pci", "")),
            seqnum=None if seqnum is None else int(seqnum),
        )


@dataclass(frozen=True, slots=True)
class DumpEvent:
    """A device coredump copied out of kernel memory (or the reason it could not be)."""

    event: EventName  # devcoredump_saved / devcoredump_failed
    source: str  # "devcd3"
    failing_device: str  # PCI address or sysfs name of the device that dumped
    mono_us: int
    saved_path: str = ""
    size_bytes: int = 0
    truncated: bool = False
    driver: str = ""
    reason: str = ""

    def to_payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "event": self.event.value,
            "source": self.source,
            "failing_device": self.failing_device,
            "mono_us": self.mono_us,
            "saved_path": self.saved_path,
            "size_bytes": self.size_bytes,
            "truncated": self.truncated,
        }
        if self.driver:
            out["driver"] = self.driver
        if self.reason:
            out["reason"] = self.reason
        return out

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> DumpEvent:
        return cls(
            event=EventName(data["event"]),
            source=str(data.get("source", "")),
            failing_device=str(data.get("failing_device", "")),
            mono_us=int(data.get("mono_us", 0)),
            saved_path=str(data.get("saved_path", "")),
            size_bytes=int(data.get("size_bytes", 0)),
            truncated=bool(data.get("truncated", False)),
            driver=str(data.get("driver", "")),
            reason=str(data.get("reason", "")),
        )


def event_from_payload(data: Mapping[str, Any]) -> SensorEvent | DumpEvent:
    """A sensor `event` record's payload as its dataclass; ValueError (or KeyError,
    TypeError, AttributeError) for another producer's event or a broken one."""
    name = EventName(str(data.get("event", "")))
    if name in (EventName.DEVCOREDUMP_SAVED, EventName.DEVCOREDUMP_FAILED):
        return DumpEvent.from_payload(data)
    return SensorEvent.from_payload(data)
