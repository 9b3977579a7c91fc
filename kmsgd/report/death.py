"""The time of death in a report: the last line and the next boot (any log), and what only
the ring knows (heartbeats, the silence before death, the downtime checked against both boots'
clocks).
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kmsgd.judge.ring_rules import RingFacts
from kmsgd.types import iso_utc

if TYPE_CHECKING:  # model.py builds these; only the type is needed here
    from kmsgd.report.model import LineRef


class Ended(enum.StrEnum):
    """How the ring's record of a boot ends."""

    RUNNING = "running"  # the boot being recorded now
    STOP = "stop"  # the recorder wrote its stop record
    SILENCE = "silence"  # records just stop


@dataclass(frozen=True, slots=True)
class RingDeath:
    """What only the ring knows about the time of death (`kmsgd last-boot`)."""

    last_sign_of_life_wall_us: int | None
    last_heartbeat_wall_us: int | None
    heartbeat_interval_s: float | None
    late_final_beats: int
    last_kernel_line_wall_us: int | None
    silence_before_death_s: float | None
    next_boot_wall_us: int | None
    downtime_s: float | None  # None, never negative, when the clocks cannot be trusted
    clock_note: str  # what disagreed between the two boots' clocks and by how much; or ""
    clock_steps: tuple[str, ...]
    kernel_records_lost: int
    ended: Ended

    def to_json(self) -> dict[str, Any]:
        return {
            "last_sign_of_life": iso_utc(self.last_sign_of_life_wall_us),
            "last_sign_of_life_wall_us": self.last_sign_of_life_wall_us,
            "last_heartbeat_wall_us": self.last_heartbeat_wall_us,
            "heartbeat_interval_s": self.heartbeat_interval_s,
            "late_final_beats": self.late_final_beats,
            "last_kernel_line_wall_us": self.last_kernel_line_wall_us,
            "silence_before_death_s": self.silence_before_death_s,
            "next_boot": iso_utc(self.next_boot_wall_us),
            "downtime_s": self.downtime_s,
            "clock_note": self.clock_note,
            "clock_steps": list(self.clock_steps),
            "kernel_records_lost": self.kernel_records_lost,
            "ended": self.ended.value,
        }


@dataclass(frozen=True, slots=True)
class TimeOfDeath:
    last_line: LineRef | None
    next_boot_wall: str | None = None
    silence_s: float | None = None  # last line → next boot (an upper bound on the silence)
    note: str = ""
    ring: RingDeath | None = None  # the ring's facts (heartbeats, clocks), last-boot only

    def to_json(self) -> dict[str, Any]:
        return {
            "last_line": self.last_line.to_json() if self.last_line else None,
            "next_boot_wall": self.next_boot_wall,
            "silence_s": self.silence_s,
            "note": self.note,
            **(self.ring.to_json() if self.ring else {}),
        }


def with_ring(tod: TimeOfDeath | None, f: RingFacts) -> TimeOfDeath:
    """The time of death of a ring's boot: the last line's, with what only the ring knows."""
    live = f.live
    ended = Ended.RUNNING if f.current else (Ended.STOP if live.stop is not None else Ended.SILENCE)
    ring = RingDeath(
        last_sign_of_life_wall_us=live.last_wall_us,
        last_heartbeat_wall_us=live.last_beat_wall_us,
        heartbeat_interval_s=live.interval_s,
        late_final_beats=live.late_final_beats,
        last_kernel_line_wall_us=live.last_kernel_wall_us,
        silence_before_death_s=live.silence_s,
        next_boot_wall_us=f.next_boot_wall_us,
        downtime_s=f.downtime_s,
        clock_note=f.downtime.note,
        clock_steps=tuple(str(s) for s in live.clock_steps),
        kernel_records_lost=live.lost,
        ended=ended,
    )
    base = tod or TimeOfDeath(None)
    note = "alive at the last sign of life, dead before the next heartbeat was due"
    if live.stop is not None:
        note = "the recorder stopped cleanly"
    return dataclasses.replace(base, note=note, ring=ring)
