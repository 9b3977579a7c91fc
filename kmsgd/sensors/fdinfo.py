"""GPU memory per DRM client, from /proc/<pid>/fdinfo/<fd>: the one parser of it.

Documentation/gpu/drm-usage-stats.rst: `drm-client-id` names a client (a process may hold
several fds of one client: it counts once), `drm-driver` the driver, and memory comes as
`drm-<stat>-<region>: <n>[ KiB| MiB]` with stat `total`, `shared`, `resident`, `purgeable`,
`active` (drm_print_memory_stats, drivers/gpu/drm/drm_file.c, 6.4+), or the older
`drm-memory-<region>` that amdgpu printed since 5.19 and keeps as an alias
(drivers/gpu/drm/amd/amdgpu/amdgpu_fdinfo.c), beside its own `amd-*` keys
(`amd-memory-visible-vram`, `amd-evicted-*`, `amd-requested-*`). Region names are the
driver's: amdgpu `vram`/`gtt`/`cpu`, xe `vram0`/`gtt`/`system`/`stolen`, i915
`local0`/`system0`/`stolen-system0`. The proprietary and open NVIDIA drivers publish no DRM
memory keys: their per-process memory comes from NVML (sensors/nvml.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kmsgd.sensors.attrfiles import read_small

_UNITS = {"": 1, "B": 1, "KiB": 1024, "kB": 1024, "MiB": 1 << 20, "GiB": 1 << 30}
_MEMORY_KEY = re.compile(r"^(?:drm-(?:memory|total|resident)|amd-(?:memory|requested))-\S+$")
# Keys whose figure is memory a client holds in a region now (not shared/purgeable subsets,
# not amdgpu's "requested" placement): the largest of them is the client's hold.
_HELD = re.compile(r"^drm-(?:memory|total|resident)-(?P<region>\S+)$")
_DEVICE_LOCAL = re.compile(r"^(?:vram|local)\d*$")  # memory on the card
_SYSTEM_MAPPED = re.compile(r"^(?:gtt|system)\d*$")  # system memory mapped for the GPU
FDINFO_LIMIT = 16384


@dataclass(frozen=True, slots=True)
class DrmClient:
    """One DRM client's memory keys in bytes, as its fdinfo has them."""

    client_id: str
    driver: str
    memory: Mapping[str, int]

    def held(self, region: re.Pattern[str]) -> int:
        """Bytes held in the regions `region` matches, each region by its largest figure."""
        best: dict[str, int] = {}
        for key, value in self.memory.items():
            m = _HELD.match(key)
            if m and region.match(m["region"]):
                best[m["region"]] = max(best.get(m["region"], 0), value)
        return sum(best.values())

    @property
    def vram(self) -> int:
        return self.held(_DEVICE_LOCAL)

    @property
    def gtt(self) -> int:
        return self.held(_SYSTEM_MAPPED)


def parse_fdinfo(raw: bytes) -> DrmClient | None:
    """The DRM client of one fd's fdinfo; None for an fd that is not a DRM client's."""
    client = driver = ""
    memory: dict[str, int] = {}
    for line in raw.decode("ascii", "replace").splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip()
        if key == "drm-client-id":
            client = value.strip()
        elif key == "drm-driver":
            driver = value.strip()
        elif _MEMORY_KEY.match(key):
            parts = value.split()
            try:
                memory[key] = int(parts[0]) * _UNITS[parts[1] if len(parts) > 1 else ""]
            except (ValueError, IndexError, KeyError):
                continue
    return DrmClient(client, driver, memory) if client else None


def drm_clients(
    proc_root: Path, pid: str, mark: Callable[[str], None] | None = None
) -> tuple[dict[str, DrmClient], bool]:
    """A process's DRM clients by id (each once, however many fds it holds) and whether it
    holds any DRM fd at all. `mark` is told each fdinfo path before it is read."""
    fd_dir = os.path.join(proc_root, pid, "fd")
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return {}, False
    clients: dict[str, DrmClient] = {}
    has_drm = False
    for fd in fds:
        try:
            if not os.readlink(os.path.join(fd_dir, fd)).startswith("/dev/dri/"):
                continue
        except OSError:
            continue
        has_drm = True
        path = os.path.join(proc_root, pid, "fdinfo", fd)
        if mark is not None:
            mark(path)
        raw = read_small(path, FDINFO_LIMIT)
        parsed = parse_fdinfo(raw) if raw else None
        if parsed is not None:
            clients[parsed.client_id] = parsed
    return clients, has_drm
