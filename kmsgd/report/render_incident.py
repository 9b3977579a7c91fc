"""The report's Incident section, as text and Markdown lines (JSON is the dicts themselves,
`incidents` in the kmsgd.report/1 document; shapes from kmsgd/judge/incidents.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kmsgd.catalogue.tags import Tag


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


def _head(i: Mapping[str, Any]) -> str:
    ended = i.get("ended") or f"never ({i.get('end_reason')})"
    more = f", +{i['triggers'] - 1} more trigger(s)" if (i.get("triggers") or 1) > 1 else ""
    by = i.get("started_by")
    opened = f" (opened by {by})" if by and by != i.get("trigger") else ""
    return f"{i.get('trigger')} at {i.get('started')}{opened}, ended {ended}{more}"


_FROM = {
    "proc": "/proc/PID/stack",
    Tag.HUNG_TASK: "the kernel's hung-task report",
    "sysrq": "SysRq w",
}
STACK_FRAMES = 8


def _stacks(i: Mapping[str, Any]) -> list[str]:
    """ "stack of lab-writer (399), from SysRq w: schedule ← percpu_rwsem_wait ← …", the
    frames' function names, innermost first."""
    out = []
    for b in i.get("blocked") or []:
        frames = [str(f).split("+", 1)[0] for f in b.get("stack") or []]
        if frames:
            more = " ← …" if len(frames) > STACK_FRAMES else ""
            where = _FROM.get(str(b.get("stack_from")), str(b.get("stack_from")))
            out.append(
                f"stack of {b.get('comm')} ({b.get('pid')}), from {where}: "
                + " ← ".join(frames[:STACK_FRAMES])
                + more
            )
    return out


def incident_lines(incidents: Sequence[Mapping[str, Any]]) -> list[str]:
    """Plain lines, indented by the caller."""
    out: list[str] = []
    for n, i in enumerate(incidents, 1):
        out.append(f"#{n} {_head(i)}")
        if i.get("line"):
            out.append(f"   trigger: {i['line']}")
        out += [f"   - {f}" for f in i.get("findings") or []]
        out += [f"   {s}" for s in _stacks(i)]
        out.append(f"   captured: {_captured(i.get('captured') or {})}")
    return out


def incident_md(incidents: Sequence[Mapping[str, Any]], esc: Any) -> list[str]:
    """Markdown lines; `esc` escapes free text (render.py's _md_text)."""
    out: list[str] = []
    for n, i in enumerate(incidents, 1):
        out.append(f"{n}. **{esc(str(i.get('trigger')))}** {esc(_head(i).split(' ', 1)[1])}")
        if i.get("line"):
            out.append(f"   - trigger: `{str(i['line']).replace('`', chr(39))}`")
        out += [f"   - {esc(str(f))}" for f in i.get("findings") or []]
        out += [f"   - {esc(s)}" for s in _stacks(i)]
        out.append(f"   - captured: {esc(_captured(i.get('captured') or {}))}")
    return out
