"""NVML at the binding boundary: samples from a fake pynvml, and absence is not an error."""

from __future__ import annotations

import sys

import pytest
from fakes import FakeNvml

from kmsgd.ring.events import EventName, SensorEvent
from kmsgd.ring.samples import DeviceSample
from kmsgd.sensors import nvml
from kmsgd.sensors.device import ReadContext


def test_pci_address_normalised() -> None:
    assert nvml.pci_address(b"00000000:3D:00.0") == "0000:3d:00.0"
    assert nvml.pci_address("0000:01:00.0") == "0000:01:00.0"


def test_gpu_sample_units_and_per_process_memory() -> None:
    fake, procs = FakeNvml(), nvml.GpuProcesses()
    (gpu,) = nvml.open_gpus(fake, procs, 16)
    events: list[SensorEvent] = []
    ctx = ReadContext(events.append)
    for watts in (12, 300, 310):
        fake.power_mw = watts * 1000
        gpu.sample_power(ctx)
    sample = gpu.sample(ctx)
    assert sample is not None and events == []
    assert (sample.source, sample.device, sample.driver) == ("nvml", "0000:3d:00.0", "nvidia")
    assert sample.values["gpu.temp_c"] == 34 and sample.values["power_limit_w"] == 700.0
    assert sample.values["vram_used_bytes"] == 5 << 30 and sample.values["busy_pct"] == 97
    stats = sample.power["board"]
    assert (stats.min_w, stats.max_w, stats.raw_w) == (12.0, 310.0, (12.0, 300.0, 310.0))
    assert sample.values["board.power_w"] == pytest.approx(207.33, abs=0.01)
    assert procs.by_pid() == {777: 4 << 30} and sample.values["gpu_procs"] == 1
    assert DeviceSample.from_payload(sample.to_payload()) == sample


def test_a_failing_nvml_call_is_one_event_and_the_rest_keeps_sampling() -> None:
    fake = FakeNvml()
    (gpu,) = nvml.open_gpus(fake, nvml.GpuProcesses(), 16)
    fake.fail.add("Temperature")
    events: list[SensorEvent] = []
    ctx = ReadContext(events.append)
    for _ in range(3):
        gpu.sample_power(ctx)
        sample = gpu.sample(ctx)
        assert sample is not None and "busy_pct" in sample.values
        assert "gpu.temp_c" not in sample.values
    assert [(e.event, e.reason) for e in events] == [(EventName.SENSOR_ERROR, "Error")]
    assert events[0].path.endswith(":Temperature") and "GPU is lost" in events[0].detail


def test_no_pynvml_means_no_nvidia(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import raises ImportError
    assert nvml.load_nvml() is None


def test_pynvml_without_driver_means_no_nvidia(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoDriver:
        @staticmethod
        def nvmlInit() -> None:
            raise OSError("NVML Shared Library Not Found")

    monkeypatch.setitem(sys.modules, "pynvml", NoDriver)
    assert nvml.load_nvml() is None


def test_payload_dispatch_reads_back_every_shape_and_rejects_junk() -> None:
    from kmsgd.ring.payloads import decode
    from kmsgd.ring.records import Damaged, Kind
    from kmsgd.ring.samples import MemorySample

    mem = MemorySample(1, 2, 3)
    assert decode(Kind.SAMPLE, mem.to_payload(), 1) == mem
    assert isinstance(decode(Kind.SAMPLE, {"sample": "device", "values": {"x": "hot"}}, 1), Damaged)
    assert decode(Kind.SAMPLE, {"sample": "nope"}, 1) == Damaged(
        "sample payload that does not decode: unknown sample shape 'nope'", 1, "nope"
    )
    stall = SensorEvent(EventName.SENSOR_STALL, "/sys/x", "0000:03:00.0", 5, duration_s=4.2)
    assert decode(Kind.EVENT, stall.to_payload(), 1) == stall
    assert isinstance(decode(Kind.EVENT, {"event": "something_else"}, 1), Damaged)
