"""Recorder benchmarks, each beside its baseline measured in the same run:

1. durable latency: /dev/kmsg write → frame fdatasync'd, beside its floors on the same lines (a
   plain reader process woken by the kernel, a bare pwrite+fdatasync after each line), and
   where the time goes between them;
2. storms: paced /dev/kmsg writes, records lost and CPU, kmsgd vs `dmesg -w > file`;
3. idle: CPU% and RSS of `kmsgd run` with heartbeats only.

Needs root and a writable /dev/kmsg. Sets kernel.printk_devkmsg=on while it runs (the
default ratelimit silently drops writes) and restores it. Floods the kernel log buffer.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from kmsgd.config import Config
from kmsgd.record.recorder import Recorder
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind

DEVKMSG = "/proc/sys/kernel/printk_devkmsg"


@contextmanager
def devkmsg_on() -> Iterator[None]:
    old = Path(DEVKMSG).read_text()
    Path(DEVKMSG).write_text("on\n")
    try:
        yield
    finally:
        Path(DEVKMSG).write_text(old)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


class BareSync:
    """The disk's floor, taken between the lines: pwrite of ~200 B + fdatasync at increasing
    offsets of a zero-filled file on the ring's file system."""

    def __init__(self, directory: str) -> None:
        self.fd = os.open(os.path.join(directory, "floor"), os.O_RDWR | os.O_CREAT, 0o600)
        os.write(self.fd, bytes(1 << 20))
        os.fsync(self.fd)
        self.n = 0

    def once(self) -> float:
        t0 = time.perf_counter_ns()
        os.pwrite(self.fd, b"x" * 200, (self.n * 256) % (1 << 20))
        os.fdatasync(self.fd)
        self.n += 1
        return (time.perf_counter_ns() - t0) / 1000

    def close(self) -> None:
        os.close(self.fd)


class _Silent:
    def __getattr__(self, _name: str) -> object:
        return lambda *a, **k: None


def gaps(n: int) -> list[float]:
    """Seconds to wait before each of `n` lines, the same for every latency measured: printk
    wakes /dev/kmsg readers from lazy irq_work (kernel/printk/printk.c, wake_up_klogd), run at
    the next timer tick, so the wait depends on when in a tick a line is written. Written right
    after the previous line became durable (itself just after a tick), each line waited most of
    a tick; written at random times, half a tick on average, as the plain reader's lines."""
    rng = random.Random(23)
    return [rng.uniform(0.0005, 0.0105) for _ in range(n)]


STAGES = (
    ("t0", "pump", "kernel wakes the pump, which reads it"),
    ("pump", "put", "pump -> daemon's kmsg loop hands it over"),
    ("put", "add", "commit thread picks it up"),
    ("add", "sync0", "frame encoded and pwritten"),
    ("sync0", "sync1", "fdatasync"),
)


class Latency(NamedTuple):
    durable: list[float]  # µs: /dev/kmsg write -> the frame fdatasync'd
    reader: list[float]  # µs: the same lines -> a plain reader process wakes with them
    sync: list[float]  # µs: a bare pwrite+fdatasync after each line
    stages: dict[str, list[float]]


