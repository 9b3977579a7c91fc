"""Plain-text lines for the ring's sections of a report: telemetry at the end and the time of
death. Pure; telemetry keys are read defensively, a broken value costs its line, never the
report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kmsgd.judge.memory import memory_evidence
from kmsgd.report.model import RingDeath, iso_utc


def ring_death_line(x: RingDeath) -> str:
    """The ring's time-of-death facts in one line."""
    parts = [f"alive at {iso_utc(x.last_sign_of_life_wall_us)}"]
    if x.heartbeat_interval_s:
        parts[0] += f", dead within {x.heartbeat_interval_s:g} s after"
    if x.silence_before_death_s is not None and x.silence_before_death_s >= 1:
        parts.append(f"last kernel line {x.silence_before_death_s:.0f} s before that")
    if x.late_final_beats:
        parts.append(f"{x.late_final_beats} late heartbeats before the end")
    if x.next_boot_wall_us is not None:
        down = "" if x.downtime_s is None else f", {x.downtime_s:.0f} s later"
        parts.append(f"next boot {iso_utc(x.next_boot_wall_us)}{down}")
    if x.kernel_records_lost:
        parts.append(f"{x.kernel_records_lost} kernel records lost")
    return "; ".join([*parts, *x.clock_steps])


def clock_line(x: RingDeath) -> str | None:
    """One line when the two boots' clocks disagreed (the downtime is then unknown, or
    corrected by the next boot's own later clock step)."""
    if not x.clock_note:
        return None
    known = "unknown" if x.downtime_s is None else f"{x.downtime_s:.0f} s"
    return f"Clocks: {x.clock_note}; downtime {known}."


_QUANTITY = {"temp_c": " °C", "power_w": " W", "busy_pct": " %"}
_SHOWN_DEVICES = 8
_SHOWN_EVENTS = 5


def _bytes(n: Any) -> str:
    if not isinstance(n, int | float):
        return "?"
    return f"{n / 2**30:.1f} GiB" if abs(n) >= 2**30 / 10 else f"{n / 2**20:.1f} MiB"


def _n(x: Any, digits: int = 0) -> str:
    return f"{x:.{digits}f}" if isinstance(x, int | float) else "?"


