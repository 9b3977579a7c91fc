"""The records both programs read: kinds, kernel records (and the /dev/kmsg record format they
are stored in), boot, heartbeat, loss and stop records, ring entries.

Record format (Documentation/ABI/testing/dev-kmsg):
    "<prio>,<seq>,<ts_usec>,<flag>[,more...];<text>\\n" followed by " KEY=value\\n" lines.
The enum values are the ring's on-disk names: never rename one.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kmsgd.types import MONO_US_MAX

if TYPE_CHECKING:  # the union of every kind's type imports the modules that import this one
    from kmsgd.ring.payloads import Payload


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
    INCIDENT = "incident"  # incident mode: start, snapshots, end (docs/ring-format.md)


KIND_CODES: dict[Kind, int] = {kind: code for code, kind in enumerate(Kind, start=1)}


KINDS_BY_CODE: dict[int, Kind] = {code: kind for kind, code in KIND_CODES.items()}


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
    # Set when the ring file was unusable at start (no valid header, wrong size): what was
    # wrong and where the old file was moved; a new ring began with this record.
    ring_replaced: str = ""


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Sign of life; the three clocks let the post-mortem detect suspend and clock steps."""

    wall_us: int
    mono_us: int
    boottime_us: int
    kernel_seq: int | None = None  # last kernel seq read so far


class LostReason(enum.StrEnum):
    """Why a `lost` record's kernel records never reached us."""

    OVERRUN = "overrun"  # the kernel overwrote them before we read (EPIPE)
    BEFORE_START = "before_start"  # gone from the kernel buffer before kmsgd started
    RESTART = "restart"  # logged while kmsgd was down within this boot
    DROPPED = "dropped"  # the ring was unwritable and memory full
    # the kmsg pump's buffer was full in a storm and it kept only what matters
    # (kmsgd/record/kmsgpump.py)
    SHED = "shed"
    GAP = "gap"  # anything else

    @classmethod
    def parse(cls, word: str) -> LostReason:
        """A reason read from a ring; one this kmsgd does not know (a newer or foreign
        writer, damage) is GAP, "anything else": the record still counts its losses."""
        try:
            return cls(word)
        except ValueError:
            return cls.GAP


@dataclass(frozen=True, slots=True)
class Lost:
    """Kernel records that never reached us: `count` records starting at `first_seq`."""

    count: int
    first_seq: int
    reason: LostReason


@dataclass(frozen=True, slots=True)
class Stop:
    """Clean stop of the recorder, with whether the whole system was going down."""

    signal: str
    shutting_down: bool
    system_state: str  # systemd manager state ("stopping", "running", ...) or "unknown"
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Damaged:
    """A payload that does not decode as its kind: what was wrong and how many bytes it had.

    `shape` is the name the payload gave its own shape when it had one (a sample's `sample`,
    an event's `event`): the judge counts a broken sensor record apart from another
    producer's event. Readers skip a damaged record; they never guess at its fields.
    """

    error: str
    size: int
    shape: str = ""


@dataclass(frozen=True, slots=True)
class Entry:
    """One record as stored in the ring: envelope plus typed payload.

    `serial` increases by one per record for the whole life of the ring file; `wall_us` is
    when kmsgd wrote it. `data` is the kind's type (`kmsgd.ring.payloads.Payload`), or
    `Damaged`.
    """

    serial: int
    boot_id: str
    wall_us: int
    kind: Kind
    data: Payload = field(compare=False)


_ESCAPE = re.compile(rb"\\x([0-9a-fA-F]{2})")


def unescape(text: bytes) -> str:
    """Undo the kernel's `\\xNN` escaping (every byte < 0x20, >= 0x7f and `\\`); decode UTF-8."""
    if b"\\x" in text:
        text = _ESCAPE.sub(lambda m: bytes((int(m.group(1), 16),)), text)
    return text.decode("utf-8", "replace")


def peek(raw: bytes) -> tuple[int, int]:
    """(seq, level) of a raw record, cheaply, for the hot path; (-1, 7) when unparsable."""
    head = raw.split(b";", 1)[0].split(b",", 3)
    try:
        return int(head[1]), int(head[0]) & 7
    except (IndexError, ValueError):
        return -1, 7


def parse_record(raw: bytes, *, wall_us: int | None = None) -> KernelRecord | None:
    """Parse one raw /dev/kmsg record; None when the header is not the kernel's format.

    Unknown extra comma fields before `;` are ignored, as the ABI document asks.
    """
    head, sep, rest = raw.partition(b";")
    if not sep:
        return None
    fields = head.split(b",")
    try:
        prio, seq, ts_usec = int(fields[0]), int(fields[1]), int(fields[2])
    except (IndexError, ValueError):
        return None
    # The kernel's own ranges (u64 seq, a u64 µs clock, a facility<<3|level of 11 bits): a
    # record outside them was not written by a kernel and is no record (shown as damaged).
    if not (0 <= prio < 2048 and 0 <= seq < 2**64 and 0 <= ts_usec <= MONO_US_MAX):
        return None
    flags = fields[3].decode("ascii", "replace") if len(fields) > 3 else "-"
    caller = None
    for extra in fields[4:]:
        if extra.startswith(b"caller="):
            caller = extra[7:].decode("ascii", "replace")
    lines = rest.rstrip(b"\n").split(b"\n")
    subsystem = device = None
    for line in lines[1:]:
        key, _, value = line.strip().partition(b"=")
        if key == b"SUBSYSTEM":
            subsystem = unescape(value)
        elif key == b"DEVICE":
            device = unescape(value)
    return KernelRecord(
        message=unescape(lines[0]),
        level=prio & 7,
        facility=prio >> 3,
        seq=seq,
        ts_usec=ts_usec,
        flags=flags or "-",
        caller=caller,
        subsystem=subsystem,
        device=device,
        wall_us=wall_us,
    )
