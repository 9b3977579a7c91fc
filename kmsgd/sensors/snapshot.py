"""The `procs` incident snapshot: who holds memory, which tasks are stuck and where.

Read-only, no fork or exec (a box out of memory cannot fork): every value comes from a file
under the root given. Parsers are pure; `snapshot_procs` walks the tree and announces each
path to `mark` before reading it, so the caller's timeout can say which read blocked. The
GPUs' and links' snapshot is in gpu_snapshot.py. Sources:

- /proc/<pid>/task/<tid>/stat (state `D`), `wchan`, `stack` (proc(5); the stack needs root);
- /proc/<pid>/fdinfo/<fd> of DRM fds, read by sensors/fdinfo.py (the same figures as the
  1 Hz holder sample).
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from kmsgd.sensors.attrfiles import parse_text, read_small
from kmsgd.sensors.fdinfo import drm_clients
from kmsgd.types import waiting_in

Mark = Callable[[str], None]
MAX_TASKS = 20_000  # tasks looked at per snapshot (a bound on a huge box)
MAX_BLOCKED = 32  # D-state tasks kept with their stacks
MAX_FRAMES = 16
TOP = 8


def noop(_path: str) -> None:
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
    return waiting_in(frames)


def read_tasks(proc_root: Path, mark: Mark) -> Iterable[tuple[str, str, str, str]]:
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


def _task_file(proc_root: Path, pid: str, tid: str, name: str, mark: Mark, limit: int) -> bytes:
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
    proc_root: Path,
    nvml_by_pid: Mapping[int, int] | None = None,
    mark: Mark = noop,
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
    proc_root: Path, nvml_by_pid: Mapping[int, int], mark: Mark, top: int
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
        clients, _ = drm_clients(proc_root, pid, mark)
        mem: dict[str, int] = {}
        for client in clients.values():
            for key, value in client.memory.items():
                mem[key] = mem.get(key, 0) + value
        nv = nvml_by_pid.get(int(pid), 0)
        if nv:
            mem["nvml-used"] = nv
        total = sum(c.vram + c.gtt for c in clients.values()) + nv
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
