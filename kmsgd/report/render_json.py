"""The `kmsgd.report/1` JSON document of a report (docs/report.md lists its fields,
docs/report.schema.json is its schema, which tests/reportschema.py holds every report the tests
make to). Field names are public and key order is part of the output: never rename or reorder
one. Built here: the document, its telemetry, changes and incidents; the report's lines,
signatures and time of death still give their own objects (`to_json`, report/model.py and
report/death.py). A value whose object is its dataclass's fields, in order, is given by
`dataclasses.asdict`: those fields' names and order are public too.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kmsgd.judge.changes import Changed, ConfigFacts
from kmsgd.judge.incidents import Incident
from kmsgd.judge.telemetry_model import (
    PSI_KEYS,
    CrashDump,
    DeviceSummary,
    MemorySummary,
    SensorError,
    SensorStats,
    Step,
    Telemetry,
    UdevSeen,
)
from kmsgd.report.model import SCHEMA, Report
from kmsgd.report.render_incident import finding_text
from kmsgd.ring.samples import MemoryHolder


def incident_json(i: Incident) -> dict[str, Any]:
    """One incident: its trigger, times, what was captured, the findings as the text report
    says them, and the blocked tasks with their stacks."""
    return {
        "trigger": i.trigger,
        "class": i.cls,
        "line": i.line,
        "started_by": i.started_by,
        "started": i.started,
        "ended": i.ended,
        "end_reason": i.end_reason,
        "duration_s": i.duration_s,
        "triggers": i.triggers,
        "other_triggers": list(i.other_triggers),
        "captured": dict(i.captured),
        "findings": [finding_text(f) for f in i.findings],
        "blocked": [dataclasses.asdict(b) for b in i.blocked],
    }


def report_json(r: Report) -> dict[str, Any]:
    """The `kmsgd.report/1` document (field names are public: never rename one)."""
    src = r.source
    return {
        "schema": SCHEMA,
        "boot_id": r.boot_id or None,
        "hostname": r.hostname or None,
        "outcome": r.outcome.value,
        "reason": r.reason or None,
        "confidence": r.confidence,
        "headline": r.headline,
        "subject": r.subject,
        "evidence": [
            {"why": e.why, "line": e.line.to_json() if e.line else None} for e in r.evidence
        ],
        "time_of_death": r.time_of_death.to_json() if r.time_of_death else None,
        "primary": r.primary.to_json() if r.primary else None,
        "signatures": [s.to_json() for s in r.signatures],
        "final_kernel": [
            {**f.line.to_json(), "tags": list(f.tags), "important": f.important}
            for f in r.final_kernel
        ],
        "telemetry": telemetry_json(r.telemetry) if r.telemetry else {},
        "changes": [change_json(c) for c in r.changes],
        "fingerprint": r.fingerprint,
        "errors": [{"where": e.where, "error": e.error} for e in r.errors],
        "incidents": [incident_json(i) for i in r.incidents],
        "source": None
        if src is None
        else {**dataclasses.asdict(src), "formats": list(src.formats), "notes": list(src.notes)},
        "boots": [
            {
                "index": b.index,
                "boot_id": b.boot_id or None,
                "lines": b.lines,
                "outcome": b.outcome.value,
                "reason": b.reason or None,
                "first": b.first,
                "last": b.last,
            }
            for b in r.boots
        ],
    }


def holder_json(h: MemoryHolder) -> dict[str, Any]:
    return {
        "comm": h.comm,
        "pid": h.pid,
        "rss_bytes": h.rss_bytes,
        "gpu_vram_bytes": h.gpu_vram_bytes,
        "gpu_gtt_bytes": h.gpu_gtt_bytes,
        "total_bytes": h.total_bytes,
    }


def sensor_stats_json(s: SensorStats) -> dict[str, Any]:
    return {k: v for k, v in dataclasses.asdict(s).items() if v is not None}  # a window unread


def device_json(d: DeviceSummary) -> dict[str, Any]:
    out: dict[str, Any] = {
        "device": d.device,
        "driver": d.driver,
        "source": d.source,
        "last_wall_us": d.last_wall_us,
    }
    sensors = {k: sensor_stats_json(s) for k, s in d.sensors.items()}
    if sensors:  # the documents have always put a device's readings here, or last if none
        out["sensors"] = sensors
    out.update(last_before_end_s=d.last_before_end_s, stale=d.stale, gpu=d.gpu)
    out.setdefault("sensors", sensors)
    return out


def step_json(s: Step) -> dict[str, Any]:
    return {**dataclasses.asdict(s), "direction": s.direction.value}


def memory_json(m: MemorySummary) -> dict[str, Any]:
    out: dict[str, Any] = {
        "window_s": m.window_s,
        "samples": m.samples,
        "mem_total_bytes": m.mem_total_bytes,
        "mem_available_bytes_last": m.mem_available_bytes_last,
        "mem_available_bytes_first_60s": m.mem_available_bytes_first_60s,
        "mem_available_bytes_min_60s": m.mem_available_bytes_min_60s,
        "mem_available_bytes_max_60s": m.mem_available_bytes_max_60s,
        "swap_total_bytes": m.swap_total_bytes,
        "swap_free_bytes_last": m.swap_free_bytes_last,
        "fall": dataclasses.asdict(m.fall) if m.fall else None,
        "fell_bytes_per_s": m.fell_bytes_per_s,
    }
    for key in PSI_KEYS:
        name, p = "psi_" + key.replace(".", "_") + "_avg10", m.pressure(key)
        out[f"{name}_max_pct"] = p.max_pct
        out[f"{name}_last_pct"] = p.last_pct
    return out


def sensor_error_json(e: SensorError) -> dict[str, Any]:
    out: dict[str, Any] = {"path": e.path, "device": e.device, "count": e.count}
    if e.wall_us is not None:
        out.update(reason=e.reason, detail=e.detail)
    out["recovered"] = e.recovered
    if e.wall_us is not None:
        out["wall_us"] = e.wall_us
    if e.failing_s is not None:
        out["failing_s"] = e.failing_s
    out["before_end_s"] = e.before_end_s
    return out


def crash_dump_json(c: CrashDump) -> dict[str, Any]:
    return {
        "wall_us": c.wall_us,
        **c.dump.to_payload(),
        "before_end_s": c.before_end_s,
    }


def udev_json(u: UdevSeen) -> dict[str, Any]:
    e = u.event
    return {
        "action": e.action,
        "subsystem": e.subsystem,
        "sys_name": e.sys_name,
        "pci": e.pci,
        "driver": e.driver,
        "wall_us": u.wall_us,
        "before_end_s": u.before_end_s,
    }


def telemetry_json(t: Telemetry) -> dict[str, Any]:
    """The report's `telemetry` object (the same keys, in the same order, as ever)."""
    out: dict[str, Any] = {
        "window_s": t.window_s,
        "short_window_s": t.short_window_s,
        "end_wall_us": t.end_wall_us,
        "devices": [device_json(d) for d in t.devices],
        "steps": [step_json(s) for s in t.steps],
        "memory": memory_json(t.memory) if t.memory else None,
        "top_holders": [holder_json(h) for h in t.top_holders],
    }
    if t.end_wall_us is not None:
        out.update(
            top_holders_before_end_s=t.top_holders_before_end_s,
            stalls=[dataclasses.asdict(s) for s in t.stalls],
            sensor_errors=[sensor_error_json(e) for e in t.sensor_errors],
            devcoredumps=[crash_dump_json(d) for d in t.devcoredumps],
            device_events=[udev_json(e) for e in t.device_events],
            device_events_total=t.device_events_total,
            config=config_json(t.config) if t.config else None,
            last_sample_wall_us=t.last_sample_wall_us,
        )
    out["skipped_records"] = t.skipped_records
    if t.note:
        out["note"] = t.note
    if t.notes:
        out["notes"] = list(t.notes)
    return out


def change_json(c: Changed) -> dict[str, Any]:
    out: dict[str, Any] = {
        "what": c.what.value,
        "device": c.device,
        "before": c.before,
        "after": c.after,
        "when": c.when,
        "severity": c.severity.value,
        "text": c.text,
    }
    optional = {"key": c.key, "desired": c.desired, "error": c.error}
    out |= {k: v for k, v in optional.items() if v is not None}
    if c.wall_us is not None:
        out["wall_us"] = c.wall_us
    return out


def config_json(c: ConfigFacts) -> dict[str, Any]:
    return {
        "kernel": c.kernel,
        "cmdline": c.cmdline,
        "iommu_mode": c.iommu_mode,
        "iommu_group_types": dict(c.iommu_group_types),
        "aspm_policy": c.aspm_policy,
        "gpus": [dataclasses.asdict(g) for g in c.gpus],
        "host": dict(c.host),
    }
