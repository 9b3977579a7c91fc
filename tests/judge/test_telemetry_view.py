"""Telemetry at the end of a boot: the power step of seed 004, the memory exhaustion of seed
003, stalls, crash dumps, garbage, empty boots. Payloads are made by the sensor code itself
(ProbeDevice's per-second aggregation, memory_sample's parsers, scan_holders on a fake /proc)
and go through JSON as they would through the ring.
"""

from __future__ import annotations

import json
import math
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from telemetry_boots import BOOT, BOOT_WALL, WRITE_DELAY_US, GiB, Ring, seed_003, seed_004

from kmsgd.judge.memory_facts import memory_evidence
from kmsgd.judge.telemetry import summarize
from kmsgd.report import render_json
from kmsgd.ring.events import DeviceEvent, DumpEvent, EventName, SensorEvent
from kmsgd.ring.records import Entry, Kind
from kmsgd.ring.samples import DeviceSample, PowerStats
from kmsgd.sensors.memory import memory_sample


def test_seed_004_power_step_on_both_cards_from_the_raw_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entries = seed_004(monkeypatch)
    assert entries[-3].data.power["ppt"].raw_w  # type: ignore[union-attr]
    assert not entries[0].data.power["ppt"].raw_w  # type: ignore[union-attr]
    t = summarize(entries)
    steps = {s.device: s for s in t.steps}
    assert set(steps) == {"0000:03:00.0", "0000:43:00.0"}
    a = steps["0000:03:00.0"]
    assert (a.direction, a.sensor, a.from_w, a.to_w) == ("rise", "ppt", 12.0, 301.5)
    # the last 12 W read was at 59.6 s, the first 298 W read at 59.7 s; the end is the last
    # record, written 40 ms after the final second's reads
    assert t.end_wall_us is not None
    end_s = (t.end_wall_us - BOOT_WALL) / 1e6
    assert end_s == pytest.approx(60.039)
    assert a.within_s == pytest.approx(0.1, abs=0.002)
    assert a.started_before_end_s == pytest.approx(end_s - 59.6, abs=0.002)
    assert a.before_end_s == pytest.approx(end_s - 59.7, abs=0.002)
    assert steps["0000:43:00.0"].from_w == 11.5
    card = next(d for d in t.devices if d.device == "0000:03:00.0")
    ppt = card.sensors["ppt.power_w"]
    assert ppt.peak_10s == 301.5 and ppt.min_60s is not None and ppt.min_60s < 13 and card.gpu
    assert ppt.last == pytest.approx(sum(last_a_mean()) / 10, abs=0.01)
    assert not card.stale and t.skipped_records == 0
    json.dumps(render_json.telemetry_json(t), allow_nan=False)


def last_a_mean() -> list[float]:
    return [12.0] * 7 + [298.2, 301.5, 300.9]


def test_steady_load_and_slow_ramps_are_not_steps() -> None:
    ring = Ring()
    for s in range(30):
        watts = [280.0 + 20 * math.sin(s + i) for i in range(10)]  # busy, jittering by ±20 W
        if s >= 25:
            watts = [100.0 + 60 * (s - 25) + 6 * i for i in range(10)]  # 100 → 400 W over 5 s
        raw = tuple(watts)
        sample = DeviceSample(
            "amdgpu",
            "0000:03:00.0",
            "amdgpu",
            s * 1_000_000,
            {"ppt.power_w": sum(raw) / 10},
            {"ppt": PowerStats(min(raw), max(raw), raw)},
            tuple(-900 + 100 * i for i in range(10)),
        )
        ring.add(Kind.SAMPLE, sample.to_payload(), s * 1_000_000)
    assert summarize(ring.entries).steps == ()


def test_without_raw_reads_the_per_second_means_show_a_step_and_a_fall() -> None:
    ring = Ring()
    means = [12.0] * 20 + [280.0, 285.0, 15.0]  # old records or NVML: means only
    for s, w in enumerate(means):
        sample = DeviceSample("nvml", "0000:3d:00.0", "nvidia", s * 1_000_000, {"gpu.power_w": w})
        ring.add(Kind.SAMPLE, sample.to_payload(), s * 1_000_000)
    steps = summarize(ring.entries).steps
    assert [(s.direction, s.from_w, s.to_w) for s in steps] == [
        ("rise", 12.0, 280.0),  # the level within 1 s of the edge
        ("fall", 285.0, 15.0),
    ]
    assert steps[0].within_s == pytest.approx(1.0, abs=0.01)


