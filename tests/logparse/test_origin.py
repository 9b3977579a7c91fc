"""Origin by content: a line is the kernel's when its prefix says so or when its message
opens the way only kernel messages do; where the format carries the facility, it decides."""

from __future__ import annotations

import io
import json

import pytest

from kmsgd.catalogue.table import CATALOGUE
from kmsgd.commands.analyze import analyze_report
from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.logparse import Line, Origin, parse_lines
from kmsgd.logparse.origin import OPENINGS, kernel_opening
from kmsgd.ring.records import KernelRecord
from tests.catalogue.printk import render

XID = "NVRM: Xid (PCI:0000:41:00): 79, pid=1, GPU has fallen off the bus."


def tags(text: str) -> list[str]:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return [s.tag for s in report.signatures]


def only_line(text: str) -> Line:
    (line,) = [ev for ev in parse_lines([text]) if isinstance(ev, Line)]
    return line


def test_journal_without_hostname_is_read_as_with_one() -> None:
    """`journalctl --no-hostname`, which bug-report tools use."""
    assert tags(f"Jul  4 02:11:09 kernel: {XID}") == ["nvidia_xid_79"]
    assert tags(f"Jul  4 02:11:09 gpu-box kernel: {XID}") == ["nvidia_xid_79"]
    assert only_line(f"Jul  4 02:11:09 kernel: {XID}").message == XID


@pytest.mark.parametrize(
    "stamp",
    [
        "Jul 04 02:11:09.123456",  # short-precise
        "2024-07-04T02:11:09+0000",  # short-iso
        "2024-07-04T02:11:09.123456+00:00",  # short-iso-precise
        "[   12.345678]",  # short-monotonic
    ],
)
def test_every_journal_format_without_hostname(stamp: str) -> None:
    line = only_line(f"{stamp} kernel: {XID}")
    assert (line.origin, line.message) == (Origin.KERNEL, XID)
    # anchored patterns see the message itself: the reboot marker is "^reboot: "
    report, _ = analyze_report(
        io.BytesIO(f"{stamp} kernel: reboot: Restarting system\n".encode()), name="paste"
    )
    assert report.outcome.value == "clean_reboot"


def test_a_syslog_line_that_lost_its_kernel_ident_is_told_by_its_opening() -> None:
    line = only_line(f"Jul  4 02:11:09 gpu-box {XID}")
    assert (line.origin, line.message) == (Origin.KERNEL, XID)
    ring = "amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3"
    line = only_line(f"Jul  4 02:11:09 gpu-box {ring}")
    assert (line.origin, line.message) == (Origin.KERNEL, ring)


def test_a_program_writing_kernel_words_in_journal_text_stays_a_program() -> None:
    """A program's journal line carries its pid; the kernel's never does."""
    for text in (
        f"Jul  4 02:11:09 gpu-box python3[12]: {XID}",
        f"Jul  4 02:11:09 python3[12]: {XID}",
    ):
        assert only_line(text).origin is Origin.USERSPACE
        assert tags(text) == []


def test_where_the_format_carries_the_facility_a_userspace_write_does_not_count() -> None:
    # the ring: facility 1 (user) is a program's write to /dev/kmsg
    user = KernelRecord(XID, 3, 1, 1, 1_000_000, "-")
    kern = KernelRecord(XID, 3, 0, 1, 1_000_000, "-")
    assert [t.tag for t in Timeline.from_records([user]).tags] == []
    assert [t.tag for t in Timeline.from_records([kern]).tags] == ["nvidia_xid_79"]
    assert classify(Timeline.from_records([user])).primary is None
    # journal JSON: the transport and facility say who wrote it
    entry = {"MESSAGE": XID, "SYSLOG_IDENTIFIER": "NVRM", "SYSLOG_FACILITY": "1",
             "_TRANSPORT": "syslog", "__REALTIME_TIMESTAMP": "1720059069000000"}  # fmt: skip
    assert tags(json.dumps(entry)) == []
    entry.update(_TRANSPORT="kernel", SYSLOG_FACILITY="0", SYSLOG_IDENTIFIER="kernel")
    assert tags(json.dumps(entry)) == ["nvidia_xid_79"]
    # dmesg -x: the facility is the first field
    assert tags(f"user  :err   : [   12.000000] {XID}") == []
    assert tags(f"kern  :err   : [   12.000000] {XID}") == ["nvidia_xid_79"]


@pytest.mark.parametrize(
    "message",
    [
        "amdgpu 0000:03:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0",
        "nvme nvme0: controller is down; will reset: CSTS=0xffffffff",
        "pcieport 0000:00:01.1: AER: Uncorrected (Fatal) error received: 0000:01:00.0",
        "xhci_hcd 0000:00:14.0: xHC died, reset",
        "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout",
        "mce: [Hardware Error]: Machine check events logged",
        "EXT4-fs error (device nvme0n1p2): ext4_lookup:1700: inode #2: comm ls",
        "BUG: kernel NULL pointer dereference, address: 0000000000000000",
        "WARNING: CPU: 3 PID: 1 at drivers/gpu/drm/drm_atomic.c:10 f+0x1/0x2",
        "watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [python3:1234]",
        "rcu: INFO: rcu_sched self-detected stall on CPU",
        "Out of memory: Killed process 1234 (python3) total-vm:1kB",
    ],
)
def test_kernel_openings(message: str) -> None:
    assert kernel_opening(message)


@pytest.mark.parametrize(
    "message", ["Started Session 3 of user root.", "python3: NVRM: Xid", "sudo: root : TTY=pts/0"]
)
def test_programs_do_not_open_so(message: str) -> None:
    assert not kernel_opening(message)


def test_every_catalogue_subsystem_of_kernel_lines_has_its_openings() -> None:
    kernel_only = {s.subsystem for s in CATALOGUE if not s.idents or "kernel" in s.idents}
    assert kernel_only <= set(OPENINGS)


KERNEL_FORMATS = [
    (s.tag, f.prefix + render(f.fmt, f.args)) for s in CATALOGUE for f in s.formats if not f.program
]


@pytest.mark.parametrize(("tag", "text"), KERNEL_FORMATS, ids=[t for t, _ in KERNEL_FORMATS])
def test_every_kernel_format_of_the_catalogue_opens_as_a_kernel_message(
    tag: str, text: str
) -> None:
    """The openings checked against the source: each format string the catalogue's entries
    key on (`Signature.formats`), rendered with the prefix its printk macro adds."""
    first = next(line for line in text.split("\n") if line.strip())
    assert kernel_opening(first), first