def durable_latency(directory: str, n: int) -> Latency:
    """In-process recorder on the real /dev/kmsg; times each warning line until its sync,
    side by side with its floors on the same lines: a plain reader process (VISIBLE_READER)
    timing when the kernel wakes it with each line, and a bare sync taken after each line.
    Where the time goes: when the pump read the line (a readv wrapper in the forked pump
    reports through a pipe), when the kmsg loop handed it to the committer, when the commit
    thread placed it, its fdatasync (perf_counter_ns: one clock in every process)."""
    ns = time.perf_counter_ns
    marker = f"kmsgd-bench-{uuid.uuid4().hex[:8]}".encode()
    marks: dict[int, dict[str, int]] = {}
    pump_r, pump_w = os.pipe()
    readv = os.readv

    def timed_readv(fd: int, buffers: list[memoryview]) -> int:
        got = readv(fd, buffers)
        raw = bytes(buffers[0][:got])
        if marker in raw:
            os.write(pump_w, b"%d %d\n" % (int(raw.rsplit(b" ", 1)[1]), ns()))
        return got

    cfg = Config(ring=os.path.join(directory, "ring"), ring_size=16 << 20, lock_memory=False)
    os.readv = timed_readv  # type: ignore[assignment] # the pump is forked with it
    try:
        rec = Recorder(cfg, _Silent(), lambda _s: None)
    finally:
        os.readv = readv
    os.close(pump_w)
    pumped: dict[int, int] = {}

    def pump_times() -> None:
        with os.fdopen(pump_r, "rb") as f:
            for line in f:
                i, t = line.split()
                pumped[int(i)] = int(t)

    threading.Thread(target=pump_times, daemon=True).start()
    done = threading.Condition()
    durable_marks: set[int] = set()
    placed: list[int] = []
    orig_put_many = rec.committer.put_many
    orig_add = rec.writer.add
    orig_commit = rec.writer.commit

    def line_of(payload: bytes) -> int:
        return int(payload.rsplit(b" ", 1)[1]) if marker in payload else -1

    def put_many(items: list[tuple[Kind, int, bytes]], *, urgent: bool) -> None:
        t = ns()
        for _, _, payload in items:
            if (i := line_of(payload)) >= 0:
                marks.setdefault(i, {})["put"] = t
        orig_put_many(items, urgent=urgent)

    def add(kind: Kind, boot: bytes, wall: int, payload: bytes) -> int:
        if kind is Kind.KERNEL and (i := line_of(payload)) >= 0:
            marks.setdefault(i, {})["add"] = ns()
            placed.append(i)
        return orig_add(kind, boot, wall, payload)

    class TimedIO:
        pwrite = staticmethod(os.pwrite)
        pread = staticmethod(os.pread)

        @staticmethod
        def fdatasync(fd: int) -> None:
            t = ns()
            os.fdatasync(fd)
            for i in placed:
                marks[i] |= {"sync0": t, "sync1": ns()}

    def commit() -> int:
        serial = orig_commit()
        with done:
            durable_marks.update(placed)
            placed.clear()
            done.notify_all()
        return serial

    rec.committer.put_many = put_many  # type: ignore[method-assign]
    rec.writer.add = add  # type: ignore[method-assign,assignment]
    rec.writer.io = TimedIO
    rec.writer.commit = commit  # type: ignore[method-assign]
    rec.committer.start()
    stop = threading.Event()

    def loop() -> None:
        import select

        poller = select.poll()
        poller.register(rec.kmsg.fd, select.POLLIN)
        while not stop.is_set():
            rec._drain_kmsg()
            # the pump wakes us only when asked (kmsgpump.KmsgPump.arm); getattr: this bench
            # also runs on the recorder before the pump, for the before/after table
            if getattr(rec.kmsg, "arm", lambda: True)():
                poller.poll(100)

    reader = threading.Thread(target=loop, daemon=True)
    reader.start()
    plain = subprocess.Popen(
        [sys.executable, "-c", VISIBLE_READER, marker.decode(), str(n)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert plain.stdout is not None
    plain.stdout.readline()
    time.sleep(0.5)  # the kernel backlog is imported first
    bare = BareSync(directory)
    fd = os.open("/dev/kmsg", os.O_WRONLY)
    sync: list[float] = []
    for i, gap in enumerate(gaps(n)):
        time.sleep(gap)
        t0 = ns()
        marks.setdefault(i, {})["t0"] = t0
        os.write(fd, b"<4>%s line %d\n" % (marker, i))
        with done:
            done.wait_for(lambda i=i: i in durable_marks, timeout=5)  # type: ignore[misc]
        marks[i]["end"] = ns()
        sync.append(bare.once())
    os.close(fd)
    bare.close()
    try:
        out, _ = plain.communicate(timeout=10)
    except subprocess.TimeoutExpired:  # a line it never saw (the kernel overwrote it)
        plain.kill()
        out, _ = plain.communicate()
    woke = dict(line.split() for line in out.splitlines())
    seen = [(int(woke[str(i)]) - marks[i]["t0"]) / 1000 for i in range(n) if str(i) in woke]
    # durable when its fdatasync returned (the bench's own wake-up after it is not kmsgd's)
    lat = [(m.get("sync1", m["end"]) - m["t0"]) / 1000 for m in marks.values() if "end" in m]
    stop.set()
    reader.join()
    rec.committer.close()
    rec.kmsg.close()  # the pump exits: its pipe ends
    time.sleep(0.2)
    stages: dict[str, list[float]] = {label: [] for _, _, label in STAGES}
    for i, m in marks.items():
        if i in pumped:
            m["pump"] = pumped[i]
        if all(k in m for a, b, _ in STAGES for k in (a, b)):
            for a, b, label in STAGES:
                stages[label].append((m[b] - m[a]) / 1000)
    return Latency(lat, seen, sync, stages)


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int, field: str = "VmRSS:", where: str = "status") -> int:
    for line in Path(f"/proc/{pid}/{where}").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1])
    return 0


