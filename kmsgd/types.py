"""The shared vocabulary of every stage: how a boot ended and how sure a verdict is.

The enum values are the JSON vocabulary: never rename one.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
from collections.abc import Iterable


class Outcome(enum.StrEnum):
    """How a boot ended (`outcome` in the JSON report)."""

    CLEAN_SHUTDOWN = "clean_shutdown"
    CLEAN_REBOOT = "clean_reboot"
    KERNEL_PANIC = "kernel_panic"
    HARD_FREEZE = "hard_freeze"
    HANG_MEMORY_EXHAUSTION = "hang_memory_exhaustion"
    ABRUPT_RESET_OR_POWER_LOSS = "abrupt_reset_or_power_loss"
    WATCHDOG_RESET = "watchdog_reset"
    THERMAL_SHUTDOWN = "thermal_shutdown"
    RECORDER_STOPPED = "recorder_stopped"
    UNKNOWN = "unknown"
    STILL_RUNNING = "still_running"


class Confidence(enum.StrEnum):
    """How sure a verdict or a witness is (`confidence` in the JSON report)."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Format(enum.StrEnum):
    """An output format (`--format`); each command takes the ones listed for it below."""

    TEXT = "text"
    MD = "md"
    JSON = "json"
    HTML = "html"
    EXPORT = "export"  # last-boot: the post-mortem journal entry, in journal export format


REPORT_FORMATS = (Format.TEXT, Format.MD, Format.JSON, Format.HTML)  # a post-mortem report
LAST_BOOT_FORMATS = (*REPORT_FORMATS, Format.EXPORT)
FLEET_FORMATS = (Format.TEXT, Format.MD, Format.JSON)
LISTING_FORMATS = (Format.TEXT, Format.JSON)  # boots, dump, check


class Subject(enum.StrEnum):
    """Which boot a verdict speaks of: a pasted log's start may speak of the boot before."""

    THIS_BOOT = "this_boot"
    PREVIOUS_BOOT = "previous_boot"


# A box dying: what the fleet counts, `analyze` reports first and the renderers paint red.
FAILURES = frozenset(
    {
        Outcome.KERNEL_PANIC,
        Outcome.HARD_FREEZE,
        Outcome.HANG_MEMORY_EXHAUSTION,
        Outcome.ABRUPT_RESET_OR_POWER_LOSS,
        Outcome.WATCHDOG_RESET,
        Outcome.THERMAL_SHUTDOWN,
    }
)
CLEAN = frozenset({Outcome.CLEAN_SHUTDOWN, Outcome.CLEAN_REBOOT})

# The outcome in words, the start of every headline: the one place this wording lives.
WORDS: dict[Outcome, str] = {
    Outcome.CLEAN_SHUTDOWN: "Clean shutdown",
    Outcome.CLEAN_REBOOT: "Clean reboot",
    Outcome.KERNEL_PANIC: "Kernel panic",
    Outcome.HARD_FREEZE: "Hard freeze",
    Outcome.HANG_MEMORY_EXHAUSTION: "Memory-exhaustion hang",
    Outcome.ABRUPT_RESET_OR_POWER_LOSS: "Abrupt reset or power loss",
    Outcome.WATCHDOG_RESET: "Watchdog reset",
    Outcome.THERMAL_SHUTDOWN: "Thermal shutdown",
    Outcome.RECORDER_STOPPED: "Recorder stopped",
    Outcome.UNKNOWN: "Unknown end",
    Outcome.STILL_RUNNING: "Still running",
}


# Bounds of every number read from outside (a pasted log, a journal, a ring frame, a fleet
# entry, an option): a wall clock from 1970 to the end of year 9999 (the last that datetime can
# show), a monotonic clock of at most 100 years of uptime. A value outside is not a time.
WALL_US_MAX = 253_402_300_799_999_999
MONO_US_MAX = 100 * 366 * 86_400 * 1_000_000
_DIGITS_MAX = 20  # more decimal digits than any bound here: refused before int() sees them


def bounded_int(value: object, low: int, high: int) -> int | None:
    """`value` (an int, or decimal text as journals and rings carry numbers) when it lies in
    [low, high]; None for anything else: text, floats, bools, 400-digit numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip()
        if not 0 < len(text) <= _DIGITS_MAX or not text.removeprefix("-").isdecimal():
            return None
        number = int(text)
    else:
        return None
    return number if low <= number <= high else None


def wall_us(value: object) -> int | None:
    """A wall clock in µs since the epoch that a clock can show, else None."""
    return bounded_int(value, 0, WALL_US_MAX)


def mono_us(value: object) -> int | None:
    """A monotonic (or boot) clock in µs, else None."""
    return bounded_int(value, 0, MONO_US_MAX)


# Frames a blocked task passes through on its way to sleep (the scheduler, locks, waits, the
# syscall entry): skipped to name the call it is stuck in, as the kernel's wchan skips the
# __sched section (kernel/sched/core.c, get_wchan). The recorder's /proc/PID/stack and the
# judge's kernel-log stacks both name a blocked task's function this way.
_WAITING = re.compile(
    r"^(?:__)?(?:schedule|io_schedule|schedule_timeout|schedule_hrtimeout|schedule_preempt"
    r"|preempt_schedule|do_wait|wait_for_completion|rwsem_down|percpu_rwsem_wait"
    r"|__mutex_lock|mutex_lock|down_read|down_write|dma_fence_default_wait|dma_fence_wait"
    r"|ret_from_fork|entry_SYSCALL|do_syscall|x64_sys_call|__x64_sys)"
)


def waiting_in(frames: Iterable[str]) -> str:
    """The first frame of a blocked task's stack that is not the act of waiting itself
    (`amdgpu_fence_wait_timeout+0x1a/0x40 [amdgpu]` -> `amdgpu_fence_wait_timeout`)."""
    for frame in frames:
        name = frame.split("+", 1)[0].strip()
        if name and not _WAITING.match(name):
            return name
    return ""


def iso_utc(wall_us: int | None) -> str | None:
    """A wall-clock time (µs since the epoch) as reports write it."""
    if wall_us is None:
        return None
    return dt.datetime.fromtimestamp(wall_us / 1e6, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
