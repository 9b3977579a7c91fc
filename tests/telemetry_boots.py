"""Boots with telemetry, as ring entries, shared by the judge's and the report's telemetry tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import Proc, proc_tree

from kmsgd.ring import frame as fr
from kmsgd.ring.records import Entry, Heartbeat, Kind
from kmsgd.ring.samples import DeviceSample
from kmsgd.sensors import device as device_mod
from kmsgd.sensors.device import Probe, ProbeDevice, ReadContext
from kmsgd.sensors.memory import memory_sample, scan_holders

GiB = 2**30
BOOT = "0123456789abcdef0123456789abcdef"


BOOT_WALL = 1_700_000_000_000_000  # wall clock at mono 0


WRITE_DELAY_US = 40_000  # the recorder writes a record a little after its read


class Ring:
    """Entries as the ring would hand them back: serials in order, payloads through JSON."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def add(self, kind: Kind, payload: Any, mono_us: int, *, delay: int = WRITE_DELAY_US) -> None:
        wall = BOOT_WALL + mono_us + delay
        data = fr.decode_payload(kind, fr.encode_payload(kind, payload), wall_us=wall)
        self.entries.append(Entry(len(self.entries) + 1, BOOT, wall, kind, data))

    def beat(self, mono_us: int) -> None:
        hb = Heartbeat(BOOT_WALL + mono_us, mono_us, mono_us)
        self.add(Kind.HEARTBEAT, hb, mono_us, delay=0)


def power_card(
    monkeypatch: pytest.MonkeyPatch, pci: str, seconds: list[list[float]]
) -> Iterator[DeviceSample]:
    """Run the sampler's own per-second aggregation over 10 Hz reads on a fake clock."""
    clock = [0]
    monkeypatch.setattr(device_mod, "now_ns", lambda: clock[0])
    reads: list[float] = []
    dev = ProbeDevice(
        source="amdgpu",
        device=pci,
        driver="amdgpu",
        power=[Probe("power1_average", "ppt.power_w", lambda: reads.pop(0))],
        # junction: 104 °C for one second, 88 °C otherwise
        slow=[
            Probe("temp2_input", "junction.temp_c", lambda: 88.0 + 16 * (clock[0] // 10**9 == 50))
        ],
    )
    ctx = ReadContext(lambda ev: None)
    for s, watts in enumerate(seconds):
        for i, w in enumerate(watts):
            clock[0] = s * 1_000_000_000 + i * 100_000_000
            reads.append(w)
            dev.sample_power(ctx)
        clock[0] = (s + 1) * 1_000_000_000 - 1_000_000
        sample = dev.sample(ctx)
        assert sample is not None
        yield sample


def seed_004(monkeypatch: pytest.MonkeyPatch) -> list[Entry]:
    """Two R9700s idle at 12 W for a minute, then both at 300 W in the last 0.3 s: PSU trip."""
    idle = [[12.0, 12.2, 11.9, 12.1, 12.0, 12.0, 12.1, 12.0, 11.9, 12.0]] * 59
    last_a = [12.0] * 7 + [298.2, 301.5, 300.9]
    last_b = [11.5] * 7 + [296.0, 300.2, 299.0]
    ring = Ring()
    a = list(power_card(monkeypatch, "0000:03:00.0", [*idle, last_a]))
    b = list(power_card(monkeypatch, "0000:43:00.0", [*idle, last_b]))
    for sa, sb in zip(a, b, strict=True):
        ring.add(Kind.SAMPLE, sa.to_payload(), sa.mono_us)
        ring.add(Kind.SAMPLE, sb.to_payload(), sb.mono_us)
        ring.beat(sa.mono_us + 1_000)
    return ring.entries


def seed_003(tmp_path: Path) -> list[Entry]:
    """DGX Spark: two llama-servers mmap the same model; MemAvailable 90 → 0.3 GiB in 40 s."""
    page = os.sysconf("SC_PAGE_SIZE")
    proc = proc_tree(
        tmp_path / "proc",
        [
            Proc(1, "systemd", 3000),
            Proc(4242, "llama-server", 69 * GiB // page),
            Proc(4300, "llama-server", 20 * GiB // page),
            Proc(812, "python3", GiB // page),
        ],
    )
    procs, _ = scan_holders(proc, 5, {4242: 27 * GiB})
    ring = Ring()
    for s in range(80):
        low = int(0.3 * GiB)
        avail = 90 * GiB if s < 20 else low if s >= 60 else 90 * GiB - (s - 20) * (89 * GiB // 40)
        full = min(78.0, max(0.0, (s - 30) * 3.0))
        meminfo = f"MemTotal: {121 * GiB // 1024} kB\nMemAvailable: {avail // 1024} kB\n"
        psi = f"some avg10={full + 10:.2f} avg60=1 avg300=1 total=1\nfull avg10={full:.2f} avg60=1 avg300=1 total=1\n"
        sample = memory_sample(s * 1_000_000, meminfo.encode(), {"memory": psi.encode()})
        ring.add(Kind.SAMPLE, sample.to_payload(), s * 1_000_000)
        if s % 5 == 4:
            ring.add(Kind.SAMPLE, {**procs.to_payload(), "mono_us": s * 1_000_000}, s * 1_000_000)
    return ring.entries
