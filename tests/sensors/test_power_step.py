"""A sudden power step is written urgently at once, not at the end of the second in flight.

Story 004: a PSU trip cuts power microseconds after both GPUs step 12 W -> 300 W. The record of
the second in flight would be lost with it; the step's reads must already be on disk. These tests
drive a `DeviceWorker` tick by tick on a fake clock (10 Hz power, one record a second), so they
assert on content and urgency only, never on durations.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import dual_amdgpu_box
from sampling import Collector, samples

from kmsgd.ring.records import Kind
from kmsgd.ring.samples import DeviceSample, PowerStep, sample_from_payload
from kmsgd.sensors import device as device_mod
from kmsgd.sensors.device import Probe, ProbeDevice
from kmsgd.sensors.sampler import Sampler, SamplerConfig
from kmsgd.sensors.workers import DeviceWorker

TICK_NS = 100_000_000  # 10 Hz
START_NS = 1_000_000_000_000


class Clock:
    def __init__(self) -> None:
        self.t = START_NS

    def __call__(self) -> int:
        return self.t


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    c = Clock()
    monkeypatch.setattr(device_mod, "now_ns", c)
    yield c


class Card:
    """A fake GPU: one power probe whose reading a test sets, and one slow temperature."""

    def __init__(self, name: str = "0000:03:00.0", *, spread_w: float = 1.0) -> None:
        self.watts = 12.0
        self.dev = ProbeDevice(
            source="amdgpu",
            device=name,
            driver="amdgpu",
            power=[Probe(f"{name}/power1_average", "ppt.power_w", lambda: self.watts)],
            slow=[Probe(f"{name}/temp1_input", "edge.temp_c", lambda: 50.0)],
        )
        cfg = SamplerConfig()  # the defaults the sampler gives every device
        self.dev.raw_min_spread_w = spread_w
        self.dev.step_ratio, self.dev.step_min_w = cfg.step_ratio, cfg.step_min_w
        self.dev.step_gap_ns = int(cfg.step_gap_s * 1e9)


Rec = tuple[Kind, dict[str, Any], bool]


def drive(clock: Clock, cards: list[Card], series: list[list[float]]) -> list[Rec]:
    """One worker tick per 100 ms; `series[i]` is card i's power at each read."""
    c = Collector()
    worker = DeviceWorker("kmsgd-test", 10.0, 1.0, threading.Event(), c)
    worker.devices = tuple(card.dev for card in cards)
    for n in range(len(series[0])):
        clock.t += TICK_NS
        for card, watts in zip(cards, series, strict=True):
            card.watts = watts[n]
        worker.tick()
    assert all(k is Kind.SAMPLE for k, _, _ in c.records)
    return c.records


def drive_one(clock: Clock, watts: list[float], **kw: Any) -> list[tuple[DeviceSample, bool]]:
    recs = drive(clock, [Card(**kw)], [watts])
    return [(DeviceSample.from_payload(p), urgent) for _, p, urgent in recs]


def urgent(recs: list[tuple[DeviceSample, bool]]) -> list[DeviceSample]:
    return [s for s, u in recs if u]


def test_step_mid_second_is_written_urgently_with_its_raw_reads(clock: Clock) -> None:
    recs = drive_one(clock, [12.0] * 14 + [300.0] * 16)
    shapes = [(s.partial, s.step is not None, u) for s, u in recs]
    # second 0 flat; in second 1 the step cuts it at once; the rest of second 1; second 2
    assert shapes == [
        (False, False, False),
        (True, True, True),
        (False, False, False),
        (False, False, False),
    ]
    cut = recs[1][0]
    assert cut.step == PowerStep("ppt", 12.0, 300.0)
    assert cut.power["ppt"].raw_w == (12.0, 12.0, 12.0, 12.0, 300.0)
    assert cut.raw_ms == (-400, -300, -200, -100, 0)  # the step's shape, read by read
    assert (cut.power["ppt"].min_w, cut.power["ppt"].max_w) == (12.0, 300.0)
    assert cut.values == {"ppt.power_w": 69.6}  # power only: slow sensors wait for the second
    assert cut.mono_us == (START_NS + 15 * TICK_NS) // 1000  # written at the step's read
    rest = recs[2][0]
    # the rest of the second: its five reads, kept raw so the reader sees what it covers
    assert rest.power["ppt"].raw_w == (300.0,) * 5 and rest.raw_ms == (-400, -300, -200, -100, 0)
    assert rest.values == {"edge.temp_c": 50, "ppt.power_w": 300}
    assert recs[3][0].power["ppt"].raw_w == ()  # a flat second is back to min/mean/max


