"""Identity of the running boot, read from a proc root so tests can play many boots."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from kmsgd.errors import SourceUnavailable


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().strip()


def read_boot_id(proc_root: Path) -> str:
    """The boot's UUID as 32 hex digits (journald's `_BOOT_ID` spelling)."""
    path = proc_root / "sys/kernel/random/boot_id"
    try:
        return uuid.UUID(_read(path)).hex
    except FileNotFoundError:
        raise SourceUnavailable(f"{path}: no such file", hint="is --proc a proc root?") from None
    except (OSError, ValueError) as err:
        raise SourceUnavailable(f"{path}: unreadable boot id ({err})") from None


def read_uptime_us(proc_root: Path) -> int | None:
    """Seconds since boot from /proc/uptime (counts suspend, like CLOCK_BOOTTIME)."""
    try:
        return int(float(_read(proc_root / "uptime").split()[0]) * 1e6)
    except (OSError, ValueError, IndexError):
        return None


def read_btime(proc_root: Path) -> int | None:
    """Boot time in whole seconds since the epoch, /proc/stat `btime`."""
    try:
        for line in _read(proc_root / "stat").splitlines():
            if line.startswith("btime "):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _read_or(path: Path, default: str = "") -> str:
    try:
        return _read(path)
    except OSError:
        return default


def read_machine_id(etc_root: Path = Path("/etc")) -> str:
    """/etc/machine-id, or "" where there is none."""
    return _read_or(etc_root / "machine-id")


@dataclass(frozen=True, slots=True)
class BootIdentity:
    boot_id: str
    kernel: str
    cmdline: str
    hostname: str
    machine_id: str
    boot_wall_us: int  # wall clock at boot
    uptime_us: int


def read_identity(proc_root: Path = Path("/proc"), etc_root: Path = Path("/etc")) -> BootIdentity:
    """Everything the `boot` record needs. Only a missing boot id is fatal."""
    boot_id = read_boot_id(proc_root)
    uptime_us = read_uptime_us(proc_root)
    if proc_root == Path("/proc") or uptime_us is None:
        # The live system: our own clocks are better than /proc/uptime's centiseconds.
        uptime_us = time.clock_gettime_ns(time.CLOCK_BOOTTIME) // 1000
        boot_wall_us = time.time_ns() // 1000 - time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    else:
        btime = read_btime(proc_root)
        now_us = time.time_ns() // 1000
        boot_wall_us = btime * 1_000_000 if btime is not None else now_us - uptime_us
    return BootIdentity(
        boot_id=boot_id,
        kernel=_read_or(proc_root / "sys/kernel/osrelease"),
        cmdline=_read_or(proc_root / "cmdline").replace("\0", " ").strip(),
        hostname=_read_or(proc_root / "sys/kernel/hostname"),
        machine_id=_read_or(etc_root / "machine-id"),
        boot_wall_us=boot_wall_us,
        uptime_us=uptime_us,
    )
