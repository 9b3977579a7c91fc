"""Incidents of one boot, read back from the ring's `incident` records, with their findings.

The recorder (kmsgd/record/incident.py) writes per incident a `start` record, `trigger`
records for further triggers, snapshot records (`procs`, `gpus`, `sysrq`), `capture_blocked`
when a snapshot hung, and an `end` record unless the machine died first. This module turns
them into the report's `incidents` list: trigger, when it started and ended, what was
captured, and the few findings that matter (a task blocked in a driver call, a link trained
below its capability, AER counters climbing, a ring whose fences stopped, a GPU throttling).
Pure: entries in, JSON-able dicts out.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kmsgd.judge.stacks import HUNG, KernelStack
from kmsgd.ring.records import Entry, Kind

MAX_FINDINGS = 10
Stacks = Mapping[int, KernelStack]


def _iso(wall_us: int | None) -> str | None:
    if wall_us is None:
        return None
    return dt.datetime.fromtimestamp(wall_us / 1e6, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _gts(text: Any) -> float | None:
    """'16.0 GT/s PCIe' -> 16.0; '2.5 GT/s' -> 2.5; anything else None."""
    m = re.match(r"\s*([\d.]+)\s*GT/s", str(text or ""))
    return float(m.group(1)) if m else None


def _n(x: float) -> str:
    return f"{x:g}"


def incidents(
    entries: Sequence[Entry], hung_lines: Sequence[str] = (), stacks: Stacks | None = None
) -> list[dict[str, Any]]:
    """The report's `incidents`: one dict per incident of the boot, oldest first.

    `entries`: the boot's `incident` records (others are ignored); `hung_lines`: the boot's
    hung-task kernel lines, which say how long a task had been blocked; `stacks`: the stacks
    the kernel printed (judge/stacks.py), for tasks whose snapshot could not read its own."""
    return [_one(group, hung_lines, stacks or {}) for group in _groups(entries)]


def _groups(entries: Sequence[Entry]) -> list[list[Entry]]:
    """The incident records grouped per incident, in the order the incidents started. Each
    recorder process numbers its incidents from 1, and systemd may restart it within a boot:
    a second `start` of a number begins a new incident, which its later records join."""
    groups: list[list[Entry]] = []
    current: dict[int, list[Entry]] = {}  # number -> the latest incident of that number
    for e in sorted(entries, key=lambda e: e.serial):
        if e.kind is not Kind.INCIDENT or not isinstance(e.data, dict):
            continue
        number = e.data.get("incident")
        if not isinstance(number, int):
            continue
        if number not in current or e.data.get("record") == "start":
            current[number] = []
            groups.append(current[number])
        current[number].append(e)
    return groups


def _one(group: list[Entry], hung_lines: Sequence[str], stacks: Stacks) -> dict[str, Any]:
    by = _by_record(group)
    start = by.get("start", [None])[0]
    end = by.get("end", [None])[-1]
    s = start.data if start is not None and isinstance(start.data, dict) else {}
    e = end.data if end is not None and isinstance(end.data, dict) else {}
    procs = [x for x in by.get("procs", []) if isinstance(x.data, dict)]
    gpus = [x for x in by.get("gpus", []) if isinstance(x.data, dict)]
    captured: dict[str, Any] = dict(e.get("captured") or {})
    captured.setdefault("procs", len(procs))
    captured.setdefault("gpus", len(gpus))
    sysrq = [x.data for x in by.get("sysrq", []) if isinstance(x.data, dict)]
    if sysrq:
        captured["sysrq"] = {k: v for k, v in sysrq[0].items() if len(k) == 1}
    blocked = [x.data for x in by.get("capture_blocked", []) if isinstance(x.data, dict)]
    first_wall = group[0].wall_us
    stuck = _blocked(procs, hung_lines, stacks)
    findings = [
        *(str(b) for b in stuck),
        *_links(gpus),
        *_gpu_state(gpus),
        *_top_gpu_holder(procs),
        *(
            f"snapshot {b.get('capture')} blocked {b.get('blocked_s')} s reading {b.get('path')}"
            for b in blocked
        ),
    ]
    if e.get("reason") == "budget":
        findings.append("capture stopped at the byte budget")
    lead = _lead(s, by.get("trigger", []))
    return {
        "trigger": lead.get("trigger") or e.get("trigger") or "",
        "class": lead.get("class") or e.get("class") or "",
        "line": lead.get("line") or e.get("line") or "",
        "started_by": s.get("trigger") or "",
        "started": _iso(start.wall_us if start is not None else first_wall),
        "ended": _iso(end.wall_us) if end is not None else None,
        "end_reason": e.get("reason") if end is not None else "boot ended during the incident",
        "duration_s": e.get("duration_s")
        if end is not None
        else round((group[-1].wall_us - first_wall) / 1e6, 1),
        "triggers": e.get("triggers") or 1 + len(by.get("trigger", [])),
        "other_triggers": sorted(
            {
                str(x.get("trigger"))
                for x in (s, *(t.data for t in by.get("trigger", []) if isinstance(t.data, dict)))
                if x.get("trigger") and x.get("trigger") != lead.get("trigger")
            }
        )[:8],
        "captured": captured,
        "findings": findings[:MAX_FINDINGS],
        "blocked": [dataclasses.asdict(b) for b in stuck],
    }


def _lead(start: Mapping[str, Any], triggers: list[Entry]) -> Mapping[str, Any]:
    """The trigger an incident is named after: the one that started it, unless that was the
    recorder's own symptom (a late heartbeat, a slow sensor read: a loaded host shows them
    too) and the kernel then said what was wrong (a soft lockup, a hung task)."""
    if start.get("source") != "recorder":
        return start
    kernel = (t.data for t in triggers if isinstance(t.data, dict))
    return next((t for t in kernel if t.get("source") == "kernel"), start)


def _by_record(group: list[Entry]) -> dict[str, list[Entry]]:
    out: dict[str, list[Entry]] = {}
    for e in group:
        if isinstance(e.data, dict):
            out.setdefault(str(e.data.get("record")), []).append(e)
    return out


@dataclass(frozen=True, slots=True)
class Blocked:
    """Tasks an incident saw stuck in D state in one kernel function, until its last snapshot."""

    function: str
    tasks: int
    comm: str  # the task blocked longest
    pid: int | None
    seconds: float
    stack: tuple[str, ...] = ()  # its frames, innermost first
    stack_from: str = ""  # "proc" (/proc/PID/stack), "hung_task" or "sysrq" (the kernel log)

    def __str__(self) -> str:
        how_long = f" for {self.seconds:.0f} s" if self.seconds >= 1 else ""
        who = f"{self.comm} ({self.pid})"
        if self.tasks == 1:
            return f"{who} blocked in {self.function}{how_long}"
        return f"{self.tasks} tasks blocked in {self.function}, longest {who}{how_long}"


def blocked_calls(
    entries: Sequence[Entry], hung_lines: Sequence[str] = (), stacks: Stacks | None = None
) -> list[Blocked]:
    """The D-state pile-ups of a boot's last incident with process snapshots, most tasks
    first: a hang's strongest culprit when the kernel named none (the verdict uses it)."""
    for group in reversed(_groups(entries)):
        procs = _by_record(group).get("procs", [])
        if procs:
            return _blocked(procs, hung_lines, stacks or {})
    return []


