"""Incident snapshots: who holds memory, which tasks are stuck and where, and the GPUs' links.

Read-only, no fork or exec (a box out of memory cannot fork): every value comes from a file
under the roots given. Parsers are pure; `snapshot_procs` and `snapshot_gpus` walk the trees
and announce each path to `mark` before reading it, so the caller's timeout can say which
read blocked. Sources:

- /proc/<pid>/task/<tid>/stat (state `D`), `wchan`, `stack` (proc(5); the stack needs root);
- /proc/<pid>/fdinfo/<fd> of DRM fds: `drm-memory-*`, `drm-total-*`, `drm-resident-*`
  (Documentation/gpu/drm-usage-stats.rst) and amdgpu's own `amd-memory-*`/`amd-requested-*`
  (drivers/gpu/drm/amd/amdgpu/amdgpu_fdinfo.c);
- PCI: `current_link_speed`/`_width`, `max_link_*` (Documentation/ABI/testing/sysfs-bus-pci),
  `aer_dev_correctable`/`_nonfatal`/`_fatal` (Documentation/ABI/testing/sysfs-bus-pci-devices-aer),
  `power/runtime_status` (Documentation/ABI/testing/sysfs-devices-power);
- amdgpu `gpu_metrics` (binary, decoded by `gpu_metrics.py`) and debugfs `amdgpu_fence_info`.
"""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kmsgd.sensors.gpu_metrics import decode_gpu_metrics
from kmsgd.sensors.reader import parse_text, read_small

Mark = Callable[[str], None]
MAX_TASKS = 20_000  # tasks looked at per snapshot (a bound on a huge box)
MAX_BLOCKED = 32  # D-state tasks kept with their stacks
MAX_FRAMES = 16
TOP = 8
_UNITS = {"": 1, "B": 1, "KiB": 1024, "kB": 1024, "MiB": 1 << 20, "GiB": 1 << 30}
_GPU_MEM_KEY = re.compile(r"^(?:drm-(?:memory|total|resident)|amd-(?:memory|requested))-\S+$")
# frames that say "waiting", not what for (kernel/sched/core.c, kernel/time/sleep_timeout.c)
_SCHED = re.compile(
    r"^(?:__)?(?:schedule|io_schedule|schedule_timeout|schedule_hrtimeout|schedule_preempt"
    r"|preempt_schedule|do_wait|wait_for_completion|rwsem_down|percpu_rwsem_wait"
    r"|__mutex_lock|mutex_lock|down_read|down_write|dma_fence_default_wait|dma_fence_wait"
    r"|ret_from_fork|entry_SYSCALL|do_syscall|x64_sys_call|__x64_sys)"
)


def _noop(_path: str) -> None:
    return None


def parse_stat(raw: bytes) -> tuple[str, str] | None:
    """(comm, state letter) of /proc/<pid>/stat; comm may hold spaces and parentheses."""
    text = raw.decode("utf-8", "replace")
    open_, close = text.find("("), text.rfind(")")
    if open_ < 0 or close < open_:
        return None
    rest = text[close + 1 :].split()
    return (text[open_ + 1 : close], rest[0]) if rest else None


def parse_stack(raw: bytes) -> list[str]:
    """`[<0>] amdgpu_fence_wait_timeout+0x1a/0x40 [amdgpu]` lines -> the frames, in order."""
    frames = []
    for line in raw.decode("ascii", "replace").splitlines():
        frame = line.split("] ", 1)[1] if line.startswith("[<") and "] " in line else line
        if frame.strip():
            frames.append(frame.strip())
    return frames[:MAX_FRAMES]


def blocked_in(wchan: str, frames: Iterable[str]) -> str:
    """The function a task waits in: wchan when the kernel gives one, else the first frame of
    its stack that is not the scheduler itself."""
    if wchan and wchan not in ("0", "-"):
        return wchan
    for frame in frames:
        name = frame.split("+", 1)[0]
        if not _SCHED.match(name):
            return name
    return ""


def parse_fdinfo_memory(raw: bytes) -> tuple[str, str, dict[str, int]] | None:
    """(client id, driver, {key: bytes}) of a DRM fd's fdinfo; None when it is not one."""
    client = driver = ""
    mem: dict[str, int] = {}
    for line in raw.decode("ascii", "replace").splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip()
        if key == "drm-client-id":
            client = value.strip()
        elif key == "drm-driver":
            driver = value.strip()
        elif _GPU_MEM_KEY.match(key):
            parts = value.split()
            try:
                mem[key] = int(parts[0]) * _UNITS.get(parts[1] if len(parts) > 1 else "", 1)
            except (ValueError, IndexError):
                continue
    return (client, driver, mem) if client else None