def test_seed_003_memory_exhaustion_and_gpu_memory_holders(tmp_path: Path) -> None:
    t = summarize(seed_003(tmp_path))
    m = t.memory
    assert m is not None and m.fall is not None
    assert m.mem_total_bytes == 121 * GiB
    assert m.fall.from_bytes == 90 * GiB
    assert m.fall.to_bytes == pytest.approx(0.3 * GiB, rel=0.01)
    assert m.fall.over_s == pytest.approx(40, abs=1)  # not the flat minutes after it
    assert m.pressure("memory.full").max_pct == 78.0
    top = t.top_holders[0]
    assert (top.comm, top.pid, top.total_bytes) == ("llama-server", 4242, 96 * GiB)
    assert top.gpu_vram_bytes == 27 * GiB and top.rss_bytes == 69 * GiB
    assert [h.comm for h in t.top_holders][:3] == ["llama-server", "llama-server", "python3"]
    ev = memory_evidence(m)
    assert ev.available_fraction_end == pytest.approx(0.3 / 121, abs=1e-3)
    assert ev.fell_bytes == pytest.approx(89.7 * GiB, rel=0.01) and ev.fell_bytes_per_s > GiB
    assert ev.psi_full_avg10_max_pct == 78.0
    assert ev.text == (
        "MemAvailable 90.0 GiB → 0.3 GiB in 40 s, ending 19 s before the end; "
        "PSI memory full avg10 up to 78%"
    )


def test_healthy_memory_is_not_exhaustion(tmp_path: Path) -> None:
    ring = Ring()
    for s in range(60):
        meminfo = f"MemTotal: 131072000 kB\nMemAvailable: {90_000_000 - s * 1000} kB\n"
        sample = memory_sample(s * 1_000_000, meminfo.encode(), {})
        ring.add(Kind.SAMPLE, sample.to_payload(), s * 1_000_000)
    ev = memory_evidence(summarize(ring.entries).memory)
    assert ev.psi_full_avg10_max_pct is None
    assert ev.fell_bytes == 59 * 1000 * 1024
    assert ev.text == "MemAvailable 85.8 GiB of 125.0 GiB at the end (min 85.8 GiB in 60 s)"
    assert memory_evidence(None).text == "no memory samples"


def test_stalled_sensor_failing_file_crash_dump_and_udev_remove() -> None:
    ring = Ring()
    path = "/sys/class/hwmon/hwmon4/power1_input"
    for s in range(30):
        if s < 18:  # card1 stops reporting: its read is stuck in the kernel
            sample = DeviceSample(
                "amdgpu", "0000:43:00.0", "amdgpu", s * 1_000_000, {"ppt.power_w": 30}
            )
            ring.add(Kind.SAMPLE, sample.to_payload(), s * 1_000_000)
        sample = DeviceSample(
            "hwmon", "coretemp.0", "coretemp", s * 1_000_000, {"package_id_0.temp_c": 60}
        )
        ring.add(Kind.SAMPLE, sample.to_payload(), s * 1_000_000)
    for s, dur in ((19, 1.0), (29, 11.0)):
        ev = SensorEvent(
            EventName.SENSOR_STALL, path, "0000:43:00.0", s * 1_000_000, duration_s=dur
        )
        ring.add(Kind.EVENT, ev.to_payload(), s * 1_000_000)
    err = SensorEvent(EventName.SENSOR_ERROR, "/sys/x/gpu_busy_percent", "0000:03:00.0", 5, "EIO")
    ring.add(Kind.EVENT, err.to_payload(), 5_000_000)
    dump = DumpEvent(
        EventName.DEVCOREDUMP_SAVED, "devcd1", "0000:43:00.0", 27_000_000,
        "/var/lib/kmsgd/devcoredump/x-0000:43:00.0-devcd1.bin", 3_145_728, False, "amdgpu",
    )  # fmt: skip
    ring.add(Kind.EVENT, dump.to_payload(), 27_000_000)
    gone = DeviceEvent(
        "remove",
        "drm",
        "/devices/pci0000:40/0000:43:00.0/drm/card1",
        "card1",
        28_000_000,
        pci="0000:43:00.0",
    )
    ring.add(Kind.DEVICE, gone.to_payload(), 28_000_000)
    ring.beat(30_000_000)
    t = summarize(ring.entries)
    (stall,) = t.stalls
    assert (stall.path, stall.blocked_s, stall.ended) == (path, 11.0, False)
    (error,) = t.sensor_errors
    assert (error.reason, error.recovered, error.count) == ("EIO", False, 1)
    (d,) = t.devcoredumps
    assert d.dump.failing_device == "0000:43:00.0" and d.dump.size_bytes == 3_145_728
    assert d.before_end_s == pytest.approx(3.0, abs=0.1)
    (u,) = t.device_events
    assert (u.event.action, u.event.pci) == ("remove", "0000:43:00.0")
    card1 = next(x for x in t.devices if x.device == "0000:43:00.0")
    assert card1.stale and card1.last_before_end_s == pytest.approx(13, abs=0.1)
    assert not next(x for x in t.devices if x.device == "coretemp.0").stale


