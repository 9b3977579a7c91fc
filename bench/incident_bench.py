"""Incident benchmark: the real `kmsgd run` on the fake 8-GPU tree, quiet and then
during an incident: the daemon's CPU (utime+stime of the process, % of one core), the ring
bytes written (frame sizes from the ring itself) and the kmsg latency (a level-6 line written
into the kmsg FIFO until it is in the ring file: the flush window when quiet, at once during
an incident). The process snapshots read the real /proc; SysRq is pointed at a scratch file.

    python -m bench.incident_bench [--seconds 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.telemetry_bench import build_tree
from kmsgd.ring.reader import RingReader
from kmsgd.sensors.gpu_metrics import encode_v1_3

HUNG = "INFO: task llama-server:4321 blocked for more than 120 seconds."
TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _extras(sys_root: Path) -> None:
    """AER counters, runtime PM, a narrowed upstream link and gpu_metrics on every card."""
    metrics = encode_v1_3(temperature_hotspot_c=90, socket_power_w=280, pcie_link_width=16)
    for dev in (sys_root / "devices" / "pci0000:00").iterdir():
        (dev / "aer_dev_correctable").write_text("RxErr 0\nTOTAL_ERR_COR 0\n")
        (dev / "power").mkdir(exist_ok=True)
        (dev / "power" / "runtime_status").write_text("active\n")
        for name, value in (("current_link_speed", "16.0 GT/s PCIe"), ("max_link_width", 16)):
            (dev / name).write_text(f"{value}\n")
        (dev / "gpu_metrics").write_bytes(metrics)


def _ring_bytes(ring: Path, since_us: int, until_us: int) -> int:
    with RingReader(str(ring)) as reader:
        boot = reader.last_boot_id()
        if boot is None:
            return 0
        return sum(h.size for h in reader.skim_of(boot) if since_us <= h.wall_us < until_us)


class Finder:
    """Finds a marker in the ring file near where the last one was (the ring is written
    forward; 64 MiB do not wrap in a benchmark), without reading the whole file each time."""

    def __init__(self, ring: Path) -> None:
        self.fd = os.open(ring, os.O_RDONLY)
        self.pos = 0

    def found(self, marker: bytes) -> bool:
        start = max(0, self.pos - (1 << 20))
        data = os.pread(self.fd, 4 << 20, start)
        at = data.find(marker)
        if at < 0:
            return False
        self.pos = start + at
        return True


class Feed:
    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDWR)
        self.seq = 0

    def line(self, prio: int, text: str) -> None:
        self.seq += 1
        ts = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        os.write(self.fd, f"{prio},{self.seq},{ts},-;{text}\n".encode())


def phase(pid: int, ring: Path, feed: Feed, seconds: float, label: str) -> dict[str, Any]:
    """`seconds` of 20 lines/s (level 6), a latency marker every second."""
    lat: list[float] = []
    finder = Finder(ring)
    w0, c0, t0 = time.time_ns() // 1000, _cpu_s(pid), time.monotonic()
    n = 0
    while time.monotonic() - t0 < seconds:
        marker = f"bench-{label}-{n}-{os.urandom(4).hex()}"
        sent = time.monotonic()
        feed.line(6, marker)
        feed.line(6, "flush")  # a FIFO holds its newest record back until the next one
        while not finder.found(marker.encode()) and time.monotonic() - sent < 3:
            time.sleep(0.005)
        lat.append(time.monotonic() - sent)
        for _ in range(20):
            feed.line(6, f"usb 1-1: noise {n}")
        n += 1
        time.sleep(max(0.0, 1.0 - (time.monotonic() - sent)))
    t1, c1, w1 = time.monotonic(), _cpu_s(pid), time.time_ns() // 1000
    wall = t1 - t0
    return {
        "phase": label,
        "seconds": round(wall, 1),
        "cpu_pct_one_core": round(100 * (c1 - c0) / wall, 2),
        "ring_kib_per_min": round(_ring_bytes(ring, w0, w1) / 1024 * 60 / wall, 1),
        "ring_bytes": _ring_bytes(ring, w0, w1),
        "latency_ms_p50": round(1000 * statistics.median(lat), 1),
        "latency_ms_max": round(1000 * max(lat), 1),
    }


def run(seconds: float) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sys_root = root / "sys"
        build_tree(sys_root)
        _extras(sys_root)
        kmsg = root / "kmsg"
        os.mkfifo(kmsg)
        ring = root / "ring"
        state = root / "state"
        state.mkdir()
        cfg = root / "kmsgd.toml"
        cfg.write_text(
            f'[kmsgd]\nstate_dir = "{state}"\ntextfile_dir = ""\nfs_root = "{state}"\n'
            f"[incident]\nsysrq_w = false\n"
        )
        cmd = [sys.executable, "-m", "kmsgd", "run", "--ring", str(ring), "--ring-size", "64M"]
        cmd += ["--kmsg", str(kmsg), "--sys", str(sys_root), "--config", str(cfg)]
        cmd += ["--no-sysctl", "--no-mlock"]
        feed = Feed(kmsg)
        daemon = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            time.sleep(5)  # discovery, inventory, first records
            quiet = phase(daemon.pid, ring, feed, seconds, "quiet")
            feed.line(3, HUNG)
            during = phase(daemon.pid, ring, feed, seconds, "incident")
        finally:
            daemon.terminate()
            daemon.wait(20)
        with RingReader(str(ring)) as reader:
            boot = reader.last_boot_id()
            inc = [
                json.loads(bytes(f.payload))
                for f in (reader.frames_of(boot) if boot else [])
                if f.kind.value == "incident"
            ]
        during["incident_records"] = [r.get("record") for r in inc]
        during["incident_record_bytes"] = sum(
            len(json.dumps(r, separators=(",", ":"))) + 48 for r in inc
        )
        return [quiet, during]


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.incident_bench")
    ap.add_argument("--seconds", type=float, default=30.0)
    args = ap.parse_args(argv)
    for row in run(args.seconds):
        print(json.dumps(row))


if __name__ == "__main__":
    main(sys.argv[1:])
