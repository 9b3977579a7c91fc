"""Paste shapes corpus batch 25 (docs/accuracy.md) showed refused or misread: records run
together behind their printk level prefixes, a report's cut-here and end-trace records run
into the lines around them, talosctl dmesg's facility column, ESXi's vmkernel.log, FreeBSD
CAM's path opening."""

from __future__ import annotations

import io

from kmsgd.commands.analyze import analyze_report
from kmsgd.logparse import Line, Origin, parse_lines


def _lines(*text: str) -> list[Line]:
    return [ev for ev in parse_lines(list(text)) if isinstance(ev, Line)]


def _kernel(*text: str) -> list[str]:
    return [ln.message for ln in _lines(*text) if ln.origin is Origin.KERNEL]


def _tags(text: str) -> list[str]:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return [s.tag for s in report.signatures]


def test_records_run_together_behind_their_level_prefixes_are_split() -> None:
    # console text of a 2.6 kernel, each record behind its "<%d>", on one line after prose
    line = (
        "we hit the panic as below: <1>BUG: unable to handle kernel paging request at "
        "0000000b819fdb98 <1>IP: [<ffffffff812a588f>] notify_remote_via_irq+0x13/0x34 "
        "<4>PGD 94b10067 PUD 0 <0>Oops: 0000 [#1] SMP <4>CPU 3"
    )
    assert _kernel(line) == [
        "BUG: unable to handle kernel paging request at 0000000b819fdb98",
        "IP: [<ffffffff812a588f>] notify_remote_via_irq+0x13/0x34",
        "PGD 94b10067 PUD 0",
        "Oops: 0000 [#1] SMP",
        "CPU 3",
    ]
    assert "oops" in _tags(line + "\n")


def test_one_level_prefix_or_angle_brackets_in_a_message_split_nothing() -> None:
    assert len(_lines("<4>e1000e 0000:01:00.0: eth1: TDH <36> TDT <36> status <0>")) == 1
    assert len(_lines("a note about <1> and <2>")) == 1  # no text right after the marks


def test_a_report_s_markers_run_into_the_lines_around_them_are_records() -> None:
    line = (
        "e1000e 0000:01:00.0: eth1: Detected Hardware Unit Hang: TDH <36> "
        "------------[ cut here ]------------ WARNING: at net/sched/sch_generic.c:255 "
        "dev_watchdog+0x251/0x260() Hardware name: NETDEV WATCHDOG: eth1 (e1000e): transmit "
        "queue 0 timed out ---[ end trace a9d593cc6daa51d1 ]--- e1000e 0000:01:00.0: eth1: "
        "Reset adapter"
    )
    msgs = _kernel(line)
    assert msgs[1] == "------------[ cut here ]------------"
    assert msgs[2].startswith("WARNING: at net/sched/sch_generic.c:255 ")
    assert msgs[3:] == [
        "---[ end trace a9d593cc6daa51d1 ]---",
        "e1000e 0000:01:00.0: eth1: Reset adapter",
    ]
    assert {"netdev_tx_timeout", "kernel_warning"} <= set(_tags(line + "\n"))


def test_a_marker_on_its_own_line_is_left_alone() -> None:
    (line,) = _lines("[   12.000000] ------------[ cut here ]------------")
    assert line.message == "------------[ cut here ]------------"


def test_talosctl_dmesg_s_facility_column_says_whose_record_it_is() -> None:
    kern, user = _lines(
        "192.168.128.5: kern:    info: [2026-07-02T11:23:54.745198143Z]: hv_utils: Shutdown "
        "request received - graceful shutdown initiated",
        "192.168.128.5: user: warning: [2026-07-02T11:24:02.495204105Z]: [talos] serving "
        'static pod manifests {"component": "controller-runtime"}',
    )
    assert kern.origin is Origin.KERNEL
    assert kern.message.startswith("hv_utils: Shutdown request received")
    assert kern.wall_us is not None
    assert user.origin is Origin.USERSPACE
    assert user.message.startswith("[talos] serving")


def test_esxi_vmkernel_lines_are_the_hypervisor_kernel_s() -> None:
    a, b = _lines(
        "2016-05-23T09:27:46.684Z cpu1:37205)nvme:NvmeCtrlr_Timeout:2555:In Timer 4",
        "2021-03-01T10:00:00.000Z cpu5:2098007)WARNING: NMP: nmp_DeviceRetry",
    )
    assert a.origin is b.origin is Origin.KERNEL
    assert a.message == "cpu1:37205)nvme:NvmeCtrlr_Timeout:2555:In Timer 4"
    assert b.message == "cpu5:2098007)WARNING: NMP: nmp_DeviceRetry"
    assert a.wall_us is not None


def test_freebsd_cam_lines_open_as_the_kernel_s() -> None:
    paste = "\n".join(
        (
            "freenas.local kernel log messages:",
            "(ada1:ahcich1:0:0:0): READ_FPDMA_QUEUED. ACB: 60 d8 80 df 4d 40 46 00 00 00 00 00",
            "(ada1:ahcich1:0:0:0): CAM status: ATA Status Error",
            "(ada1:ahcich1:0:0:0): Retrying command",
            "(ada1:ahcich1:0:0:0): Error 5, Retries exhausted",
            "",
        )
    )
    assert _tags(paste) == ["disk_io_error"]
    assert _kernel("(ada1:ahcich1:0:0:0): Retrying command") == [
        "(ada1:ahcich1:0:0:0): Retrying command"
    ]


def test_prose_with_level_like_marks_is_not_split() -> None:
    assert len(_lines("steps: <1>open the lid <2>press the button")) == 1