def test_partial_payload_keys_and_round_trip(clock: Clock) -> None:
    recs = drive(clock, [Card()], [[12.0] * 14 + [300.0] * 6])
    payload = recs[1][1]
    assert payload["partial"] is True
    assert payload["step"] == {"sensor": "ppt", "from_w": 12, "to_w": 300}
    assert DeviceSample.from_payload(payload).to_payload() == payload
    assert "partial" not in recs[0][1] and "step" not in recs[0][1]
    assert sample_from_payload(payload) == DeviceSample.from_payload(payload)


def test_readers_tolerate_a_broken_or_absent_step() -> None:
    base = {"sample": "device", "source": "amdgpu", "device": "d", "driver": "amdgpu"}
    broken = DeviceSample.from_payload({**base, "step": "12->300", "partial": "yes"})
    assert broken.step is None and broken.partial is False
    half = DeviceSample.from_payload({**base, "step": {"sensor": "ppt", "from_w": 12}})
    assert half.step is None
    old = DeviceSample.from_payload(base)  # written before steps existed
    assert old.step is None and old.partial is False


def test_step_on_a_record_boundary_is_still_a_step(clock: Clock) -> None:
    # 12 W up to the second's last read, 300 W from the next second's first read
    recs = drive_one(clock, [12.0] * 10 + [300.0] * 10)
    (cut,) = urgent(recs)
    assert cut.partial and cut.step == PowerStep("ppt", 12.0, 300.0)
    assert cut.power["ppt"].raw_w == (300.0,) and cut.raw_ms == (0,)
    assert recs[-1][0].power["ppt"].raw_w == (300.0,) * 9


def test_step_on_the_seconds_last_read_makes_that_record_urgent(clock: Clock) -> None:
    recs = drive_one(clock, [12.0] * 9 + [300.0] * 11)
    assert [(s.partial, u) for s, u in recs] == [(False, True), (False, False)]
    record = recs[0][0]
    assert record.step == PowerStep("ppt", 12.0, 300.0)
    assert record.power["ppt"].raw_w == (12.0,) * 9 + (300.0,) and len(record.raw_ms) == 10
    assert record.values["edge.temp_c"] == 50  # a whole second: slow sensors too


def test_a_fall_is_a_step_too(clock: Clock) -> None:
    recs = drive_one(clock, [300.0] * 13 + [12.0] * 7)
    (cut,) = urgent(recs)
    assert cut.partial and cut.step == PowerStep("ppt", 300.0, 12.0)
    assert cut.power["ppt"].raw_w == (300.0, 300.0, 300.0, 12.0)


def test_a_fast_ramp_is_measured_from_the_seconds_minimum(clock: Clock) -> None:
    # no read is 3x its predecessor, but 70 W is 5.8x and 58 W above the second's 12 W
    recs = drive_one(clock, [12.0] * 12 + [30.0, 50.0, 70.0] + [70.0] * 5)
    (cut,) = urgent(recs)
    assert cut.step == PowerStep("ppt", 12.0, 70.0)
    assert cut.power["ppt"].raw_w == (12.0, 12.0, 30.0, 50.0, 70.0)


@pytest.mark.parametrize(
    "watts",
    [
        [12.0] * 50,  # idle
        [300.0] * 50,  # loaded
        [12.0 + 288.0 * n / 99 for n in range(100)],  # 12 -> 300 W over ten seconds
        [200.0 + (40.0 if n % 2 else -40.0) for n in range(50)],  # noisy, but never 3x
        [5.0 if n % 2 else 40.0 for n in range(50)],  # 8x, but only 35 W
    ],
    ids=["idle", "loaded", "slow-rise", "noisy", "small"],
)
def test_loads_without_a_step_are_never_urgent(clock: Clock, watts: list[float]) -> None:
    recs = drive_one(clock, watts)
    assert recs and not urgent(recs)
    assert all(s.step is None and not s.partial for s, _ in recs)
    assert len(recs) == len(watts) // 10  # one record a second, as before


