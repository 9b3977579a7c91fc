"""`kmsgd last-boot` on a full 256 MiB ring (about a million records over many boots).

The ring is filled the way a busy GPU box fills it: per second 8 GPU device samples, one
memory sample, a heartbeat, and a kernel line now and then; every 5 s a process sample.
Printed beside it: `journalctl -b -1 -n 200` on this machine's journal, when it has one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

from bench.child import measure
from kmsgd.ring import frame as fr
from kmsgd.ring.records import Boot, Heartbeat, Kind
from kmsgd.ring.writer import RingWriter

KERNEL_LINES = (
    "amdgpu 0000:%02x:00.0: amdgpu: SMU: I'm not done with your previous command",
    "workqueue: svm_range_restore_work [amdgpu] hogged CPU for >10000us 4 times",
    "nvme nvme0: I/O 123 QID 4 timeout, aborting",
    "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode",
    "llama-server[4187]: segfault at 0 ip 00007f sp 00007ffd error 4 in libggml.so",
)


def device_payload(card: int, t: int) -> bytes:
    watts = 12.0 + (t % 300)
    return fr.encode_payload(
        Kind.SAMPLE,
        {
            "sample": "device",
            "source": "amdgpu",
            "device": f"0000:{card:02x}:00.0",
            "driver": "amdgpu",
            "mono_us": t * 1_000_000,
            "values": {
                "edge.temp_c": 61,
                "junction.temp_c": 74,
                "mem.temp_c": 70,
                "ppt.power_w": watts,
                "vddgfx.volt_v": 0.9,
                "fan1.fan_rpm": 1800,
                "sclk.freq_mhz": 2200,
                "mclk.freq_mhz": 1250,
                "busy_pct": 97,
                "vram_used_bytes": 20_000_000_000,
                "gtt_used_bytes": 500_000_000,
            },
            "power": {"ppt": {"min_w": watts - 3, "max_w": watts + 3}},
        },
    )


def fill(path: str, size: int, boots: int, *, incident: bool = False) -> int:
    """Write boots of equal length until the ring has lapped once; returns records written.
    `incident`: each boot opens an incident at its start that never ends (the HTML report's
    window then spans the whole boot: bench/html_bench.py)."""
    w = RingWriter(path, size=size)
    records = 0
    per_boot = size // boots
    start = 1_764_400_000_000_000
    memory = fr.encode_payload(
        Kind.SAMPLE,
        {
            "sample": "memory",
            "mono_us": 0,
            "mem_total_bytes": 128 << 30,
            "mem_available_bytes": 90 << 30,
            "psi": {},
        },
    )
    for b in range(boots + boots // 4):  # a quarter more: the oldest boots are overwritten
        boot = uuid.uuid4()
        wall = start + b * 10**11
        payload = fr.encode_payload(Kind.BOOT, Boot(boot.hex, "6.8.0", "quiet", wall, "0.1.0"))
        w.add(Kind.BOOT, boot.bytes, wall, payload)
        if incident:
            start_incident = {"incident": 1, "record": "start", "trigger": "soft_lockup"}
            start_incident["source"] = "kernel"
            w.add(Kind.INCIDENT, boot.bytes, wall, fr.encode_payload(Kind.INCIDENT, start_incident))
        written, t = 0, 0
        while written < per_boot:
            now = wall + t * 1_000_000
            for card in range(8):
                p = device_payload(card, t)
                w.add(Kind.SAMPLE, boot.bytes, now, p)
                written += len(p) + fr.HEADER_SIZE
            w.add(Kind.SAMPLE, boot.bytes, now, memory)
            beat = fr.encode_payload(Kind.HEARTBEAT, Heartbeat(now, t * 10**6, t * 10**6, t))
            w.add(Kind.HEARTBEAT, boot.bytes, now, beat)
            records += 10
            if t % 3 == 0:
                line = KERNEL_LINES[t % len(KERNEL_LINES)]
                text = line % 3 if "%" in line else line
                raw = b"4,%d,%d,-;%s\n" % (t, t * 10**6, text.encode())
                w.add(Kind.KERNEL, boot.bytes, now, raw)
                records += 1
            t += 1
            if t % 500 == 0:
                w.commit()
        w.commit()
    w.close()
    return records


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="bench.lastboot_bench")
    ap.add_argument("--size-mib", type=int, default=256)
    ap.add_argument("--boots", type=int, default=12)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR", "/var/tmp")) as d:
        ring = os.path.join(d, "ring")
        t0 = time.perf_counter()
        # Filled by a child: a parent that grew while filling would pass its RSS on to every
        # child it forks, and ru_maxrss would count it.
        code = f"from bench.lastboot_bench import fill; print(fill({ring!r}, {args.size_mib << 20}, {args.boots}))"
        n = int(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        print(
            f"filled a {args.size_mib} MiB ring: {n} records written in "
            f"{time.perf_counter() - t0:.1f} s ({args.boots} boots fit)"
        )
        kmsgd = [sys.executable, "-m", "kmsgd.cli"]
        # `boots` keeps ended boots' verdicts in the state dir (kmsgd/report/bootcache.py):
        # the first run judges every boot, the next ones only what changed.
        config = os.path.join(d, "kmsgd.toml")
        with open(config, "w") as f:
            f.write(f'[kmsgd]\nstate_dir = "{d}"\n')
        boots = [*kmsgd, "boots", "--ring", ring, "--format", "json", "--config", config]
        wall, _, rss, out, _ = measure(boots)
        rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        held = sum(r["records"] for r in rows)
        print(f"  ring holds {held} records in {len(rows)} boots")
        print(f"  kmsgd boots (every boot judged)      {wall:6.2f} s  peak RSS {rss:6.1f} MiB")
        for n in (1, 2):
            wall, _, rss, again, _ = measure(boots)
            same = "same output" if again == out else "OUTPUT DIFFERS"
            print(
                f"  kmsgd boots (verdicts cached, {n})     {wall:6.2f} s  peak RSS {rss:6.1f} MiB"
                f"  ({same})"
            )
        # On the box itself the newest boot is the running one: judged on every run.
        proc = os.path.join(d, "proc")
        os.makedirs(os.path.join(proc, "sys/kernel/random"))
        with open(os.path.join(proc, "sys/kernel/random/boot_id"), "w") as f:
            f.write(str(uuid.UUID(rows[-1]["boot_id"])) + "\n")
        measure([*boots, "--proc", proc])  # its first run caches the boot before it anew
        wall, _, rss, _, _ = measure([*boots, "--proc", proc])
        print(f"  kmsgd boots (cached, newest running) {wall:6.2f} s  peak RSS {rss:6.1f} MiB")
        wall, _, rss, out, _ = measure(
            [
                *kmsgd,
                "last-boot",
                "--ring",
                ring,
                "--boot",
                "-1",
                "--no-journal",
                "--format",
                "json",
                "--proc",
                d,
            ]
        )
        outcome = json.loads(out)["outcome"] if out.startswith("{") else out.strip()[:80]
        print(
            f"  kmsgd last-boot --format json        {wall:6.2f} s  peak RSS {rss:6.1f} MiB"
            f"  ({outcome})"
        )
        if (
            subprocess.run(
                ["journalctl", "--list-boots", "-q"], capture_output=True, check=False
            ).stdout.count(b"\n")
            >= 2
        ):
            wall, _, rss, _, _ = measure(["journalctl", "-b", "-1", "-n", "200", "--no-pager"])
            usage = subprocess.run(
                ["journalctl", "--disk-usage"], capture_output=True, text=True, check=False
            ).stdout.strip()
            print(f"  journalctl -b -1 -n 200 (baseline)   {wall:6.2f} s  ({usage})")
        else:
            print(
                "  journalctl -b -1 -n 200 (baseline)   n/a: this machine's journal holds "
                "no earlier boot"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
