"""The `gpus` incident snapshot: the GPUs' and their PCI links' state, read-only.

Every value comes from a file under the roots given (never a write to a GPU's sysfs or
debugfs); each path is announced to `mark` before it is read, so the caller's timeout can say
which read blocked. Sources:

- PCI: `current_link_speed`/`_width`, `max_link_*` (Documentation/ABI/testing/sysfs-bus-pci),
  `aer_dev_correctable`/`_nonfatal`/`_fatal` (Documentation/ABI/testing/sysfs-bus-pci-devices-aer),
  `power/runtime_status` (Documentation/ABI/testing/sysfs-devices-power);
- amdgpu `gpu_metrics` (binary, decoded by `gpu_metrics.py`) and debugfs `amdgpu_fence_info`;
- NVIDIA GPUs through NVML (clocks, throttle reasons, PCIe replay counter).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kmsgd.sensors.attrfiles import parse_text, read_small
from kmsgd.sensors.gpu_metrics import decode_gpu_metrics
from kmsgd.sensors.snapshot import Mark, noop


def parse_aer(raw: bytes) -> dict[str, int]:
    """`RxErr 0\\nBadTLP 3\\n...\\nTOTAL_ERR_COR 3` -> {name: count}."""
    out = {}
    for line in parse_text(raw).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out


def parse_fence_info(text: str) -> list[dict[str, Any]]:
    """amdgpu_fence_info (amdgpu_fence.c amdgpu_debugfs_fence_info_show): per ring, the last
    signaled and emitted fence; a ring whose emitted runs ahead of signaled has work pending
    (stuck, when it stays so)."""
    rings: list[dict[str, Any]] = []
    ring: dict[str, Any] | None = None
    head = re.compile(r"--- ring (\d+) \((\S+)\) ---")
    for line in text.splitlines():
        m = head.search(line)
        if m:
            ring = {"ring": m.group(2)}
            rings.append(ring)
            continue
        if ring is None:
            continue
        words = line.split()
        if not words or not words[-1].startswith("0x"):
            continue
        try:
            value = int(words[-1], 16)
        except ValueError:
            continue
        if line.startswith("Last signaled fence") and "signaled" not in ring:
            ring["signaled"] = value
        elif line.startswith("Last emitted") and "emitted" not in ring:
            ring["emitted"] = value
    return rings[:64]


_PCI_ADDR = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
LINK_HOPS = 4  # the GPU and the bridges above it (a Navi card has its own switch inside)


def pci_state(device_path: str, mark: Mark = noop) -> dict[str, Any]:
    """Link, AER counters and runtime PM of one PCI device (absent files left out)."""
    out: dict[str, Any] = {"device": os.path.basename(device_path)}
    for name in ("current_link_speed", "max_link_speed"):
        mark(os.path.join(device_path, name))
        text = parse_text(read_small(os.path.join(device_path, name)) or b"")
        if text:
            out[name] = text
    for name in ("current_link_width", "max_link_width"):
        mark(os.path.join(device_path, name))
        text = parse_text(read_small(os.path.join(device_path, name)) or b"")
        if text.isdigit():
            out[name] = int(text)
    for kind in ("correctable", "nonfatal", "fatal"):
        path = os.path.join(device_path, f"aer_dev_{kind}")
        mark(path)
        raw = read_small(path)
        if raw is not None:
            counts = parse_aer(raw)
            keep = {k: v for k, v in counts.items() if v or k.startswith("TOTAL")}
            out[f"aer_{kind}"] = keep
    for name in ("runtime_status", "control"):
        path = os.path.join(device_path, "power", name)
        mark(path)
        text = parse_text(read_small(path) or b"")
        if text:
            out[f"runtime_pm_{name}" if name == "control" else name] = text
    path = os.path.join(device_path, "power_state")
    text = parse_text(read_small(path) or b"")
    if text:
        out["power_state"] = text
    return out


def link_chain(device_path: str, mark: Mark = noop) -> list[dict[str, Any]]:
    """The GPU's PCI device and the PCI bridges above it, nearest first."""
    hops: list[dict[str, Any]] = []
    path = os.path.realpath(device_path)
    while len(hops) < LINK_HOPS and _PCI_ADDR.match(os.path.basename(path)):
        hops.append(pci_state(path, mark))
        path = os.path.dirname(path)
    return hops


def snapshot_gpus(
    sys_root: Path,
    debugfs_root: Path | None = None,
    nvml_gpus: Iterable[tuple[str, Any, Any]] = (),
    mark: Mark = noop,
) -> dict[str, Any]:
    """The `gpus` incident snapshot: per DRM card, its link chain with AER counters, runtime
    PM, decoded gpu_metrics and (when debugfs is readable) amdgpu_fence_info; per NVIDIA GPU
    (`(pci address, binding, handle)`), clocks, throttle reasons and the PCIe replay counter."""
    gpus: list[dict[str, Any]] = []
    base = os.path.join(sys_root, "class", "drm")
    try:
        cards = sorted(n for n in os.listdir(base) if re.fullmatch(r"card\d+", n))
    except OSError:
        cards = []
    for card in cards:
        dev = os.path.join(base, card, "device")
        if not os.path.exists(dev):
            continue
        real = os.path.realpath(dev)
        entry: dict[str, Any] = {"card": card, "device": os.path.basename(real)}
        driver = os.path.join(real, "driver")
        if os.path.islink(driver):
            entry["driver"] = os.path.basename(os.readlink(driver))
        entry["link"] = link_chain(real, mark)
        path = os.path.join(real, "gpu_metrics")
        mark(path)
        raw = read_small(path, 8192)
        if raw:
            entry["gpu_metrics"] = decode_gpu_metrics(raw)
        if debugfs_root is not None:
            fence = os.path.join(
                debugfs_root, "dri", card.removeprefix("card"), "amdgpu_fence_info"
            )
            mark(fence)
            text = read_small(fence, 65536)
            if text:
                entry["fences"] = parse_fence_info(text.decode("ascii", "replace"))
        gpus.append(entry)
    for device, binding, handle in nvml_gpus:
        mark(f"nvml:{device}")
        gpus.append({"device": device, "driver": "nvidia", "nvml": nvml_state(binding, handle)})
    return {"record": "gpus", "gpus": gpus}


NVML_CLOCKS = (("graphics", 0), ("sm", 1), ("mem", 2))


def nvml_state(nvml: Any, handle: Any) -> dict[str, Any]:
    """Clocks (MHz), throttle reasons (bit mask), PCIe link and replay counter through NVML;
    every call that fails (or that this driver lacks) is left out."""
    out: dict[str, Any] = {}

    def get(key: str, name: str, *args: Any) -> None:
        fn = getattr(nvml, name, None)
        if fn is None:
            return
        try:
            out[key] = int(fn(handle, *args))
        except Exception:  # NotSupported, GpuIsLost: the gap says as much
            return

    for label, clock in NVML_CLOCKS:
        get(f"{label}_clock_mhz", "nvmlDeviceGetClockInfo", clock)
    get("throttle_reasons", "nvmlDeviceGetCurrentClocksEventReasons")
    if "throttle_reasons" not in out:
        get("throttle_reasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
    get("pcie_replay_counter", "nvmlDeviceGetPcieReplayCounter")
    get("pcie_gen", "nvmlDeviceGetCurrPcieLinkGeneration")
    get("pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration")
    get("pcie_width", "nvmlDeviceGetCurrPcieLinkWidth")
    get("pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth")
    return out
