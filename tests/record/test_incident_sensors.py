"""Incident mode reads every sensor of every GPU at `gpu_hz`, a record per read: the real
`kmsgd run` on a fake sysfs tree whose card files are rewritten in place (the same inode, as
sysfs shows a new value on every read) every 40 ms, and on the NVML fake."""

from __future__ import annotations

import os
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import make_proc
from daemon import dump, start_on_box, stop, wait_for, wait_ready
from fakes import FakeNvml, driver_dir, dual_amdgpu_box, hwmon_chip, link, nvidia_box, put
from sampling import Collector, samples

from kmsgd.config import IncidentConfig
from kmsgd.record.incident_mode import IncidentMode
from kmsgd.ring.records import Kind
from kmsgd.sensors.sampler import Sampler, SamplerConfig

TABLES = (
    "[incident]\nboost_s = 4.0\ndurable_s = 6.0\nprocs_snapshot = false\ngpu_snapshot = false\n"
)
AMD, NOUVEAU, NVIDIA = "0000:03:00.0", "0000:05:00.0", "0000:3d:00.0"
# the files rewritten, as the fakes lay them out (tests/fakes.py, amd_card; nouveau_card)
FILES = {
    AMD: {
        "hwmon/hwmon3/temp1_input": 41000,  # edge
        "hwmon/hwmon3/temp2_input": 46000,  # junction
        "hwmon/hwmon3/temp3_input": 52000,  # mem
        "hwmon/hwmon3/fan1_input": 1000,
        "hwmon/hwmon3/power1_average": 12_000_000,
        "gpu_busy_percent": 10,
        "mem_info_vram_used": 668274688,
    },
    NOUVEAU: {
        "hwmon/hwmon5/temp1_input": 38000,
        "hwmon/hwmon5/fan1_input": 1200,
        "hwmon/hwmon5/power1_input": 30_000_000,
    },
}


def nouveau_card(sys: Path) -> Path:
    """A card whose only sensors are its driver's hwmon chip (no amdgpu files to merge with):
    what nouveau, i915 and xe register."""
    dev = sys / "devices" / "pci0000:00" / "0000:00:02.0" / NOUVEAU
    put(dev / "vendor", "0x10de")
    put(dev / "uevent", f"DRIVER=nouveau\nPCI_CLASS=30000\nPCI_SLOT_NAME={NOUVEAU}")
    link(dev / "driver", driver_dir(sys, "nouveau"))
    files = {"name": "nouveau", "temp1_input": 38000, "fan1_input": 1200}
    hwmon_chip(sys, dev, "hwmon5", {**files, "power1_input": 30_000_000})
    (sys / "class" / "drm" / "card2").mkdir(parents=True, exist_ok=True)
    link(sys / "class" / "drm" / "card2" / "device", dev)
    return dev


class Rewriter(threading.Thread):
    """Rewrites each file in place every 40 ms with a new value of the same width."""

    def __init__(self, files: dict[Path, int]) -> None:
        super().__init__(daemon=True)
        self.fds = {os.open(path, os.O_WRONLY): base for path, base in files.items()}
        self.done = threading.Event()

    def run(self) -> None:
        n = 0
        while not self.done.wait(0.04):
            n = (n + 1) % 80
            for fd, base in self.fds.items():
                step = base // 1000 if base >= 1000 else 1
                os.pwrite(fd, b"%d\n" % (base + n * step), 0)

    def close(self) -> None:
        self.done.set()
        self.join()
        for fd in self.fds:
            os.close(fd)


def per_second(samples: list[dict[str, Any]], span_s: float) -> dict[str, float]:
    """Distinct values per second of each key that changed over the window's records."""
    seen: dict[str, set[Any]] = defaultdict(set)
    for s in samples:
        for key, value in s["data"].get("values", {}).items():
            seen[key].add(value)
    return {k: len(v) / span_s for k, v in seen.items() if len(v) > 1}


