"""The sampler end to end on fake machines: what reaches the recorder's emit callback."""

from __future__ import annotations

import os
import queue
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeNvml, dual_amdgpu_box, empty_box, nvidia_box
from sampling import FAST, Collector, events, samples

from kmsgd.ring.events import DeviceEvent, EventName
from kmsgd.ring.records import Kind
from kmsgd.ring.samples import PowerStep, ProcsSample
from kmsgd.sensors.sampler import Sampler


def test_dual_amdgpu_box_samples_every_device_memory_and_holders(tmp_path: Path, run: Any) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    c = run(sys, proc, tmp_path / "state")
    devices = ("0000:03:00.0", "0000:43:00.0", "coretemp.0", "nvme0")
    recs = c.wait(
        lambda r: (
            all(len(samples(r, d)) >= 2 for d in devices)
            and any(p.get("sample") == "procs" for _, p, _ in r)
        )
    )
    card1 = samples(recs, "0000:43:00.0")[-1]
    assert card1.source == "amdgpu" and card1.driver == "amdgpu"
    assert card1.values["junction.temp_c"] == 46.0 and card1.values["busy_pct"] == 3
    assert card1.values["vram_used_bytes"] == 668274688 and card1.values["ppt.power_w"] == 12.0
    stats = card1.power["ppt"]
    # a flat second is told by min/mean/max alone: no raw reads, fewer bytes
    assert stats.min_w == stats.max_w == 12.0 and stats.raw_w == () and card1.raw_ms == ()
    assert samples(recs, "coretemp.0")[-1].values == {
        "package_id_0.temp_c": 45.0,
        "core_0.temp_c": 43.0,
    }
    memory = [p for k, p, _ in recs if p.get("sample") == "memory"]
    assert memory and memory[-1]["mem_available_bytes"] == 2_000_000 * 1024
    procs = ProcsSample.from_payload(next(p for _, p, _ in recs if p.get("sample") == "procs"))
    assert procs.top[0].comm == "llama-server" and procs.top[0].gpu_vram_bytes == 24 << 30
    inventories = [(p, u) for k, p, u in recs if k is Kind.INVENTORY]
    assert len(inventories) == 1 and inventories[0][1] is True
    assert not [p for k, p, _ in recs if k is Kind.EVENT]  # a healthy box: no events


def test_power_step_in_the_final_second_is_kept_raw(tmp_path: Path, run: Any) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    power = next(sys.rglob("0000:03:00.0")) / "hwmon" / "hwmon3" / "power1_average"
    c = run(sys, proc, tmp_path / "state")
    c.wait(lambda r: len(samples(r, "0000:03:00.0")) >= 1)
    power.write_text("300000000\n")
    recs = c.wait(lambda r: any(s.power["ppt"].max_w == 300.0 for s in samples(r, "0000:03:00.0")))
    series = samples(recs, "0000:03:00.0")
    at = next(i for i, s in enumerate(series) if s.power["ppt"].max_w == 300.0)
    # the step is written urgently at once (a partial second), not when its second ends
    assert series[at].step == PowerStep("ppt", 12.0, 300.0)
    assert next(u for _, p, u in recs if p.get("step") and p["device"] == "0000:03:00.0")
    stepped = series[at].power["ppt"]
    if stepped.min_w == 12.0:  # the step fell inside this second: its raw reads are kept
        raw = stepped.raw_w
        first_high = raw.index(300.0)
        assert raw[:first_high] == (12.0,) * first_high
        assert set(raw[first_high:]) == {300.0}
        assert len(series[at].raw_ms) == len(raw) and series[at].raw_ms[-1] <= 0
    else:  # it fell on a record boundary: flat 12 W, then flat 300 W
        assert series[at - 1].power["ppt"].max_w == 12.0 and stepped.min_w == 300.0


