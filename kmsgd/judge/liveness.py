"""Signs of life in one boot's ring entries: heartbeats, last kernel line, stop marker, clocks.

The question answered here is "when did this boot die, and how did it fall silent": a
machine cut off by a power loss beats regularly to the end; a freezing or thrashing one
beats late, then not at all; a silent kernel with a live recorder is not a dead machine.
Pure: works on entries already read from the ring.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field

from kmsgd.judge.clocks import ClockStep, steps_between
from kmsgd.ring.records import Boot, Entry, Heartbeat, KernelRecord, Kind, Lost, Stop

LATE_FACTOR = 1.5  # a beat this many intervals after the previous one was late
FINAL_BEATS = 20
LATE_WINDOW = 10  # late beats count among the last this many: the slowing right before death


@dataclass(frozen=True, slots=True)
class Liveness:
    boot: Boot | None
    first_wall_us: int | None
    last_wall_us: int | None  # last record of any kind (last sign of life)
    last_beat: Heartbeat | None
    last_beat_wall_us: int | None
    last_kernel_wall_us: int | None
    last_kernel: KernelRecord | None
    beats: int
    interval_s: float | None  # the usual spacing of heartbeats (median)
    final_gaps_s: tuple[float, ...]  # the spacing of the last beats, oldest first
    late_final_beats: int  # how many of those were late
    stop: Stop | None  # the last record was a clean stop
    lost: int
    records: int
    clock_steps: tuple[ClockStep, ...] = ()  # wall clock set, or the box suspended
    kinds: dict[str, int] = field(default_factory=dict)

    @property
    def silence_s(self) -> float | None:
        """Time between the last kernel line and the last sign of life."""
        if self.last_kernel_wall_us is None or self.last_wall_us is None:
            return None
        return max(0.0, (self.last_wall_us - self.last_kernel_wall_us) / 1e6)

    @property
    def regular_to_the_end(self) -> bool:
        """Heartbeats kept their pace until they stopped (no late beat at the end)."""
        return self.beats >= 3 and self.late_final_beats == 0


class LivenessBuilder:
    """Fed entries in order (streaming: memory does not grow with the boot)."""

    def __init__(self) -> None:
        self.boot: Boot | None = None
        self.first: int | None = None
        self.last: int | None = None
        self.last_beat: Heartbeat | None = None
        self.last_beat_wall: int | None = None
        self.last_kernel: KernelRecord | None = None
        self.last_kernel_wall: int | None = None
        self.beats = 0
        self.gaps: list[float] = []  # all gaps, for the median (floats: 8 bytes a beat)
        self.stop: Stop | None = None
        self.lost = 0
        self.records = 0
        self.steps: list[ClockStep] = []
        self.kinds: dict[str, int] = {}

    def add(self, e: Entry) -> None:
        self.records += 1
        self.kinds[e.kind.value] = self.kinds.get(e.kind.value, 0) + 1
        if self.first is None:
            self.first = e.wall_us
        self.last = e.wall_us
        self.stop = e.data if isinstance(e.data, Stop) else None
        d = e.data
        if isinstance(d, Boot):
            self.boot = self.boot or d
            # A recorder restart within the boot: its pause is no late heartbeat.
            self.last_beat = None
        elif isinstance(d, Heartbeat):
            self._beat(d, e.wall_us)
        elif isinstance(d, KernelRecord) and e.kind is Kind.KERNEL and not d.facility:
            self.last_kernel, self.last_kernel_wall = d, e.wall_us
        elif isinstance(d, Lost) and d.reason != "before_start":
            self.lost += d.count  # lost while recording (what came before is not this boot's end)

    def add_sign_of_life(self, wall_us: int) -> None:
        """A record we do not decode here (a sensor sample) still proves the box was alive."""
        self.records += 1
        self.kinds["sample"] = self.kinds.get("sample", 0) + 1
        if self.first is None:
            self.first = wall_us
        self.last = wall_us
        self.stop = None

    def _beat(self, beat: Heartbeat, wall_us: int) -> None:
        prev = self.last_beat
        if prev is not None:
            mono = (beat.mono_us - prev.mono_us) / 1e6
            wall = (beat.wall_us - prev.wall_us) / 1e6
            boottime = (beat.boottime_us - prev.boottime_us) / 1e6
            self.steps += steps_between(wall, mono, boottime, beat.mono_us)
            self.gaps.append(mono)
        self.beats += 1
        self.last_beat, self.last_beat_wall = beat, wall_us

    def build(self) -> Liveness:
        interval = statistics.median(self.gaps) if self.gaps else None
        final = tuple(self.gaps[-FINAL_BEATS:])
        # A thrashing or freezing machine delays its final beats; a power cut does not.
        late = sum(1 for gap in final[-LATE_WINDOW:] if interval and gap > interval * LATE_FACTOR)
        return Liveness(
            boot=self.boot,
            first_wall_us=self.first,
            last_wall_us=self.last,
            last_beat=self.last_beat,
            last_beat_wall_us=self.last_beat_wall,
            last_kernel_wall_us=self.last_kernel_wall,
            last_kernel=self.last_kernel,
            beats=self.beats,
            interval_s=interval,
            final_gaps_s=final,
            late_final_beats=late,
            stop=self.stop,
            lost=self.lost,
            records=self.records,
            clock_steps=tuple(self.steps),
            kinds=dict(self.kinds),
        )


def liveness(entries: Iterable[Entry]) -> Liveness:
    b = LivenessBuilder()
    for e in entries:
        b.add(e)
    return b.build()
