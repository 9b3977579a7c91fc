"""The shared vocabulary of kmsgd: record kinds, kernel records, ring entries, outcomes.

Every stage (sources, recorder, ring, timeline, classifier, report) speaks in these values.
The enum values are the JSON vocabulary and the ring's on-disk names: never rename one.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Kind(enum.StrEnum):
    """What a ring entry holds. The integer code on disk is `KIND_CODES[kind]`."""

    BOOT = "boot"
    KERNEL = "kernel"
    HEARTBEAT = "heartbeat"
    LOST = "lost"
    STOP = "stop"
    SAMPLE = "sample"
    DEVICE = "device"
    INVENTORY = "inventory"
    PSTORE = "pstore"
    SYSCTL = "sysctl"
    EVENT = "event"


# On-disk codes. Append only: a code, once shipped, keeps its meaning forever.
KIND_CODES: dict[Kind, int] = {kind: code for code, kind in enumerate(Kind, start=1)}
KINDS_BY_CODE: dict[int, Kind] = {code: kind for kind, code in KIND_CODES.items()}


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


class Level(enum.IntEnum):
    """syslog(3) levels as the kernel uses them; lower is worse."""

    EMERG = 0
    ALERT = 1
    CRIT = 2
    ERR = 3
    WARNING = 4
    NOTICE = 5
    INFO = 6
    DEBUG = 7


@dataclass(frozen=True, slots=True)
class KernelRecord:
    """One kernel log message, from /dev/kmsg or from a pasted log.

    Fields the source did not carry are None: a `dmesg` paste has no seq, a `dmesg -T`
    paste no `ts_usec`. `message` is decoded text (the kernel's `\\xNN` escapes undone).
    """

    message: str
    level: int | None = None
    facility: int | None = None
    seq: int | None = None
    ts_usec: int | None = None  # printk clock, µs since boot (does not count suspend)
    flags: str = "-"  # "-" or "c" (a LOG_CONT fragment)
    caller: str | None = None  # "T123" / "C2" with CONFIG_PRINTK_CALLER
    subsystem: str | None = None  # SUBSYSTEM= continuation line
    device: str | None = None  # DEVICE= continuation line ("b8:0", "+pci:0000:03:00.0", ...)
    wall_us: int | None = None  # wall clock (µs since the epoch) when the source gives it


@dataclass(frozen=True, slots=True)
class Boot:
    """Written first by every `kmsgd run`: who this boot is."""

    boot_id: str  # 32 lower-case hex digits, as journald's _BOOT_ID
    kernel: str  # release, /proc/sys/kernel/osrelease
    cmdline: str
    boot_wall_us: int  # wall clock at boot (realtime - monotonic at start)
    version: str  # kmsgd version
    hostname: str = ""
    machine_id: str = ""
    uptime_us: int = 0  # when the recorder started
    pid: int = 0


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Sign of life; the three clocks let the post-mortem detect suspend and clock steps."""

    wall_us: int
    mono_us: int
    boottime_us: int
    kernel_seq: int | None = None  # last kernel seq read so far


@dataclass(frozen=True, slots=True)
class Lost:
    """Kernel records that never reached us: `count` records starting at `first_seq`."""

    count: int
    first_seq: int
    # "overrun": the kernel overwrote them before we read (EPIPE); "before_start": gone from
    # the kernel buffer before kmsgd started; "restart": logged while kmsgd was down within
    # this boot; "dropped": the ring was unwritable and memory full; "gap": anything else.
    reason: str


@dataclass(frozen=True, slots=True)
class Stop:
    """Clean stop of the recorder, with whether the whole system was going down."""

    signal: str
    shutting_down: bool
    system_state: str  # systemd manager state ("stopping", "running", ...) or "unknown"
    detail: str = ""


Payload = KernelRecord | Boot | Heartbeat | Lost | Stop | dict[str, Any]


@dataclass(frozen=True, slots=True)
class Entry:
    """One record as stored in the ring: envelope plus typed payload.

    `serial` increases by one per record for the whole life of the ring file; `wall_us` is
    when kmsgd wrote it. Kinds without a dataclass yet carry a plain dict payload.
    """

    serial: int
    boot_id: str
    wall_us: int
    kind: Kind
    data: Payload = field(compare=False)