def test_oscillating_load_is_rate_limited_and_every_read_is_kept_once(clock: Clock) -> None:
    watts = [12.0 if n % 2 else 300.0 for n in range(100)]  # 10 s flipping at every read
    recs = drive_one(clock, [12.0] * 10 + watts)
    rushed = urgent(recs)
    gaps = [b.mono_us - a.mono_us for a, b in itertools.pairwise(rushed)]
    assert gaps and min(gaps) >= 500_000  # never more than one urgent record per 0.5 s
    assert 10 <= len(rushed) <= 21  # and yet the oscillation keeps reaching the disk
    assert sum(not s.partial for s, _ in recs) == 11  # still one record closing each second
    read = [w for s, _ in recs[1:] for w in s.power["ppt"].raw_w]
    assert read == watts  # every read exactly once, in order


def test_aggregates_cover_exactly_the_reads_each_record_carries(clock: Clock) -> None:
    watts = (
        [12.0] * 14
        + [300.0] * 3
        + [298.0, 301.5, 299.0] * 4
        + [12.0, 12.0, 300.0, 300.0, 12.0, 300.0]
        + [40.0, 90.0, 200.0, 310.0]
        + [305.0] * 11
    )
    recs = drive_one(clock, watts, spread_w=0.0)  # keep raw always, to count every read
    assert sum(s.partial for s, _ in recs) >= 2
    seen: list[float] = []
    for s, _ in recs:
        stats = s.power["ppt"]
        raw = [w for w in stats.raw_w if w is not None]
        assert len(s.raw_ms) == len(stats.raw_w) and s.raw_ms[-1] == 0
        assert (stats.min_w, stats.max_w) == (min(raw), max(raw))
        assert s.values["ppt.power_w"] == pytest.approx(sum(raw) / len(raw), abs=0.005)
        seen.extend(raw)
    assert seen == watts[: len(seen)] and len(watts) - len(seen) < 10  # the second in flight


def test_both_cards_step_in_the_same_tick(clock: Clock) -> None:
    one, two = Card("0000:03:00.0"), Card("0000:43:00.0")
    series = [[12.0] * 17 + [300.0] * 3, [12.0] * 17 + [290.0] * 3]
    recs = drive(clock, [one, two], series)
    rushed = [DeviceSample.from_payload(p) for _, p, u in recs if u]
    assert [(s.device, s.step) for s in rushed] == [
        ("0000:03:00.0", PowerStep("ppt", 12.0, 300.0)),
        ("0000:43:00.0", PowerStep("ppt", 12.0, 290.0)),
    ]
    assert rushed[0].mono_us == rushed[1].mono_us


def test_step_detection_is_off_unless_configured(clock: Clock) -> None:
    card = Card()
    card.dev.step_ratio = 0.0  # a ProbeDevice's own default, before the sampler sets it
    recs = drive(clock, [card], [[12.0] * 14 + [300.0] * 6])
    assert not [p for _, p, u in recs if u or "step" in p]


def test_sampler_writes_both_cards_steps_urgently(tmp_path: Path) -> None:
    """End to end on the fake dual-R9700 box of story 004: real threads, real files."""
    sys, proc = dual_amdgpu_box(tmp_path)
    cards = ("0000:03:00.0", "0000:43:00.0")
    files = [  # card1 reads power1_input, NUL-padded like the RX 6900 XT
        next(sys.rglob(card)) / "hwmon" / hw / name
        for card, hw, name in zip(
            cards, ("hwmon3", "hwmon4"), ("power1_average", "power1_input"), strict=True
        )
    ]
    config = SamplerConfig(power_hz=20, sensor_hz=5, use_udev=False)
    sampler = Sampler(
        sys_root=sys,
        proc_root=proc,
        state_dir=str(tmp_path / "state"),
        config=config,
        nvml_loader=lambda: None,
    )
    c = Collector()
    sampler.start(c)
    try:
        c.wait(lambda r: all(len(samples(r, card)) >= 1 for card in cards))
        for path in files:  # in place: the sampler keeps the file open
            fd = os.open(path, os.O_WRONLY)
            os.pwrite(fd, b"300000000\n", 0)
            os.close(fd)

        def stepped(r: list[Rec], card: str) -> list[DeviceSample]:
            return [
                DeviceSample.from_payload(p)
                for k, p, u in r
                if u and p.get("device") == card and "step" in p
            ]

        recs = c.wait(lambda r: all(stepped(r, card) for card in cards))
    finally:
        sampler.stop()
    for card in cards:
        first = stepped(recs, card)[0]
        assert first.step == PowerStep("ppt", 12.0, 300.0)
        raw = first.power["ppt"].raw_w
        assert raw[-1] == 300.0 and set(raw[:-1]) <= {12.0}  # the step is the last read kept
        assert len(first.raw_ms) == len(raw) and first.raw_ms[-1] <= 0
