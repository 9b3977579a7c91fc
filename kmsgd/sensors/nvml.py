"""NVIDIA GPUs through NVML (nvidia-ml-py), the only module that imports pynvml.

The proprietary driver registers no hwmon device, so NVML is the only way to NVIDIA power and
temperature. NVML is optional: no library, no driver, or any init failure means no NVIDIA
samples, never an error. Tests pass a fake binding with the same function names.
Units from NVML: power and limits in mW, memory in bytes, temperature in °C, utilisation in %.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from kmsgd.ring.samples import DeviceSample
from kmsgd.sensors.device import Probe, ProbeDevice, ReadContext

NVML_TEMPERATURE_GPU = 0


class NvmlBinding(Protocol):
    """The subset of pynvml kmsgd calls (names as in pynvml)."""

    def nvmlDeviceGetCount(self) -> int: ...
    def nvmlDeviceGetHandleByIndex(self, index: int) -> Any: ...
    def nvmlDeviceGetPciInfo(self, handle: Any) -> Any: ...
    def nvmlDeviceGetName(self, handle: Any) -> Any: ...
    def nvmlDeviceGetPowerUsage(self, handle: Any) -> int: ...
    def nvmlDeviceGetEnforcedPowerLimit(self, handle: Any) -> int: ...
    def nvmlDeviceGetTemperature(self, handle: Any, sensor: int) -> int: ...
    def nvmlDeviceGetMemoryInfo(self, handle: Any) -> Any: ...
    def nvmlDeviceGetUtilizationRates(self, handle: Any) -> Any: ...
    def nvmlDeviceGetComputeRunningProcesses(self, handle: Any) -> Any: ...


def load_nvml() -> NvmlBinding | None:
    """pynvml, initialised, or None when the package, library or driver is missing."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except Exception:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...: no NVIDIA here
        return None
    binding: NvmlBinding = pynvml
    return binding


def _text(value: Any) -> str:
    return value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)


def pci_address(bus_id: Any) -> str:
    """NVML's `00000000:3D:00.0` -> sysfs's `0000:3d:00.0`."""
    text = _text(bus_id).strip().lower()
    domain, _, rest = text.partition(":")
    return f"{domain[-4:]}:{rest}" if rest else text


