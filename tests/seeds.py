"""The three incidents kmsgd was made for, played through the real recorder (scenario.py).

Each `play_*` leaves a ring whose last boot but one is the seed's dead boot: seed 000 a hard
freeze after the amdgpu chain and 2.5 minutes of silence, seed 003 MemAvailable falling to
zero before the OOM kills, seed 004 two GPUs stepping from 12 W to 300 W in the last 0.3 s
before the power went. tests/commands/test_seeds.py checks what the report says about them,
tests/report/test_html_browser.py what the HTML page shows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from fakes import dual_amdgpu_box
from scenario import AMDGPU_CHAIN, BootRun, Machine

from kmsgd.commands import lastboot
from kmsgd.report.model import Report
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind
from kmsgd.ring.samples import DeviceSample, MemoryHolder, MemorySample, PowerStats, ProcsSample
from kmsgd.sensors.inventory_scan import read_inventory

GIB = 1 << 30
CARDS = ("0000:03:00.0", "0000:43:00.0")
HOG = "workqueue: svm_range_restore_work [amdgpu] hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND"


def judge(m: Machine, *, series: bool = False) -> Report:
    """The post-mortem of the played machine's last boot but one (the seed's dead boot)."""
    with RingReader(str(m.ring)) as r:
        opts = lastboot.Options(current_boot_id=m.boots[-1].boot_id, series=series)
        return lastboot.report(r, None, opts)


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
    b.emit(Kind.SAMPLE, sample, urgent)


def play_004(root: Path, *, lockstep: bool = False) -> Machine:
    """Both GPUs jump from idle to load and the box loses power at once; card1 is gone after."""
    sys_root, proc_root = dual_amdgpu_box(root / "box")
    m = Machine(root, lockstep=lockstep)
    b = m.boot()
    b.emit(Kind.INVENTORY, read_inventory(sys_root, proc_root))
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
    nxt.emit(Kind.INVENTORY, read_inventory(sys_root, proc_root), True)
    nxt.run(1)
    return m


def play_003(root: Path, *, lockstep: bool = False) -> Machine:
    """Two model servers map the same 115 GB model: memory runs out, the box stops answering."""
    m = Machine(root, lockstep=lockstep)
    b = m.boot()
    b.run(10)
    total = 121 * GIB
    for i in range(41):
        avail = int(90 * GIB - i * (89.7 * GIB / 40))
        psi = {
            "memory.full_avg10_pct": min(78.0, i * 2.0),
            "memory.some_avg10_pct": min(95.0, i * 2.5),
        }
        b.emit(Kind.SAMPLE, MemorySample(b.clock.mono_us(), total, avail, 0, 0, psi))
        if i % 5 == 0:
            holders = (
                MemoryHolder(4187, "llama-server", 69 * GIB, 27 * GIB, 0),
                MemoryHolder(4301, "llama-server", 12 * GIB, 0, 0),
            )
            b.emit(Kind.SAMPLE, ProcsSample(b.clock.mono_us(), holders, 312))
        b.run(1)
    for n in range(3):
        b.log(
            f"Out of memory: Killed process {4301 + n} (llama-server) total-vm:118000000kB, anon-rss:12000000kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:24000kB oom_score_adj:0",
            3,
        )
        b.run(8, every=8)  # the loop gets the CPU only every few seconds now
    b.die()
    m.boot(after_s=360)
    return m


def play_000(root: Path, *, lockstep: bool = False) -> Machine:
    """A healthy 7-hour boot, then the amdgpu chain and 2.5 minutes of silence until death."""
    m = Machine(root, lockstep=lockstep)
    b = m.boot()
    for _ in range(6):
        b.log(HOG, 4)
        b.run(4200, every=60)
    b.shutdown(reboot=True)
    b = m.boot(after_s=40)
    for _ in range(5):  # as often as in the healthy boot: routine noise, not the culprit
        b.log(HOG, 4)
        b.run(4200, every=60)
    for line in AMDGPU_CHAIN:
        b.log(line, 3)
        b.run(1)
    b.run(150)
    b.die()
    m.boot(after_s=900, early=("Linux version 6.8.0", "EXT4-fs (nvme0n1p2): recovery complete"))
    return m
