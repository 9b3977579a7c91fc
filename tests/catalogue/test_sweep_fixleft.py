"""The misses batches 11, 12 and 15 left (docs/accuracy.md), each fixed as a rule from the
source: an NVMe controller that never comes up at probe, the hung-task report cut to its
second line, sysvinit's and busybox's shutdown lines. Each case is rendered from the format
its entry names and read through kmsgd's own reader, as a paste would be."""

from __future__ import annotations

import io

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.commands.analyze import analyze_report
from kmsgd.report.model import Report
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording
from tests.catalogue.printk import render

NVME = "nvme nvme0: "

# tag → (positives, negatives): kernel lines as their source prints them
FIXLEFT_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "nvme_probe_failure": (
        [
            # core.c nvme_wait_ready from nvme_enable_ctrl, 4.4-5.4 and with CSTS (5.x+)
            NVME + render("Device not ready; aborting %s", ("initialisation",)),
            NVME + render("Device not ready; aborting %s, CSTS=0x%x", ("initialisation", 0)),
            # pci.c nvme_reset_work's end (nvme_remove_dead_ctrl), 4.19-6.1
            NVME + render("Removing after probe failure status: %d", (-19,)),
            NVME + render("Identify Controller failed (%d)", (-4,)),
        ],
        [
            # a reset's wait for the controller to stop: nvme_reset
            NVME + "Device not ready; aborting reset, CSTS=0x1",
            # routine probe lines around it
            NVME + "pci function 0000:01:00.0",
            NVME + "Shutdown timeout set to 10 seconds",
            NVME + "Ignoring bogus Namespace Identifiers",
            NVME + "failed to set APST feature (-19)",
        ],
    ),
    "disk_io_error": (
        [
            # core.c nvme_log_error (5.19-6.18)
            render(
                "%s: %s(0x%x) @ LBA %llu, %u blocks, %s (sct 0x%x / sc 0x%x) %s%s",
                ("nvme0n1", "Read", 0x2, 2048, 8, "Unrecovered Read Error", 2, 0x81, "", "DNR "),
            ),
            "nvme1c1n1: Write(0x1) @ LBA 96, 32 blocks, Write Fault (sct 0x2 / sc 0x80) DNR ",
        ],
        [
            # an unsupported optional command fails on healthy drives
            "nvme0n1: Write Zeroes(0x8) @ LBA 0, 8 blocks, Invalid Field in Command "
            "(sct 0x0 / sc 0x2) DNR ",
            "nvme0: Admin Cmd(0x6), Invalid Field in Command (sct 0x0 / sc 0x2) DNR ",
        ],
    ),
}

# init's shutdown lines (userspace): tag → (positives, negatives), as a console shows them
INIT_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "clean_shutdown_marker": (
        [
            render("The system is going down %s NOW!", ("for reboot",)),
            render("The system is going down %s NOW!", ("for system halt",)),
            "INIT: " + render("Switching to runlevel: %c", ("6",)),
            "INIT: Switching to runlevel: 0",
            "The system is going down NOW!",
            render("Sent SIG%s to all processes", ("TERM",)),
            "Sending SIGKILL to all processes",
            render("Requesting system %s", ("poweroff",)),
        ],
        [
            # runlevel 1 and the other runlevels are no shutdown
            "The system is going down to maintenance mode NOW!",
            "INIT: Switching to runlevel: 3",
            "INIT: Sending processes configured via /etc/inittab the TERM signal",
            # the countdown before the shutdown, not the shutdown
            "The system is going DOWN for reboot in 5 minutes!",
            "echo Requesting system reboot soon",
        ],
    ),
}


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(KernelRecord(line, facility=0))}


