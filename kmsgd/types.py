"""The shared vocabulary of every stage: how a boot ended and how sure a verdict is.

The enum values are the JSON vocabulary: never rename one.
"""

from __future__ import annotations

import enum


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