@pytest.mark.slow
def test_every_sensor_of_every_card_is_read_at_gpu_hz(tmp_path: Path) -> None:
    sys_root, proc_root = dual_amdgpu_box(tmp_path / "box")
    make_proc(proc_root)
    nouveau = nouveau_card(sys_root)
    amd = (sys_root / "class/drm/card0/device").resolve()
    files = {amd / name: base for name, base in FILES[AMD].items()}
    files |= {nouveau / name: base for name, base in FILES[NOUVEAU].items()}
    daemon, ring, fd = start_on_box(tmp_path, sys_root, proc_root, tables=TABLES)
    rewriter = Rewriter(files)
    try:
        wait_ready(ring, daemon)
        rewriter.start()
        time.sleep(1.0)
        ts = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        line = b"3,1,%d,-;amdgpu %s: amdgpu: SMU: No response msg_reg: 12\n" % (ts, AMD.encode())
        os.write(fd, line)
        wait_for(lambda: [r for r in dump(ring) if r["kind"] == "incident"], timeout=5)
        time.sleep(3.5)
        records = dump(ring)
    finally:
        rewriter.close()
        assert stop(daemon) == 0
        os.close(fd)
    t0 = next(r["wall_us"] for r in records if r["kind"] == "incident")

    def window(device: str) -> list[dict[str, Any]]:
        return [
            r
            for r in records
            if r["kind"] == "sample"
            and r["data"].get("device") == device
            and t0 + 500_000 <= r["wall_us"] < t0 + 3_500_000
        ]

    rates = {card: per_second(window(card), 3.0) for card in (AMD, NOUVEAU)}
    cpu = len(window("coretemp.0")) / 3.0
    print(f"\nincident: distinct values per second {rates}; CPU chip records/s {cpu:.1f}")
    for card, changed in FILES.items():
        assert len(rates[card]) == len(changed), rates[card]  # every rewritten file, recorded
        assert all(rate >= 5 for rate in rates[card].values()), rates[card]  # at ~10 Hz
    assert cpu <= 2  # a CPU chip keeps its rate


class MovingNvml(FakeNvml):
    """The NVML fake (tests/fakes.py) whose readings move every 40 ms, as a busy GPU's do."""

    def _tick(self) -> int:
        return int(time.monotonic() / 0.04) % 50

    def nvmlDeviceGetPowerUsage(self, handle: Any) -> int:
        return 300_000 + 1000 * self._tick()

    def nvmlDeviceGetTemperature(self, handle: Any, sensor: int) -> int:
        return 60 + self._tick()

    def nvmlDeviceGetMemoryInfo(self, handle: Any) -> Any:
        used = (5 << 30) + (self._tick() << 20)
        return type("Mem", (), {"used": used, "total": 80 << 30, "free": (80 << 30) - used})()

    def nvmlDeviceGetUtilizationRates(self, handle: Any) -> Any:
        return type("Util", (), {"gpu": 40 + self._tick(), "memory": 40})()


@pytest.mark.slow
def test_every_nvml_sensor_is_read_at_gpu_hz(tmp_path: Path) -> None:
    """The recorder's incident mode and sampler in this process (NVML is faked at the binding,
    so no daemon can load it): an Xid line starts an incident, which boosts the NVIDIA GPU."""
    sys_root, proc_root = nvidia_box(tmp_path / "box")
    sampler = Sampler(
        sys_root=sys_root,
        proc_root=proc_root,
        state_dir=str(tmp_path / "state"),
        config=SamplerConfig(use_udev=False),
        nvml_loader=MovingNvml,
    )
    records = Collector()
    cfg = IncidentConfig(procs_snapshot=False, gpu_snapshot=False, sysrq_w=False, boost_s=4.0)
    mode = IncidentMode(
        cfg,
        lambda kind, data, urgent: records(kind, data, urgent),
        proc_root=proc_root,
        sys_root=sys_root,
        set_urgent_until=lambda _until: None,
    )
    mode.attach_sampler(sampler)
    sampler.start(records)
    try:
        records.wait(lambda r: bool(samples(r, NVIDIA)))
        mode.see_kernel(
            b"3,1,2,-;NVRM: Xid (PCI:0000:3d:00): 79, pid=777, GPU has fallen off the bus.\n"
        )
        mode.tick()
        start_ns = time.monotonic_ns()
        assert [d for k, d, _ in records.records if k is Kind.INCIDENT], "no incident started"
        time.sleep(3.0)
        got = samples(records.records, NVIDIA)
    finally:
        mode.stop()
        sampler.stop()
    boosted = [s for s in got if s.mono_us * 1000 >= start_ns + 200_000_000]
    seen: dict[str, set[float]] = defaultdict(set)
    for s in boosted:
        for key, value in s.values.items():
            seen[key].add(value)
    span = (boosted[-1].mono_us * 1000 - start_ns - 200_000_000) / 1e9
    rates = {k: len(v) / span for k, v in seen.items() if len(v) > 1}
    print(f"\nincident: NVML distinct values per second {rates}")
    assert set(rates) >= {"board.power_w", "gpu.temp_c", "vram_used_bytes", "busy_pct"}
    assert all(rate >= 5 for rate in rates.values()), rates