@pytest.mark.slow
def test_blocked_read_is_a_stall_and_other_devices_keep_sampling(tmp_path: Path, run: Any) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    fifo = next(sys.rglob("0000:43:00.0")) / "hwmon" / "hwmon4" / "temp2_input"
    fifo.unlink()
    os.mkfifo(fifo)  # open() blocks until a writer comes: a read stuck in the kernel
    try:
        c = run(sys, proc, tmp_path / "state")
        recs = c.wait(lambda r: bool(events(r, EventName.SENSOR_STALL)))
        (stall,) = events(recs, EventName.SENSOR_STALL)
        assert stall.path == str(fifo) and stall.device == "0000:43:00.0"
        assert stall.duration_s >= 0.3
        urgent = [u for k, p, u in recs if p.get("event") == "sensor_stall"]
        assert urgent == [True]
        before = len(samples(recs, "0000:03:00.0"))
        recs = c.wait(lambda r: len(samples(r, "0000:03:00.0")) >= before + 3)
        assert not samples(recs, "0000:43:00.0")  # card1's worker is still stuck
    finally:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # the blocked reader is there
        os.write(fd, b"61000\n")
        os.close(fd)
    recs = c.wait(lambda r: bool(events(r, EventName.SENSOR_STALL_END)))
    (end,) = events(recs, EventName.SENSOR_STALL_END)
    assert end.path == str(fifo) and end.duration_s >= stall.duration_s


@pytest.mark.slow
def test_stop_returns_while_a_read_is_blocked(tmp_path: Path) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    fifo = next(sys.rglob("0000:03:00.0")) / "hwmon" / "hwmon3" / "temp1_input"
    fifo.unlink()
    os.mkfifo(fifo)
    sampler = Sampler(
        sys_root=sys,
        proc_root=proc,
        state_dir=str(tmp_path),
        config=FAST,
        nvml_loader=lambda: None,
    )
    c = Collector()
    sampler.start(c)
    try:
        c.wait(lambda r: bool(events(r, EventName.SENSOR_STALL)))
        sampler.stop(timeout_s=0.5)
        stuck = [
            t for t in threading.enumerate() if t.name.startswith("kmsgd-dev") and t.is_alive()
        ]
        assert stuck and all(t.daemon for t in stuck)
    finally:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)


@pytest.mark.slow
def test_garbage_and_vanished_files_are_one_event_each(tmp_path: Path, run: Any) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    hw3 = next(sys.rglob("0000:03:00.0")) / "hwmon" / "hwmon3"
    (hw3 / "temp1_input").write_text("garbage\n")
    (hw3 / "temp3_input").unlink()
    os.symlink("/nonexistent/temp3_input", hw3 / "temp3_input")  # listed, gone when opened
    (hw3 / "fan1_input").write_bytes(b"")
    c = run(sys, proc, tmp_path / "state")
    recs = c.wait(lambda r: len(samples(r, "0000:03:00.0")) >= 8)
    errors = sorted(
        (os.path.basename(e.path), e.reason) for e in events(recs, EventName.SENSOR_ERROR)
    )
    assert errors == [
        ("fan1_input", "empty"),
        ("temp1_input", "garbage"),
        ("temp3_input", "ENOENT"),
    ]
    last = samples(recs, "0000:03:00.0")[-1].values
    assert "edge.temp_c" not in last and last["junction.temp_c"] == 46.0
    (hw3 / "temp1_input").write_text("55000\n")  # recovers within the backoff
    recs = c.wait(lambda r: bool(events(r, EventName.SENSOR_RECOVERED)))
    assert events(recs, EventName.SENSOR_RECOVERED)[0].path.endswith("temp1_input")


def test_nvidia_box_with_faked_nvml(tmp_path: Path, run: Any) -> None:
    sys, proc = nvidia_box(tmp_path)
    fake = FakeNvml()
    c = run(sys, proc, tmp_path / "state", nvml_loader=lambda: fake)
    recs = c.wait(
        lambda r: (
            len(samples(r, "0000:3d:00.0")) >= 2
            and any(p.get("sample") == "procs" and p["top"][0]["gpu_vram_bytes"] for _, p, _ in r)
        )
    )
    gpu = samples(recs, "0000:3d:00.0")[-1]
    assert gpu.source == "nvml" and gpu.values["board.power_w"] == 68.0
    procs = [ProcsSample.from_payload(p) for _, p, _ in recs if p.get("sample") == "procs"]
    vllm = next(h for h in procs[-1].top if h.comm == "vllm")
    assert vllm.gpu_vram_bytes == 4 << 30
    (inventory,) = [p for k, p, _ in recs if k is Kind.INVENTORY]
    assert inventory["gpus"][0]["device"] == "0000:3d:00.0"


