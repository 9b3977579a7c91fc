"""The three incidents kmsgd was made for (../shared/seeds/), end to end through the ring.

Each story is played through the real recorder with a wound clock; sensor records come from
the sensor code's own payload types and inventories from `read_inventory` on fake sysfs trees.
The report must say what that story's author needed to hear (seeds/README.md).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from fakes import dual_amdgpu_box
from scenario import AMDGPU_CHAIN, BootRun, Machine

from kmsgd import lastboot
from kmsgd.report.model import Report
from kmsgd.report.render import render
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind
from kmsgd.ring.samples import DeviceSample, MemoryHolder, MemorySample, PowerStats, ProcsSample
from kmsgd.sensors.inventory import read_inventory

GIB = 1 << 30
CARDS = ("0000:03:00.0", "0000:43:00.0")


def judge(m: Machine) -> Report:
    with RingReader(str(m.ring)) as r:
        return lastboot.report(r, None, lastboot.Options(current_boot_id=m.boots[-1].boot_id))


def power(b: BootRun, card: str, reads: list[float], *, urgent: bool = False) -> None:
    """One device record of the sampler: per-second power with its raw 10 Hz reads."""
    mono = b.clock.mono_us()
    stats = PowerStats(min(reads), max(reads), tuple(reads) if max(reads) - min(reads) >= 1 else ())
    raw_ms = tuple(-100 * (len(reads) - 1 - i) for i in range(len(reads))) if stats.raw_w else ()
    sample = DeviceSample(
        "amdgpu",
        card,
        "amdgpu",
        mono,
        {"ppt.power_w": sum(reads) / len(reads), "junction.temp_c": 45},
        {"ppt": stats},
        raw_ms,
    )
    b.emit(Kind.SAMPLE, sample.to_payload(), urgent)


def test_seed_004_psu_trip(tmp_path: Path) -> None:
    """Both GPUs jump from idle to load and the box loses power at once; card1 is gone after."""
    sys_root, proc_root = dual_amdgpu_box(tmp_path / "box")
    m = Machine(tmp_path)
    b = m.boot()
    b.emit(Kind.INVENTORY, read_inventory(str(sys_root), str(proc_root)).to_payload())
    for _ in range(60):
        b.run(1)
        for card in CARDS:
            power(b, card, [12.0] * 10)
    b.run(0.7)
    for card in CARDS:  # the sampler's urgent partial record at the step
        power(b, card, [12.0] * 7 + [298.2, 301.5, 300.9], urgent=True)
    b.run(0.2, every=0.2)
    b.die()
    shutil.rmtree(sys_root / "class" / "drm" / "card1")
    (sys_root / "class" / "hwmon" / "hwmon4").unlink()
    nxt = m.boot(after_s=41)
    nxt.emit(Kind.INVENTORY, read_inventory(str(sys_root), str(proc_root)).to_payload(), True)
    nxt.run(1)
    rep = judge(m)
    assert rep.outcome == "abrupt_reset_or_power_loss"
    assert rep.telemetry is not None
    steps = {s.device: s for s in rep.telemetry.steps}
    assert set(steps) == set(CARDS)
    assert all(s.from_w == 12.0 and s.to_w >= 298 for s in steps.values())
    missing = [c for c in rep.changes if c.what == "gpu_missing"]
    assert [c.device for c in missing] == ["0000:43:00.0"]
    assert 40 <= rep.time_of_death.ring.downtime_s <= 43  # type: ignore[union-attr,operator]
    text = render(rep, "text")
    assert "12 W → 30" in text and "missing after the reboot" in text


def test_seed_003_memory_exhaustion_hang(tmp_path: Path) -> None:
    """Two model servers map the same 115 GB model: memory runs out, the box stops answering."""
    m = Machine(tmp_path)
    b = m.boot()
    b.run(10)
    total = 121 * GIB
    for i in range(41):
        avail = int(90 * GIB - i * (89.7 * GIB / 40))
        psi = {
            "memory.full_avg10_pct": min(78.0, i * 2.0),
            "memory.some_avg10_pct": min(95.0, i * 2.5),
        }
        b.emit(Kind.SAMPLE, MemorySample(b.clock.mono_us(), total, avail, 0, 0, psi).to_payload())
        if i % 5 == 0:
            holders = (
                MemoryHolder(4187, "llama-server", 69 * GIB, 27 * GIB, 0),
                MemoryHolder(4301, "llama-server", 12 * GIB, 0, 0),
            )
            b.emit(Kind.SAMPLE, ProcsSample(b.clock.mono_us(), holders, 312).to_payload())
        b.run(1)
    for n in range(3):
        b.log(
            f"Out of memory: Killed process {4301 + n} (llama-server) total-vm:118000000kB, anon-rss:12000000kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:24000kB oom_score_adj:0",
            3,
        )
        b.run(8, every=8)  # the loop gets the CPU only every few seconds now
    b.die()
    m.boot(after_s=360)
    rep = judge(m)
    assert rep.outcome == "hang_memory_exhaustion"
    doc = rep.to_json_dict()
    top = doc["telemetry"]["top_holders"][0]
    assert top["comm"] == "llama-server" and top["gpu_vram_bytes"] == 27 * GIB
    text = render(rep, "text")
    assert "OOM killer fired 3×" in text and "llama-server 96.0 GiB (27.0 GiB GPU)" in text
    assert "MemAvailable" in text
    assert doc["time_of_death"]["downtime_s"] >= 350
    json.dumps(doc)


def test_seed_000_hard_freeze_with_noise_told_apart(tmp_path: Path) -> None:
    """A healthy 7-hour boot, then the amdgpu chain and 2.5 minutes of silence until death."""
    hog = "workqueue: svm_range_restore_work [amdgpu] hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND"
    m = Machine(tmp_path)
    b = m.boot()
    for _ in range(6):
        b.log(hog, 4)
        b.run(4200, every=60)
    b.shutdown(reboot=True)
    b = m.boot(after_s=40)
    for _ in range(5):  # as often as in the healthy boot: routine noise, not the culprit
        b.log(hog, 4)
        b.run(4200, every=60)
    for line in AMDGPU_CHAIN:
        b.log(line, 3)
        b.run(1)
    b.run(150)
    b.die()
    m.boot(after_s=900, early=("Linux version 6.8.0", "EXT4-fs (nvme0n1p2): recovery complete"))
    rep = judge(m)
    assert rep.outcome == "hard_freeze"
    assert rep.primary is not None and rep.primary.tag == "amdgpu_smu_timeout"
    hogs = [s for s in rep.signatures if "workqueue" in s.tag]
    assert hogs and all(s.noise for s in hogs)
    ring = rep.time_of_death.ring  # type: ignore[union-attr]
    assert 148 <= ring.silence_before_death_s <= 156  # type: ignore[union-attr,operator]
    assert "last kernel line 15" in render(rep, "text")
