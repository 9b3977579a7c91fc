"""`kmsgd fleet` over a generated collector: 10,000 boxes x 30 days of post-mortems.

The journal files are real: the generator writes each entry in the journal export format and
feeds it to `systemd-journal-remote`, as a collector receives entries from
`systemd-journal-upload`. Each box boots once a day; amdgpu boxes booted without `iommu=pt`
freeze now and then (the planted cause), and every box has a small rate of other bad ends.
Printed beside it: `journalctl -D DIR MESSAGE_ID=... -o json` reading the same entries.

Generation is timed apart; it dominates the bench (files are written in `--files` groups,
one journal-remote per group, two at a time: a file per box would take 8 MiB per box, as
journal files grow in 8 MiB steps).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass

from bench.child import measure
from kmsgd.fleet import entry_format as f

REMOTE = ("/lib/systemd/systemd-journal-remote", "/usr/lib/systemd/systemd-journal-remote")
DAY_US = 86_400 * 1_000_000

KERNELS = ("6.8.0-45-generic", "6.8.0-49-generic", "6.11.0-9-generic", "6.11.0-13-generic")
BOARDS = (
    ("ASRockRack", "WRX90 WS EVO", "American Megatrends International, LLC.", "1.40", "03/01/2024"),
    ("Supermicro", "H13SSL-N", "American Megatrends International, LLC.", "2.1a", "11/14/2023"),
    (
        "ASUSTeK COMPUTER INC.",
        "Pro WS WRX90E-SAGE SE",
        "American Megatrends Inc.",
        "0404",
        "05/20/2024",
    ),
)
CPUS = ("AMD Ryzen Threadripper PRO 7985WX 64-Cores", "AMD EPYC 9354 32-Core Processor")
AMD_GPU = ("1002:744c", "1da2:e471", "AMD Radeon RX 7900 XTX", "amdgpu", "")
NV_GPU = ("10de:2684", "10de:167c", "NVIDIA GeForce RTX 4090", "nvidia", "550.120")
SMC = ("0x00553700", "0x00554600")

# (outcome, primary, fingerprint, kernel line)
PLANTED = (
    "hard_freeze",
    "amdgpu_smu_timeout",
    "5e1f0c2a9b7d4e31",
    "amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x00000011",
)
NOISE = (
    (
        "kernel_panic",
        "nvidia_xid_79",
        "a0c3d1e2f4b5c6d7",
        "NVRM: Xid (PCI:0000:41:00): 79, GPU has fallen off the bus.",
    ),
    (
        "hang_memory_exhaustion",
        "oom_kill",
        "0b9d8c7e6f5a4b3c",
        "Out of memory: Killed process 4187 (llama-server)",
    ),
    ("abrupt_reset_or_power_loss", "", "77e6d5c4b3a29180", ""),
    (
        "watchdog_reset",
        "hard_lockup",
        "1c2d3e4f5a6b7c8d",
        "watchdog: Watchdog detected hard LOCKUP on cpu 12",
    ),
)


@dataclass(frozen=True, slots=True)
class Box:
    host: str
    machine_id: str
    amd: bool
    iommu_pt: bool
    old_kmsgd: bool
    fields: tuple[tuple[str, str], ...]  # the attribute fields, fixed for the window


def make_box(i: int, rng: random.Random) -> Box:
    host = f"gpu-{i:05d}"
    mid = hashlib.sha256(host.encode()).hexdigest()[:32]
    amd = rng.random() < 0.6
    iommu_pt = rng.random() < 0.6
    kernel = rng.choice(KERNELS)
    params = [f"BOOT_IMAGE=/boot/vmlinuz-{kernel}", f"root=UUID={mid[:8]}-0000", "ro", "quiet"]
    params += ["iommu=pt"] if iommu_pt else []
    params += ["pcie_aspm=off"] if rng.random() < 0.3 else []
    params += (
        ["amdgpu.runpm=0"]
        if amd and rng.random() < 0.2
        else ["nvidia-drm.modeset=1"]
        if not amd
        else []
    )
    board_vendor, board, bios_vendor, bios_version, bios_date = rng.choice(BOARDS)
    gpu = AMD_GPU if amd else NV_GPU
    ngpu = rng.choice((1, 2, 4))
    fields = [
        (f.VERSION, "0.2.0"),
        (f.HOSTNAME, host),
        (f.KERNEL, kernel),
        (f.CMDLINE, " ".join(params)),
        (f.CPU, rng.choice(CPUS)),
        (f.RAM_BYTES, str(rng.choice((128, 256, 512)) * 2**30 - 3 * 2**30)),
        (f.BIOS_VENDOR, bios_vendor),
        (f.BIOS_VERSION, bios_version),
        (f.BIOS_DATE, bios_date),
        (f.BOARD, f"{board_vendor} {board}"),
        (f.GPU_COUNT, str(ngpu)),
    ]
    smc = rng.choice(SMC)
    for g in range(ngpu):
        fields += [
            (f.gpu_field(g, "PCI"), f"0000:{3 + g * 0x20:02x}:00.0"),
            (f.gpu_field(g, "ID"), gpu[0]),
            (f.gpu_field(g, "SUBSYSTEM"), gpu[1]),
            (f.gpu_field(g, "MODEL"), gpu[2]),
            (f.gpu_field(g, "DRIVER"), gpu[3]),
            (f.gpu_field(g, "DRIVER_VERSION"), gpu[4]),
            (f.gpu_field(g, "VBIOS"), "113-D7020100-102" if amd else "95.02.18.80.5F"),
            (f.gpu_field(g, "FIRMWARE"), f"smc={smc} mec=0x000001f4 sos=0x00270058" if amd else ""),
        ]
    fields.append((f.CONFIG_ID, f.config_id([kv for kv in fields if kv[0] != f.HOSTNAME])))
    old = rng.random() < 0.02
    if old:  # a kmsgd before the fleet wrote no attributes
        fields = []
    return Box(host, mid, amd, iommu_pt, old, tuple(fields))


def report_json(
    boot_id: str, outcome: str, primary: str, fp: str, line: str, t_us: int, rng: random.Random
) -> str:
    """A compact report of the size a real one has (final kernel lines, telemetry, evidence)."""
    final = [
        {
            "mono_us": 86_000_000_000 + k * 1_234_567 + rng.randrange(1000),
            "level": 6,
            "text": f"workqueue: svm_range_restore_work [amdgpu] hogged CPU for >10000us {k} times, pid {rng.randrange(99999)}",
        }
        for k in range(24)
    ]
    if line:
        final.append({"mono_us": 86_100_000_000, "level": 3, "text": line})
    doc = {
        "schema": "kmsgd.report/1",
        "boot_id": boot_id,
        "outcome": outcome,
        "confidence": "high",
        "headline": f"{outcome} {primary}".strip(),
        "evidence": [{"why": "heartbeat stopped", "line": None}],
        "time_of_death": {"last_alive_wall_us": t_us, "silence_s": round(rng.random() * 5, 2)},
        "primary": {"tag": primary, "line": line} if primary else None,
        "signatures": [],
        "final_kernel": final,
        "telemetry": {
            "card0.ppt.power_w": {"last": 300.0 * rng.random(), "min": 11.0, "max": 355.0}
        },
        "changes": [],
        "fingerprint": fp,
    }
    return json.dumps(doc, separators=(",", ":"))


def entries(boxes: list[Box], days: int, now_us: int, seed: int, foreign: int) -> Iterator[bytes]:
    """Export-format entries of `boxes`, one per box per day, in time order."""
    rng = random.Random(seed)
    start = now_us - days * DAY_US
    for day in range(days):
        for n, box in enumerate(boxes):
            t = start + day * DAY_US + n * 1_000_000 + rng.randrange(1_000_000)
            boot_id = f"{rng.getrandbits(128):032x}"
            if box.amd and not box.iommu_pt and rng.random() < 0.04:
                outcome, primary, fp, line = PLANTED
            elif rng.random() < 0.002:
                outcome, primary, fp, line = rng.choice(NOISE)
            else:
                outcome, primary, fp, line = (
                    rng.choice(("clean_reboot", "clean_shutdown")),
                    "",
                    "",
                    "",
                )
                fp = "c1ea" + outcome[6:9].encode().hex() + "000000"
            fields: list[tuple[str, str]] = [
                ("__REALTIME_TIMESTAMP", str(t)),
                ("_HOSTNAME", box.host),
                ("_MACHINE_ID", box.machine_id),
                (
                    "MESSAGE",
                    f"kmsgd: boot {boot_id[:8]} ended: {outcome} (high)"
                    + (f" [{primary}]" if primary else ""),
                ),
                ("MESSAGE_ID", f.MESSAGE_ID),
                ("PRIORITY", "5" if outcome.startswith("clean") else "4"),
                ("SYSLOG_IDENTIFIER", "kmsgd"),
                (f.BOOT_ID, boot_id),
                (f.OUTCOME, outcome),
                (f.CONFIDENCE, "high"),
                (f.PRIMARY, primary),
                (f.FINGERPRINT, fp),
            ]
            if not box.old_kmsgd:
                fields += [(f.END_USEC, str(t - 40_000_000)), *box.fields]
                fields.append(
                    (f.REPORT_JSON, report_json(boot_id, outcome, primary, fp, line, t, rng))
                )
            yield f.encode_entry(fields)
            for k in range(foreign):
                yield f.encode_entry(
                    [
                        ("__REALTIME_TIMESTAMP", str(t + 1000 + k)),
                        ("_HOSTNAME", box.host),
                        ("_MACHINE_ID", box.machine_id),
                        ("MESSAGE", f"New session {rng.randrange(9999)} of user ops."),
                        ("SYSLOG_IDENTIFIER", "systemd-logind"),
                        ("PRIORITY", "6"),
                    ]
                )


def journal_remote() -> str | None:
    found = shutil.which("systemd-journal-remote")
    return found or next((p for p in REMOTE if os.access(p, os.X_OK)), None)


def generate(out: str, boxes: int, days: int, files: int, seed: int = 14, foreign: int = 1) -> int:
    """Write the journal files into `out`; returns the kmsgd entries written."""
    exe = journal_remote()
    if exe is None:
        raise SystemExit(
            "systemd-journal-remote is not installed (apt-get install systemd-journal-remote)"
        )
    rng = random.Random(seed)
    fleet = [make_box(i, rng) for i in range(boxes)]
    now_us = int(time.time() * 1e6)
    running: list[subprocess.Popen[bytes]] = []
    for g in range(files):
        group = fleet[g::files]
        proc = subprocess.Popen(
            [exe, f"--output={out}/remote-group{g:03d}.journal", "-"],
            stdin=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdin is not None
        buf: list[bytes] = []
        for e in entries(group, days, now_us, seed + g, foreign):
            buf.append(e)
            if len(buf) >= 2000:
                proc.stdin.write(b"".join(buf))
                buf = []
        proc.stdin.write(b"".join(buf))
        proc.stdin.close()
        running.append(proc)
        while len(running) >= 2:
            if running.pop(0).wait() != 0:
                raise SystemExit("systemd-journal-remote failed")
    for proc in running:
        if proc.wait() != 0:
            raise SystemExit("systemd-journal-remote failed")
    return boxes * days


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="bench.fleet_bench")
    ap.add_argument("--boxes", type=int, default=10_000)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--foreign", type=int, default=1, help="foreign entries per post-mortem")
    ap.add_argument(
        "--keep", metavar="DIR", help="generate into DIR and keep it (reused when full)"
    )
    args = ap.parse_args(argv)
    if journal_remote() is None:
        print("fleet_bench: skipped: systemd-journal-remote is not installed")
        return
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR", "/var/tmp")) as tmp:
        d = args.keep or tmp
        os.makedirs(d, exist_ok=True)
        if not any(n.endswith(".journal") for n in os.listdir(d)):
            t0 = time.perf_counter()
            # Generated by a child, so that this process stays small for the children it forks.
            code = (
                "from bench.fleet_bench import generate; "
                f"print(generate({d!r}, {args.boxes}, {args.days}, {args.files}, foreign={args.foreign}))"
            )
            subprocess.run([sys.executable, "-c", code], check=True)
            size = sum(os.path.getsize(os.path.join(d, n)) for n in os.listdir(d))
            print(
                f"generated {args.boxes} boxes x {args.days} days = {args.boxes * args.days} "
                f"post-mortems (+{args.foreign} foreign entries each) in {args.files} journal "
                f"files, {size / 2**20:.0f} MiB, in {time.perf_counter() - t0:.1f} s"
            )
        wall, cpu, rss, out, _ = measure(
            [
                sys.executable,
                "-m",
                "kmsgd",
                "fleet",
                "--journal-dir",
                d,
                "--since",
                "-31d",
                "--format",
                "json",
            ]
        )
        if out.startswith("{"):
            doc = json.loads(out)
            top = doc["clusters"][0] if doc["clusters"] else None
            shared = top["shared"][0]["label"] if top and top["shared"] else "-"
            print(
                f"  {doc['post_mortems']} post-mortems, {doc['bad_ends']} bad ends on "
                f"{doc['boxes_with_bad_ends']} boxes, {len(doc['clusters'])} clusters; "
                f"top shared: {shared}"
            )
        else:
            print(f"  kmsgd fleet failed: {out.strip()[:200]}")
        print(
            f"  kmsgd fleet --format json              {wall:6.2f} s  (CPU {cpu:5.2f} s)  "
            f"peak RSS {rss:6.1f} MiB"
        )
        wall, cpu, rss, _, _ = measure(
            ["journalctl", "-D", d, f"MESSAGE_ID={f.MESSAGE_ID}", "-o", "json", "--no-pager"]
        )
        print(
            f"  journalctl -D DIR MESSAGE_ID=… -o json {wall:6.2f} s  (CPU {cpu:5.2f} s)  "
            f"peak RSS {rss:6.1f} MiB (baseline: the same entries, every field)"
        )
        print(f"  load average after: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main(sys.argv[1:])
