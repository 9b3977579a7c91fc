"""Memory at the end of a boot, as the few facts a verdict weighs and the one sentence every
part of a report uses for it. Works on `telemetry.summarize`'s memory section; pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from kmsgd.judge.telemetry_model import MemorySummary


@dataclass(frozen=True, slots=True)
class MemoryEvidence:
    """The memory facts a classifier weighs for `hang_memory_exhaustion`; None when unknown."""

    available_fraction_end: float | None  # MemAvailable / MemTotal at the last memory sample
    available_bytes_end: int | None
    fell_bytes: int  # the largest fall of MemAvailable in the memory window (0: none)
    fell_over_s: float | None
    fell_bytes_per_s: float
    psi_full_avg10_max_pct: float | None  # highest PSI memory full avg10 seen
    psi_some_avg10_max_pct: float | None
    total_bytes: int | None = None
    fell_to_bytes: int | None = None
    fell_before_end_s: float | None = None  # how long before the end the fall bottomed out
    available_min_60s_bytes: int | None = None

    @property
    def text(self) -> str:
        """The one sentence on memory at the end, for the evidence and the telemetry section:
        "MemAvailable 90.0 GiB → 0.3 GiB in 40 s at the end; PSI memory full avg10 up to 78%"."""
        big = max(2**30, (self.total_bytes or 0) / 10)  # a fall worth a sentence of its own
        if (
            self.fell_over_s is not None
            and self.fell_to_bytes is not None
            and self.fell_bytes >= big
        ):
            ago = self.fell_before_end_s or 0.0
            end = f", ending {ago:.0f} s before the end" if ago > 5 else " at the end"
            out = (
                f"MemAvailable {_gib(self.fell_to_bytes + self.fell_bytes)} → "
                f"{_gib(self.fell_to_bytes)} in {self.fell_over_s:.0f} s{end}"
            )
        elif self.available_bytes_end is not None:
            of = f" of {_gib(self.total_bytes)}" if self.total_bytes else ""
            least = self.available_min_60s_bytes
            low = f" (min {_gib(least)} in 60 s)" if least is not None else ""
            out = f"MemAvailable {_gib(self.available_bytes_end)}{of} at the end{low}"
        else:
            out = "no memory samples"
        if self.psi_full_avg10_max_pct is not None:
            out += f"; PSI memory full avg10 up to {self.psi_full_avg10_max_pct:.0f}%"
        return out


def _gib(n: float | None) -> str:
    if n is None:
        return "?"
    return f"{n / 2**30:.1f} GiB" if abs(n) >= 2**30 / 10 else f"{n / 2**20:.1f} MiB"


def memory_evidence(mem: MemorySummary | None) -> MemoryEvidence:
    """`summarize`'s memory part as a small value; None/0 where there were no samples."""
    if mem is None:
        return MemoryEvidence(None, None, 0, None, 0.0, None, None)
    total, avail, fall = mem.mem_total_bytes, mem.mem_available_bytes_last, mem.fall
    frac = avail / total if total is not None and avail is not None and total > 0 else None
    return MemoryEvidence(
        available_fraction_end=None if frac is None else round(frac, 4),
        available_bytes_end=avail,
        fell_bytes=fall.from_bytes - fall.to_bytes if fall else 0,
        fell_over_s=fall.over_s if fall else None,
        fell_bytes_per_s=mem.fell_bytes_per_s,
        psi_full_avg10_max_pct=mem.pressure("memory.full").max_pct,
        psi_some_avg10_max_pct=mem.pressure("memory.some").max_pct,
        total_bytes=total,
        fell_to_bytes=fall.to_bytes if fall else None,
        fell_before_end_s=fall.before_end_s if fall else None,
        available_min_60s_bytes=mem.mem_available_bytes_min_60s,
    )