def test_garbage_payloads_are_skipped_and_counted() -> None:
    ring = Ring()
    good = DeviceSample("hwmon", "coretemp.0", "coretemp", 1_000_000, {"package_id_0.temp_c": 50})
    ring.add(Kind.SAMPLE, good.to_payload(), 1_000_000)
    for bad in (
        {"sample": "device", "device": "x", "values": [1, 2]},
        {"sample": "device", "device": "x", "mono_us": "soon"},
        {"sample": "memory", "mem_total_bytes": "lots"},
        {"sample": "procs", "top": [{"comm": "no pid"}]},
        {"event": "sensor_stall", "mono_us": "x"},
        "not a dict",
    ):
        ring.add(Kind.SAMPLE if not str(bad).startswith("{'event") else Kind.EVENT, bad, 2_000_000)
    ring.add(Kind.DEVICE, {"action": "remove", "mono_us": "x"}, 2_000_000)
    ring.add(Kind.EVENT, {"event": "someone_elses_event"}, 2_000_000)  # not ours: not garbage
    nan = {"sample": "device", "device": "nvme0", "driver": "nvme", "values": {"t.temp_c": "nan"}}
    ring.add(Kind.SAMPLE, nan, 2_500_000)
    ring.add(Kind.INVENTORY, {"gpus": "none", "iommu_group_types": [1]}, 2_600_000)
    t = summarize(ring.entries)
    assert t.skipped_records == 7
    assert [d.device for d in t.devices] == ["coretemp.0", "nvme0"]
    assert t.devices[1].sensors == {}  # NaN is no reading
    assert t.last_sample_wall_us == BOOT_WALL + 2_500_000 + WRITE_DELAY_US
    assert t.config is not None and t.config.iommu_mode == "none" and t.config.gpus == ()
    json.dumps(render_json.telemetry_json(t), allow_nan=False)


def test_empty_boot_says_so() -> None:
    t = summarize([])
    assert t.note == "no records in this boot" and t.devices == () and t.memory is None
    ring = Ring()
    ring.beat(1_000_000)
    t = summarize(ring.entries)
    assert t.note == "no sensor samples in this boot" and t.last_sample_wall_us is None
    assert t.steps == () and t.top_holders == () and t.end_wall_us == BOOT_WALL + 1_000_000


def long_boot(hours: float) -> Iterator[Entry]:
    """Four devices and memory at 1 Hz, made lazily: a long boot never sits in memory here."""
    serial = 0
    for s in range(int(hours * 3600)):
        mono = s * 1_000_000
        for dev in range(4):
            hot = 95 if s < 600 else 60  # hot early, long before the final minute
            data = DeviceSample("hwmon", f"dev{dev}", "coretemp", mono, {"t.temp_c": hot + dev})
            serial += 1
            yield Entry(serial, BOOT, BOOT_WALL + mono, Kind.SAMPLE, data)


def test_memory_is_bounded_and_only_the_final_minute_counts() -> None:
    tracemalloc.start()
    try:
        t = summarize(long_boot(1))  # 14,400 records; ~10 MB if they were all kept
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3_000_000
    st = t.devices[0].sensors["t.temp_c"]
    assert st.max_60s == 60 and st.last == 60


def test_end_wall_us_cuts_what_came_after(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = seed_004(monkeypatch)
    end = entries[-1].wall_us - 2_000_000  # two seconds before the step
    t = summarize(entries, end_wall_us=end)
    assert t.steps == () and t.end_wall_us == end
