"""Memory figures: /proc/meminfo, /proc/pressure/*, and who holds the memory.

A memory-exhaustion hang (docs/incidents.md, the unified-memory hang) must name its holders,
GPU-pinned memory included, which RSS does not show: amdgpu reports per-client memory in
/proc/<pid>/fdinfo/<fd>, read by sensors/fdinfo.py.
Parsers are pure; `MemoryReader` keeps /proc/meminfo and PSI files open and preads them.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from kmsgd.ring.samples import MemoryHolder, MemorySample, ProcsSample
from kmsgd.sensors.attrfiles import KeptFile, ReadFailed, read_small
from kmsgd.sensors.fdinfo import drm_clients

PSI_RESOURCES = ("memory", "cpu", "io")
_MEMINFO_KEYS = {
    b"MemTotal": "mem_total_bytes",
    b"MemAvailable": "mem_available_bytes",
    b"SwapTotal": "swap_total_bytes",
    b"SwapFree": "swap_free_bytes",
}


def parse_meminfo(raw: bytes) -> dict[str, int]:
    """The four figures we keep from /proc/meminfo, in bytes; garbage lines are skipped."""
    out = {}
    for line in raw.splitlines():
        name, _, rest = line.partition(b":")
        key = _MEMINFO_KEYS.get(name)
        if key is None:
            continue
        parts = rest.split()
        try:
            out[key] = int(parts[0]) * (1024 if parts[1:2] == [b"kB"] else 1)
        except (ValueError, IndexError):
            continue
    return out


def parse_psi(resource: str, raw: bytes) -> dict[str, float]:
    """`some avg10=1.23 ... total=456` lines -> {"memory.some_avg10_pct": 1.23, ...}."""
    out: dict[str, float] = {}
    for line in raw.splitlines():
        fields = line.split()
        if not fields or fields[0] not in (b"some", b"full"):
            continue
        kind = fields[0].decode()
        for item in fields[1:]:
            name, _, value = item.partition(b"=")
            try:
                if name == b"avg10":
                    out[f"{resource}.{kind}_avg10_pct"] = float(value)
                elif name == b"total":
                    out[f"{resource}.{kind}_total_us"] = int(value)
            except ValueError:
                continue
    return out


def parse_statm_rss(raw: bytes, page_size: int) -> int | None:
    """Resident bytes from /proc/<pid>/statm (second field, in pages)."""
    fields = raw.split()
    try:
        return int(fields[1]) * page_size
    except (ValueError, IndexError):
        return None


class MemoryReader:
    """meminfo and PSI through kept-open files; a missing PSI (CONFIG_PSI=n) is just absent."""

    def __init__(self, proc_root: Path) -> None:
        self.meminfo = KeptFile(os.path.join(proc_root, "meminfo"))
        self.psi = [(r, KeptFile(os.path.join(proc_root, "pressure", r))) for r in PSI_RESOURCES]

    def files(self) -> list[KeptFile]:
        return [self.meminfo, *(f for _, f in self.psi)]

    def close(self) -> None:
        for f in self.files():
            f.close()


def memory_sample(mono_us: int, meminfo: bytes | None, psi: Mapping[str, bytes]) -> MemorySample:
    """Build the record from what could be read (pure)."""
    mem = parse_meminfo(meminfo) if meminfo is not None else {}
    pressure: dict[str, float] = {}
    for resource, raw in psi.items():
        pressure.update(parse_psi(resource, raw))
    # "full" CPU pressure is undefined system-wide and always 0 (psi.rst): not worth a key
    pressure.pop("cpu.full_avg10_pct", None)
    pressure.pop("cpu.full_total_us", None)
    return MemorySample(
        mono_us=mono_us,
        mem_total_bytes=mem.get("mem_total_bytes"),
        mem_available_bytes=mem.get("mem_available_bytes"),
        swap_total_bytes=mem.get("swap_total_bytes"),
        swap_free_bytes=mem.get("swap_free_bytes"),
        psi=pressure,
    )


def gpu_memory_by_pid(proc_root: Path, pid: str) -> tuple[int, int, bool]:
    """(vram, gtt, has DRM fds) for a process's DRM fds, each DRM client counted once."""
    clients, has_drm = drm_clients(proc_root, pid)
    return (
        sum(c.vram for c in clients.values()),
        sum(c.gtt for c in clients.values()),
        has_drm,
    )


def scan_holders(
    proc_root: Path,
    top: int,
    nvml_by_pid: Mapping[int, int],
    drm_pids: set[str] | None = None,
    mark: Callable[[str], None] | None = None,
) -> tuple[ProcsSample, set[str]]:
    """The `top` processes by RSS + GPU memory, and the pids seen holding DRM fds.

    `drm_pids` limits the costly fd walk to pids known to hold DRM fds (None walks every
    process); processes that vanish between listing and reading are skipped. `mark` is told
    each process directory before it is read (the watchdog's view of a long scan).
    """
    page = os.sysconf("SC_PAGE_SIZE")
    found: set[str] = set()
    try:
        pids = [p for p in os.listdir(proc_root) if p.isdigit()]
    except OSError:
        return ProcsSample(mono_us=0), found
    rows: list[tuple[int, str, int, int, int]] = []
    for pid in pids:
        if mark is not None:
            mark(pid)
        raw = read_small(os.path.join(proc_root, pid, "statm"), 256)
        rss = parse_statm_rss(raw, page) if raw else None
        if rss is None:
            continue  # exited between listing and reading, or a kernel thread
        vram = gtt = 0
        if drm_pids is None or pid in drm_pids:
            vram, gtt, has_drm = gpu_memory_by_pid(proc_root, pid)
            if has_drm:
                found.add(pid)
        vram = max(vram, nvml_by_pid.get(int(pid), 0))
        rows.append((rss + vram + gtt, pid, rss, vram, gtt))
    best = heapq.nlargest(top, rows)
    holders = []
    for _, pid, rss, vram, gtt in best:
        comm_raw = read_small(os.path.join(proc_root, pid, "comm"), 64) or b"?"
        comm = comm_raw.strip(b"\x00\n ").decode("utf-8", "replace")
        holders.append(MemoryHolder(int(pid), comm, rss, vram, gtt))
    return ProcsSample(mono_us=0, top=tuple(holders), scanned=len(rows)), found


def read_kept(f: KeptFile) -> bytes | None:
    """A kept file's contents or None (for the memory worker's own loop)."""
    try:
        return f.read()
    except ReadFailed:
        return None
