"""Paste shapes corpus batch 13 (docs/accuracy.md) showed the reader missing."""

from __future__ import annotations

from kmsgd.logparse import Line, LogFormat, Origin, parse_lines


def _lines(*text: str) -> list[Line]:
    return [e for e in parse_lines(list(text)) if isinstance(e, Line)]


def test_a_kernel_record_printed_over_a_typed_command_is_the_kernels() -> None:
    # a serial console: the kernel's record lands in the middle of the line being typed
    got = _lines(
        "root@lede:/# /etc/init[   90.361072] igb 0000:02:00.0: Detected Tx Unit Hang      ",
        "[   90.361072]   Tx Queue             <2>",
    )
    assert got[0].origin is Origin.KERNEL and got[0].fmt is LogFormat.DMESG
    assert got[0].message == "igb 0000:02:00.0: Detected Tx Unit Hang"
    assert got[0].ts_usec == 90_361_072


def test_a_prompt_without_a_record_stays_a_command() -> None:
    got = _lines("root@lede:/# dmesg | grep '[   90.361072]'", "$ echo [1.5] done")
    assert [g.origin for g in got] == [Origin.COMMAND, Origin.COMMAND]
