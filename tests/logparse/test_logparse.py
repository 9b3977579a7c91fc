"""Log parsers: every format detected by itself, messy pastes, boots, bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kmsgd.errors import BadInput
from kmsgd.logparse import BootMark, InputStats, Line, LogFormat, Origin, parse_lines, read_lines

DATA = Path(__file__).parents[1] / "data" / "logs"


def lines_of(text: str) -> list[Line]:
    return [e for e in parse_lines(text.splitlines()) if isinstance(e, Line)]


def one(text: str) -> Line:
    got = lines_of(text)
    assert len(got) == 1, got
    return got[0]


MSG = "amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0"


@pytest.mark.parametrize(
    ("text", "fmt", "ts", "level"),
    [
        (f"[ 1021.337820] {MSG}", LogFormat.DMESG, 1_021_337_820, None),
        (f"[ 1021.33] {MSG}", LogFormat.DMESG, 1_021_330_000, None),  # seed 000 kept 2 digits
        (f"<3>[ 1021.337820] {MSG}", LogFormat.DMESG, 1_021_337_820, 3),  # dmesg -r, pstore
        (f"[ 1021.337820] [  T4187] {MSG}", LogFormat.DMESG, 1_021_337_820, None),  # caller id
        (f"3,2841,1021337820,-;{MSG}", LogFormat.KMSG, 1_021_337_820, 3),
        (f"kern  :err   : [ 1021.337820] {MSG}", LogFormat.DMESG_DECODE, 1_021_337_820, 3),
        (f"[Thu Nov 14 14:01:12 2024] {MSG}", LogFormat.DMESG_CTIME, None, None),
        (f"2024-11-14T14:01:12,410022+01:00 {MSG}", LogFormat.DMESG_ISO, None, None),
        (f"Nov 14 14:01:12 strata kernel: {MSG}", LogFormat.JOURNAL, None, None),
        (f"Nov 14 14:01:12.410022 strata kernel: {MSG}", LogFormat.JOURNAL, None, None),
        (f"2024-11-14T14:01:12+0100 strata kernel: {MSG}", LogFormat.JOURNAL_ISO, None, None),
        (
            f"2024-11-14T14:01:12.410022+01:00 strata kernel: {MSG}",
            LogFormat.JOURNAL_ISO,
            None,
            None,
        ),
        (f"[ 1021.337820] strata kernel: {MSG}", LogFormat.JOURNAL_MONO, 1_021_337_820, None),
        # classic syslog (kern.log): wall clock, host, kernel: and printk's own stamp
        (
            f"Nov 14 14:01:12 strata kernel: [ 1021.337820] {MSG}",
            LogFormat.JOURNAL,
            1_021_337_820,
            None,
        ),
    ],
)
def test_formats_detected_without_being_told(
    text: str, fmt: LogFormat, ts: int | None, level: int | None
) -> None:
    line = one(text)
    assert line.fmt is fmt
    assert line.origin is Origin.KERNEL
    assert line.message == MSG
    assert line.ts_usec == ts
    assert line.level == level
    assert line.record.message == MSG  # the shared record type, as the recorder stores it


def test_wall_clocks_and_offsets() -> None:
    iso = one(f"2024-11-14T14:01:12.410022+01:00 strata kernel: {MSG}")
    dmesg_iso = one(f"2024-11-14T14:01:12,410022+01:00 {MSG}")
    assert iso.wall_us == dmesg_iso.wall_us == 1_731_589_272_410_022  # 13:01:12Z
    ctime = one(f"[Thu Nov 14 14:01:12 2024] {MSG}")
    assert ctime.wall_us == 1_731_592_872_000_000  # local time kept as printed
    short = one(f"Nov 14 14:01:12 strata kernel: {MSG}")
    assert short.host == "strata" and short.wall_us is not None


def test_syslog_monotonic_stamp_may_disagree_with_wall_clock() -> None:
    a, b = lines_of(
        "Nov 14 14:01:12 strata kernel: [ 1021.337820] first\n"
        "Nov 14 14:01:12 strata kernel: [ 1029.000001] second, printk says 8 s later"
    )
    assert a.wall_us == b.wall_us
    assert (a.ts_usec, b.ts_usec) == (1_021_337_820, 1_029_000_001)


def test_journal_userspace_lines_keep_their_identifier() -> None:
    line = one(
        "Feb 20 18:31:05 gpu-box-07 systemd-shutdown[1]: Syncing filesystems and block devices."
    )
    assert line.origin is Origin.USERSPACE
    assert line.message == "systemd-shutdown[1]: Syncing filesystems and block devices."
    assert line.facility == 3


def test_raw_kmsg_unescapes_and_keeps_continuation_lines() -> None:
    got = lines_of(
        "6,193,294058,-,caller=T1;acpi PNP0A08:00: _OSC: tab:\\x09 utf8:\\xc3\\xa9 bs:\\x5c\n"
        " SUBSYSTEM=acpi\n"
        " DEVICE=+acpi:PNP0A08:00\n"
        "4,194,294100,-;next"
    )
    assert len(got) == 2
    first = got[0]
    assert first.message == "acpi PNP0A08:00: _OSC: tab:\t utf8:é bs:\\"
    assert (first.seq, first.level, first.facility, first.caller) == (193, 6, 0, "T1")
    assert (first.subsystem, first.device) == ("acpi", "+acpi:PNP0A08:00")
    assert got[1].seq == 194


def test_dmesg_human_relative_stamps() -> None:
    got = lines_of(
        "[Nov14 14:01] amdgpu 0000:05:00.0: amdgpu: GPU reset begin!\n"
        "[  +0.000123] amdgpu 0000:05:00.0: amdgpu: MODE1 reset\n"
        "[  +2.500000] amdgpu 0000:05:00.0: amdgpu: GPU reset(2) succeeded!"
    )
    assert [g.fmt for g in got] == [LogFormat.DMESG_DELTA] * 3
    walls = [g.wall_us for g in got]
    assert walls[0] is not None
    assert walls[1] - walls[0] == 123 and walls[2] - walls[1] == 2_500_000  # type: ignore[operator]


@pytest.mark.parametrize("header", ["[apr18 15:18]", "[okt18 15:18]", "[Apr18 15:18]"])
def test_dmesg_human_stamps_in_a_non_english_locale(header: str) -> None:
    """util-linux prints -H's minute header with strftime "%b%d %H:%M" and the offsets with
    the locale's decimal point: sv_SE/de_DE write "[apr18 15:18]" and "[ +10,214451]"."""
    got = lines_of(
        f"{header} amdgpu 0000:03:00.0: [drm] *ERROR* dc_dmub_srv_log_diagnostic_data: "
        "DMCUB error - collecting diagnostic data\n"
        "[ +10,214451] amdgpu 0000:03:00.0: [drm] *ERROR* [CRTC:73:crtc-0] flip_done timed out"
    )
    assert [g.fmt for g in got] == [LogFormat.DMESG_DELTA] * 2
    assert [g.origin for g in got] == [Origin.KERNEL] * 2
    assert got[1].wall_us - got[0].wall_us == 10_214_451  # type: ignore[operator]
    assert got[1].message.endswith("flip_done timed out")


