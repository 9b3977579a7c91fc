"""uevent parsing, enumeration, and real kernel uevents where this machine allows them."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from fakes import dual_amdgpu_box

from kmsgd.ring.events import DeviceEvent
from kmsgd.sensors import udev

REMOVE_CARD1 = (
    b"remove@/devices/pci0000:40/0000:40:01.1/0000:43:00.0/drm/card1\0ACTION=remove\0"
    b"DEVPATH=/devices/pci0000:40/0000:40:01.1/0000:43:00.0/drm/card1\0SUBSYSTEM=drm\0"
    b"DEVNAME=dri/card1\0DEVTYPE=drm_minor\0SEQNUM=4711\0MAJOR=226\0MINOR=1\0"
)


def test_kernel_uevent_message_becomes_a_device_event() -> None:
    fields = udev.parse_uevent_message(REMOVE_CARD1)
    assert fields is not None
    event = udev.event_from_fields(fields, 123)
    assert (event.action, event.subsystem, event.sys_name) == ("remove", "drm", "card1")
    assert event.pci == "0000:43:00.0" and event.seqnum == 4711
    assert DeviceEvent.from_payload(event.to_payload()) == event


@pytest.mark.parametrize(
    "data", [b"", b"\0\0", b"libudev\0\xfe\xed", b"add@/x\0SUBSYSTEM=drm\0", b"garbage"]
)
def test_non_uevents_are_ignored(data: bytes) -> None:
    assert udev.parse_uevent_message(data) is None


def test_pci_of_takes_the_deepest_address() -> None:
    assert (
        udev.pci_of("/devices/pci0000:00/0000:00:01.1/0000:03:00.0/hwmon/hwmon3") == "0000:03:00.0"
    )
    assert udev.pci_of("/devices/platform/coretemp.0/hwmon/hwmon1") == ""


def test_walk_enumerates_a_fake_tree(tmp_path: Path) -> None:
    sys, _ = dual_amdgpu_box(tmp_path)
    paths = udev.list_devices(sys, "hwmon")
    assert [os.path.basename(p) for p in paths] == ["hwmon1", "hwmon2", "hwmon3", "hwmon4"]
    assert paths[2].endswith("0000:03:00.0/hwmon/hwmon3")
    assert udev.list_devices(sys, "nvme") == []


def test_pyudev_and_the_walk_agree_on_the_real_sys() -> None:
    pytest.importorskip("pyudev", reason="pyudev is not installed")
    if not os.path.isdir("/sys/class/net"):
        pytest.skip("no /sys/class/net on this machine")
    with_udev = udev.list_devices(Path("/sys"), "net", use_pyudev=True)
    walked = udev.list_devices(Path("/sys"), "net", use_pyudev=False)
    assert sorted(with_udev) == sorted(walked) and walked


def _trigger_and_receive(monitor: udev.Monitor) -> DeviceEvent | None:
    # Writing "change" to a uevent file makes the kernel emit a synthetic uevent
    with open("/sys/class/net/lo/uevent", "w") as f:
        f.write("change\n")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        event = monitor.receive(0.5)
        if event is not None and event.sys_name == "lo":
            return event
    return None


def _needs_uevents() -> None:
    if os.geteuid() != 0 or not os.access("/sys/class/net/lo/uevent", os.W_OK):
        pytest.skip("triggering a kernel uevent needs root and a writable /sys")


@pytest.mark.parametrize("kind", ["netlink", "pyudev"])
def test_real_kernel_uevents_are_received(kind: str) -> None:
    _needs_uevents()
    if kind == "pyudev":
        pytest.importorskip("pyudev", reason="pyudev is not installed")
    try:
        monitor: udev.Monitor = (
            udev.NetlinkMonitor(("net",)) if kind == "netlink" else udev.PyudevMonitor(("net",))
        )
    except OSError as err:
        pytest.skip(f"no netlink uevent socket here: {err}")
    try:
        event = _trigger_and_receive(monitor)
    finally:
        monitor.close()
    assert event is not None, "no uevent for lo within 5 s"
    assert (event.action, event.subsystem) == ("change", "net")
