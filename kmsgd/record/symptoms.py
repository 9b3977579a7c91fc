"""The symptoms the recorder sees itself that start an incident (kmsgd/record/incident_mode.py).

Pure functions over the recorder's own records: a memory sample (PSI memory `full` avg10,
Documentation/accounting/psi.rst; MemAvailable against MemTotal, proc(5) meminfo), a sensor
read that blocked, a late heartbeat. Each gives `(tag, class, text)` triples; the kernel's
own triggers are in kmsgd/record/triggers.py.
"""

from __future__ import annotations

from kmsgd.config import IncidentConfig
from kmsgd.ring.samples import MemorySample

Symptom = tuple[str, str, str]  # (tag, incident class, text)


def memory(sample: MemorySample, cfg: IncidentConfig) -> list[Symptom]:
    """A `memory` sample's symptoms: PSI memory full at or above `psi_full_pct`,
    MemAvailable below `mem_available_pct` of MemTotal."""
    out: list[Symptom] = []
    full = sample.psi.get("memory.full_avg10_pct")
    if full is not None and full >= cfg.psi_full_pct:
        out.append(
            (
                "psi_memory_full",
                "memory",
                f"PSI memory full avg10 {full:g} % (≥ {cfg.psi_full_pct:g} %)",
            )
        )
    total, avail = sample.mem_total_bytes, sample.mem_available_bytes
    if total is not None and avail is not None and total > 0:
        pct = 100 * avail / total
        if pct < cfg.mem_available_pct:
            out.append(
                (
                    "mem_available_low",
                    "memory",
                    f"MemAvailable {pct:.1f} % of {total >> 20} MiB"
                    f" (< {cfg.mem_available_pct:g} %)",
                )
            )
    return out


def stall(path: str, device: str, duration: float) -> Symptom:
    """A sensor read blocked `duration` seconds on `path`."""
    return (
        "sensor_stall",
        "sensor_stall",
        f"sensor read blocked {duration:.1f} s: {path}" + (f" ({device})" if device else ""),
    )


def heartbeat_late(late_s: float) -> Symptom:
    """The recorder's own heartbeat came `late_s` late."""
    return ("heartbeat_late", "recorder_late", f"heartbeat {late_s:.1f} s late")
