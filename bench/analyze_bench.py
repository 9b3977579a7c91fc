"""`kmsgd analyze` benchmark: a 100 MB dmesg built from real-looking lines.

Reports wall time and peak RSS of `analyze()` run in a fresh child process, next to
`grep -c` over the same file as the floor (the cost of merely reading it). Goal: < 10 s and
< 200 MiB.

    python bench/analyze_bench.py              # 100 MB
    python bench/analyze_bench.py --mb 20
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Routine lines of a busy GPU box (drm, usb, network, audit, systemd via kmsg), with the
# numbers that vary filled in per line.
ROUTINE = (
    "amdgpu 0000:05:00.0: amdgpu: ring gfx_0.0.0 uses VM inv eng 0 on hub 0",
    "[drm] PCIE GART of 512M enabled (table at 0x00000080FEB00000).",
    "usb {a}-{b}: new high-speed USB device number {n} using xhci_hcd",
    "usb {a}-{b}: New USB device found, idVendor=046d, idProduct=c52b, bcdDevice=12.11",
    "input: Logitech USB Receiver as /devices/pci0000:00/0000:00:14.0/usb1/1-{b}/input/input{n}",
    "r8169 0000:0b:00.0 enp11s0: Link is Up - 1Gbps/Full - flow control rx/tx",
    'audit: type=1400 audit({t}:{n}): apparmor="STATUS" operation="profile_replace" pid={n}',
    "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.",
    "IPv6: ADDRCONF(NETDEV_CHANGE): enp11s0: link becomes ready",
    "systemd[1]: Started session-{n}.scope - Session {n} of User alice.",
    "Bluetooth: hci0: BCM: chip id 63 build 1170",
    "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
    "kfd kfd: amdgpu: Allocated 3969056 bytes on gart",
    "amdgpu 0000:05:00.0: amdgpu: SMU is resumed successfully!",
    "nvme nvme0: 16/0/0 default/read/poll queues",
    "docker0: port {b}(veth{n}) entered forwarding state",
    "workqueue: svm_range_deferred_list_work [amdgpu] hogged CPU for >10000us 4 times, "
    "consider switching to WQ_UNBOUND",
)
CHAIN = (
    "amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0",
    "amdgpu 0000:05:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
    "amdgpu: Failed to quiesce KFD",
    "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=1, emitted seq=3",
    "amdgpu 0000:05:00.0: amdgpu: GPU reset begin!",
)


def build(path: Path, size: int, seed: int = 7) -> int:
    """Write a dmesg of about `size` bytes; returns its line count."""
    rnd = random.Random(seed)
    us = 0
    lines = 0
    with path.open("w") as out:
        written = 0
        buf: list[str] = []
        while written < size:
            us += rnd.randint(50, 400_000)
            tpl = ROUTINE[rnd.randrange(len(ROUTINE) - 1)] if rnd.random() > 1e-4 else ROUTINE[-1]
            text = tpl.format(
                a=rnd.randint(1, 4),
                b=rnd.randint(1, 9),
                n=rnd.randint(1, 99999),
                t=1700000000 + us // 1_000_000,
            )
            line = f"[{us // 1_000_000:5d}.{us % 1_000_000:06d}] {text}\n"
            buf.append(line)
            written += len(line)
            lines += 1
            if len(buf) >= 4096:
                out.write("".join(buf))
                buf.clear()
        for text in CHAIN:
            us += 1200
            buf.append(f"[{us // 1_000_000:5d}.{us % 1_000_000:06d}] {text}\n")
            lines += 1
        out.write("".join(buf))
    return lines


_CHILD = """
import sys
from kmsgd.analyze import analyze_report
with open(sys.argv[1], "rb") as f:
    r, _ = analyze_report(f, name=sys.argv[1])
print(r.outcome.value, r.primary.tag if r.primary else None)
"""


def _timed(cmd: list[str]) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, peak RSS in KiB, stdout) of a child process. CPU time is
    printed too: on a shared 2-core machine wall time depends on the neighbours."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out = proc.stdout.read() if proc.stdout else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # grep -c exits 1 when it counts 0
        raise SystemExit(f"{cmd[0]} failed with {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, out.strip()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=int, default=100, help="size of the generated log")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dmesg.txt"
        lines = build(path, args.mb << 20)
        size = path.stat().st_size
        g_wall, g_cpu, g_rss, g_out = _timed(["grep", "-c", "amdgpu", str(path)])
        a_wall, a_cpu, a_rss, a_out = _timed([sys.executable, "-c", _CHILD, str(path)])
        load = os.getloadavg()[0]
    print(f"input: {size / 2**20:.0f} MiB, {lines} lines (dmesg, generated)")
    print(f"load average after the run: {load:.2f} on {os.cpu_count()} CPUs")
    print("| run | wall s | CPU s | peak RSS MiB | result |")
    print("|---|---|---|---|---|")
    print(f"| grep -c amdgpu | {g_wall:.2f} | {g_cpu:.2f} | {g_rss / 1024:.1f} | {g_out} |")
    print(f"| kmsgd analyze | {a_wall:.2f} | {a_cpu:.2f} | {a_rss / 1024:.1f} | {a_out} |")
    print(f"analyze: {lines / a_wall / 1000:.0f} k lines/s, {size / 2**20 / a_wall:.1f} MiB/s")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main(sys.argv[1:]))
