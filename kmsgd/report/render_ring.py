"""Plain-text lines for the ring's sections of a report: telemetry at the end and the time of
death. Pure: the values were checked where they were made (kmsgd/judge/telemetry.py)."""

from __future__ import annotations

from kmsgd.judge.changes import ConfigFacts
from kmsgd.judge.memory_facts import memory_evidence
from kmsgd.judge.telemetry_model import CrashDump, DeviceSummary, Telemetry
from kmsgd.report.death import RingDeath
from kmsgd.ring.events import EventName
from kmsgd.ring.samples import MemoryHolder
from kmsgd.types import iso_utc


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


def _bytes(n: float) -> str:
    return f"{n / 2**30:.1f} GiB" if abs(n) >= 2**30 / 10 else f"{n / 2**20:.1f} MiB"


def _more(lines: list[str], total: int, what: str) -> list[str]:
    shown = lines[:_SHOWN_EVENTS]
    rest = total - len(shown)
    return [*shown, f"… {rest} more {what}"] if rest > 0 else shown


def telemetry_lines(t: Telemetry) -> list[str]:
    """The telemetry summary as sentences, most telling first: power steps, memory, holders,
    stalls and failing sensors, crash dumps, device events, per-device readings, config."""
    out: list[str] = []
    gpus = {d.device for d in t.devices if d.gpu}
    for s in t.steps:
        what = "GPU power" if s.device in gpus else "power"
        out.append(
            f"{what} {s.device} {s.sensor}: {s.from_w:.0f} W → {s.to_w:.0f} W in "
            f"{s.within_s:.1f} s, {s.before_end_s:.1f} s before the end"
        )
    if t.memory is not None:
        out.append(memory_evidence(t.memory).text)
    if t.top_holders:
        out.append("top holders at the end: " + ", ".join(_holder(h) for h in t.top_holders))
    # a stall still blocked at the end, or one in the final minute, speaks about the end; a
    # file that failed and recovered hours earlier (EPERM while runtime-suspended) does not
    stalls = [
        f"sensor read blocked: {s.path} ({s.device}) {s.blocked_s:.1f} s"
        + (", still blocked at the end" if not s.ended else "")
        for s in t.stalls
        if not s.ended or s.before_end_s <= 60
    ]
    out += _more(stalls, len(stalls), "stalled reads")
    errors = [
        f"sensor failing at the end: {e.path} ({e.device}): {e.reason}"
        + (f" {e.detail}" if e.detail else "")
        for e in t.sensor_errors
        if not e.recovered
    ]
    out += _more(errors, len(errors), "failing sensors")
    dumps = [_dump(d) for d in t.devcoredumps]
    out += _more(dumps, len(dumps), "crash dumps")
    events = [
        f"udev {e.event.action} {e.event.subsystem} {e.event.sys_name}"
        + (f" ({e.event.pci})" if e.event.pci else "")
        + f", {e.before_end_s:.1f} s before the end"
        for e in reversed(t.device_events)
    ]
    out += _more(events, t.device_events_total, "device events")
    devices = sorted(t.devices, key=lambda d: not d.gpu)
    out += [x for x in (_device(d) for d in devices) if x][:_SHOWN_DEVICES]
    if t.config is not None:
        out.append(_config_line(t.config))
    if t.note:
        out.append(t.note)
    out += t.notes  # the caller's own remarks (kmsgd last-boot adds some)
    if t.skipped_records:
        out.append(f"{t.skipped_records} malformed telemetry records skipped")
    return out


def _holder(h: MemoryHolder) -> str:
    gpu = h.gpu_vram_bytes + h.gpu_gtt_bytes
    return f"{h.comm} {_bytes(h.total_bytes)}" + (f" ({_bytes(gpu)} GPU)" if gpu else "")


def _dump(c: CrashDump) -> str:
    d = c.dump
    who = f"{d.failing_device} ({d.driver or '?'})"
    if d.event is EventName.DEVCOREDUMP_FAILED:
        return f"GPU crash dump lost: {who}: {d.reason}"
    cut = ", truncated" if d.truncated else ""
    return (
        f"GPU crash dump saved: {who}, {_bytes(d.size_bytes)}{cut} at "
        f"{d.saved_path}, {c.before_end_s:.1f} s before the end"
    )


def _device(d: DeviceSummary) -> str:
    parts = []
    for key, st in sorted(d.sensors.items()):
        name, _, quantity = key.rpartition(".")
        unit = _QUANTITY.get(quantity or name)
        if unit is None:
            continue
        word, top = ("peak", st.peak_60s) if st.peak_60s is not None else ("max", st.max_60s)
        shown = "?" if top is None else f"{top:.0f}"
        parts.append(f"{name or key} {st.last:.0f}{unit} ({word} {shown}{unit})")
    if not parts and not d.stale:
        return ""  # a chip with only fans or voltages: not worth a line
    line = f"{d.device} ({d.driver or d.source or '?'}): " + (
        ", ".join(parts) or "no temperature or power readings"
    )
    if d.stale:
        line += f"; no record in the final {d.last_before_end_s:.0f} s"
    return line


def _config_line(c: ConfigFacts) -> str:
    kinds = ", ".join(f"{k} ×{n}" for k, n in c.iommu_group_types.items())
    line = f"IOMMU {c.iommu_mode}" + (f" ({kinds})" if kinds else "")
    if c.aspm_policy:
        line += f"; ASPM policy {c.aspm_policy}"
    if c.kernel:
        line += f"; kernel {c.kernel}"
    return line
