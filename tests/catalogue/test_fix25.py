"""The wordings corpus batch 25 (docs/accuracy.md) showed no entry read: Lustre's lost peers and
inactive service threads, x86's split-lock trap, IBM Z's PCI error events, the 2.6-era
qla2xxx error handler's steps; each line written from its source's format string (file named
in the catalogue entry), the lines printed beside them that must not match, and what the judge
makes of them."""

from __future__ import annotations

import io

import pytest

from kmsgd.commands.analyze import analyze_report
from tests.catalogue.lines import check_wording, paste_primary, primary_of

# tag → (positives, negatives)
FIX25_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "lustre_network_error": (
        [
            "Lustre: 1160:0:(client.c:2114:ptlrpc_expire_one_request()) @@@ Request sent has "
            "timed out for slow reply: [sent 1507651404/real 1507651404]  req@ffff88005ef8c000",
            "Lustre: 2449:0:(client.c:2141:ptlrpc_expire_one_request()) @@@ Request sent has "
            "failed due to network error: [sent 1508144508/real 1508144518]  req@ffff880eb14da700",
            "Lustre: 3333:0:(client.c:2063:ptlrpc_expire_one_request()) @@@ Request sent has "
            "timed out for sent delay: [sent 1500000000/real 0]  req@ffff880eb14da700",
            "LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Timed out tx for "
            "172.31.126.87@o2ib: 403055 seconds",
            "LNetError: 2431:0:(o2iblnd_cb.c:3238:kiblnd_check_conns()) Timed out RDMA with "
            "10.0.0.7@o2ib (52): c: 0, oc: 0, rc: 8",
            "LustreError: 11-0: jmain01-MDT0000-mdc-ffff88203810d800: operation obd_ping to node "
            "172.31.126.88@o2ib failed: rc = -107",
            "Lustre: lustre-OST0000-osc-ffff8800: Connection to lustre-OST0000 (at 10.0.0.5@tcp) "
            "was lost; in progress operations using this service will wait for recovery to "
            "complete",
            "LustreError: 166-1: MGC10.130.93.11@o2ib: Connection to MGS (at 10.130.93.10@o2ib) "
            "was lost; in progress operations using this service will fail",
        ],
        [
            # the throttle's line, a reply that is an ordinary error, a recovery
            "Lustre: 2449:0:(client.c:2141:ptlrpc_expire_one_request()) Skipped 24 previous "
            "similar messages",
            "LustreError: 11-0: fs-OST0002-osc-ffff: operation ost_write to node 10.0.1.5@tcp "
            "failed: rc = -28",
            "Lustre: fs-OST0000-osc-ffff: Connection restored to fs-OST0000 (at 10.0.1.5@tcp)",
            "Request sent has timed out for slow reply",  # a program's or a person's words
        ],
    ),
    "lustre_service_thread_inactive": (
        [
            "LNet: Service thread pid 25305 was inactive for 200.09s. The thread might be hung, "
            "or it might only be slow and will resume later. Dumping the stack trace for "
            "debugging purposes:",
            "Lustre: ll_ost_io04_080: service thread pid 55122 was inactive for 80.284 seconds. "
            "The thread might be hung, or it might only be slow and will resume later.",
            "LNet: Service thread pid 4242 was inactive for 240.12s. Watchdog stack traces are "
            "limited to 3 per 300 seconds, skipping this one.",
        ],
        [
            "LNet: Service thread pid 25305 completed after 216.04s. This indicates the system "
            "was overloaded (too many service threads, or there were not enough hardware "
            "resources).",
        ],
    ),
    "split_lock_trap": (
        [
            "x86/split lock detection: #AC: CPU 1/KVM/3302738 took a split_lock trap at "
            "address: 0xbff4b050",
            "x86/split lock detection: #AC: game.exe/4242 took a split_lock trap at address: "
            "0x140001000",
            "x86/split lock detection: #AC: CPU 0/KVM/4242 fatal split_lock trap at address: "
            "0xfffff80012345678",
            "x86/split lock detection: #DB: bench/4242 took a bus_lock trap at address: 0x401136",
        ],
        [
            # the boot's state, not an event
            "x86/split lock detection: #AC: crashing the kernel on kernel split_locks and "
            "warning on user-space split_locks",
            "x86/split lock detection: #DB: warning on user-space bus_locks",
        ],
    ),
    "zpci_error_event": (
        [
            "zpci: 000e:00:00.0: Event 0x3a reports an error for PCI function 0x1004",
            "zpci: n/a: Event 0x3a reports an error for PCI function 0x1004",
            "zpci: 0001:00:00.0: Automatic recovery failed; operator intervention is required",
            "zpci: 0001:00:00.0: Automatic recovery failed after slot reset",
            "zpci: 0001:00:00.0: The reset request failed",
        ],
        [
            "zpci: 000e:00:00.0: Initiating reset",
            "zpci: 000e:00:00.0: The device is ready to resume operations",
            "zpci: PCI host bridge to bus 000e:00",
        ],
    ),
    "scsi_host_reset": (
        [
            "qla2xxx 0000:06:00.0: scsi(0:10:0): Abort command issued -- 1 10fb 2002.",
            "qla2xxx 0000:06:00.0: scsi(0:10:0): Abort command issued -- 10fb 2002.",
            "qla2xxx 0000:06:00.0: scsi(0:10:0): Abort handler timed out -- 10fb 2003.",
            "qla2xxx 0000:06:00.0: scsi(0:10:0): DEVICE RESET ISSUED.",
            "qla2xxx 0000:06:00.0: scsi(0:10:0): LOOP RESET ISSUED.",
            "qla2xxx 0000:06:00.0: scsi(0:10:0): ADAPTER RESET ISSUED.",
        ],
        [
            "qla2xxx 0000:06:00.0: scsi(0:10:0): DEVICE RESET SUCCEEDED.",
            "qla2xxx 0000:06:00.0: qla2xxx_eh_bus_reset: reset succeeded",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX25_EXAMPLES))