@pytest.mark.parametrize("tag", sorted(FIXLEFT_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(FIXLEFT_EXAMPLES, tag, _tags)


@pytest.mark.parametrize("tag", sorted(INIT_EXAMPLES))
def test_inits_shutdown_lines_are_the_shutdown_marker(tag: str) -> None:
    positives, negatives = INIT_EXAMPLES[tag]
    for line in positives:
        assert tag in _tags(line), line
        # the same line in a syslog, from init or shutdown
        assert tag in {h.tag for h in match_record(KernelRecord("init: " + line, facility=3))}
    for line in negatives:
        assert tag not in _tags(line), line


def test_a_program_that_prints_inits_words_is_not_init() -> None:
    rec = KernelRecord("myapp[42]: The system is going down NOW!", facility=3)
    assert not {h.tag for h in match_record(rec)}


def _report(*lines: str, start_s: float = 5.0) -> Report:
    text = "".join(f"[{start_s + n * 0.5:12.6f}] {m}\n" for n, m in enumerate(lines))
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return report


def _primary(report: Report) -> str | None:
    return report.primary.tag if report.primary else None


def test_a_controller_that_never_came_up_at_probe_is_the_culprit() -> None:
    report = _report(
        NVME + "pci function 0000:01:00.0",
        "nvme 0000:01:00.0: enabling device (0000 -> 0002)",
        NVME + "Device not ready; aborting initialisation, CSTS=0x0",
        NVME + "Removing after probe failure status: -19",
    )
    assert _primary(report) == "nvme_probe_failure"
    assert "nvme_reset" not in {s.tag for s in report.signatures}


def test_removal_after_a_failed_reset_is_the_resets_end() -> None:
    """Before 6.2 a failed reset of a running controller ends in the same "Removing after
    probe failure" line: the timeout and the reset before it lead."""
    report = _report(
        NVME + "I/O 0 QID 0 timeout, reset controller",
        NVME + "Device not ready; aborting reset",
        NVME + "Removing after probe failure status: -19",
        start_s=11457.0,
    )
    assert _primary(report) == "nvme_timeout"
    tags = {s.tag for s in report.signatures}
    assert {"nvme_timeout", "nvme_reset"} <= tags


def test_a_reset_that_fails_to_reenable_leads_its_probe_failure() -> None:
    report = _report(
        NVME + "controller is down; will reset: CSTS=0xffffffff, PCI_STATUS=0xffff",
        NVME + "Device not ready; aborting initialisation, CSTS=0x0",
        NVME + "Removing after probe failure status: -19",
        start_s=4000.0,
    )
    assert _primary(report) in {"nvme_timeout", "nvme_reset"}


HUNG_HEADER = render(
    "INFO: task %s:%d blocked for more than %ld seconds.", ("kworker/0:0", 2904, 120)
)
HUNG_ECHO = '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.'
HUNG_TASK = "kworker/0:0     D    0  2904      2 0x00000000"


def _hung_count(report: Report) -> int:
    (sig,) = [s for s in report.signatures if s.tag == "hung_task"]
    return sig.count


def test_a_hung_task_report_cut_to_its_second_line_is_a_hung_task() -> None:
    report = _report(HUNG_ECHO, HUNG_TASK, "Call Trace:", start_s=2417.0)
    assert _primary(report) == "hung_task"
    assert _hung_count(report) == 1


def test_a_whole_hung_task_report_counts_once() -> None:
    """The second line belongs to the header's report: two whole reports are two events,
    not four."""
    tainted = "      Not tainted 4.9.0-8-amd64 #1 Debian 4.9.130-2"
    report = _report(
        HUNG_HEADER,
        tainted,
        HUNG_ECHO,
        HUNG_TASK,
        HUNG_HEADER,
        tainted,
        HUNG_ECHO,
        HUNG_TASK,
        start_s=2417.0,
    )
    assert _hung_count(report) == 2


def _console(text: str) -> Report:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return report


def test_a_stall_after_sysvinits_shutdown_is_a_freeze_during_shutdown() -> None:
    """A console without systemd: shutdown(8)'s wall and init's runlevel switch, then the
    kernel's RCU stall while restarting. The restart never finished."""
    report = _console(
        "The system is going down for reboot NOW!\n"
        "INIT: Switching to runlevel: 6\n"
        "Stopping Dropbear SSH server: stopped /usr/sbin/dropbear (pid 2551)\n"
        "Unmounting local filesystems...done.\n"
        "INFO: rcu_sched detected stalls on CPUs/tasks: { 0} (detected by 1, t=5252 "
        "jiffies, g=825, c=824, q=1)\n"
        "Task dump for CPU 0:\n"
    )
    assert _primary(report) == "rcu_stall"
    assert report.outcome.value == "hard_freeze"
    assert "clean_shutdown_marker" in {s.tag for s in report.signatures}


def test_busyboxs_shutdown_then_the_kernels_restart_is_a_clean_reboot() -> None:
    report = _report(
        "The system is going down NOW!",
        "Sent SIGTERM to all processes",
        "Sent SIGKILL to all processes",
        "Requesting system reboot",
        "reboot: Restarting system",
        start_s=30.0,
    )
    assert report.outcome.value == "clean_reboot"
    assert _primary(report) is None


def _ghes(section_type: str, severity: str) -> list[str]:
    """One firmware-first record as ghes.c and cper.c print it (4.4-6.18)."""
    pfx = "{1}[Hardware Error]: "
    return [
        pfx + "Hardware error from APEI Generic Hardware Error Source: 5",
        pfx + render("event severity: %s", (severity,)),
        pfx + render(" Error %d, type: %s", (0, severity)),
        pfx + "  fru_text: Card03, ChnA, DIMM0",
        pfx + render("  section_type: %s", (section_type,)),
    ]


@pytest.mark.parametrize(
    ("severity", "tag"), [("fatal", "aer_fatal"), ("recoverable", "aer_nonfatal")]
)
def test_an_uncorrected_firmware_first_pcie_error_is_the_aer_error(severity: str, tag: str) -> None:
    record = _ghes("PCIe error", severity)
    record.append("{1}[Hardware Error]:   device_id: 0000:01:00.1")
    if severity == "fatal":
        record.append("Kernel panic - not syncing: Fatal hardware error!")
    report = _report(*record, start_s=528.0)
    assert _primary(report) == tag
    tags = {s.tag for s in report.signatures}
    assert "aer_corrected" not in tags and "ghes_hardware_error" in tags


def test_a_corrected_firmware_first_pcie_error_stays_routine() -> None:
    report = _report(*_ghes("PCIe error", "corrected"), start_s=528.0)
    (sig,) = [s for s in report.signatures if s.tag == "aer_corrected"]
    assert sig.routine


def test_a_corrected_memory_error_ranks_as_corrected() -> None:
    """Alone it is still the paste's finding, but a corrected error, reported as one; next
    to a failure it does not lead."""
    alone = _report(*_ghes("memory error", "corrected"), start_s=9000.0)
    assert _primary(alone) == "ghes_hardware_error"
    (sig,) = [s for s in alone.signatures if s.tag == "ghes_hardware_error"]
    assert sig.routine and sig.severity.value == "warning"
    beside = _report(
        *_ghes("memory error", "corrected"),
        NVME + "I/O 417 QID 7 timeout, aborting",
        start_s=9000.0,
    )
    assert _primary(beside) == "nvme_timeout"


def test_an_uncorrected_memory_error_keeps_its_rank() -> None:
    report = _report(
        NVME + "I/O 417 QID 7 timeout, aborting",
        *_ghes("memory error", "recoverable"),
        start_s=9000.0,
    )
    assert _primary(report) == "ghes_hardware_error"
    (sig,) = [s for s in report.signatures if s.tag == "ghes_hardware_error"]
    assert not sig.routine and sig.severity.value == "critical"
