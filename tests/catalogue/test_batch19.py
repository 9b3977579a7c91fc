"""Wordings corpus batch 19 (docs/accuracy.md) showed missing: each line as its source's
format string prints it (file named in the catalogue entry), the lines with the same words
that must not match, and what the judge makes of them."""

from __future__ import annotations

import io

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.commands.analyze import analyze_report
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording

U = "user:"  # a userspace journal line (facility 3)

# tag → (positives, negatives)
BATCH19_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "scsi_host_reset": (
        [
            # hpsa.c hpsa_eh_device_reset_handler through hpsa_show_dev_msg
            "hpsa 0000:05:00.0: scsi 0:1:0:0: resetting logical  Direct-Access     HP       "
            "LOGICAL VOLUME   RAID-1(+0) SSDSmartPathCap+ En+ Exp=1",
            "hpsa 0000:05:00.0: scsi 0:1:0:0: reset logical  completed successfully "
            "Direct-Access     HP       LOGICAL VOLUME   RAID-1(+0) SSDSmartPathCap+ En+ Exp=1",
            "hpsa 0000:03:00.0: scsi 2:0:4:0: reset physical  failed Direct-Access     ATA      "
            "MB2000GCWDA      physical SSDSmartPathCap- En- Exp=1",
            "hpsa 0000:03:00.0: scsi 2:0:4:0: cmd 17 RESET FAILED, new lockup detected "
            "Direct-Access     ATA      MB2000GCWDA      physical SSDSmartPathCap- En- Exp=1",
        ],
        [
            # the same dev message at scan time: a volume added, updated or removed
            "hpsa 0000:05:00.0: scsi 0:1:0:0: added Direct-Access     HP       LOGICAL VOLUME   "
            "RAID-1(+0) SSDSmartPathCap+ En+ Exp=1",
            "hpsa 0000:05:00.0: scsi 0:1:0:0: updated Direct-Access     HP       LOGICAL "
            "VOLUME   RAID-1(+0) SSDSmartPathCap+ En+ Exp=1",
        ],
    ),
    "xen_hypervisor_panic": (
        [
            "(XEN) Panic on CPU 0:",
            "(XEN) Xen BUG at drivers/passthrough/amd/iommu_init.c:1386",
            "(XEN) [ 2.811370] Panic on CPU 3:",  # console_timestamps=
        ],
        [
            "(XEN) ****************************************",
            "(XEN) Hardware Dom0 shutdown: rebooting machine",
            "Panic on CPU 0:",  # without Xen's console prefix it is nobody's
        ],
    ),
    "clean_shutdown_marker": (
        [
            U + "systemd[1]: Shutting down.",
            U + "systemd[1]: Reached target reboot.target.",  # StatusUnitFormat=name
            U + "systemd[1]: Reached target poweroff.target.",
            U + "systemd[1]: Starting Reboot...",
            U + "systemd[1]: Starting Power-Off...",
            U + "systemd[1]: Starting Halt...",
            U + "systemd[1]: Starting systemd-reboot.service - System Reboot...",
            U + "systemd[1]: Starting systemd-poweroff.service - System Power Off...",
        ],
        [
            # a unit stopping (isolate, systemctl stop) is not yet a shutdown
            U + "systemd[1]: Stopped target Graphical Interface.",
            U + "systemd[1]: Reached target multi-user.target.",
            U + "systemd[1]: Starting Reboot notifier service...",
            U + "dockerd[812]: Shutting down.",  # not PID 1's
        ],
    ),
}


def _record(line: str) -> KernelRecord:
    if line.startswith(U):
        return KernelRecord(line[len(U) :], facility=3)
    return KernelRecord(line, facility=0)


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(_record(line))}


@pytest.mark.parametrize("tag", sorted(BATCH19_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH19_EXAMPLES, tag, _tags)


def _judge(text: str) -> tuple[str, str]:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return (report.primary.tag if report.primary else "", report.outcome.value)


def test_a_xen_panic_on_its_console_is_the_culprit_and_a_panic() -> None:
    paste = (
        "(XEN) Xen call trace:\n"
        "(XEN)    [<ffff82d0403a5ef8>] R amd_iommu_prepare+0x288/0x390\n"
        "(XEN)    [<ffff82d0403aa3fc>] S iommu_setup+0x3c/0x230\n"
        "(XEN) \n"
        "(XEN) ****************************************\n"
        "(XEN) Panic on CPU 0:\n"
        "(XEN) Xen BUG at drivers/passthrough/amd/iommu_init.c:1386\n"
        "(XEN) ****************************************\n"
        "(XEN) \n"
        "(XEN) Reboot in five seconds...\n"
    )
    assert _judge(paste) == ("xen_hypervisor_panic", "kernel_panic")


def test_pid1_reaching_the_reboot_target_is_a_clean_reboot() -> None:
    paste = (
        "Apr 25 16:31:35 box systemd[1]: Reached target Reboot.\n"
        "Apr 25 16:31:35 box systemd[1]: Shutting down.\n"
    )
    assert _judge(paste) == ("", "clean_reboot")


def test_pid1_shutting_down_then_audit_lines_is_still_the_shutdown_sequence() -> None:
    paste = "Apr 25 16:31:35 box systemd[1]: Shutting down.\n" + "".join(
        f"Apr 25 16:31:35 box audit: BPF prog-id={n} op=UNLOAD\n" for n in range(16, 26)
    )
    report, _ = analyze_report(io.BytesIO(paste.encode()), name="paste")
    assert "clean_shutdown_marker" in {s.tag for s in report.signatures}