def test_json_and_export_formats() -> None:
    entry = {
        "MESSAGE": MSG,
        "PRIORITY": "3",
        "_TRANSPORT": "kernel",
        "SYSLOG_FACILITY": "0",
        "_SOURCE_MONOTONIC_TIMESTAMP": "1021337820",
        "__REALTIME_TIMESTAMP": "1731589272410022",
        "_BOOT_ID": "7d2c0f5e9a1b4c3d8e7f6a5b4c3d2e1f",
        "_HOSTNAME": "strata",
    }
    line = one(json.dumps(entry))
    assert (line.fmt, line.ts_usec, line.level, line.boot_id) == (
        LogFormat.JSON,
        1_021_337_820,
        3,
        "7d2c0f5e9a1b4c3d8e7f6a5b4c3d2e1f",
    )
    binary = one(json.dumps({**entry, "MESSAGE": list(b"bad \xff byte")}))
    assert binary.message == "bad \ufffd byte"
    export = "\n".join(f"{k}={v}" for k, v in {"__CURSOR": "s=1;i=2", **entry}.items())
    got = lines_of(export + "\n\n" + export.replace(MSG, "second") + "\n")
    assert [g.message for g in got] == [MSG, "second"]
    assert got[0].fmt is LogFormat.EXPORT


