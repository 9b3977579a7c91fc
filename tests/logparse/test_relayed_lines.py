"""Lines another program relays or prints beside the kernel's: systemd's console status
lines (PID 1's own records), a relay's constant header on every line (Packer, glog, pdsh),
and syslog's level token before `kernel:`. Each line here is written from the printing
tool's format, not copied from a paste."""

from __future__ import annotations

import io
from typing import Any

import pytest

from kmsgd.commands.analyze import analyze_report
from kmsgd.errors import BadInput
from kmsgd.logparse import Line, LogFormat, Origin, parse_lines
from kmsgd.report import render_json

SOFT = "watchdog: BUG: soft lockup - CPU#2 stuck for 23s! [kworker/2:1:97]"


def lines_of(text: str) -> list[Line]:
    return [ev for ev in parse_lines(text.split("\n")) if isinstance(ev, Line)]


def report_of(text: str) -> dict[str, Any]:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return render_json.report_json(report)


# systemd src/core/show-status.c status_vprintf: "[" status "] " or nine blanks, then the
# unit's status message (src/core/job.c, target.c, mount.c, swap.c)
SHUTDOWN_CONSOLE = "\n".join(
    [
        "root@vm:~# systemctl poweroff",
        "[  OK  ] Stopped target Graphical Interface.",
        "         Stopping User Manager for UID 1000...",
        "         Unmounting /home...",
        "[FAILED] Failed unmounting /home.",
        "         Deactivating swap /swap.img...",
        "[  OK  ] Deactivated swap /swap.img.",
        "[  OK  ] Reached target Shutdown.",
        "[  OK  ] Reached target Final Step.",
        "         Starting Power-Off...",
        "[  OK  ] Reached target Power-Off.",
    ]
)


def test_console_status_lines_are_pid1_records() -> None:
    got = lines_of(SHUTDOWN_CONSOLE)
    assert got[0].origin is Origin.COMMAND
    status = got[1:]
    assert len(status) == 10
    assert all(ln.origin is Origin.USERSPACE and ln.facility == 3 for ln in status)
    assert status[0].message == "systemd[1]: Stopped target Graphical Interface."
    assert status[1].message == "systemd[1]: Stopping User Manager for UID 1000..."
    assert status[3].message == "systemd[1]: Failed unmounting /home."


def test_a_console_of_status_lines_gets_a_verdict_not_a_refusal() -> None:
    report = report_of(SHUTDOWN_CONSOLE)
    assert report["primary"] is None
    assert report["outcome"] == "clean_shutdown"
    assert "clean_shutdown_marker" in {s["tag"] for s in report["signatures"]}


def test_a_lockup_after_the_shutdown_targets_is_a_freeze_during_shutdown() -> None:
    text = "[  OK  ] Reached target Shutdown.\n[  OK  ] Reached target Final Step.\n"
    text += f"[   88.052029] {SOFT}\n"
    report = report_of(text)
    assert report["primary"]["tag"] == "soft_lockup"
    assert report["outcome"] == "hard_freeze"


def test_job_lines_without_their_indent_need_status_lines_before() -> None:
    # "Starting the upgrade..." in prose is no job line; after a status line it is one
    assert lines_of("Starting the upgrade...\nStopping now...")[0].origin is Origin.TEXT
    got = lines_of("[  OK  ] Stopped target Timers.\nStopping Accounts Service...")
    assert got[1].origin is Origin.USERSPACE


# Packer's log.Printf (log.LstdFlags: "2006/01/02 15:04:05 ") around the plugin's relay of
# QEMU's stdout; a Go glog header (Lmmdd hh:mm:ss.uuuuuu threadid file:line] ) behind a CI
# runner's wall clock; pdsh's "host: "
RELAYS = [
    ("2024/03/05 10:{s:02}:07 packer-builder-qemu plugin: Qemu stdout: ", "packer"),
    ("10:{s:02}:14 I0305 10:{s:02}:12.853912    8843 vm_console.go:96] SB[vm-ab12] [CNL] ", "glog"),
    ("node07: ", "pdsh"),
]
BODY = [
    "NFS: Registering the id_resolver key type",
    "Key type id_resolver registered",
    "INFO: rcu_sched detected stalls on CPUs/tasks:",
    "\t(detected by 0, t=742030 jiffies, g=567, c=566, q=6)",
    SOFT,
]


@pytest.mark.parametrize(("head", "who"), RELAYS)
def test_a_relays_header_on_every_line_is_read_past(head: str, who: str) -> None:
    text = "\n".join(head.format(s=i) + body for i, body in enumerate(BODY))
    got = lines_of(text)
    kernel = [ln.message for ln in got if ln.origin is Origin.KERNEL]
    if who == "pdsh":  # pdsh's "host: " is read already (salvage.py), without a number
        assert SOFT in kernel
        return
    assert "INFO: rcu_sched detected stalls on CPUs/tasks:" in kernel and SOFT in kernel
    # learnt from two lines in a row, one of them readable behind it: the header is cut
    # from the line before the first readable one on (line 1 was passed on as text)
    assert [ln.raw for ln in got[1:]] == [b.strip() for b in BODY[1:]]
    assert report_of(text)["primary"]["tag"] in ("rcu_stall", "soft_lockup")