def _with_stack(task: Mapping[str, Any], stacks: Stacks) -> tuple[str, tuple[str, ...], str]:
    """(function, stack, where the stack came from) of a snapshot's D-state task: its own
    /proc reads, else the stack the kernel printed for that thread (hung-task report, SysRq w)."""
    own = tuple(str(f) for f in task.get("stack") or [])
    printed = stacks.get(task["tid"]) or stacks.get(int(task.get("pid") or -1))
    fn = str(task.get("in") or "")
    if own:
        return fn, own, "proc"
    if printed is not None:
        return fn or printed.function, printed.frames, printed.source
    return fn, (), ""


def _blocked(procs: list[Entry], hung_lines: Sequence[str], stacks: Stacks) -> list[Blocked]:
    """The tasks in D state until the last snapshot, grouped by the function they wait in:
    "llama-server (4321) blocked in amdgpu_fence_wait_timeout for 118 s"."""
    if not procs:
        return []
    seen: dict[int, tuple[int, Mapping[str, Any]]] = {}  # tid -> (first wall, task)
    last_wall = procs[-1].wall_us
    for p in procs:
        for t in p.data.get("blocked") or [] if isinstance(p.data, dict) else []:
            if isinstance(t, dict) and isinstance(t.get("tid"), int):
                first = seen.get(t["tid"], (p.wall_us, t))[0]
                seen[t["tid"]] = (first, t)
    last_tids = {
        t.get("tid")
        for t in (procs[-1].data.get("blocked") or [] if isinstance(procs[-1].data, dict) else [])
        if isinstance(t, dict)
    }
    hung: dict[int, int] = {}
    for line in hung_lines:
        m = HUNG.search(line)
        if m:
            hung[int(m.group("pid"))] = max(hung.get(int(m.group("pid")), 0), int(m.group("s")))
    by_fn: dict[str, list[tuple[Mapping[str, Any], float, tuple[str, ...], str]]] = {}
    for tid, (first, task) in seen.items():
        if tid not in last_tids and len(procs) > 1:
            continue  # it moved on: not stuck
        span = (last_wall - first) / 1e6
        span = max(span, float(hung.get(tid, 0)), float(hung.get(int(task.get("pid") or 0), 0)))
        fn, stack, source = _with_stack(task, stacks)
        by_fn.setdefault(fn or "?", []).append((task, span, stack, source))
    out = []
    for fn, tasks in sorted(by_fn.items(), key=lambda kv: -len(kv[1])):
        tasks.sort(key=lambda ts: -ts[1])
        task, span, stack, source = tasks[0]
        pid = task.get("pid")
        out.append(
            Blocked(
                fn,
                len(tasks),
                str(task.get("comm")),
                pid if isinstance(pid, int) else None,
                span,
                stack,
                source,
            )
        )
    return out[:4]