def test_messy_paste_keeps_every_line() -> None:
    got = lines_of((DATA / "messy_paste.txt").read_text())
    kernel = [g for g in got if g.origin is Origin.KERNEL]
    texts = [g for g in got if g.origin is Origin.TEXT]
    assert [k.ts_usec for k in kernel] == [
        7_020_118_812,
        7_021_004_512,
        7_021_004_530,
        7_021_004_601,
        7_033_400_100,
        7_033_400_121,
        7_049_004_512,
    ]  # quoted, numbered, indented and glued lines all parsed
    assert kernel[3].message.endswith("Debian 6.1.112-1 (2024- 09-30)")  # wrapped line joined
    assert kernel[3].lineno == 6
    assert "rcu: INFO: rcu_preempt detected stalls" in kernel[4].message  # glued, split
    assert any("had to hold the power button" in t.message for t in texts)  # prose kept


def test_commands_in_a_paste_are_marked() -> None:
    got = lines_of((DATA / "grep_false_positive.txt").read_text())
    commands = [g.message for g in got if g.origin is Origin.COMMAND]
    assert commands == [
        "$ journalctl -b -1 | grep -c 'systemd-shutdown|Journal stopped'",
        "$ journalctl -b -1 -n 8",
    ]


def test_boots_from_separators_clock_restarts_and_banners() -> None:
    events = list(parse_lines((DATA / "reset_watchdog.dmesg").read_text().splitlines()))
    marks = [e for e in events if isinstance(e, BootMark)]
    assert [m.why for m in marks] == ["clock_restart"]
    events = list(parse_lines((DATA / "amdgpu_chain.journal").read_text().splitlines()))
    marks = [e for e in events if isinstance(e, BootMark)]
    assert [(m.why, m.boot_id) for m in marks] == [
        ("separator", "7d2c0f5e9a1b4c3d8e7f6a5b4c3d2e1f")
    ]
    banner = "Nov 14 14:04:41 strata kernel: Linux version 6.8.0-49-generic (buildd@x) #49"
    events = list(parse_lines(["Nov 14 14:01:22 strata kernel: last words", banner]))
    assert [e.why for e in events if isinstance(e, BootMark)] == ["linux_version"]


def _read(data: bytes) -> tuple[list[tuple[int, str]], InputStats]:
    stats = InputStats()
    return list(read_lines(io.BytesIO(data), "paste", stats)), stats


def test_reversed_journal_is_read_in_time_order() -> None:
    forward = (DATA / "oom_hang.journal").read_text().splitlines()
    body = [ln for ln in forward if not ln.startswith("--")][:9]
    got, stats = _read(("\n".join(reversed(body)) + "\n").encode())
    assert stats.reversed
    assert [t for _, t in got] == body
    assert [n for n, _ in got] == list(range(len(body), 0, -1))  # original line numbers


def test_bad_input_is_refused_with_one_clear_message() -> None:
    with pytest.raises(BadInput, match="empty"):
        _read(b"")
    with pytest.raises(BadInput, match="empty"):
        _read(b"\n \n\t\n")
    with pytest.raises(BadInput, match="binary"):
        _read(bytes(range(256)) * 64)
    with pytest.raises(BadInput, match="compressed"):
        _read(b"\x1f\x8b\x08\x00" + b"\x00" * 100)


def test_invalid_utf8_and_huge_lines_are_survivable() -> None:
    big = b"[    1.000000] " + b"x" * (5 << 20) + b"\n[    2.000000] after\n"
    got, stats = _read(b"[    0.500000] caf\xe9 \xff ok\n" + big)
    assert got[0][1] == "[    0.500000] caf\ufffd \ufffd ok"
    assert stats.cut_lines == 1
    assert len(got[1][1]) == 64 * 1024
    assert got[2][1] == "[    2.000000] after"
