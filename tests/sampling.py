"""Running the real sampler on fake trees and collecting what it emits, for the sensor tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kmsgd.ring import frame as fr
from kmsgd.ring.events import EventName, SensorEvent
from kmsgd.ring.payloads import Payload
from kmsgd.ring.records import Kind
from kmsgd.ring.samples import DeviceSample
from kmsgd.sensors.sampler import Sampler, SamplerConfig

Rec = tuple[Kind, dict[str, Any], bool]

FAST = SamplerConfig(
    power_hz=20, sensor_hz=5, procs_interval_s=0.4, stall_after_s=0.3, use_udev=False
)


class Collector:
    """The recorder's side: encodes every payload as the ring does and keeps the JSON object
    it becomes; lets tests wait for records."""

    def __init__(self) -> None:
        self.records: list[Rec] = []
        self.cond = threading.Condition()

    def __call__(self, kind: Kind, data: Payload, urgent: bool) -> None:
        payload = json.loads(fr.encode_payload(kind, data))
        with self.cond:
            self.records.append((kind, payload, urgent))
            self.cond.notify_all()

    def wait(self, pred: Callable[[list[Rec]], bool], timeout: float = 15.0) -> list[Rec]:
        with self.cond:
            assert self.cond.wait_for(lambda: pred(self.records), timeout), self.summary()
            return list(self.records)

    def summary(self) -> str:
        return "\n".join(f"{k} {urgent} {p}"[:300] for k, p, urgent in self.records[-30:])


def samples(recs: list[Rec], device: str) -> list[DeviceSample]:
    return [
        DeviceSample.from_payload(p)
        for k, p, _ in recs
        if k is Kind.SAMPLE and p.get("sample") == "device" and p["device"] == device
    ]


def events(recs: list[Rec], name: EventName) -> list[SensorEvent]:
    return [
        SensorEvent.from_payload(p) for k, p, _ in recs if k is Kind.EVENT and p["event"] == name
    ]


@pytest.fixture
def run() -> Iterator[Callable[..., Collector]]:
    started: list[Sampler] = []

    def start(sys: Path, proc: Path, state: Path, **kw: Any) -> Collector:
        kw.setdefault("config", FAST)
        kw.setdefault("nvml_loader", lambda: None)
        sampler = Sampler(sys_root=sys, proc_root=proc, state_dir=str(state), **kw)
        collector = Collector()
        sampler.start(collector)
        started.append(sampler)
        return collector

    yield start
    for sampler in started:
        sampler.stop()