def test_box_with_nothing_still_gives_memory_and_inventory(tmp_path: Path, run: Any) -> None:
    sys, proc = empty_box(tmp_path)
    c = run(sys, proc, tmp_path / "state")
    recs = c.wait(lambda r: sum(p.get("sample") == "memory" for _, p, _ in r) >= 3)
    assert [k for k, _, _ in recs if k is Kind.INVENTORY] == [Kind.INVENTORY]
    assert not [p for k, p, _ in recs if k is Kind.EVENT]
    assert not [p for _, p, _ in recs if p.get("sample") == "device"]


class PipeMonitor:
    """A fake uevent source: events handed in through a queue, as the udev thread reads them."""

    def __init__(self) -> None:
        self.q: queue.Queue[DeviceEvent] = queue.Queue()

    def fileno(self) -> int:
        return -1

    def receive(self, timeout_s: float) -> DeviceEvent | None:
        try:
            return self.q.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def close(self) -> None:
        pass


@pytest.mark.slow
def test_gpu_removal_is_an_urgent_device_record_and_a_new_inventory(
    tmp_path: Path, run: Any
) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    mon = PipeMonitor()
    c = run(sys, proc, tmp_path / "state", monitor_factory=lambda: mon)
    c.wait(lambda r: len(samples(r, "0000:43:00.0")) >= 1)
    shutil.rmtree(sys / "class" / "drm" / "card1")
    (sys / "class" / "hwmon" / "hwmon4").unlink()
    devpath = "/devices/pci0000:40/0000:40:01.1/0000:43:00.0/drm/card1"
    mon.q.put(DeviceEvent("remove", "drm", devpath, "card1", 1, pci="0000:43:00.0"))
    recs = c.wait(lambda r: sum(k is Kind.INVENTORY for k, _, _ in r) >= 2)
    (device,) = [(p, u) for k, p, u in recs if k is Kind.DEVICE]
    assert device == ({**device[0], "action": "remove", "pci": "0000:43:00.0"}, True)
    latest = [p for k, p, _ in recs if k is Kind.INVENTORY][-1]
    assert [g["device"] for g in latest["gpus"]] == ["0000:03:00.0"]


def test_pending_devcoredump_is_saved_at_start(tmp_path: Path, run: Any) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    from test_sensors_devcoredump import AMDGPU_DUMP, make_dump

    make_dump(sys, 0, AMDGPU_DUMP)
    c = run(sys, proc, tmp_path / "state")
    recs = c.wait(lambda r: any(p.get("event") == "devcoredump_saved" for _, p, _ in r))
    ((payload, urgent),) = [(p, u) for _, p, u in recs if p.get("event") == "devcoredump_saved"]
    assert urgent and Path(payload["saved_path"]).read_bytes() == AMDGPU_DUMP
    assert payload["failing_device"] == "0000:43:00.0"


def test_a_bug_in_a_worker_is_reported_once_and_sampling_goes_on(tmp_path: Path) -> None:
    from kmsgd.sensors.workers import Worker

    class Buggy(Worker):
        ticks = 0

        def tick(self) -> None:
            Buggy.ticks += 1
            raise ZeroDivisionError("bug")

    c, stop = Collector(), threading.Event()
    worker = Buggy("kmsgd-buggy", 0.01, stop, c)
    worker.start()
    deadline = time.monotonic() + 10
    while Buggy.ticks < 20 and time.monotonic() < deadline:  # keeps ticking after a failure
        time.sleep(0.01)
    assert Buggy.ticks >= 20
    stop.set()
    worker.join(2)
    bugs = events(c.records, EventName.SENSOR_ERROR)
    assert [(b.path, b.reason) for b in bugs] == [("kmsgd-buggy", "internal")]
    assert "ZeroDivisionError" in bugs[0].detail
