"""Downtime between a dead boot and the next one, and whether the two boots' clocks can be
trusted to measure it.

Downtime is the next boot's wall clock at its start minus the dead boot's last sign of life.
The next boot starts on the RTC, which may be hours off: a machine that dual-boots Windows keeps
the RTC in local time (`/etc/adjtime` third line `LOCAL`, hwclock(8)), a dead CMOS battery
resets it, and NTP steps the clock only later in that boot. Heartbeats carry wall and monotonic
clocks, so a step shows as the two disagreeing between consecutive beats. The first such step
early in the next boot tells by how much its start was off; without one, a next boot "before"
the last sign of life, or an RTC known to run in local time, means the downtime is unknown.
Pure: works on values already read.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

CLOCK_STEP_S = 2.0  # wall and monotonic disagreeing by more than this: the wall clock moved
EARLY_STEP_S = 900.0  # a step this soon into the next boot corrects that boot's start time


class StepKind(enum.StrEnum):
    WALL = "wall"  # the wall clock was set (NTP, an admin, the RTC read late)
    SUSPEND = "suspend"  # CLOCK_BOOTTIME ran ahead of CLOCK_MONOTONIC: the box slept


@dataclass(frozen=True, slots=True)
class ClockStep:
    kind: StepKind
    seconds: float  # signed for WALL (+: clock moved forward); the sleep's length for SUSPEND
    mono_us: int  # CLOCK_MONOTONIC of the heartbeat after the step (time into the boot)

    def __str__(self) -> str:
        if self.kind is StepKind.SUSPEND:
            return f"suspended {self.seconds:.0f} s"
        return f"wall clock stepped {self.seconds:+.0f} s"


def steps_between(wall_s: float, mono_s: float, boottime_s: float, mono_us: int) -> list[ClockStep]:
    """The steps two consecutive heartbeats reveal: wall time elapsed beyond monotonic time
    (minus any sleep, during which CLOCK_MONOTONIC stands still and wall time runs on)."""
    slept = boottime_s - mono_s
    out = []
    moved = wall_s - mono_s - max(slept, 0.0)
    if abs(moved) > CLOCK_STEP_S:
        out.append(ClockStep(StepKind.WALL, moved, mono_us))
    if slept > CLOCK_STEP_S:
        out.append(ClockStep(StepKind.SUSPEND, slept, mono_us))
    return out


@dataclass(frozen=True, slots=True)
class Downtime:
    seconds: float | None  # None when the clocks cannot be trusted to tell (never negative)
    note: str = ""  # what disagreed and by how much; "" when nothing did
    corrected_s: float = 0.0  # added to the raw difference (the next boot's own later step)

    @property
    def trusted(self) -> bool:
        return self.seconds is not None or not self.note


def _span(seconds: float) -> str:
    s = abs(seconds)
    if s >= 3600:
        return f"{int(s // 3600)} h {int(s % 3600 // 60)} min"
    if s >= 60:
        return f"{int(s // 60)} min {int(s % 60)} s"
    return f"{s:.0f} s"


def downtime(
    last_wall_us: int | None,
    next_boot_wall_us: int | None,
    next_boot_steps: Sequence[ClockStep] = (),
    *,
    rtc_local: bool = False,
) -> Downtime:
    """How long the box stayed down, checked against what the clocks themselves said."""
    if last_wall_us is None or next_boot_wall_us is None:
        return Downtime(None)
    raw = (next_boot_wall_us - last_wall_us) / 1e6
    early = next(
        (s for s in next_boot_steps if s.kind is StepKind.WALL and s.mono_us <= EARLY_STEP_S * 1e6),
        None,
    )
    if early is not None:
        fixed = raw + early.seconds
        said = (
            f"the next boot's clock was stepped {early.seconds:+.0f} s "
            f"({_span(early.seconds)}) {early.mono_us / 1e6:.0f} s into that boot"
        )
        if fixed < 0:
            return Downtime(None, f"{said}, and still starts before the last sign of life")
        return Downtime(
            round(fixed, 1), f"{said}: downtime corrected from {raw:.0f} s", early.seconds
        )
    if raw < 0:
        return Downtime(
            None,
            f"the next boot's clock starts {_span(raw)} before the last sign of life "
            "(an RTC in local time or a dead RTC battery?)",
        )
    if rtc_local:
        return Downtime(
            None,
            "the RTC runs in local time (/etc/adjtime LOCAL) and no later clock step shows "
            f"the offset: the raw difference ({raw:.0f} s) may be hours off",
        )
    return Downtime(round(raw, 1))


def rtc_in_local_time(adjtime: str) -> bool:
    """`/etc/adjtime`'s third line says UTC or LOCAL (hwclock(8)); absent means UTC."""
    lines = adjtime.splitlines()
    return len(lines) >= 3 and lines[2].strip().upper() == "LOCAL"


def wall_steps(steps: Iterable[ClockStep]) -> list[ClockStep]:
    return [s for s in steps if s.kind is StepKind.WALL]
