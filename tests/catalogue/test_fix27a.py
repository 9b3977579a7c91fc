"""Wording corpus batch 27 (docs/accuracy.md) showed untagged, each as its source's format
string prints it (file named in the catalogue entry, kmsgd/catalogue/sys_more.py): FreeBSD's
spin-mutex check and its panic, the Xen hypervisor ending an HVM guest (a triple fault, a
failed VM entry), the Intel NICs' reset task after a transmit hang, the CIFS client tearing
down its session in its debug output, a GHES section the kernel cannot decode; the lines
beside them that must not match, and what the judge makes of them."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording, primary_of

# tag → (positives, negatives)
FIX27A_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "spinlock_lockup": (
        [
            "spin lock 0xc0e0b6b4 (smp rendezvous) held by 0xc50e3870 (tid 100103) too long",
            "spin lock 0xffffffff81a2c5c0 (sched lock 1) held by 0xfffff8000b4e2000 (tid "
            "100004) too long",
        ],
        [
            "spin lock 0xc0e0b6b4 (smp rendezvous) held by 0xc50e3870 (tid 100103)",
            "the spin lock was held too long by another thread",
        ],
    ),
    "kernel_panic": (
        ["panic: spin lock held too long", "panic: page fault", "panic: general protection fault"],
        [
            "panic: runtime error: index out of range [3] with length 3",
            "panic: page fault handler returned",
        ],
    ),
    "xen_domain_crash": (
        [
            "(XEN) d36v0 Triple fault - invoking HVM shutdown action 1",
            "(XEN) hvm.c:1382:d5v0 Triple fault on VCPU0 - invoking HVM shutdown action 1.",
            "(XEN) d12v0 vmentry failure (reason 0x80000021): Invalid guest state (0)",
            "(XEN) d24v1 vmentry failure (reason 0x80000022): MSR loading (entry 1)",
            "d3v0 vmentry failure (reason 0x80000021): Invalid guest state (2)",
            "(XEN) Failed vm entry (exit reason 0x80000021) caused by invalid guest state (0).",
        ],
        [
            "(XEN) *** Dumping Dom36 vcpu#0 state: ***",
            "(XEN) ************* VMCS Area **************",
            "(XEN) d1v0 Unhandled: vec 14, #PF[0000]",
        ],
    ),
    "netdev_tx_timeout": (
        [
            "e1000 0000:00:03.0 enp0s3: Reset adapter",
            "enp3s0: Reset adapter",  # routine: the driver is not known
        ],
        [
            # their reset tasks also run on configuration changes (enable_fqtss, TSN)
            "igb 0000:03:00.0 eno1: Reset adapter",
            "igc 0000:05:00.0 enp5s0: Reset adapter",
            "ixgbe 0000:01:00.0 enp1s0f0: Reset adapter",
            "e1000e 0000:00:19.0 eth0: Reset adapter unexpectedly",
            "enp3s0: Reset adapter settings",
            "r8169 0000:02:00.0 enp2s0: Reset adapter",
        ],
    ),
    "cifs_server_not_responding": (
        [
            "/build/linux-azure-oE1Fgk/linux-azure-4.15.0/fs/cifs/connect.c: cifs_reconnect: "
            "tearing down socket",
            "fs/cifs/connect.c: cifs_reconnect: tearing down socket",
            "CIFS: fs/smb/client/connect.c: cifs_abort_connection: tearing down socket",
        ],
        [
            "fs/cifs/connect.c: cifs_reconnect: moving mids to private list",
            "fs/cifs/connect.c: Socket created",
        ],
    ),
    "ghes_hardware_error": (
        [
            "{77}[Hardware Error]:   section type: unknown, e8ed898d-df16-43cc-8ecc-54f060ef157f",
            "[Hardware Error]:  section type: unknown, 2826cc9f-448c-4c2b-86b6-a95394b7ef33",
        ],
        [
            "{77}[Hardware Error]:   section length: 0x30",
            "{77}[Hardware Error]:   00000000: 40010003 00000000 00400000 00462030  ...@......@.0 F.",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX27A_EXAMPLES))
def test_wording(tag: str) -> None:
    check_wording(FIX27A_EXAMPLES, tag)


def test_freebsd_spin_lock_check_leads_the_panic_it_ends_in() -> None:
    assert (
        primary_of(
            "spin lock 0xc0e0b6b4 (smp rendezvous) held by 0xc50e3870 (tid 100103) too long",
            "panic: spin lock held too long",
        )
        == "spinlock_lockup"
    )


def test_an_intel_nic_s_hang_report_and_its_reset_are_one_tx_timeout() -> None:
    assert (
        primary_of(
            "e1000 0000:00:03.0 enp0s3: Detected Tx Unit Hang",
            "e1000 0000:00:03.0 enp0s3: Reset adapter",
        )
        == "netdev_tx_timeout"
    )


def test_a_bare_reset_adapter_is_routine_and_a_real_failure_beside_it_leads() -> None:
    assert primary_of("enp3s0: Reset adapter") == "netdev_tx_timeout"
    assert (
        primary_of("enp3s0: Reset adapter", "nvme nvme0: I/O 417 QID 7 timeout, aborting")
        == "nvme_timeout"
    )


def test_a_cifs_reconnect_is_a_warning_that_a_real_failure_beside_it_outranks() -> None:
    assert (
        primary_of(
            "fs/cifs/connect.c: cifs_reconnect: tearing down socket",
            "nvme nvme0: I/O 417 QID 7 timeout, aborting",
        )
        == "nvme_timeout"
    )


def test_an_undecoded_corrected_section_alone_is_the_finding() -> None:
    assert (
        primary_of(
            "{77}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 5",
            "{77}[Hardware Error]: event severity: corrected",
            "{77}[Hardware Error]:   section type: unknown, e8ed898d-df16-43cc-8ecc-54f060ef157f",
        )
        == "ghes_hardware_error"
    )