def _rows(t: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    rows = t.get(key)
    return [x for x in rows if isinstance(x, Mapping)] if isinstance(rows, Sequence) else []


def _more(lines: list[str], total: int, what: str) -> list[str]:
    shown = lines[:_SHOWN_EVENTS]
    rest = total - len(shown)
    return [*shown, f"… {rest} more {what}"] if rest > 0 else shown


def telemetry_lines(t: Mapping[str, Any]) -> list[str]:
    """The telemetry summary as sentences, most telling first: power steps, memory, holders,
    stalls and failing sensors, crash dumps, device events, per-device readings, config."""
    out: list[str] = []
    gpus = {d.get("device") for d in _rows(t, "devices") if d.get("gpu")}
    for s in _rows(t, "steps"):
        what = "GPU power" if s.get("device") in gpus else "power"
        out.append(
            f"{what} {s.get('device')} {s.get('sensor')}: {_n(s.get('from_w'))} W → "
            f"{_n(s.get('to_w'))} W in {_n(s.get('within_s'), 1)} s, "
            f"{_n(s.get('before_end_s'), 1)} s before the end"
        )
    out += _memory_lines(t.get("memory"))
    holders = _rows(t, "top_holders")
    if holders:
        out.append("top holders at the end: " + ", ".join(_holder(h) for h in holders))
    # a stall still blocked at the end, or one in the final minute, speaks about the end; a
    # file that failed and recovered hours earlier (EPERM while runtime-suspended) does not
    recent = [
        s for s in _rows(t, "stalls") if not s.get("ended") or _num_of(s, "before_end_s") <= 60
    ]
    stalls = [
        f"sensor read blocked: {s.get('path')} ({s.get('device')}) {_n(s.get('blocked_s'), 1)} s"
        + (", still blocked at the end" if not s.get("ended") else "")
        for s in recent
    ]
    out += _more(stalls, len(stalls), "stalled reads")
    failing = [e for e in _rows(t, "sensor_errors") if not e.get("recovered")]
    errors = [
        f"sensor failing at the end: {e.get('path')} ({e.get('device')}): {e.get('reason')}"
        + (f" {e.get('detail')}" if e.get("detail") else "")
        for e in failing
    ]
    out += _more(errors, len(errors), "failing sensors")
    dumps = [_dump(d) for d in _rows(t, "devcoredumps")]
    out += _more(dumps, len(dumps), "crash dumps")
    events = [
        f"udev {e.get('action')} {e.get('subsystem')} {e.get('sys_name')}"
        + (f" ({e.get('pci')})" if e.get("pci") else "")
        + f", {_n(e.get('before_end_s'), 1)} s before the end"
        for e in reversed(_rows(t, "device_events"))
    ]
    total = t.get("device_events_total")
    out += _more(events, total if isinstance(total, int) else len(events), "device events")
    devices = sorted(_rows(t, "devices"), key=lambda d: not d.get("gpu"))
    out += [x for x in (_device(d) for d in devices) if x][:_SHOWN_DEVICES]
    out += _config_lines(t.get("config"))
    if t.get("note"):
        out.append(str(t.get("note")))
    notes = t.get("notes")  # the caller's own remarks (kmsgd last-boot adds some)
    out += [str(n) for n in notes] if isinstance(notes, list) else []
    if t.get("skipped_records"):
        out.append(f"{t.get('skipped_records')} malformed telemetry records skipped")
    return out


def _memory_lines(m: Any) -> list[str]:
    if not isinstance(m, Mapping):
        return []
    return [memory_evidence({"memory": m}).text]


def _num_of(row: Any, key: str) -> float:
    value = row.get(key) if isinstance(row, Mapping) else None
    return float(value) if isinstance(value, int | float) else 0.0


def _holder(h: Mapping[str, Any]) -> str:
    gpu = _num_of(h, "gpu_vram_bytes") + _num_of(h, "gpu_gtt_bytes")
    return f"{h.get('comm')} {_bytes(h.get('total_bytes'))}" + (
        f" ({_bytes(gpu)} GPU)" if gpu else ""
    )


def _dump(d: Mapping[str, Any]) -> str:
    who = f"{d.get('failing_device')} ({d.get('driver') or '?'})"
    if d.get("event") == "devcoredump_failed":
        return f"GPU crash dump lost: {who}: {d.get('reason')}"
    cut = ", truncated" if d.get("truncated") else ""
    return (
        f"GPU crash dump saved: {who}, {_bytes(d.get('size_bytes'))}{cut} at "
        f"{d.get('saved_path')}, {_n(d.get('before_end_s'), 1)} s before the end"
    )


def _device(d: Mapping[str, Any]) -> str:
    parts = []
    sensors = d.get("sensors")
    for key, st in sorted(sensors.items()) if isinstance(sensors, Mapping) else ():
        name, _, quantity = str(key).rpartition(".")
        unit = _QUANTITY.get(quantity or name)
        if unit is None or not isinstance(st, Mapping):
            continue
        top = st.get("peak_60s", st.get("max_60s"))
        word = "peak" if "peak_60s" in st else "max"
        parts.append(f"{name or key} {_n(st.get('last'))}{unit} ({word} {_n(top)}{unit})")
    if not parts and not d.get("stale"):
        return ""  # a chip with only fans or voltages: not worth a line
    line = f"{d.get('device')} ({d.get('driver') or d.get('source') or '?'}): " + (
        ", ".join(parts) or "no temperature or power readings"
    )
    if d.get("stale"):
        line += f"; no record in the final {_n(d.get('last_before_end_s'))} s"
    return line


def _config_lines(c: Any) -> list[str]:
    if not isinstance(c, Mapping):
        return []
    types = c.get("iommu_group_types")
    kinds = ", ".join(f"{k} ×{n}" for k, n in types.items()) if isinstance(types, Mapping) else ""
    line = f"IOMMU {c.get('iommu_mode')}" + (f" ({kinds})" if kinds else "")
    if c.get("aspm_policy"):
        line += f"; ASPM policy {c.get('aspm_policy')}"
    if c.get("kernel"):
        line += f"; kernel {c.get('kernel')}"
    return [line]
