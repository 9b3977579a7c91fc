"""The record shapes the sampler emits, and how the post-mortem reads them back.

Every key carries its unit (`power_w`, `temp_c`, `mem_available_bytes`, `mono_us`). Sample
payloads carry `"sample"` naming their shape; event payloads carry `"event"`. `from_payload`
ignores keys it does not know, so older readers survive newer writers. See docs/telemetry.md.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class SampleShape(enum.StrEnum):
    DEVICE = "device"  # one hwmon chip / GPU, once per second
    MEMORY = "memory"  # meminfo + PSI, once per second
    PROCS = "procs"  # top memory holders, every 5 s


class EventName(enum.StrEnum):
    SENSOR_STALL = "sensor_stall"  # a read has been blocked longer than the stall limit
    SENSOR_STALL_END = "sensor_stall_end"  # ... and finally returned
    SENSOR_ERROR = "sensor_error"  # a file started failing
    SENSOR_RECOVERED = "sensor_recovered"  # ... and reads again
    DEVCOREDUMP_SAVED = "devcoredump_saved"
    DEVCOREDUMP_FAILED = "devcoredump_failed"


@dataclass(frozen=True, slots=True)
class PowerStats:
    """One power sensor over one second: min/max of the 10 Hz reads and the reads themselves.

    The mean is `DeviceSample.values["<sensor>.power_w"]`. `raw_w[i]` was read at
    `DeviceSample.mono_us + raw_ms[i] * 1000`; None marks a failed read.
    """

    min_w: float
    max_w: float
    raw_w: tuple[float | None, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceSample:
    """One device's sensors for one second (`values` keys are `<sensor>.<quantity>_<unit>`)."""

    source: str  # "hwmon", "amdgpu" (hwmon + DRM extras), "nvml"
    device: str  # PCI address ("0000:03:00.0") or the chip's own name ("coretemp.0")
    driver: str
    mono_us: int  # CLOCK_MONOTONIC of the last read in this record
    values: dict[str, float] = field(default_factory=dict)
    power: dict[str, PowerStats] = field(default_factory=dict)
    raw_ms: tuple[int, ...] = ()  # offsets (ms, <= 0) of the raw power reads from mono_us

    def to_payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sample": SampleShape.DEVICE.value,
            "source": self.source,
            "device": self.device,
            "driver": self.driver,
            "mono_us": self.mono_us,
            "values": self.values,
        }
        if self.power:
            out["power"] = {
                k: {"min_w": p.min_w, "max_w": p.max_w, "raw_w": list(p.raw_w)}
                if p.raw_w
                else {"min_w": p.min_w, "max_w": p.max_w}
                for k, p in self.power.items()
            }
        if self.raw_ms:
            out["raw_ms"] = list(self.raw_ms)
        return out

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> DeviceSample:
        power = {
            k: PowerStats(float(p["min_w"]), float(p["max_w"]), tuple(p.get("raw_w", ())))
            for k, p in data.get("power", {}).items()
        }
        return cls(
            source=str(data.get("source", "")),
            device=str(data.get("device", "")),
            driver=str(data.get("driver", "")),
            mono_us=int(data.get("mono_us", 0)),
            values={str(k): float(v) for k, v in data.get("values", {}).items()},
            power=power,
            raw_ms=tuple(int(x) for x in data.get("raw_ms", ())),
        )


@dataclass(frozen=True, slots=True)
class MemorySample:
    """/proc/meminfo and /proc/pressure/* at one instant; absent figures are None / missing."""

    mono_us: int
    mem_total_bytes: int | None = None
    mem_available_bytes: int | None = None
    swap_total_bytes: int | None = None
    swap_free_bytes: int | None = None
    # "<resource>.<some|full>_avg10_pct" and "<resource>.<some|full>_total_us"
    psi: dict[str, float] = field(default_factory=dict)

    def to_payload(self) -> dict[str, Any]:
        return {
            "sample": SampleShape.MEMORY.value,
            "mono_us": self.mono_us,
            "mem_total_bytes": self.mem_total_bytes,
            "mem_available_bytes": self.mem_available_bytes,
            "swap_total_bytes": self.swap_total_bytes,
            "swap_free_bytes": self.swap_free_bytes,
            "psi": self.psi,
        }

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> MemorySample:
        def opt(key: str) -> int | None:
            value = data.get(key)
            return None if value is None else int(value)

        return cls(
            mono_us=int(data.get("mono_us", 0)),
            mem_total_bytes=opt("mem_total_bytes"),
            mem_available_bytes=opt("mem_available_bytes"),
            swap_total_bytes=opt("swap_total_bytes"),
            swap_free_bytes=opt("swap_free_bytes"),
            psi={str(k): float(v) for k, v in data.get("psi", {}).items()},
        )


@dataclass(frozen=True, slots=True)
class MemoryHolder:
    """A process holding memory: resident set plus GPU memory RSS does not show."""

    pid: int
    comm: str
    rss_bytes: int
    gpu_vram_bytes: int = 0  # amdgpu fdinfo drm-memory-vram / NVML used GPU memory
    gpu_gtt_bytes: int = 0  # amdgpu fdinfo drm-memory-gtt: system RAM pinned for the GPU

    @property
    def total_bytes(self) -> int:
        return self.rss_bytes + self.gpu_vram_bytes + self.gpu_gtt_bytes


@dataclass(frozen=True, slots=True)
class ProcsSample:
    """The top memory holders, ranked by RSS + GPU memory, largest first."""

    mono_us: int
    top: tuple[MemoryHolder, ...] = ()
    scanned: int = 0  # processes looked at

    def to_payload(self) -> dict[str, Any]:
        return {
            "sample": SampleShape.PROCS.value,
            "mono_us": self.mono_us,
            "scanned": self.scanned,
            "top": [
                {
                    "pid": h.pid,
                    "comm": h.comm,
                    "rss_bytes": h.rss_bytes,
                    "gpu_vram_bytes": h.gpu_vram_bytes,
                    "gpu_gtt_bytes": h.gpu_gtt_bytes,
                }
                for h in self.top
            ],
        }

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> ProcsSample:
        top = tuple(
            MemoryHolder(
                pid=int(h["pid"]),
                comm=str(h.get("comm", "")),
                rss_bytes=int(h.get("rss_bytes", 0)),
                gpu_vram_bytes=int(h.get("gpu_vram_bytes", 0)),
                gpu_gtt_bytes=int(h.get("gpu_gtt_bytes", 0)),
            )
            for h in data.get("top", ())
        )
        return cls(
            mono_us=int(data.get("mono_us", 0)), top=top, scanned=int(data.get("scanned", 0))
        )


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
    def from_payload(cls, data: dict[str, Any]) -> SensorEvent:
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
    def from_payload(cls, data: dict[str, Any]) -> DeviceEvent:
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
    def from_payload(cls, data: dict[str, Any]) -> DumpEvent:
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
