"""The `sample` record shapes the sampler emits, and how the post-mortem reads them back.

Every key carries its unit (`power_w`, `temp_c`, `mem_available_bytes`, `mono_us`). Sample
payloads carry `"sample"` naming their shape. `from_payload` ignores keys it does not know, so
older readers survive newer writers. Events are in `events`, the inventory in `inventory`;
docs/telemetry.md describes them all.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class SampleShape(enum.StrEnum):
    DEVICE = "device"  # one hwmon chip / GPU, once per second
    MEMORY = "memory"  # meminfo + PSI, once per second
    PROCS = "procs"  # top memory holders, every 5 s


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
class PowerStep:
    """A sudden power step that made a record urgent: `sensor` went `from_w` -> `to_w` W.

    `from_w` is the reference the read was compared with: the previous read, or the lowest
    (for a rise) / highest (for a fall) read of the running second.
    """

    sensor: str  # the power sensor's name, as in `DeviceSample.power` ("ppt", "board")
    from_w: float
    to_w: float

    def to_payload(self) -> dict[str, Any]:
        return {"sensor": self.sensor, "from_w": self.from_w, "to_w": self.to_w}

    @classmethod
    def from_payload(cls, data: object) -> PowerStep | None:
        """The step, or None for a missing or malformed one (the record is still read)."""
        if not isinstance(data, Mapping):
            return None
        try:
            return cls(str(data["sensor"]), float(data["from_w"]), float(data["to_w"]))
        except (KeyError, TypeError, ValueError):
            return None


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
    # the step that made this record urgent; None for an ordinary record
    step: PowerStep | None = None
    # cut short at a step: power reads only; the rest of the second is in the next record
    partial: bool = False

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
        if self.step is not None:
            out["step"] = self.step.to_payload()
        if self.partial:
            out["partial"] = True
        return out

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> DeviceSample:
        power = {
            str(k): PowerStats(float(p["min_w"]), float(p["max_w"]), tuple(p.get("raw_w", ())))
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
            step=PowerStep.from_payload(data.get("step")),
            partial=data.get("partial") is True,
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
    def from_payload(cls, data: Mapping[str, Any]) -> MemorySample:
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
    gpu_vram_bytes: int = 0  # on the card: DRM fdinfo (sensors/fdinfo.py) / NVML used memory
    gpu_gtt_bytes: int = 0  # system RAM mapped for the GPU (DRM fdinfo)

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
    def from_payload(cls, data: Mapping[str, Any]) -> ProcsSample:
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


Sample = DeviceSample | MemorySample | ProcsSample
_SHAPES: dict[str, type[DeviceSample] | type[MemorySample] | type[ProcsSample]] = {
    SampleShape.DEVICE: DeviceSample,
    SampleShape.MEMORY: MemorySample,
    SampleShape.PROCS: ProcsSample,
}


def sample_from_payload(data: Mapping[str, Any]) -> Sample:
    """A `sample` record's payload as its dataclass; ValueError (or KeyError, TypeError,
    AttributeError) for an unknown or broken shape."""
    shape = _SHAPES.get(str(data.get("sample", "")))
    if shape is None:
        raise ValueError(f"unknown sample shape {data.get('sample')!r}")
    return shape.from_payload(data)
