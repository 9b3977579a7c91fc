"""The post-mortem journal entry: its field names, and the journal export format it travels in.

One entry per judged boot, sent by `kmsgd-report.service` (or printed by
`kmsgd last-boot --format export`), shipped by `systemd-journal-upload` and stored by a
collector's `systemd-journal-remote`. This module is the contract between the side that
writes entries (kmsgd.report) and the side that reads them (the rest of kmsgd.fleet):
standard library only, so either may import it. Field names are public: operators' log
shippers route on them. Never rename one; add new ones.
"""

from __future__ import annotations

import hashlib
import re
import struct
from collections.abc import Iterable

# journalctl MESSAGE_ID=55b34a3e8e9948c9a3a71671c71b533d finds every kmsgd post-mortem.
# Fixed forever: operators' log-shipper rules and `kmsgd fleet` match on it.
MESSAGE_ID = "55b34a3e8e9948c9a3a71671c71b533d"

# Fields every kmsgd since 0.1 writes.
BOOT_ID = "KMSGD_BOOT_ID"  # the judged boot (32 hex digits), not the boot that judged it
OUTCOME = "KMSGD_OUTCOME"
CONFIDENCE = "KMSGD_CONFIDENCE"
PRIMARY = "KMSGD_PRIMARY"  # the primary signature's tag, "" when none
FINGERPRINT = "KMSGD_FINGERPRINT"
REPORT_PATH = "KMSGD_REPORT"  # where the box saved the JSON report

# Fields added with the fleet: the entry alone tells what the boot ran on.
VERSION = "KMSGD_VERSION"  # kmsgd's version; absent: an older kmsgd, no attributes below
REASON = "KMSGD_REASON"
HOSTNAME = "KMSGD_HOSTNAME"  # as the report says it (journald adds _HOSTNAME too)
END_USEC = "KMSGD_END_REALTIME_USEC"  # last sign of life of the judged boot, wall µs
KERNEL = "KMSGD_KERNEL"  # release of the judged boot's kernel
CMDLINE = "KMSGD_CMDLINE"  # its command line
CPU = "KMSGD_CPU"  # model name from /proc/cpuinfo
RAM_BYTES = "KMSGD_RAM_BYTES"  # MemTotal
BIOS_VENDOR = "KMSGD_BIOS_VENDOR"  # DMI, /sys/class/dmi/id/bios_*
BIOS_VERSION = "KMSGD_BIOS_VERSION"
BIOS_DATE = "KMSGD_BIOS_DATE"
BOARD = "KMSGD_BOARD"  # board_vendor board_name board_version
SYSTEM = "KMSGD_SYSTEM"  # sys_vendor product_name
GPU_COUNT = "KMSGD_GPU_COUNT"
# A digest of the attribute fields above (and the per-GPU ones): equal on boots that ran on the
# same configuration, so a reader of 300k entries reads the attributes once per configuration.
CONFIG_ID = "KMSGD_CONFIG_ID"
REPORT_JSON = "KMSGD_REPORT_JSON"  # the whole kmsgd.report/1 document, compact
REPORT_JSON_CUT = "KMSGD_REPORT_JSON_CUT"  # what was left out to fit REPORT_JSON_MAX; absent: all

# Per GPU i (0..GPU_MAX-1): KMSGD_GPU<i>_<KEY>.
GPU_KEYS = ("PCI", "ID", "SUBSYSTEM", "MODEL", "DRIVER", "DRIVER_VERSION", "VBIOS", "FIRMWARE")
GPU_MAX = 16
# The JSON report's cap, in bytes. journald would take far more (768 MiB a field), but a reader
# of the journal gets fields longer than its data threshold cut, and sd_journal's default is
# 64 KiB for the whole `NAME=value` (python-systemd's Reader, journalctl without --all). Under
# the cap the report travels whole; above it, `kmsgd.report.entry` leaves out the bulkiest
# parts first and says which in REPORT_JSON_CUT (docs/fleet.md).
REPORT_JSON_MAX = 64_000

_FIELD = re.compile(r"^(?:__)?[A-Z_][A-Z0-9_]{0,63}$")


def gpu_field(index: int, key: str) -> str:
    """`gpu_field(0, "ID")` -> KMSGD_GPU0_ID."""
    return f"KMSGD_GPU{index}_{key}"


def config_id(fields: Iterable[tuple[str, str]]) -> str:
    """CONFIG_ID for a set of attribute fields: 16 hex digits of SHA-256 over them, sorted."""
    canon = "\n".join(f"{k}={v}" for k, v in sorted(fields))
    return hashlib.sha256(canon.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _needs_binary(value: bytes) -> bool:
    """Export format: a value with a newline or other control byte, or not UTF-8, goes in the
    binary-safe form (systemd's output_export does the same for unprintable values)."""
    if any(b < 0x20 or b == 0x7F for b in value):
        return True
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def encode_field(name: str, value: str | bytes) -> bytes:
    """One field in the journal export format (systemd's JOURNAL_EXPORT_FORMATS):
    `NAME=value\\n`, or `NAME\\n` + little-endian 64-bit length + raw bytes + `\\n`."""
    if not _FIELD.match(name):
        raise ValueError(f"not a journal field name: {name!r}")
    raw = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else value
    if _needs_binary(raw):
        return name.encode() + b"\n" + struct.pack("<Q", len(raw)) + raw + b"\n"
    return name.encode() + b"=" + raw + b"\n"


def encode_entry(fields: Iterable[tuple[str, str | bytes]]) -> bytes:
    """One whole entry in export format, ending with the empty line that closes it.

    Put `__REALTIME_TIMESTAMP` first when the receiver should keep the writer's time (for
    systemd-journal-remote it is the entry's time; without it the receiver's clock is used).
    """
    return b"".join(encode_field(k, v) for k, v in fields) + b"\n"
