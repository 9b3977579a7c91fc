"""Telemetry benchmark: the sampler on a fake 8-GPU tree at the default rates.

8 amdgpu-like GPUs × 12 sensors each (edge/junction/mem temperature, PPT power at 10 Hz,
vddgfx, fan, sclk, mclk, busy %, memory busy %, VRAM used, GTT used), plus the real
/proc/meminfo, /proc/pressure/* and the process scan every 5 s. Reports CPU% of one core and
RSS of this process over the run, and the bytes the ring would get per hour (compact JSON as
the recorder encodes it, plus the 48-byte frame header, padded to 8).

    python -m bench telemetry_bench            # 60 s
    python -m bench.telemetry_bench --seconds 10 [--raw-always]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from kmsgd.ring.frame import encode_json, payload_object
from kmsgd.ring.payloads import Payload
from kmsgd.ring.records import Kind
from kmsgd.sensors.sampler import Sampler, SamplerConfig

FRAME_HEADER = 48


def _put(path: Path, value: str | int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{value}\n")


def build_tree(sys: Path, gpus: int = 8) -> None:
    """`gpus` cards, each a PCI device with 8 hwmon channels and 4 DRM extras (12 sensors)."""
    for i in range(gpus):
        pci = f"0000:{0x03 + i * 0x10:02x}:00.0"
        dev = sys / "devices" / "pci0000:00" / pci
        for name, value in {
            "gpu_busy_percent": 97,
            "mem_busy_percent": 40,
            "mem_info_vram_used": 23 << 30,
            "mem_info_gtt_used": 512 << 20,
            "uevent": f"DRIVER=amdgpu\nPCI_SLOT_NAME={pci}",
        }.items():
            _put(dev / name, value)
        hw = dev / "hwmon" / f"hwmon{i + 2}"
        for name, value in {
            "name": "amdgpu",
            "temp1_input": 71000, "temp1_label": "edge",
            "temp2_input": 88000, "temp2_label": "junction",
            "temp3_input": 84000, "temp3_label": "mem",
            "power1_average": 287_000_000, "power1_label": "PPT",
            "in0_input": 1050, "in0_label": "vddgfx",
            "fan1_input": 2100,
            "freq1_input": 2_400_000_000, "freq1_label": "sclk",
            "freq2_input": 1_250_000_000, "freq2_label": "mclk",
        }.items():  # fmt: skip
            _put(hw / name, value)
        os.symlink("../..", hw / "device")
        (sys / "class" / "hwmon").mkdir(parents=True, exist_ok=True)
        os.symlink(hw, sys / "class" / "hwmon" / hw.name)
        (sys / "class" / "drm" / f"card{i}").mkdir(parents=True)
        os.symlink(dev, sys / "class" / "drm" / f"card{i}" / "device")


def rss_kib(field: str = "VmRSS") -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run(seconds: float, warmup: float = 3.0, raw_always: bool = False) -> dict[str, Any]:
    threading.stack_size(256 * 1024)  # as the recorder sets it before any thread starts
    counts: Counter[str] = Counter()
    sizes = {"json": 0, "ring": 0}
    lock = threading.Lock()
    measuring = threading.Event()

    def emit(kind: Kind, record: Payload, urgent: bool) -> None:
        payload = payload_object(record)  # the JSON object the recorder writes
        n = len(encode_json(payload))
        if measuring.is_set():
            with lock:
                label = f"{kind.value}:{payload.get('sample') or payload.get('event') or ''}"
                counts[label] += 1
                sizes["json"] += n
                sizes["ring"] += (FRAME_HEADER + n + 7) & ~7

    with tempfile.TemporaryDirectory() as tmp:
        sys = Path(tmp) / "sys"
        build_tree(sys)
        sampler = Sampler(
            sys_root=sys,
            proc_root="/proc",
            state_dir=str(Path(tmp) / "state"),
            config=SamplerConfig(raw_min_spread_w=0.0) if raw_always else SamplerConfig(),
            nvml_loader=lambda: None,
        )
        sampler.start(emit)
        time.sleep(warmup)
        measuring.set()
        c0, t0 = cpu_s(), time.monotonic()
        time.sleep(seconds)
        c1, t1 = cpu_s(), time.monotonic()
        measuring.clear()
        threads = threading.active_count()
        sampler.stop()
    wall = t1 - t0
    return {
        "seconds": round(wall, 1),
        "cpu_pct_one_core": round(100 * (c1 - c0) / wall, 2),
        "rss_mib": round(rss_kib() / 1024, 1),
        "rss_peak_mib": round(rss_kib("VmHWM") / 1024, 1),
        "threads": threads,
        "records_per_s": round(sum(counts.values()) / wall, 1),
        "json_bytes_per_hour_mib": round(sizes["json"] * 3600 / wall / (1 << 20), 1),
        "ring_bytes_per_hour_mib": round(sizes["ring"] * 3600 / wall / (1 << 20), 1),
        "records": dict(sorted(counts.items())),
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="telemetry_bench")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--raw-always",
        action="store_true",
        help="keep every second's raw power reads (the worst case for bytes: power that never "
        "holds still within 1 W)",
    )
    args = parser.parse_args(argv)
    print(json.dumps(run(args.seconds, raw_always=args.raw_always), indent=2))


if __name__ == "__main__":
    import sys as _sys

    main(_sys.argv[1:])
