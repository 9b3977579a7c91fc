"""Device enumeration and hotplug events; the only module that imports pyudev.

pyudev is used when it imports and the tree is the real /sys; otherwise a plain directory walk
enumerates and a raw NETLINK_KOBJECT_UEVENT socket (the kernel's own uevents, group 1) watches.
Both listen to the *kernel* source, never udevd's: without udevd `source='udev'` receives
nothing (libudev's monitor: udevd's group is 2, the kernel's is 1), and under the unit's
PrivateNetwork=yes udevd's rebroadcasts do not reach us while the kernel's do
(docs/security.md). The kernel's event also comes first, before rules run, which is what a GPU
falling off the bus needs. Subsystems are filtered here: kernel-source messages bypass
libudev's socket filter.
"""

from __future__ import annotations

import os
import re
import select
import socket
import time
from pathlib import Path
from typing import Any, Protocol

from kmsgd.ring.events import DeviceEvent

WATCHED = ("drm", "hwmon", "pci", "nvme", "devcoredump")
NETLINK_KOBJECT_UEVENT = 15
_PCI = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


def pci_of(devpath: str) -> str:
    """The deepest PCI address in a devpath ("" when the device is not on PCI)."""
    for part in reversed(devpath.split("/")):
        if _PCI.match(part):
            return part
    return ""


def parse_uevent_message(data: bytes) -> dict[str, str] | None:
    """A kernel uevent datagram (`action@devpath\\0KEY=value\\0...`) as a dict; None if not one.

    udevd's re-broadcasts start with `libudev\\0` and are not parsed here.
    """
    parts = data.split(b"\0")
    if not parts or b"@" not in parts[0] or parts[0].startswith(b"libudev"):
        return None
    out: dict[str, str] = {}
    for item in parts[1:]:
        key, sep, value = item.partition(b"=")
        if sep:
            out[key.decode("ascii", "replace")] = value.decode("utf-8", "replace")
    return out if "ACTION" in out and "DEVPATH" in out else None


def event_from_fields(fields: dict[str, str], mono_us: int) -> DeviceEvent:
    """A DeviceEvent from uevent KEY=value fields."""
    devpath = fields.get("DEVPATH", "")
    seq = fields.get("SEQNUM", "")
    return DeviceEvent(
        action=fields.get("ACTION", ""),
        subsystem=fields.get("SUBSYSTEM", ""),
        devpath=devpath,
        sys_name=devpath.rsplit("/", 1)[-1],
        mono_us=mono_us,
        driver=fields.get("DRIVER", ""),
        pci=pci_of(devpath),
        seqnum=int(seq) if seq.isdigit() else None,
    )


class Monitor(Protocol):
    def fileno(self) -> int: ...
    def receive(self, timeout_s: float) -> DeviceEvent | None: ...
    def close(self) -> None: ...


class NetlinkMonitor:
    """The kernel's uevents on a raw netlink socket: no udevd, no pyudev needed."""

    def __init__(self, subsystems: tuple[str, ...] = WATCHED) -> None:
        self.subsystems = frozenset(subsystems)
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_KOBJECT_UEVENT)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind((0, 1))  # group 1: kernel uevents

    def fileno(self) -> int:
        return self.sock.fileno()

    def receive(self, timeout_s: float) -> DeviceEvent | None:
        ready, _, _ = select.select([self.sock], [], [], timeout_s)
        if not ready:
            return None
        try:
            data = self.sock.recv(16384)
        except OSError:  # ENOBUFS after a storm: events were lost, keep listening
            return None
        fields = parse_uevent_message(data)
        if fields is None or fields.get("SUBSYSTEM") not in self.subsystems:
            return None
        return event_from_fields(fields, time.monotonic_ns() // 1000)

    def close(self) -> None:
        self.sock.close()


class PyudevMonitor:
    """pyudev's monitor on the kernel's uevents."""

    def __init__(self, subsystems: tuple[str, ...] = WATCHED) -> None:
        import pyudev

        self.subsystems = frozenset(subsystems)
        self.monitor: Any = pyudev.Monitor.from_netlink(pyudev.Context(), source="kernel")
        self.monitor.start()

    def fileno(self) -> int:
        return int(self.monitor.fileno())

    def receive(self, timeout_s: float) -> DeviceEvent | None:
        try:
            device = self.monitor.poll(timeout_s)
        except OSError:
            return None
        if device is None or device.subsystem not in self.subsystems:
            return None
        fields = {str(k): str(v) for k, v in device.properties.items()}
        fields.setdefault("ACTION", device.action or "")
        return event_from_fields(fields, time.monotonic_ns() // 1000)

    def close(self) -> None:
        # pyudev has no close: libudev unrefs the monitor (and its socket) on collection
        self.monitor = None


def open_monitor(subsystems: tuple[str, ...] = WATCHED, use_pyudev: bool = True) -> Monitor | None:
    """A monitor for the watched subsystems, or None when netlink is not allowed here."""
    if use_pyudev:
        try:
            return PyudevMonitor(subsystems)
        except Exception:  # no pyudev, no libudev: fall back to the raw socket
            pass
    try:
        return NetlinkMonitor(subsystems)
    except OSError:
        return None


def walk_class(sys_root: Path, subsystem: str) -> list[str]:
    """Real paths of `<sys_root>/class/<subsystem>/*`, the fallback enumeration."""
    base = sys_root / "class" / subsystem
    try:
        names = sorted(os.listdir(base), key=lambda n: (len(n), n))
    except OSError:
        return []
    return [os.path.realpath(os.path.join(base, n)) for n in names]


def list_devices(sys_root: Path, subsystem: str, use_pyudev: bool = True) -> list[str]:
    """sysfs paths of a subsystem's devices: pyudev on the real /sys, else a directory walk."""
    if use_pyudev and os.path.realpath(sys_root) == "/sys":
        try:
            import pyudev

            context = pyudev.Context()
            found = [str(d.sys_path) for d in context.list_devices(subsystem=subsystem)]
            return sorted(found, key=lambda p: (len(p), p))
        except Exception:  # libudev missing or broken: the walk sees the same tree
            pass
    return walk_class(sys_root, subsystem)