def test_wording(tag: str) -> None:
    check_wording(FIX25_EXAMPLES, tag)


def test_a_lost_lustre_peer_leads_the_thread_that_waits_on_it() -> None:
    lost, inactive = (
        FIX25_EXAMPLES[t][0][0] for t in ("lustre_network_error", "lustre_service_thread_inactive")
    )
    assert primary_of(lost, inactive) == "lustre_network_error"
    assert primary_of(inactive) == "lustre_service_thread_inactive"


def test_a_lone_split_lock_trap_is_the_culprit() -> None:
    assert primary_of(FIX25_EXAMPLES["split_lock_trap"][0][0]) == "split_lock_trap"


def test_the_platform_s_pci_error_leads_the_driver_s_recovery() -> None:
    assert (
        primary_of(
            FIX25_EXAMPLES["zpci_error_event"][0][0],
            "nvme nvme0: frozen state error detected, reset controller",
            "zpci: 000e:00:00.0: Initiating reset",
            "nvme nvme0: restart after slot reset",
        )
        == "zpci_error_event"
    )


def test_the_freezer_s_task_dump_is_the_failed_freeze_not_a_hung_task() -> None:
    paste = "\n".join(
        f"Sep 13 00:59:31 box kernel: {line}"
        for line in (
            "PM: suspend entry (s2idle)",
            "Freezing user space processes",
            "Freezing user space processes failed after 20.002 seconds (1 tasks refusing to "
            "freeze, wq_busy=0):",
            "task:sh              state:D stack:0     pid:7681  tgid:7651  ppid:3411   "
            "task_flags:0x400000 flags:0x00004006",
            "Call Trace:",
            " <TASK>",
            " __schedule+0x465/0x1300",
        )
    )
    assert paste_primary(paste + "\n") == "suspend_failure"


def test_the_error_handler_s_abort_leads_the_loop_it_resets() -> None:
    assert (
        primary_of(
            "qla2xxx 0000:06:00.0: scsi(0:10:0): Abort command issued -- 1 10fb 2002.",
            "qla2xxx 0000:06:00.0: scsi(0:10:0): LOOP RESET ISSUED.",
            "qla2xxx 0000:06:00.0: LOOP DOWN detected (0 0 0).",
        )
        == "scsi_host_reset"
    )
    # a loop that went down first is the cause of the aborts after it
    assert (
        primary_of(
            "qla2xxx 0000:06:00.0: LOOP DOWN detected (0 0 0).",
            "qla2xxx 0000:06:00.0: scsi(0:10:0): Abort command issued -- 1 10fb 2002.",
        )
        == "fc_link_down"
    )


def test_a_tsc_the_platform_marks_unstable_at_boot_is_no_event() -> None:
    # arch/x86/kernel/tsc.c mark_tsc_unstable's reason: the clock watchdog's finding is an
    # event, a property of the platform (intel_idle.c, processor_idle.c, cpufreq, Hyper-V) is not
    check_wording(
        {
            "clocksource_unstable": (
                [
                    "tsc: Marking TSC unstable due to clocksource watchdog",
                    "tsc: Marking TSC unstable due to check_tsc_sync_source failed",
                ],
                [
                    "tsc: Marking TSC unstable due to TSC halts in idle states deeper than C2",
                    "tsc: Marking TSC unstable due to TSC halts in idle",
                    "tsc: Marking TSC unstable due to cpufreq changes",
                    "tsc: Marking TSC unstable due to TSCs unsynchronized",
                    "tsc: Marking TSC unstable due to running on Hyper-V",
                ],
            )
        },
        "clocksource_unstable",
    )


def test_xfs_log_replay_is_read_by_its_body_where_the_prefix_was_lost() -> None:
    check_wording(
        {
            "fs_recovery": (
                [
                    "FS (dm-0): Starting recovery (logdev: internal)",
                    "XFS (sda1): Ending recovery (logdev: /dev/sdb1)",
                ],
                ["FS (dm-0): Mounting V5 Filesystem", "recovery (logdev: internal)"],
            )
        },
        "fs_recovery",
    )
    text = "> SGI XFS with ACLs\n> FS (dm-0): Starting recovery (logdev: internal)\n"
    assert "fs_recovery" in {
        s.tag for s in analyze_report(io.BytesIO(text.encode()), name="paste")[0].signatures
    }
