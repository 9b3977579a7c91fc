"""The daemon with its sources plugged in: sensors, inventory, sysctls, pstore, textfile."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import make_proc
from daemon import dump, start, start_on_box, stop, wait_for, wait_ready
from fakes import dual_amdgpu_box

pytestmark = pytest.mark.slow


def test_a_sensor_read_that_blocks_forever_does_not_stop_capture(tmp_path: Path) -> None:
    """A hung GPU can block a sysfs read in the kernel; here a FIFO nobody writes does."""
    sys_root, proc_root = dual_amdgpu_box(tmp_path / "box")
    make_proc(proc_root)
    stuck = next((sys_root / "class/hwmon/hwmon4").glob("power1_input"))
    stuck_real = stuck.resolve()
    stuck_real.unlink()
    os.mkfifo(stuck_real)
    daemon, ring, writer = start_on_box(tmp_path, sys_root, proc_root)
    wait_ready(ring, daemon)
    for n in range(50):  # the kernel keeps talking while the sensor hangs
        os.write(writer, b"4,%d,%d,-;amdgpu 0000:43:00.0: still here %d\n" % (n, n * 1000, n))
    wait_for(
        lambda: any(
            r["kind"] == "event" and r["data"].get("event") == "sensor_stall" for r in dump(ring)
        ),
        timeout=30,
    )
    wait_for(lambda: sum(1 for r in dump(ring) if r["kind"] == "kernel") >= 49)
    records = dump(ring)
    stall = next(
        r["data"]
        for r in records
        if r["kind"] == "event" and r["data"].get("event") == "sensor_stall"
    )
    assert "power1_input" in str(stall)

    def card0_samples() -> int:
        return sum(
            1
            for r in dump(ring)
            if r["kind"] == "sample" and r["data"].get("device") == "0000:03:00.0"
        )

    wait_for(lambda: card0_samples() >= 3, timeout=30)  # the other card kept being sampled
    assert stop(daemon) == 0  # and the daemon still stops cleanly
    os.close(writer)


PANIC = "Panic#1 Part1\n<0>[  812.512421] Kernel panic - not syncing: sysrq triggered crash\n"


def test_sources_reach_the_ring(tmp_path: Path) -> None:
    sys_root, proc_root = dual_amdgpu_box(tmp_path / "box")
    make_proc(proc_root)
    for key in ("panic", "panic_on_oops", "softlockup_panic"):
        (proc_root / "sys/kernel" / key).write_text("0\n")
    fs_root = tmp_path / "fs"
    archive = fs_root / "var/lib/systemd/pstore/1764400000/001"
    archive.mkdir(parents=True)
    (archive / "dmesg-efi_pstore-176440000001001").write_text(PANIC)
    kmsg = tmp_path / "kmsg"
    kmsg.write_bytes(b"6,0,10,-;Linux version 6.8.0\n")
    ring = tmp_path / "ring"
    state = tmp_path / "state"

    def run() -> subprocess.Popen[bytes]:
        return start(
            ring,
            kmsg=str(kmsg),
            proc=str(proc_root),
            sys_root=str(sys_root),
            sysctl=True,
            settings={"fs_root": str(fs_root)},
        )

    daemon = run()
    wait_ready(ring, daemon)

    def samples() -> set[str]:
        return {r["data"].get("device", "") for r in dump(ring) if r["kind"] == "sample"}

    wait_for(lambda: {"0000:03:00.0", "0000:43:00.0"} <= samples())
    assert "kmsgd_up 1" in (state / "kmsgd.prom").read_text()
    assert stop(daemon) == 0
    records = dump(ring)
    kinds = {r["kind"] for r in records}
    assert {
        "boot",
        "kernel",
        "heartbeat",
        "sample",
        "inventory",
        "sysctl",
        "pstore",
        "stop",
    } <= kinds
    sysctls = {c["key"]: c for r in records if r["kind"] == "sysctl" for c in r["data"]["changes"]}
    assert sysctls["kernel.panic"]["old"] == "0" and sysctls["kernel.panic"]["new"] == "30"
    assert (proc_root / "sys/kernel/panic").read_text().strip() == "30"
    pstore = [r["data"] for r in records if r["kind"] == "pstore"]
    assert len(pstore) == 1 and "sysrq triggered crash" in str(pstore[0])
    inventory = next(r["data"] for r in records if r["kind"] == "inventory")
    assert "0000:43:00.0" in str(inventory)
    assert "kmsgd_up 0" in (state / "kmsgd.prom").read_text()
    # A second run in a later boot does not import the same dump again.
    make_proc(proc_root)
    daemon = run()
    wait_ready(ring, daemon)
    assert stop(daemon) == 0
    assert not [r for r in dump(ring) if r["kind"] == "pstore"]
    assert oct(os.stat(ring).st_mode & 0o777) == "0o640"