def gpu_bytes(mem: Mapping[str, int]) -> int:
    """One client's GPU memory: VRAM plus GTT, from the best keys it has (drm-total-* on
    newer kernels, drm-memory-* on older, amd-memory-* on amdgpu before drm-usage-stats)."""
    for prefix in ("drm-total-", "drm-memory-", "amd-memory-"):
        found = [v for k, v in mem.items() if k.startswith(prefix) and k[len(prefix) :] in _GPU]
        if found:
            return sum(found)
    return 0


_GPU = ("vram", "gtt", "visible-vram")


def parse_aer(raw: bytes) -> dict[str, int]:
    """`RxErr 0\\nBadTLP 3\\n...\\nTOTAL_ERR_COR 3` -> {name: count}."""
    out = {}
    for line in parse_text(raw).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out


def parse_fence_info(text: str) -> list[dict[str, Any]]:
    """amdgpu_fence_info (amdgpu_fence.c amdgpu_debugfs_fence_info_show): per ring, the last
    signaled and emitted fence; a ring whose emitted runs ahead of signaled has work pending
    (stuck, when it stays so)."""
    rings: list[dict[str, Any]] = []
    ring: dict[str, Any] | None = None
    head = re.compile(r"--- ring (\d+) \((\S+)\) ---")
    for line in text.splitlines():
        m = head.search(line)
        if m:
            ring = {"ring": m.group(2)}
            rings.append(ring)
            continue
        if ring is None:
            continue
        words = line.split()
        if not words or not words[-1].startswith("0x"):
            continue
        try:
            value = int(words[-1], 16)
        except ValueError:
            continue
        if line.startswith("Last signaled fence") and "signaled" not in ring:
            ring["signaled"] = value
        elif line.startswith("Last emitted") and "emitted" not in ring:
            ring["emitted"] = value
    return rings[:64]


def read_tasks(proc_root: str, mark: Mark) -> Iterable[tuple[str, str, str, str]]:
    """(pid, tid, comm, state) of every task, bounded by MAX_TASKS; vanished ones skipped."""
    try:
        pids = [p for p in os.listdir(proc_root) if p.isdigit()]
    except OSError:
        return
    seen = 0
    for pid in pids:
        task_dir = os.path.join(proc_root, pid, "task")
        try:
            tids = [t for t in os.listdir(task_dir) if t.isdigit()]
        except OSError:
            tids = [pid]
            task_dir = os.path.join(proc_root, pid, "task")
        for tid in tids:
            seen += 1
            if seen > MAX_TASKS:
                return
            path = os.path.join(task_dir, tid, "stat")
            mark(path)
            raw = read_small(path, 1024)
            if raw is None and tid == pid:  # a tree without task/ (tests, old kernels)
                path = os.path.join(proc_root, pid, "stat")
                raw = read_small(path, 1024)
            parsed = parse_stat(raw) if raw else None
            if parsed is not None:
                yield pid, tid, parsed[0], parsed[1]


def _task_file(proc_root: str, pid: str, tid: str, name: str, mark: Mark, limit: int) -> bytes:
    for path in (
        os.path.join(proc_root, pid, "task", tid, name),
        os.path.join(proc_root, pid, name),
    ):
        mark(path)
        raw = read_small(path, limit)
        if raw is not None:
            return raw
    return b""