def family(pid: int) -> list[int]:
    """The daemon and the processes it started (its kmsg pump, kmsgd/record/kmsgpump.py)."""
    kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [pid, *(int(k) for k in kids)]


def family_cpu_s(pid: int) -> float:
    return sum(cpu_s(p) for p in family(pid))


def start_kmsgd(ring: str, *extra: str, size: str = "64M") -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "kmsgd",
        "run",
        "--ring",
        ring,
        "--ring-size",
        size,
        "--config",
        "/dev/null",
        "--no-sysctl",
        *extra,
    ]
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    return proc


STORM_WRITER = r"""
import os, sys, time
rate, secs, tag = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3].encode()
fd = os.open("/dev/kmsg", os.O_WRONLY)
n, t0 = 0, time.perf_counter()
total = int(rate * secs)
while n < total:
    due = int((time.perf_counter() - t0) * rate) + 1
    while n < min(due, total):
        os.write(fd, b"<6>%s %d storm line padding to a realistic length of a driver message\n" % (tag, n))
        n += 1
    if n < due:
        continue
    time.sleep(0.0005)
print(n, time.perf_counter() - t0)
"""


def run_storm(rate: int, secs: float, tag: str) -> int:
    res = subprocess.run(
        [sys.executable, "-c", STORM_WRITER, str(rate), str(secs), tag],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(res.stdout.split()[0])


def storm(rate: int, secs: float, directory: str) -> dict[str, float]:
    """The same storm twice: once with kmsgd alone, once with `dmesg -w > file` alone (on two
    cores, writer plus two capturers at once would measure the scheduler, not the capture)."""
    tag = f"kmsgd-storm-{uuid.uuid4().hex[:8]}"
    ring = os.path.join(directory, f"ring-{rate}")
    # A ring that holds the whole storm: 160,000 lines/s for 5 s is ~130 MB of frames, and a
    # 64 MiB ring would count its own lap as lost (the first version of this table did).
    kmsgd = start_kmsgd(ring, size=f"{max(64, int(rate * secs * 320) >> 20)}M")
    c0 = family_cpu_s(kmsgd.pid)
    written_k = run_storm(rate, secs, tag)
    time.sleep(1.5)
    cpu_k = family_cpu_s(kmsgd.pid) - c0
    kmsgd.send_signal(signal.SIGTERM)
    kmsgd.wait(timeout=60)
    shed = 0
    with RingReader(ring) as r:
        got_k = 0
        for fr in r.frames():
            if fr.kind is Kind.KERNEL and tag.encode() in fr.payload:
                got_k += 1
            elif fr.kind is Kind.LOST and json.loads(fr.payload)["reason"] == "shed":
                shed += json.loads(fr.payload)["count"]
    tag_d = tag + "d"
    out_file = os.path.join(directory, f"dmesg-{rate}.txt")
    with open(out_file, "wb") as f:
        dmesg = subprocess.Popen(["dmesg", "-w"], stdout=f, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        c0 = cpu_s(dmesg.pid)
        written_d = run_storm(rate, secs, tag_d)
        time.sleep(1.5)
        cpu_d = cpu_s(dmesg.pid) - c0
        dmesg.terminate()
        dmesg.wait()
    got_d = Path(out_file).read_bytes().count(tag_d.encode() + b" ")
    os.unlink(ring)
    os.unlink(out_file)
    return {
        "rate": rate,
        "achieved": written_k / secs,
        "lost_kmsgd": written_k - got_k,
        "shed_kmsgd": shed,
        "cpu_kmsgd": cpu_k,
        "lost_dmesg": written_d - got_d,
        "cpu_dmesg": cpu_d,
    }


VISIBLE_READER = r"""
import os, sys, time, select
tag = sys.argv[1].encode()
fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
os.lseek(fd, 0, os.SEEK_END)
p = select.poll(); p.register(fd, select.POLLIN)
print("ready", flush=True)
seen = 0
while seen < int(sys.argv[2]):
    p.poll(1000)
    while True:
        try:
            rec = os.read(fd, 8193)
        except BlockingIOError:
            break
        if tag in rec:
            print(rec.rsplit(b" ", 1)[1].decode().strip(), time.perf_counter_ns(), flush=True)
            seen += 1
"""


def idle(directory: str, secs: float) -> tuple[float, int, int]:
    """CPU % of a core, RSS and PSS (KiB) of the daemon and its pump together."""
    proc = start_kmsgd(os.path.join(directory, "ring-idle"))
    c0 = family_cpu_s(proc.pid)
    time.sleep(secs)
    c1 = family_cpu_s(proc.pid)
    rss = sum(rss_kib(p) for p in family(proc.pid))
    pss = sum(rss_kib(p, "Pss:", "smaps_rollup") for p in family(proc.pid))
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    return (c1 - c0) / secs * 100, rss, pss


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="bench.recorder_bench")
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--storm-secs", type=float, default=5.0)
    ap.add_argument("--rates", default="5000,10000,20000,40000,80000,160000")
    ap.add_argument("--idle-secs", type=float, default=60.0)
    ap.add_argument("--parts", default="latency,storms,idle")
    args = ap.parse_args(argv)
    if not os.access("/dev/kmsg", os.W_OK):
        print("recorder_bench: needs root and a writable /dev/kmsg; skipped")
        return
    parts = args.parts.split(",")
    print(f"load average at start: {os.getloadavg()}", flush=True)
    with (
        tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR", "/var/tmp")) as d,
        devkmsg_on(),
    ):
        if "latency" in parts:
            latency(d, args.lines)
        if "storms" in parts:
            storms(d, args.rates, args.storm_secs)
        if "idle" in parts:
            cpu, rss, pss = idle(d, args.idle_secs)
            print(
                f"idle over {args.idle_secs:.0f} s: {cpu:.3f}% of a core (daemon and pump), "
                f"RSS {rss / 1024:.1f} MiB (daemon + pump, PSS {pss / 1024:.1f} MiB)"
            )
    print(f"load average at end: {os.getloadavg()}")


def latency(d: str, lines: int) -> None:
    lat, seen, floor, stages = durable_latency(d, lines)
    print(f"durable latency over {lines} warning lines, each beside its floors (µs):")
    print(f"  bare pwrite+fdatasync   p50 {pct(floor, 0.5):8.0f}  p99 {pct(floor, 0.99):8.0f}")
    print(
        f"  kmsg write → a reader   p50 {pct(seen, 0.5):8.0f}  p99 {pct(seen, 0.99):8.0f}"
        "  (the kernel's wake-up of kmsg readers)"
    )
    goal = {q: 1.2 * (pct(seen, q) + pct(floor, q)) for q in (0.5, 0.99)}
    print(
        f"  kmsg write → durable    p50 {pct(lat, 0.5):8.0f}  p99 {pct(lat, 0.99):8.0f}"
        f"  (mean {statistics.mean(lat):.0f}; goal 1.2 × (reader + sync): p50 {goal[0.5]:.0f}, "
        f"p99 {goal[0.99]:.0f})",
        flush=True,
    )
    n = len(next(iter(stages.values())))
    print(f"  where the time goes ({n} lines with every mark):")
    for label, values in stages.items():
        if values:
            print(f"    {label:42} p50 {pct(values, 0.5):8.0f}  p99 {pct(values, 0.99):8.0f}")


def storms(d: str, rates: str, secs: float) -> None:
    print("storms (the same storm for each alone; lost = written - captured):")
    print(
        f"  {'rate/s':>8} {'achieved':>9} {'kmsgd lost':>11} {'(shed)':>8} {'cpu s':>6} "
        f"{'dmesg lost':>11} {'cpu s':>6} {'load':>5}"
    )
    best = {"kmsgd": 0, "dmesg": 0}
    for rate in (int(r) for r in rates.split(",")):
        s = storm(rate, secs, d)
        print(
            f"  {rate:>8} {s['achieved']:>9.0f} {s['lost_kmsgd']:>11.0f} {s['shed_kmsgd']:>8.0f} "
            f"{s['cpu_kmsgd']:>6.2f} {s['lost_dmesg']:>11.0f} {s['cpu_dmesg']:>6.2f} "
            f"{os.getloadavg()[0]:>5.1f}",
            flush=True,
        )
        for who in best:
            if s[f"lost_{who}"] == 0 and best[who] == rate_prev(rates, rate):
                best[who] = rate
    ratio = best["kmsgd"] / best["dmesg"] if best["dmesg"] else float("nan")
    print(
        f"  highest lossless rate: kmsgd {best['kmsgd']}/s, dmesg -w {best['dmesg']}/s "
        f"(ratio {ratio:.2f})"
    )


def rate_prev(rates: str, rate: int) -> int:
    """The rate stepped before `rate` (0 for the first): lossless must hold on every step."""
    steps = [int(r) for r in rates.split(",")]
    i = steps.index(rate)
    return steps[i - 1] if i else 0


if __name__ == "__main__":
    main(sys.argv[1:])