def test_a_relayed_console_of_status_lines() -> None:
    head = "2024/03/05 10:00:{s:02} packer-builder-qemu plugin: Qemu stdout: "
    body = [
        "[  OK  ] Started Journal Service.",
        "         Starting Flush Journal...",
        "[  OK  ] Reached target Basic System.",
    ]
    got = lines_of("\n".join(head.format(s=i) + b for i, b in enumerate(body)))
    assert [ln.origin for ln in got] == [Origin.USERSPACE] * 3
    assert got[1].message == "systemd[1]: Starting Flush Journal..."


def test_known_formats_are_never_taken_for_a_relays_header() -> None:
    journal = "\n".join(f"Mar  5 10:00:0{i} web01 kernel: {b}" for i, b in enumerate(BODY))
    assert {ln.fmt for ln in lines_of(journal)} == {LogFormat.JOURNAL}
    ctime = "\n".join(f"[Tue Mar  5 10:00:0{i} 2024] {b}" for i, b in enumerate(BODY))
    assert {ln.fmt for ln in lines_of(ctime)} == {LogFormat.DMESG_CTIME}


def test_numbered_prose_is_no_relay() -> None:
    prose = "Step 1: I rebooted the box twice.\nStep 2: it hung again after an hour.\n"
    assert {ln.origin for ln in lines_of(prose)} == {Origin.TEXT}
    with pytest.raises(BadInput, match="no kernel log lines"):
        report_of(prose)


# syslog.conf's facility.level names before "kernel:" (busybox syslogd's and Docker's VM log
# print them), and RFC 3164's PRI
@pytest.mark.parametrize(
    ("line", "level"),
    [
        (f"2016-07-31 16:26:53 +0000 UTC kern.crit kernel: {SOFT}", 2),
        (f"Jul 31 16:26:53 router kern.warn kernel: [  123.456789] {SOFT}", 4),
        (f"<4>kernel: {SOFT}", 4),
    ],
)
def test_kernel_after_a_syslog_level_token(line: str, level: int) -> None:
    (got,) = lines_of(line)
    assert got.origin is Origin.KERNEL and got.message == SOFT and got.level == level


def test_a_program_writing_kernel_under_its_own_facility_is_not_the_kernel() -> None:
    (got,) = lines_of(f"<14>kernel: {SOFT}")  # user.info: logger -t kernel
    assert got.origin is not Origin.KERNEL


# util-linux sys-utils/dmesg.c: "-d" "[%5ld.%06ld <%12.06f>] ", "-T -d" "[%s <%12.06f>] ",
# "--time-format delta" "[<%12.06f>] "; systemd src/shared/logs-show.c: short-full
# "%a %Y-%m-%d %H:%M:%S %Z"
@pytest.mark.parametrize(
    ("line", "fmt", "ts"),
    [
        (f"[   12.345678 <    0.000123>] {SOFT}", LogFormat.DMESG, 12_345_678),
        (f"[Tue Mar  5 10:00:07 2024 <    0.000123>] {SOFT}", LogFormat.DMESG_CTIME, None),
        (f"[<    0.000123>] {SOFT}", LogFormat.DMESG_DELTA, None),
        (f"Tue 2024-03-05 10:00:07 CET web01 kernel: {SOFT}", LogFormat.JOURNAL_ISO, None),
        (f"Tue 2024-03-05 10:00:07 UTC web01 kernel: {SOFT}", LogFormat.JOURNAL_ISO, None),
    ],
)
def test_tool_time_formats(line: str, fmt: LogFormat, ts: int | None) -> None:
    (got,) = lines_of(line)
    assert (got.origin, got.fmt, got.message, got.ts_usec) == (Origin.KERNEL, fmt, SOFT, ts)


def test_short_full_in_utc_has_its_wall_clock() -> None:
    (got,) = lines_of(f"Tue 2024-03-05 10:00:07 UTC web01 kernel: {SOFT}")
    assert got.wall_us == 1_709_632_807_000_000


def test_container_runtime_log_lines() -> None:
    # kubelet's CRI log files (/var/log/pods): "<RFC 3339 nano> <stream> <P|F> <text>"
    text = "\n".join(f"2024-03-05T10:00:0{i}.123456789Z stdout F {b}" for i, b in enumerate(BODY))
    assert SOFT in [ln.message for ln in lines_of(text) if ln.origin is Origin.KERNEL]