def snapshot_procs(
    proc_root: str,
    nvml_by_pid: Mapping[int, int] | None = None,
    mark: Mark = _noop,
    top: int = TOP,
) -> dict[str, Any]:
    """The `procs` incident snapshot: load, D-state tasks with stack and wchan, the top RAM
    holders and the top GPU memory holders (DRM fdinfo and NVML). Pure reads."""
    mark(os.path.join(proc_root, "loadavg"))
    load = parse_text(read_small(os.path.join(proc_root, "loadavg"), 256) or b"").split()
    blocked: list[dict[str, Any]] = []
    states: dict[str, int] = {}
    tasks = 0
    for pid, tid, comm, state in read_tasks(proc_root, mark):
        tasks += 1
        states[state] = states.get(state, 0) + 1
        if state != "D" or len(blocked) >= MAX_BLOCKED:
            continue
        wchan = parse_text(_task_file(proc_root, pid, tid, "wchan", mark, 256))
        frames = parse_stack(_task_file(proc_root, pid, tid, "stack", mark, 8192))
        blocked.append(
            {
                "pid": int(pid),
                "tid": int(tid),
                "comm": comm,
                "wchan": wchan,
                "in": blocked_in(wchan, frames),
                "stack": frames,
            }
        )
    ram, gpu = _holders(proc_root, nvml_by_pid or {}, mark, top)
    return {
        "record": "procs",
        "load": [float(x) for x in load[:3] if _is_float(x)],
        "tasks": tasks,
        "states": states,
        "blocked": blocked,
        "top_ram": ram,
        "top_gpu": gpu,
    }


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _holders(
    proc_root: str, nvml_by_pid: Mapping[int, int], mark: Mark, top: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    page = os.sysconf("SC_PAGE_SIZE")
    rss_rows: list[tuple[int, str]] = []
    gpu_rows: list[tuple[int, str, dict[str, int]]] = []
    try:
        pids = [p for p in os.listdir(proc_root) if p.isdigit()]
    except OSError:
        return [], []
    for pid in pids:
        path = os.path.join(proc_root, pid, "statm")
        mark(path)
        raw = read_small(path, 256)
        fields = raw.split() if raw else []
        if len(fields) > 1 and fields[1].isdigit():
            rss_rows.append((int(fields[1]) * page, pid))
        mem = _drm_memory(proc_root, pid, mark)
        nv = nvml_by_pid.get(int(pid), 0)
        if nv:
            mem["nvml-used"] = nv
        total = gpu_bytes(mem) + nv
        if total:
            gpu_rows.append((total, pid, mem))

    def comm(pid: str) -> str:
        raw = read_small(os.path.join(proc_root, pid, "comm"), 64) or b"?"
        return raw.strip(b"\x00\n ").decode("utf-8", "replace")

    ram = [
        {"pid": int(p), "comm": comm(p), "rss_bytes": b} for b, p in heapq.nlargest(top, rss_rows)
    ]
    gpu = [
        {"pid": int(p), "comm": comm(p), "gpu_bytes": b, "keys": m}
        for b, p, m in heapq.nlargest(top, gpu_rows, key=lambda r: r[0])
    ]
    return ram, gpu


def _drm_memory(proc_root: str, pid: str, mark: Mark) -> dict[str, int]:
    """A process's GPU memory keys summed over its DRM clients (each client once)."""
    fd_dir = os.path.join(proc_root, pid, "fd")
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return {}
    clients: dict[str, dict[str, int]] = {}
    for fd in fds:
        try:
            if not os.readlink(os.path.join(fd_dir, fd)).startswith("/dev/dri/"):
                continue
        except OSError:
            continue
        path = os.path.join(proc_root, pid, "fdinfo", fd)
        mark(path)
        raw = read_small(path, 16384)
        parsed = parse_fdinfo_memory(raw) if raw else None
        if parsed is not None:
            clients[parsed[0]] = parsed[2]
    total: dict[str, int] = {}
    for mem in clients.values():
        for key, value in mem.items():
            total[key] = total.get(key, 0) + value
    return total


# -- GPUs and their links ---------------------------------------------------------------------

_PCI_ADDR = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
LINK_HOPS = 4  # the GPU and the bridges above it (a Navi card has its own switch inside)


def pci_state(device_path: str, mark: Mark = _noop) -> dict[str, Any]:
    """Link, AER counters and runtime PM of one PCI device (absent files left out)."""
    out: dict[str, Any] = {"device": os.path.basename(device_path)}
    for name in ("current_link_speed", "max_link_speed"):
        mark(os.path.join(device_path, name))
        text = parse_text(read_small(os.path.join(device_path, name)) or b"")
        if text:
            out[name] = text
    for name in ("current_link_width", "max_link_width"):
        mark(os.path.join(device_path, name))
        text = parse_text(read_small(os.path.join(device_path, name)) or b"")
        if text.isdigit():
            out[name] = int(text)
    for kind in ("correctable", "nonfatal", "fatal"):
        path = os.path.join(device_path, f"aer_dev_{kind}")
        mark(path)
        raw = read_small(path)
        if raw is not None:
            counts = parse_aer(raw)
            keep = {k: v for k, v in counts.items() if v or k.startswith("TOTAL")}
            out[f"aer_{kind}"] = keep
    for name in ("runtime_status", "control"):
        path = os.path.join(device_path, "power", name)
        mark(path)
        text = parse_text(read_small(path) or b"")
        if text:
            out[f"runtime_pm_{name}" if name == "control" else name] = text
    path = os.path.join(device_path, "power_state")
    text = parse_text(read_small(path) or b"")
    if text:
        out["power_state"] = text
    return out


def link_chain(device_path: str, mark: Mark = _noop) -> list[dict[str, Any]]:
    """The GPU's PCI device and the PCI bridges above it, nearest first."""
    hops: list[dict[str, Any]] = []
    path = os.path.realpath(device_path)
    while len(hops) < LINK_HOPS and _PCI_ADDR.match(os.path.basename(path)):
        hops.append(pci_state(path, mark))
        path = os.path.dirname(path)
    return hops


def snapshot_gpus(
    sys_root: str,
    debugfs_root: str | None = None,
    nvml_gpus: Iterable[tuple[str, Any, Any]] = (),
    mark: Mark = _noop,
) -> dict[str, Any]:
    """The `gpus` incident snapshot: per DRM card, its link chain with AER counters, runtime
    PM, decoded gpu_metrics and (when debugfs is readable) amdgpu_fence_info; per NVIDIA GPU
    (`(pci address, binding, handle)`), clocks, throttle reasons and the PCIe replay counter."""
    gpus: list[dict[str, Any]] = []
    base = os.path.join(sys_root, "class", "drm")
    try:
        cards = sorted(n for n in os.listdir(base) if re.fullmatch(r"card\d+", n))
    except OSError:
        cards = []
    for card in cards:
        dev = os.path.join(base, card, "device")
        if not os.path.exists(dev):
            continue
        real = os.path.realpath(dev)
        entry: dict[str, Any] = {"card": card, "device": os.path.basename(real)}
        driver = os.path.join(real, "driver")
        if os.path.islink(driver):
            entry["driver"] = os.path.basename(os.readlink(driver))
        entry["link"] = link_chain(real, mark)
        path = os.path.join(real, "gpu_metrics")
        mark(path)
        raw = read_small(path, 8192)
        if raw:
            entry["gpu_metrics"] = decode_gpu_metrics(raw)
        if debugfs_root:
            fence = os.path.join(
                debugfs_root, "dri", card.removeprefix("card"), "amdgpu_fence_info"
            )
            mark(fence)
            text = read_small(fence, 65536)
            if text:
                entry["fences"] = parse_fence_info(text.decode("ascii", "replace"))
        gpus.append(entry)
    for device, binding, handle in nvml_gpus:
        mark(f"nvml:{device}")
        gpus.append({"device": device, "driver": "nvidia", "nvml": nvml_state(binding, handle)})
    return {"record": "gpus", "gpus": gpus}


NVML_CLOCKS = (("graphics", 0), ("sm", 1), ("mem", 2))


def nvml_state(nvml: Any, handle: Any) -> dict[str, Any]:
    """Clocks (MHz), throttle reasons (bit mask), PCIe link and replay counter through NVML;
    every call that fails (or that this driver lacks) is left out."""
    out: dict[str, Any] = {}

    def get(key: str, name: str, *args: Any) -> None:
        fn = getattr(nvml, name, None)
        if fn is None:
            return
        try:
            out[key] = int(fn(handle, *args))
        except Exception:  # NotSupported, GpuIsLost: the gap says as much
            return

    for label, clock in NVML_CLOCKS:
        get(f"{label}_clock_mhz", "nvmlDeviceGetClockInfo", clock)
    get("throttle_reasons", "nvmlDeviceGetCurrentClocksEventReasons")
    if "throttle_reasons" not in out:
        get("throttle_reasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
    get("pcie_replay_counter", "nvmlDeviceGetPcieReplayCounter")
    get("pcie_gen", "nvmlDeviceGetCurrPcieLinkGeneration")
    get("pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration")
    get("pcie_width", "nvmlDeviceGetCurrPcieLinkWidth")
    get("pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth")
    return out
