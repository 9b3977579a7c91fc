"""Paste shapes corpus batch 14 (docs/accuracy.md) showed the reader missing."""

from __future__ import annotations

from kmsgd.logparse import Line, LogFormat, Origin, parse_lines


def _lines(*text: str) -> list[Line]:
    return [e for e in parse_lines(list(text)) if isinstance(e, Line)]


def test_dmesg_iso_with_a_caller_id_and_no_offset_is_the_kernels() -> None:
    got = _lines(
        "2026-05-18T22:20:04,872601 [T1297] NVRM: GPU0 nvAssertFailedNoLog: Assertion "
        "failed: GPPut < WATCHDOG_GPFIFO_ENTRIES @ kernel_rc_watchdog.c:1549",
        "2026-05-18T22:20:05,268042+02:00 [C3] [drm] Initialized nvidia-drm 0.0.0",
    )
    assert [g.origin for g in got] == [Origin.KERNEL, Origin.KERNEL]
    assert all(g.fmt is LogFormat.DMESG_ISO for g in got)
    assert got[0].message.startswith("NVRM: GPU0 nvAssertFailedNoLog: ")
    assert got[1].message == "[drm] Initialized nvidia-drm 0.0.0"
