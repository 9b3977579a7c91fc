"""Cause before consequence: within one GPU driver the first signature leads; across
subsystems the catalogue rank does."""

from __future__ import annotations

from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord
from kmsgd.types import Subject

DEV = "amdgpu 0000:c5:00.0: amdgpu: "


def _primary(*messages: str) -> str | None:
    recs = [KernelRecord(m, 3, 0, n, n * 1_000_000, "-") for n, m in enumerate(messages, 1)]
    verdict = classify(Timeline.from_records(recs))
    return verdict.primary.tag if verdict.primary else None


def test_mes_failing_during_the_reset_is_a_consequence_of_the_ring_timeout() -> None:
    assert (
        _primary(
            DEV + "ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
            DEV + "GPU reset begin!",
            DEV + "MES failed to respond to msg=REMOVE_QUEUE",
        )
        == "amdgpu_ring_timeout"
    )


def test_smu_timeout_before_the_ring_timeout_still_leads() -> None:
    assert (
        _primary(
            DEV + "SMU: No response msg_reg: 12 resp_reg: 0",
            DEV + "ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
        )
        == "amdgpu_smu_timeout"
    )


def test_a_job_timeout_seen_only_in_its_process_line() -> None:
    assert (
        _primary(
            "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process chrome",
            DEV + "GPU reset begin!",
            DEV + "SMU: I'm not done with your previous command!",
        )
        == "amdgpu_ring_timeout"
    )


def test_a_machine_check_outranks_a_later_gpu_hang() -> None:
    assert (
        _primary(
            DEV + "ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
            "mce: [Hardware Error]: CPU 3: Machine Check Exception: 5 Bank 4: b200000000070f0f",
        )
        == "mce"
    )


NV = "NVRM: Xid (PCI:0000:48:00): "


def test_an_xid_that_follows_earlier_errors_does_not_lead() -> None:
    """NVIDIA's Xid catalog: 45 is the cleanup after earlier errors, 154 the recovery
    action an earlier error needs; the error itself leads even when printed after them."""
    assert (
        _primary(
            NV + "45, pid=1, name=python3, channel 0x10",
            NV + "74, pid=1, name=python3, NVLink: fatal error detected on link 8",
            NV + "154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
        )
        == "nvidia_xid_74"
    )


def test_a_follow_up_xid_alone_is_still_named() -> None:
    assert _primary(NV + "45, pid=1, name=python3, Ch 00000001") == "nvidia_xid_45"


def test_a_gpu_lost_from_the_bus_explains_the_all_ones_reads_before_it() -> None:
    assert (
        _primary(
            DEV + "Failed to export SMU metrics table!",
            DEV + "device lost from bus!",
            DEV
            + "SMU: response:0xFFFFFFFF for index:18 param:0x00000005 message:TransferTableSmu2Dram?",
        )
        == "gpu_fell_off_bus"
    )


def test_a_gpu_lost_long_before_the_end_is_still_in_the_final_state() -> None:
    """The lost GPU does not come back in this boot: corrected AER lines half an hour later
    are not the culprit."""
    recs = [
        KernelRecord(
            "NVRM: Xid (PCI:0000:09:00): 79, pid=0, GPU has fallen off the bus.",
            3,
            0,
            1,
            1_000_000_000,
            "-",
        ),
        KernelRecord(
            "pcieport 0000:00:01.1: AER: Corrected error received: 0000:00:00.0",
            4,
            0,
            2,
            3_000_000_000,
            "-",
        ),
        KernelRecord(
            "pcieport 0000:00:01.1: AER: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Receiver ID)",
            4,
            0,
            3,
            3_000_000_100,
            "-",
        ),
    ]
    verdict = classify(Timeline.from_records(recs))
    assert verdict.primary is not None and verdict.primary.tag == "nvidia_xid_79"


def _primary_at_runtime(*messages: str) -> str | None:
    """As _primary, at an uptime of hours (a notice at boot is mce_logged_at_boot)."""
    recs = [KernelRecord(m, 3, 0, n, (9000 + n) * 1_000_000, "-") for n, m in enumerate(messages)]
    verdict = classify(Timeline.from_records(recs))
    return verdict.primary.tag if verdict.primary else None


def test_the_mcelog_notice_gives_way_to_what_it_logged() -> None:
    notice = "mce: [Hardware Error]: Machine check events logged"
    edac = (
        "EDAC MC0: 4 CE error on CPU#0Channel#2_DIMM#0 "
        "(channel:2 slot:0 page:0x0 offset:0x0 grain:8 syndrome:0x0)"
    )
    throttle = "CPU3: Core temperature above threshold, cpu clock throttled (total events = 5)"
    assert _primary_at_runtime(notice, edac, edac) == "edac"
    assert _primary_at_runtime(throttle, notice, throttle, notice) == "thermal_throttle"
    assert _primary_at_runtime(notice, notice) == "mce"  # alone it still says: read mcelog
    decoded = "mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 5: be00000000800400"
    assert _primary_at_runtime(decoded, edac) == "mce"  # a decoded record is more than a notice


