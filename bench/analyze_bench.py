"""`kmsgd analyze` benchmark: 100 MiB of dmesg and of journalctl text built from real-looking lines.

Each measurement runs in a child of its own (fork + exec, `wait4` on that one pid), so the
peak RSS printed is that child's own `ru_maxrss`, not the maximum over every child this
process has waited for (which RUSAGE_CHILDREN would give). Floors: `grep -c` over the same
file (the cost of merely reading it) and `zcat | grep -c` for the compressed copy. Goal
(docs/performance.md): ≤ 2 s for 100 MiB, memory flat in the input size.

    python bench/analyze_bench.py              # 100 MiB of each
    python bench/analyze_bench.py --mb 20
    python bench/analyze_bench.py --profile journal --mb 20   # cProfile of one run
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import shutil
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
# userspace lines a journal holds beside the kernel's (journalctl without -k)
USERSPACE = (
    "systemd[1]: Started session-{n}.scope - Session {n} of User alice.",
    "NetworkManager[{p}]: <info>  [{t}.{n}] device (enp11s0): state change: activated",
    'ollama[{p}]: time=2026-11-29T16:55:01Z level=INFO msg="request" status=200 id={n}',
    "CRON[{p}]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)",
    "sshd[{p}]: Accepted publickey for alice from 10.0.0.{b} port {n} ssh2",
)
CHAIN = (
    "amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0",
    "amdgpu 0000:05:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
    "amdgpu: Failed to quiesce KFD",
    "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=1, emitted seq=3",
    "amdgpu 0000:05:00.0: amdgpu: GPU reset begin!",
)
FORMATS = ("dmesg", "journal", "syslog")
_MONTHS = ("Nov", "Dec")


def _stamp(fmt: str, us: int, *, ident: str = "kernel") -> str:
    if fmt == "dmesg":
        return f"[{us // 1_000_000:5d}.{us % 1_000_000:06d}] "
    # journalctl -o short-precise, the boot starting Nov 29 16:00:00 (day rolls over)
    sec = 16 * 3600 + us // 1_000_000
    day, sec = 29 + sec // 86400, sec % 86400
    month = _MONTHS[0] if day <= 30 else _MONTHS[1]
    day = day if day <= 30 else day - 30
    hms = f"{sec // 3600:02d}:{sec % 3600 // 60:02d}:{sec % 60:02d}"
    if fmt == "syslog":  # rsyslog's /var/log/syslog: kernel lines keep printk's stamp
        printk = f"[{us // 1_000_000:5d}.{us % 1_000_000:06d}] " if ident == "kernel" else ""
        return f"{month} {day:2d} {hms} gpubox {ident}: {printk}"
    return f"{month} {day:02d} {hms}.{us % 1_000_000:06d} gpubox {ident}: "


def build(path: Path, size: int, seed: int = 7, fmt: str = "dmesg") -> int:
    """Write a dmesg (or a journalctl -o short-precise paste, or an rsyslog syslog file, with
    userspace lines beside the kernel's) of about `size` bytes; returns its line count."""
    rnd = random.Random(seed)
    us = 0
    lines = 0
    with path.open("w") as out:
        written = 0
        buf: list[str] = []
        while written < size:
            us += rnd.randint(50, 400_000)
            if fmt != "dmesg" and rnd.random() < 0.3:
                tpl = USERSPACE[rnd.randrange(len(USERSPACE))]
                ident, _, tpl = tpl.partition(": ")
                ident = ident.replace("{p}", str(rnd.randint(300, 9999)))
            else:
                ident = "kernel"
                tpl = (
                    ROUTINE[rnd.randrange(len(ROUTINE) - 1)] if rnd.random() > 1e-4 else ROUTINE[-1]
                )
            text = tpl.format(
                a=rnd.randint(1, 4),
                b=rnd.randint(1, 9),
                n=rnd.randint(1, 99999),
                t=1700000000 + us // 1_000_000,
            )
            line = _stamp(fmt, us, ident=ident) + text + "\n"
            buf.append(line)
            written += len(line)
            lines += 1
            if len(buf) >= 4096:
                out.write("".join(buf))
                buf.clear()
        for text in CHAIN:
            us += 1200
            buf.append(_stamp(fmt, us) + text + "\n")
            lines += 1
        out.write("".join(buf))
    return lines


_CHILD = """
import sys
from kmsgd.commands.analyze import analyze_inputs
r, _ = analyze_inputs(sys.argv[1:])
print(r.outcome.value, r.primary.tag if r.primary else None)
"""


TIME = shutil.which("time", path="/usr/bin:/bin")  # GNU time: forks, then wait4s, the command


def _timed(cmd: list[str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MiB, stdout) of one command, in a child of its own.

    Its own peak RSS: `ru_maxrss` from wait4 on that child alone (RUSAGE_CHILDREN would be
    the largest of every child waited for). A child forked or vforked by this Python
    process starts with this process's high-water mark (kept across exec), so the command
    runs under GNU time, a 2 MiB process that forks it and reports its wait4 figures.
    """
    with tempfile.NamedTemporaryFile("r") as report:
        if TIME:
            cmd = [TIME, "-f", "%U %S %M", "-o", report.name, *cmd]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        out = proc.stdout.read() if proc.stdout else ""
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):  # grep -c exits 1 when it counts 0
            raise SystemExit(f"{cmd!r} failed with {code}")
        if TIME:
            user, system, rss_kib = report.read().split()[-3:]
            return wall, float(user) + float(system), int(rss_kib) / 1024, out.strip()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.strip()


def _row(name: str, figures: tuple[float, float, float, str]) -> str:
    wall, cpu, rss, out = figures
    return f"| {name} | {wall:.2f} | {cpu:.2f} | {rss:.1f} | {out} |"


def _profile(path: Path) -> None:
    import cProfile
    import pstats

    from kmsgd.commands.analyze import analyze_inputs

    prof = cProfile.Profile()
    prof.runcall(analyze_inputs, [str(path)])
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=int, default=100, help="size of each generated log")
    ap.add_argument("--format", choices=FORMATS, action="append", help="default: dmesg, journal")
    ap.add_argument("--profile", choices=FORMATS, help="print a cProfile of one run instead")
    args = ap.parse_args(argv)
    py = sys.executable
    root = str(Path(__file__).resolve().parent.parent)
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = root + (os.pathsep + env_path if env_path else "")
    with tempfile.TemporaryDirectory() as tmp:
        if args.profile:
            path = Path(tmp) / f"{args.profile}.txt"
            build(path, args.mb << 20, fmt=args.profile)
            _profile(path)
            return 0
        for fmt in args.format or FORMATS[:2]:
            path = Path(tmp) / f"{fmt}.txt"
            lines = build(path, args.mb << 20, fmt=fmt)
            gz = path.with_suffix(".txt.gz")
            with path.open("rb") as src, gzip.open(gz, "wb", compresslevel=6) as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            load0 = os.getloadavg()[0]
            rows = [
                _row("`grep -c amdgpu`", _timed(["grep", "-c", "amdgpu", str(path)])),
                _row("`kmsgd analyze`", _timed([py, "-c", _CHILD, str(path)])),
                _row(
                    "`zcat \\| grep -c amdgpu`",
                    _timed(["sh", "-c", f"zcat {gz} | grep -c amdgpu"]),
                ),
                _row("`kmsgd analyze` .gz", _timed([py, "-c", _CHILD, str(gz)])),
            ]
            load1 = os.getloadavg()[0]
            size = path.stat().st_size
            print(
                f"\n{fmt}: {size / 2**20:.0f} MiB, {lines} lines, {gz.stat().st_size / 2**20:.1f} MiB gzip"
            )
            print(f"load average {load0:.2f} before, {load1:.2f} after, {os.cpu_count()} CPUs")
            print("| run | wall s | CPU s | peak RSS MiB | result |")
            print("|---|---|---|---|---|")
            print("\n".join(rows), flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main(sys.argv[1:]))