class GpuProcesses:
    """GPU memory per pid across all NVIDIA GPUs, written by GPU workers, read by the scan."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_gpu: dict[str, dict[int, int]] = {}

    def update(self, gpu: str, by_pid: dict[int, int]) -> None:
        with self._lock:
            self._by_gpu[gpu] = by_pid

    def by_pid(self) -> Mapping[int, int]:
        with self._lock:
            total: dict[int, int] = {}
            for table in self._by_gpu.values():
                for pid, used in table.items():
                    total[pid] = total.get(pid, 0) + used
            return total


class NvmlGpu(ProbeDevice):
    """One NVIDIA GPU; every `procs_every`-th record also refreshes its per-process memory."""

    def __init__(
        self, nvml: NvmlBinding, handle: Any, device: str, procs: GpuProcesses, max_raw: int
    ) -> None:
        def call(name: str, fn: Callable[[], float], key: str, digits: int = 0) -> Probe:
            return Probe(f"nvml:{device}:{name}", key, fn, digits=digits)

        n, h = nvml, handle
        power = [
            call("PowerUsage", lambda: n.nvmlDeviceGetPowerUsage(h) / 1000, "board.power_w", 2)
        ]
        slow = [
            call(
                "Temperature",
                lambda: n.nvmlDeviceGetTemperature(h, NVML_TEMPERATURE_GPU),
                "gpu.temp_c",
            ),
            call(
                "EnforcedPowerLimit",
                lambda: n.nvmlDeviceGetEnforcedPowerLimit(h) / 1000,
                "power_limit_w",
                1,
            ),
            call("MemoryInfo", lambda: n.nvmlDeviceGetMemoryInfo(h).used, "vram_used_bytes"),
            call("UtilizationRates", lambda: n.nvmlDeviceGetUtilizationRates(h).gpu, "busy_pct"),
        ]
        super().__init__(
            source="nvml", device=device, driver="nvidia", power=power, slow=slow, max_raw=max_raw
        )
        self._procs_probe = call("ComputeRunningProcesses", self._processes, "gpu_procs")
        self._nvml, self.handle, self._procs = nvml, handle, procs
        self.procs_every = 5
        self._count = 0

    def _processes(self) -> float:
        table: dict[int, int] = {}
        for proc in self._nvml.nvmlDeviceGetComputeRunningProcesses(self.handle):
            used = getattr(proc, "usedGpuMemory", None)  # None when the driver hides it
            table[int(proc.pid)] = table.get(int(proc.pid), 0) + int(used or 0)
        self._procs.update(self.device, table)
        return float(len(table))

    def sample(self, ctx: ReadContext) -> DeviceSample | None:
        self._count += 1
        record = super().sample(ctx)
        if self._count % self.procs_every == 1 or self.procs_every == 1:
            count = self.read(self._procs_probe, ctx)
            if record is not None and count is not None:
                record.values["gpu_procs"] = count
        return record


def open_gpus(nvml: NvmlBinding, procs: GpuProcesses, max_raw: int) -> list[NvmlGpu]:
    """One sampler per GPU NVML can see; a GPU whose handle fails is skipped."""
    gpus = []
    for index in range(nvml.nvmlDeviceGetCount()):
        try:
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
            device = pci_address(nvml.nvmlDeviceGetPciInfo(handle).busId)
        except Exception:  # GpuIsLost and friends: the kernel log tells that story
            continue
        gpus.append(NvmlGpu(nvml, handle, device, procs, max_raw))
    return gpus


def _attempt(fn: Callable[[], Any]) -> Any:
    """NVML answers a query, or None: an unsupported query is left out of the inventory."""
    try:
        return fn()
    except Exception:
        return None


def gpu_entry(nvml: Any, gpu: NvmlGpu) -> dict[str, Any]:
    """Name, firmware, limits and memory of one GPU for the inventory; what fails is left out."""
    h = gpu.handle
    found: dict[str, Any] = {
        "product": _attempt(lambda: _text(nvml.nvmlDeviceGetName(h))),
        "vbios": _attempt(lambda: _text(nvml.nvmlDeviceGetVbiosVersion(h))),
        "driver_version": _attempt(lambda: _text(nvml.nvmlSystemGetDriverVersion())),
        "vram_total_bytes": _attempt(lambda: int(nvml.nvmlDeviceGetMemoryInfo(h).total)),
        "power_limit_w": _attempt(lambda: nvml.nvmlDeviceGetEnforcedPowerLimit(h) / 1000),
        "power_limit_default_w": _attempt(
            lambda: nvml.nvmlDeviceGetPowerManagementDefaultLimit(h) / 1000
        ),
    }
    entry: dict[str, Any] = {"device": gpu.device, "driver": "nvidia"}
    entry.update((k, v) for k, v in found.items() if v is not None)
    return entry


NVIDIA_VENDOR = "0x10de"
PCI_DISPLAY_CLASS = "0x03"  # PCI class 03: display controller (VGA 0300, 3D 0302)


def nvidia_gpus(sys_root: Path) -> list[str]:
    """PCI addresses of NVIDIA display devices under `sys_root`/bus/pci/devices (vendor 0x10de,
    class 03xxxx), whether or not a driver is bound: the box has the GPU either way."""
    base = sys_root / "bus" / "pci" / "devices"
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    found = []
    for name in names:
        try:
            with open(base / name / "vendor", encoding="ascii") as f:
                vendor = f.read().strip().lower()
            with open(base / name / "class", encoding="ascii") as f:
                pci_class = f.read().strip().lower()
        except (OSError, UnicodeDecodeError):
            continue  # a device that vanished or a file the fake tree lacks: skip it
        if vendor == NVIDIA_VENDOR and pci_class.startswith(PCI_DISPLAY_CLASS):
            found.append(name)
    return found


def nvml_problem(loader: Callable[[], Any] | None = None) -> str | None:
    """Why NVML cannot give NVIDIA telemetry here, or None when it can. `loader` replaces the
    pynvml import (tests)."""
    if loader is None:
        try:
            import pynvml
        except ImportError:
            return "nvidia-ml-py is not installed (pip install 'kmsgd[nvidia]')"
        loader = pynvml.nvmlInit
    try:
        loader()
    except Exception as err:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...
        return f"NVML does not start: {err or type(err).__name__}"
    return None


def nvidia_warning(sys_root: Path, loader: Callable[[], Any] | None = None) -> str | None:
    """One line for an NVIDIA GPU that NVML cannot read (no power or temperature recorded for
    it: the proprietary driver registers no hwmon device), or None."""
    gpus = nvidia_gpus(sys_root)
    if not gpus:
        return None
    why = nvml_problem(loader)
    if why is None:
        return None
    return f"{len(gpus)} NVIDIA GPU(s) ({', '.join(gpus)}) without telemetry: {why}"