def _links(gpus: list[Entry]) -> list[str]:
    """Links below capability, and AER counters that climbed between two snapshots."""
    if not gpus:
        return []
    out: list[str] = []
    first = _hops(gpus[0])
    for dev, hop in first.items():
        cur, cap = _gts(hop.get("current_link_speed")), _gts(hop.get("max_link_speed"))
        w, wmax = hop.get("current_link_width"), hop.get("max_link_width")
        slow = cur is not None and cap is not None and cur < cap
        narrow = isinstance(w, int) and isinstance(wmax, int) and w < wmax
        if slow or narrow:
            out.append(
                f"{dev} link {_n(cur or 0)} GT/s x{w}, capable of {_n(cap or 0)} GT/s x{wmax}"
            )
        for kind in ("nonfatal", "fatal"):
            total = (hop.get(f"aer_{kind}") or {}).get(f"TOTAL_ERR_{kind.upper()}")
            if total:
                out.append(f"{dev} AER {kind} errors: {total:,}")
    if len(gpus) > 1:
        last = _hops(gpus[-1])
        span = (gpus[-1].wall_us - gpus[0].wall_us) / 1e6
        for dev, hop in last.items():
            before = (first.get(dev, {}).get("aer_correctable") or {}).get("TOTAL_ERR_COR")
            after = (hop.get("aer_correctable") or {}).get("TOTAL_ERR_COR")
            if isinstance(before, int) and isinstance(after, int) and after > before:
                out.append(f"{dev} AER correctable +{after - before:,} in {span:.0f} s")
    return out


def _hops(snap: Entry) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    data = snap.data if isinstance(snap.data, dict) else {}
    for gpu in data.get("gpus") or []:
        for hop in gpu.get("link") or [] if isinstance(gpu, dict) else []:
            if isinstance(hop, dict) and hop.get("device"):
                out.setdefault(str(hop["device"]), hop)
    return out


def _gpu_state(gpus: list[Entry]) -> list[str]:
    """Throttling, stuck rings, suspended devices: from the last GPU snapshot."""
    if not gpus:
        return []
    out: list[str] = []
    data = gpus[-1].data if isinstance(gpus[-1].data, dict) else {}
    for gpu in data.get("gpus") or []:
        if not isinstance(gpu, dict):
            continue
        dev = gpu.get("device", "?")
        m = gpu.get("gpu_metrics") or {}
        if m.get("throttling"):
            temp = m.get("temperature_hotspot_c")
            power = m.get("socket_power_w")
            extra = ", ".join(
                x
                for x in (
                    f"hotspot {temp} °C" if temp is not None else "",
                    f"{power} W" if power is not None else "",
                )
                if x
            )
            out.append(
                f"{dev} throttling: {', '.join(m['throttling'])}" + (f" ({extra})" if extra else "")
            )
        for ring in gpu.get("fences") or []:
            sig, emit = ring.get("signaled"), ring.get("emitted")
            if isinstance(sig, int) and isinstance(emit, int) and emit > sig:
                out.append(
                    f"{dev} ring {ring.get('ring')} behind: signaled {sig:#x}, emitted {emit:#x}"
                )
        status = (gpu.get("link") or [{}])[0].get("runtime_status")
        if status in ("suspended", "error"):
            out.append(f"{dev} runtime PM {status}")
        nv = gpu.get("nvml") or {}
        if nv.get("throttle_reasons"):
            out.append(f"{dev} NVML throttle reasons {nv['throttle_reasons']:#x}")
        if nv.get("pcie_replay_counter"):
            out.append(f"{dev} PCIe replay counter {nv['pcie_replay_counter']:,}")
    return out


def _top_gpu_holder(procs: list[Entry]) -> list[str]:
    if not procs or not isinstance(procs[0].data, dict):
        return []
    top = procs[0].data.get("top_gpu") or []
    if not top or not isinstance(top[0], dict):
        return []
    t = top[0]
    gib = (t.get("gpu_bytes") or 0) / (1 << 30)
    return [f"{t.get('comm')} ({t.get('pid')}) held {gib:.1f} GiB of GPU memory"] if gib else []
