"""Copy device coredumps out of kernel memory before they expire.

amdgpu (and other drivers) create `/sys/class/devcoredump/devcdN/data` on a ring timeout. The
dump lives only in kernel memory, is freed after about 5 minutes (DEVCD_TIMEOUT) and is gone
after a reboot; writing anything to `data` frees it at once (Documentation/ABI/testing/
sysfs-devices-coredump). We copy it to `<state_dir>/devcoredump/`, bounded in size and count,
and only then release it; a dump we could not save is left for someone else.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from pathlib import Path

from kmsgd.ring.events import DumpEvent, EventName

SUBDIR = "devcoredump"
CHUNK = 65536
MAX_TRIES = 3


def pending(sys_root: Path) -> list[str]:
    """The devcdN directories present now, oldest first."""
    base = os.path.join(sys_root, "class", "devcoredump")
    try:
        names = [n for n in os.listdir(base) if n.startswith("devcd")]
    except OSError:
        return []
    names.sort(key=lambda n: (len(n), n))
    return [os.path.join(base, n) for n in names]


def _owner(dump_dir: str) -> tuple[str, str]:
    link = os.path.join(dump_dir, "failing_device")
    if not os.path.exists(link):
        return "unknown", ""
    device = os.path.realpath(link)
    driver_link = os.path.join(device, "driver")
    driver = os.path.basename(os.path.realpath(driver_link)) if os.path.exists(driver_link) else ""
    return os.path.basename(device), driver


def _prune(out_dir: str, keep: int) -> None:
    """Delete our oldest saved dumps beyond `keep` (names start with a UTC timestamp)."""
    try:
        saved = sorted(n for n in os.listdir(out_dir) if n.endswith(".bin"))
    except OSError:
        return
    for name in saved[: max(0, len(saved) - keep)]:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(out_dir, name))


def save(dump_dir: str, state_dir: str, max_bytes: int, max_files: int) -> DumpEvent:
    """Copy one dump (at most `max_bytes`), fsync it, release it, prune to `max_files`."""
    source = os.path.basename(dump_dir)
    device, driver = _owner(dump_dir)
    mono_us = time.monotonic_ns() // 1000

    def failed(reason: str) -> DumpEvent:
        return DumpEvent(
            EventName.DEVCOREDUMP_FAILED, source, device, mono_us, driver=driver, reason=reason
        )

    out_dir = os.path.join(state_dir, SUBDIR)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    final = os.path.join(out_dir, f"{stamp}-{device}-{source}.bin")
    data_path = os.path.join(dump_dir, "data")
    try:
        os.makedirs(out_dir, exist_ok=True)
        src = os.open(data_path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as err:
        return failed(f"open: {err.strerror}")
    size, truncated, created, tmp = 0, False, False, ""
    try:
        # An unpredictable name, created O_EXCL|O_NOFOLLOW: a file or link planted in the
        # state dir is refused (EEXIST), never followed or truncated by root; rename(2) then
        # replaces a link at the final name itself, never its target.
        tmp = os.path.join(out_dir, f".{os.path.basename(final)}.{secrets.token_hex(8)}.part")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        dst = os.open(tmp, flags, 0o600)
        created = True
        try:
            while True:
                chunk = os.read(src, min(CHUNK, max_bytes - size + 1))
                if not chunk:
                    break
                if size + len(chunk) > max_bytes:
                    chunk, truncated = chunk[: max_bytes - size], True
                os.write(dst, chunk)
                size += len(chunk)
                if truncated:
                    break
            os.fsync(dst)
        finally:
            os.close(dst)
        os.rename(tmp, final)
    except OSError as err:  # disk full, read-only: leave the dump in the kernel for others
        if created:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return failed(f"copy: {err.strerror}")
    finally:
        os.close(src)
    _release(data_path)
    _prune(out_dir, max_files)
    return DumpEvent(
        EventName.DEVCOREDUMP_SAVED, source, device, mono_us, final, size, truncated, driver
    )


def _release(data_path: str) -> None:
    """Writing anything to `data` frees the dump in the kernel."""
    try:
        fd = os.open(data_path, os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.write(fd, b"1\n")
    except OSError:
        pass
    finally:
        os.close(fd)


class DumpCollector:
    """Saves each pending dump once, whether seen at start, by a scan or by a udev event."""

    def __init__(self, sys_root: Path, state_dir: str, max_bytes: int, max_files: int) -> None:
        self.sys_root, self.state_dir = sys_root, state_dir
        self.max_bytes, self.max_files = max_bytes, max_files
        self._done: set[str] = set()
        self._tries: dict[str, int] = {}
        self._lock = threading.Lock()

    def collect(self) -> list[DumpEvent]:
        """Save every dump present and not yet handled."""
        events = []
        with self._lock:
            for dump_dir in pending(self.sys_root):
                name = os.path.basename(dump_dir)
                if name in self._done:
                    continue
                event = save(dump_dir, self.state_dir, self.max_bytes, self.max_files)
                self._tries[name] = self._tries.get(name, 0) + 1
                # a failed copy (disk full) is retried on the next scans, then left alone
                if event.event is EventName.DEVCOREDUMP_SAVED or self._tries[name] >= MAX_TRIES:
                    self._done.add(name)
                events.append(event)
        return events
