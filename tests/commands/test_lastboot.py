"""`kmsgd last-boot`: one ring per outcome, written by the real recorder with a wound clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scenario import AMDGPU_CHAIN, MACHINE_ID, BootRun, Machine

from kmsgd.commands import lastboot
from kmsgd.report.model import Report
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind
from kmsgd.ring.samples import MemorySample

GIB = 1 << 30


def judge(m: Machine, boot: str | None = None, *, running: int | None = -1, **kw: Any) -> Report:
    current = m.boots[running].boot_id if running is not None else None
    with RingReader(str(m.ring)) as r:
        return lastboot.report(r, boot, lastboot.Options(current_boot_id=current, **kw))


def healthy(m: Machine, seconds: float = 30) -> BootRun:
    b = m.boot()
    b.run(seconds)
    return b


def test_clean_poweroff_and_reboot(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    healthy(m).shutdown()
    healthy(m, 10).shutdown(reboot=True)
    m.boot(after_s=20)
    assert judge(m, "-2").outcome == "clean_shutdown"
    rep = judge(m)
    assert rep.outcome == "clean_reboot" and rep.confidence == "high"
    assert rep.primary is None


def test_recorder_stopped_while_system_ran_on(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    healthy(m).stop_service_only()
    m.boot(after_s=600)
    rep = judge(m)
    assert rep.outcome == "recorder_stopped"
    assert "unknown" in rep.headline


def test_still_running(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    healthy(m).shutdown()
    b = m.boot()
    b.run(5)
    assert judge(m, "0").outcome == "still_running"


def test_kernel_panic_with_lockup_as_primary(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    b = healthy(m)
    b.log("watchdog: BUG: soft lockup - CPU#3 stuck for 26s! [llama-server:4187]", 0)
    b.run(1)
    b.log("Kernel panic - not syncing: softlockup: hung tasks", 0)
    b.die()
    m.boot(after_s=35)
    rep = judge(m)
    assert rep.outcome == "kernel_panic" and rep.confidence == "high"
    assert rep.primary is not None and rep.primary.tag == "soft_lockup"


def test_power_loss_regular_beats_quick_return(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    b = healthy(m, 60)
    b.die()
    m.boot(after_s=41)
    rep = judge(m)
    assert rep.outcome == "abrupt_reset_or_power_loss"
    tod = rep.time_of_death
    assert tod is not None and 40 <= tod.ring.downtime_s <= 43
    assert tod.ring.late_final_beats == 0


def test_hard_freeze_stays_down_after_gpu_chain(tmp_path: Path) -> None:
    """Seed 000: the amdgpu death chain, 2.5 minutes of silence, reset by hand 10 min later."""
    m = Machine(tmp_path)
    b = healthy(m, 120)
    for line in AMDGPU_CHAIN:
        b.log(line, 3)
        b.run(1)
    b.run(150)
    b.die()
    m.boot(after_s=600, early=("Linux version 6.8.0", "EXT4-fs (nvme0n1p2): recovery complete"))
    rep = judge(m)
    assert rep.outcome == "hard_freeze"
    assert rep.primary is not None and rep.primary.tag == "amdgpu_smu_timeout"
    tod = rep.time_of_death
    assert tod is not None and 145 <= tod.ring.silence_before_death_s <= 156
    assert tod.ring.downtime_s >= 590


def test_memory_exhaustion_hang(tmp_path: Path) -> None:
    """Seed 003: MemAvailable falls to nothing, the OOM killer fires, beats come late."""
    m = Machine(tmp_path)
    b = healthy(m, 20)
    total = 121 * GIB
    for i in range(40):
        avail = int(90 * GIB - i * (89.7 * GIB / 39))
        psi = {
            "memory.full_avg10_pct": min(95.0, i * 2.5),
            "memory.some_avg10_pct": min(99.0, i * 3),
        }
        b.emit(Kind.SAMPLE, MemorySample(b.clock.mono_us(), total, avail, 0, 0, psi))
        b.run(1)
    for n in range(3):
        b.log(
            f"Out of memory: Killed process {4187 + n} (llama-server) total-vm:1200000000kB, anon-rss:96000000kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:190000kB oom_score_adj:0",
            3,
        )
        b.run(5, every=5)
    b.die()
    m.boot(after_s=360)
    rep = judge(m)
    assert rep.outcome == "hang_memory_exhaustion"
    assert rep.confidence in ("high", "medium")
    assert rep.time_of_death is not None and rep.time_of_death.ring.late_final_beats >= 3


def test_watchdog_reset_from_next_boot_reset_reason(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    healthy(m).die()
    m.boot(
        after_s=30,
        early=(
            "Linux version 6.16.0",
            "x86/amd: Previous system reset reason [0x02000000]: hardware watchdog timer expired",
        ),
    )
    rep = judge(m)
    assert rep.outcome == "watchdog_reset"


def test_no_heartbeats_is_unknown_not_a_guess(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    b = m.boot()
    b.die()
    m.boot(after_s=30)
    rep = judge(m)
    assert rep.outcome == "unknown" and rep.confidence == "low"


def test_no_previous_boot_is_a_clear_error(tmp_path: Path) -> None:
    from kmsgd.errors import BadInput

    m = Machine(tmp_path)
    m.boot().run(3)
    with pytest.raises(BadInput, match="only the running boot"):
        judge(m)


def test_noise_is_not_blamed(tmp_path: Path) -> None:
    """Seed 000: the svm_range workqueue hog is as frequent in a healthy long boot."""
    hog = "workqueue: svm_range_restore_work [amdgpu] hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND"
    m = Machine(tmp_path)
    b = m.boot()
    for _ in range(6):
        b.log(hog, 4)
        b.run(4200, every=60)  # a healthy 7-hour boot
    b.shutdown()
    b = m.boot(after_s=60)
    for _ in range(5):
        b.log(hog, 4)
        b.run(3000, every=60)
    b.die()
    m.boot(after_s=900)
    rep = judge(m)
    hogs = [s for s in rep.signatures if "workqueue" in s.tag]
    assert hogs and all(s.noise for s in hogs)
    assert rep.primary is None or "workqueue" not in rep.primary.tag


def test_boot_loop_is_called_out(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    healthy(m).shutdown()
    for _ in range(3):
        b = m.boot(after_s=20)
        b.log("amdgpu 0000:43:00.0: [drm] DMUB hardware initialized: version=0x08004800")
        b.run(10)
        b.die()
    m.boot(after_s=20)
    rep = judge(m)
    notes = rep.telemetry.notes if rep.telemetry else ()
    assert any("boot loop" in n and "DMUB hardware initialized" in n for n in notes)


def test_ring_from_another_machine_is_said(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    healthy(m).die()
    m.boot(after_s=30)
    rep = judge(m, machine_id="0123456789abcdef0123456789abcdef")
    assert rep.telemetry is not None
    assert any("another machine (gpu-box-7)" in n for n in rep.telemetry.notes)
    rep = judge(m, machine_id=MACHINE_ID)
    assert rep.telemetry is not None
    assert not any("another machine" in n for n in rep.telemetry.notes)


def test_panic_only_pstore_saw_reaches_the_report(tmp_path: Path) -> None:
    """A sysrq crash: the lines never reached the ring, ramoops kept them for the next boot."""
    from kmsgd.record import pstore_scan as record_pstore
    from kmsgd.ring import pstore

    m = Machine(tmp_path)
    b = healthy(m)
    b.die()
    archive = tmp_path / "fs/var/lib/systemd/pstore"
    archive.mkdir(parents=True)
    (archive / "dmesg-ramoops-0").write_text(
        "Panic#1 Part1\n"
        "<6>[   38.100000] sysrq: Trigger a crash\n"
        "<0>[   38.100200] Kernel panic - not syncing: sysrq triggered crash\n"
    )
    (dump,) = record_pstore.scan(tmp_path / "sys", tmp_path / "fs")
    nxt = m.boot(after_s=35)
    nxt.emit(Kind.PSTORE, pstore.to_payload(dump), True)
    nxt.run(1)
    rep = judge(m)
    assert rep.outcome == "kernel_panic"
    assert rep.primary is not None and rep.primary.tag == "sysrq_crash"
    assert any("pstore" in e.why for e in rep.evidence)