# -- the next boot's evidence leads where the boot shows no failure of its own -------------
RESET = (
    "x86/amd: Previous system reset reason [0x08000000]: an uncorrected error caused a data "
    "fabric sync flood event"
)
UNCLEAN = (
    "systemd-journald[312]: File /var/log/journal/x/system.journal corrupted or uncleanly "
    "shut down, renaming and replacing."
)
REPLAY = "EXT4-fs (nvme0n1p2): recovery complete"
MCE_AT_BOOT = "mce: [Hardware Error]: Machine check events logged"
LINK = "r8169 0000:0b:00.0 enp11s0: Link is Up - 1Gbps/Full"


def _records(*messages: str, start_s: int = 1) -> list[KernelRecord]:
    facility = [1 if "[" in m.split(":")[0] else 0 for m in messages]  # "ident[pid]:"
    return [
        KernelRecord(m, 6, f, n, (start_s + n) * 1_000_000, "-")
        for n, (m, f) in enumerate(zip(messages, facility, strict=True))
    ]


def test_a_log_that_opens_with_the_reset_reason_names_it_as_the_culprit() -> None:
    """The boot before this log: its end is all the log says, and the reset reason says it."""
    v = classify(Timeline.from_records(_records(RESET, LINK)))
    assert v.primary is not None and v.primary.tag == "reset_reason"
    assert v.reason == "amd_reset:sync_flood"


def test_each_kind_of_next_boot_evidence_leads_when_alone() -> None:
    for line, tag in (
        (UNCLEAN, "journal_unclean"),
        (REPLAY, "fs_recovery"),
        (MCE_AT_BOOT, "mce_logged_at_boot"),
    ):
        v = classify(Timeline.from_records(_records(line, LINK)))
        assert v.primary is not None and v.primary.tag == tag, line


def test_the_most_telling_next_boot_evidence_leads() -> None:
    v = classify(Timeline.from_records(_records(UNCLEAN, REPLAY, RESET, LINK)))
    assert v.primary is not None and v.primary.tag == "reset_reason"


def test_the_next_boots_evidence_is_the_culprit_of_a_boot_without_a_failure() -> None:
    this = Timeline.from_records(_records(LINK, start_s=100))
    nxt = _records(RESET, LINK)
    v = classify(this, next_boot=nxt)
    assert v.primary is not None and v.primary.tag == "reset_reason"
    assert v.outcome.value == "abrupt_reset_or_power_loss"


def test_a_failure_of_the_boot_itself_still_leads() -> None:
    this = Timeline.from_records(_records(DEV + "SMU: No response msg_reg: 12 resp_reg: 0"))
    v = classify(this, next_boot=_records(RESET, LINK))
    assert v.primary is not None and v.primary.tag == "amdgpu_smu_timeout"


def test_a_clean_end_has_no_culprit_whatever_the_next_boot_says() -> None:
    this = Timeline.from_records(_records(LINK, "reboot: Restarting system"))
    v = classify(this, next_boot=_records(UNCLEAN, LINK))
    assert v.primary is None


def test_a_failure_of_its_own_leads_over_what_its_start_says_of_the_boot_before() -> None:
    """A log replay at mount says the boot before ended uncleanly; the warning the replay
    then hits is this boot's own failure, and it leads."""
    warning = "WARNING: CPU: 0 PID: 487 at fs/xfs/xfs_buf.c:556 xfs_buf_find+0x518/0x5f0 [xfs]"
    v = classify(Timeline.from_records(_records("XFS (vda4): Starting recovery", warning)))
    assert v.subject is Subject.THIS_BOOT
    assert v.primary is not None and v.primary.tag == "kernel_warning"


def test_machine_checks_printed_at_boot_are_the_boot_befores() -> None:
    """At boot the kernel prints the records a CPU kept across the reset, then the notice:
    not a failure of this boot, so the notice at boot leads, about the boot before."""
    v = classify(
        Timeline.from_records(
            _records(
                MCE_AT_BOOT,
                "mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 4: a600000000020408",
                LINK,
            )
        )
    )
    assert v.subject is Subject.PREVIOUS_BOOT
    assert v.primary is not None and v.primary.tag == "mce_logged_at_boot"


def test_a_paste_cut_minutes_after_its_last_failure_still_names_it() -> None:
    """The final window holds no failure (the next report's header is untagged): the last
    failure the paste shows leads, where the log does not show how the boot ended."""
    kill = "Out of memory: Killed process 28438 (java) total-vm:20255636kB, anon-rss:466160kB"
    later = "java cpuset=1e47 mems_allowed=0"
    recs = [KernelRecord(kill, 3, 0, 1, 100 * 10**6, "-")] + [
        KernelRecord(later, 4, 0, n, (100 + 60 * n) * 10**6, "-") for n in range(2, 12)
    ]
    v = classify(Timeline.from_records(recs))
    assert v.primary is not None and v.primary.tag == "oom_kill"
    assert v.reason == "log_ends_after:oom_kill"
    # a boot known to have ended keeps its final window: ten quiet minutes are its end
    assert classify(Timeline.from_records(recs), ended=True).primary is None
