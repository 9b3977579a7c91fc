"""The report's Incident section, as text and Markdown lines, and what each finding says
(`finding_text`: the words of the text, Markdown, HTML and JSON reports alike; the JSON is
report/render_json.py). The values come from kmsgd/judge/incidents.py."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kmsgd.catalogue.tags import Tag
from kmsgd.judge.incidents import (
    AerClimbing,
    AerErrors,
    Blocked,
    BudgetSpent,
    Finding,
    GpuMemoryHolder,
    Incident,
    NvmlCounter,
    RingBehind,
    RuntimePm,
    SlowLink,
    SnapshotBlocked,
    Throttling,
)


def _n(x: float) -> str:
    return f"{x:g}"


def finding_text(f: Finding) -> str:
    """One finding as one line: "llama-server (4321) blocked in amdgpu_fence_wait_timeout"."""
    match f:
        case Blocked():
            return str(f)
        case SlowLink():
            return (
                f"{f.device} link {_n(f.speed_gts)} GT/s x{f.width},"
                f" capable of {_n(f.max_speed_gts)} GT/s x{f.max_width}"
            )
        case AerErrors():
            return f"{f.device} AER {f.severity} errors: {f.total:,}"
        case AerClimbing():
            return f"{f.device} AER correctable +{f.added:,} in {f.span_s:.0f} s"
        case Throttling():
            extra = ", ".join(
                x
                for x in (
                    f"hotspot {f.hotspot_c} °C" if f.hotspot_c is not None else "",
                    f"{f.power_w} W" if f.power_w is not None else "",
                )
                if x
            )
            return f"{f.device} throttling: {', '.join(f.reasons)}" + (
                f" ({extra})" if extra else ""
            )
        case RingBehind():
            return (
                f"{f.device} ring {f.ring} behind: signaled {f.signaled:#x}, emitted {f.emitted:#x}"
            )
        case RuntimePm():
            return f"{f.device} runtime PM {f.status}"
        case NvmlCounter() if f.counter == NvmlCounter.THROTTLE:
            return f"{f.device} NVML throttle reasons {f.value:#x}"
        case NvmlCounter():
            return f"{f.device} PCIe replay counter {f.value:,}"
        case GpuMemoryHolder():
            return f"{f.comm} ({f.pid}) held {f.gib:.1f} GiB of GPU memory"
        case SnapshotBlocked():
            return f"snapshot {f.capture} blocked {f.blocked_s} s reading {f.path}"
        case BudgetSpent():
            return "capture stopped at the byte budget"


def _captured(c: Mapping[str, Any]) -> str:
    parts = []
    if c.get("durable_s"):
        parts.append(f"every record durable at once for {c['durable_s']} s")
    if c.get("boosted_s"):
        parts.append(f"fast sensors for {c['boosted_s']} s")
    for key, what in (("procs", "process"), ("gpus", "GPU/link")):
        if c.get(key):
            parts.append(f"{c[key]} {what} snapshot{'s' if c[key] != 1 else ''}")
    sysrq = c.get("sysrq")
    if isinstance(sysrq, dict):
        parts += [f"SysRq {k}: {v}" for k, v in sysrq.items()]
    if c.get("devcoredumps"):
        parts.append(f"{len(c['devcoredumps'])} GPU crash dump(s)")
    return "; ".join(parts) or "nothing"


def _head(i: Incident) -> str:
    ended = i.ended or f"never ({i.end_reason})"
    triggers: Any = i.triggers  # as the recorder wrote it: a count
    more = f", +{triggers - 1} more trigger(s)" if (triggers or 1) > 1 else ""
    by = i.started_by
    opened = f" (opened by {by})" if by and by != i.trigger else ""
    return f"{i.trigger} at {i.started}{opened}, ended {ended}{more}"


_FROM = {
    "proc": "/proc/PID/stack",
    Tag.HUNG_TASK: "the kernel's hung-task report",
    "sysrq": "SysRq w",
}
STACK_FRAMES = 8


def _stacks(i: Incident) -> list[str]:
    """ "stack of lab-writer (399), from SysRq w: schedule ← percpu_rwsem_wait ← …", the
    frames' function names, innermost first."""
    out = []
    for b in i.blocked:
        frames = [str(f).split("+", 1)[0] for f in b.stack]
        if frames:
            more = " ← …" if len(frames) > STACK_FRAMES else ""
            where = _FROM.get(b.stack_from, b.stack_from)
            out.append(
                f"stack of {b.comm} ({b.pid}), from {where}: "
                + " ← ".join(frames[:STACK_FRAMES])
                + more
            )
    return out


def incident_lines(incidents: Sequence[Incident]) -> list[str]:
    """Plain lines, indented by the caller."""
    out: list[str] = []
    for n, i in enumerate(incidents, 1):
        out.append(f"#{n} {_head(i)}")
        if i.line:
            out.append(f"   trigger: {i.line}")
        out += [f"   - {finding_text(f)}" for f in i.findings]
        out += [f"   {s}" for s in _stacks(i)]
        out.append(f"   captured: {_captured(i.captured)}")
    return out


def incident_md(incidents: Sequence[Incident], esc: Any) -> list[str]:
    """Markdown lines; `esc` escapes free text (render.py's _md_text)."""
    out: list[str] = []
    for n, i in enumerate(incidents, 1):
        out.append(f"{n}. **{esc(str(i.trigger))}** {esc(_head(i).split(' ', 1)[1])}")
        if i.line:
            out.append(f"   - trigger: `{str(i.line).replace('`', chr(39))}`")
        out += [f"   - {esc(finding_text(f))}" for f in i.findings]
        out += [f"   - {esc(s)}" for s in _stacks(i)]
        out.append(f"   - captured: {esc(_captured(i.captured))}")
    return out
