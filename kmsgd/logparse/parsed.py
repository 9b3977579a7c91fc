"""What the log parsers produce: one `Line` per input line, wrapping the shared KernelRecord.

A pasted log mixes kernel messages, other programs' journal lines, shell commands and prose.
The record keeps the kernel's view (message, level, clocks); the `Line` adds where it came from
in the paste, so the classifier can refuse to take a shell command as evidence.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from kmsgd.ring.records import KernelRecord


class LogFormat(enum.StrEnum):
    """The families of kernel-log text kmsgd recognises (names appear in the report)."""

    KMSG = "kmsg"  # raw /dev/kmsg: "6,1234,5678901,-;text"
    DMESG = "dmesg"  # "[   12.345678] text", also `dmesg -r` / pstore "<6>[ ... ]"
    DMESG_CTIME = "dmesg-ctime"  # dmesg -T: "[Mon May  6 14:02:37 2024] text"
    DMESG_ISO = "dmesg-iso"  # dmesg --time-format iso
    DMESG_DELTA = "dmesg-delta"  # dmesg -H: "[May 6 14:02] text" then "[  +0.000123] text"
    DMESG_DECODE = "dmesg-decode"  # dmesg -x: "kern  :info  : [   12.345678] text"
    JOURNAL = "journal"  # journalctl short / short-precise / classic syslog files
    JOURNAL_ISO = "journal-iso"  # journalctl short-iso(-precise), rsyslog's ISO format
    JOURNAL_MONO = "journal-mono"  # journalctl short-monotonic
    RFC5424 = "syslog-5424"  # RFC 5424 syslog: "<PRI>1 2024-05-06T14:02:37Z host app …"
    JSON = "json"  # journalctl -o json
    EXPORT = "export"  # journalctl -o export (KEY=value blocks)
    VERBOSE = "verbose"  # journalctl -o verbose (a header line, then indented FIELD=value)
    LOOSE = "loose"  # a kernel or journal line behind a prefix no format names (salvage.py)
    TEXT = "text"  # not a log line: kept as text

    @property
    def has_timezone(self) -> bool:
        """Whether wall stamps of this format say their offset (else they are local, unknown)."""
        return self in (
            LogFormat.DMESG_ISO,
            LogFormat.JOURNAL_ISO,
            LogFormat.RFC5424,
            LogFormat.JSON,
            LogFormat.EXPORT,
            LogFormat.VERBOSE,  # the cursor's t= is the realtime stamp in UTC
            LogFormat.KMSG,  # ring records: wall_us is the recorder's real clock
        )

    @property
    def has_year(self) -> bool:
        """Journal short and dmesg -H stamps carry no year; kmsgd counts from 2000."""
        return self not in (LogFormat.JOURNAL, LogFormat.DMESG_DELTA, LogFormat.LOOSE)


class Origin(enum.StrEnum):
    """Who wrote a line. Only KERNEL and USERSPACE lines can be evidence."""

    KERNEL = "kernel"
    USERSPACE = "userspace"  # another program's journal line, "ident[pid]: text"
    TEXT = "text"  # could not be parsed: kept, shown, searched only for kernel wording
    COMMAND = "command"  # a shell command or prompt in the paste: never evidence


EVIDENCE_ORIGINS = frozenset({Origin.KERNEL, Origin.USERSPACE})  # lines that can be evidence


class Line(NamedTuple):
    """One input line after parsing: the KernelRecord's fields flat, plus where it came from.

    A NamedTuple rather than a frozen dataclass, and the record built on demand (`record`):
    this value is made once per input line, and a 100 MB log has a million of them.
    """

    message: str  # the text without stamp or prefix; "ident[pid]: text" for userspace
    origin: Origin
    fmt: LogFormat
    lineno: int = 0  # 1-based line number in the input (first line of a joined line)
    raw: str = ""  # the cleaned input line, as an operator would recognise it
    ts_usec: int | None = None
    wall_us: int | None = None
    level: int | None = None
    facility: int | None = None
    seq: int | None = None
    caller: str | None = None
    subsystem: str | None = None
    device: str | None = None
    host: str = ""  # hostname field of journal/syslog lines (redaction needs it)
    boot_id: str = ""  # journal boot id when the format carries one

    @property
    def record(self) -> KernelRecord:
        """The line as the shared record type (what the recorder stores)."""
        return KernelRecord(
            self.message,
            self.level,
            self.facility,
            self.seq,
            self.ts_usec,
            "-",
            self.caller,
            self.subsystem,
            self.device,
            self.wall_us,
        )

    @classmethod
    def of(cls, rec: KernelRecord, origin: Origin, fmt: LogFormat, lineno: int = 0) -> Line:
        """A line from a record (ring entries)."""
        return cls(
            rec.message,
            origin,
            fmt,
            lineno,
            rec.message,
            rec.ts_usec,
            rec.wall_us,
            rec.level,
            rec.facility,
            rec.seq,
            rec.caller,
            rec.subsystem,
            rec.device,
        )


class MarkReason(enum.StrEnum):
    """Why a new boot starts at a `BootMark` (the value is the word the JSON and text use)."""

    SEPARATOR = "separator"  # journalctl's "-- Boot … --", "-- Reboot --", a hand-made marker
    CLOCK_RESTART = "clock_restart"  # printk's clock went back by more than CPUs drift
    LINUX_VERSION = "linux_version"  # the kernel's banner after other lines
    PSTORE_HEADER = "pstore_header"  # a pstore dump's "Panic#1 Part1" header
    BOOT_ID = "boot_id"  # the journal's boot id changed; a mark before any line naming a boot


@dataclass(frozen=True, slots=True)
class BootMark:
    """A boundary between boots in the input: what follows belongs to a new boot."""

    lineno: int
    why: MarkReason
    boot_id: str = ""


Event = Line | BootMark
