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
