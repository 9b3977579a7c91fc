"""The platform and bus sweep's wordings (kmsgd/catalogue/sweep_platform.py): PCIe error
recovery that failed, PCIe links that did not train, remote processor crashes, ARM SCMI
timeouts, EFI runtime service faults, the RAS collector's soft-offline and USB devices that
did not enumerate. Each as its format prints it behind its printing macro's prefix, read
through kmsgd's own reader; the routine lines beside it that must not become culprits; and
each family's place in the culprit order."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording, paste_primary, tags_of

PORT = "pcieport 0000:00:01.4: "
HP = "pcieport 0000:3c:06.0: pciehp: "

# tag → (lines that carry it, lines with the same words that must not)
SWEEP_PLATFORM_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "aer_recovery_failure": (
        [
            PORT + "AER: device recovery failed",
            PORT + "AER: Device recovery failed",
            "pcieport 0000:00:03.1: AER: subordinate device reset failed",
        ],
        [
            PORT + "AER: device recovery successful",
            PORT + "AER: Device recovery successful",
            PORT + "AER: Root Port link has been reset (0)",
            "EXT4-fs (sda1): recovery complete",
        ],
    ),
    "pcie_link_training_failure": (
        [
            HP + "link training error: status 0x0001",
            "pcieport 0000:02:00.0: pciehp: link training error: status 0x2000",
            "pciehp 0000:80:10.0:pcie004: Link Training Error occurs",
            HP + "Failed to check link status",
            PORT + "DPC: Data Link Layer Link Active not set in 1000 msec",
            "pcieport 0000:00:01.1: Data Link Layer Link Active not set in 1000 msec",
            "pcieport 0000:00:01.1: retraining failed",
        ],
        [
            HP + "Slot(180): Link Up",
            HP + "Timeout waiting for Presence Detect",
            "pcieport 0000:00:01.1: broken device, retraining non-functional downstream link at "
            "2.5GT/s",
            "pci 0000:01:00.0: 8.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x4 "
            "link at 0000:00:1c.0 (capable of 31.504 Gb/s with 8.0 GT/s PCIe x4 link)",
            "mlx5_core 0000:0b:00.0: retraining failed",  # quirks.c prints it on the bridge
        ],
    ),
    "remoteproc_crash": (
        [
            "remoteproc remoteproc0: crash detected in 4080000.remoteproc: type fatal error",
            "remoteproc remoteproc1: crash detected in adsp: type watchdog",
            "remoteproc remoteproc2: crash detected in cdsp: type mmufault",
            "qcom-q6v5-mss 4080000.remoteproc: fatal error received: "
            "err_qdi.c:456:EF:wlan_process:1:cmnos_thread.c:3900:Asserted in wlan_misc.c",
            "qcom_q6v5_pas 3000000.remoteproc: watchdog received: wdog bite",
        ],
        [
            "remoteproc remoteproc0: recovering 4080000.remoteproc",
            "remoteproc remoteproc0: remote processor 4080000.remoteproc is now up",
            "remoteproc remoteproc0: powering up 4080000.remoteproc",
            "ath10k_snoc 18800000.wifi: firmware crashed! (guid 1234)",
        ],
    ),
    "scmi_timeout": (
        [
            "arm-scmi firmware:scmi: timed out in resp(caller: do_xfer+0x164/0x568)",
            "arm-scmi arm-scmi.0.auto: timed out in resp(caller: do_xfer+0x164/0x8b0)",
            "arm-scmi firmware:scmi: timed out in resp(caller: do_xfer+0x110/0x3d8) - polling",
            "arm-scmi firmware:scmi: mbox timed out in resp(caller: scmi_perf_level_set+0x2c/0x80)",
        ],
        [
            "arm-scmi arm-scmi.0.auto: Using scmi_mailbox_transport",
            "arm-scmi arm-scmi.0.auto: SCMI Protocol v2.0 'Qualcomm:PDP0' Firmware version 0x0",
        ],
    ),
    "efi_runtime_fault": (
        [
            "[Firmware Bug]: Page fault caused by firmware at PA: 0xffffa30640054000",
            "efi: Froze efi_rts_wq and disabled EFI Runtime Services",
            "efi: [Firmware Bug]: Unable to handle paging request in EFI runtime service",
        ],
        [
            "efi: EFI v2.70 by American Megatrends",
            "efi: Remove mem132: MMIO range=[0xc0000000-0xcfffffff] (256MB) from e820 map",
            "[Firmware Bug]: TSC_DEADLINE disabled due to Errata; please update microcode",
        ],
    ),
    "usb_enumeration_failure": (
        [
            "usb 1-1: device descriptor read/64, error -71",
            "usb 3-2: device descriptor read/8, error -110",
            "usb 1-1.4: device descriptor read/all, error -71",
            "usb 1-1: device not accepting address 5, error -71",
            "usb usb1-port3: unable to enumerate USB device",
            "usb usb1-port1: Cannot enable. Maybe the USB cable is bad?",
            "hub 1-0:1.0: Cannot enable port 1.  Maybe the USB cable is bad?",
        ],
        [
            "usb 1-1: new high-speed USB device number 2 using xhci_hcd",
            "usb usb1-port3: over-current change #1",
            "usb 1-1: New USB device found, idVendor=046b, idProduct=ff10, bcdDevice= 1.00",
        ],
    ),
    "cpu_bringup_failure": (
        [
            "CPU3 failed to report alive state",
            "CPU1: failed to come online",
            "CPU2: failed to boot: -22",
            "Error taking CPU1 up: -5",
            "smpboot: do_boot_cpu failed(-1) to wakeup CPU#4",
        ],
        [
            "CPU1 is up",
            "psci: CPU3 killed (polled 0 ms)",
            "smpboot: CPU 3 is now offline",
            "CPU3: Booted secondary processor 0x0000000003 [0x410fd083]",
            "CPU features: detected: 32-bit EL0 Support",
        ],
    ),
}

# more wordings of other modules' tags
SWEEP_PLATFORM_WORDING: dict[str, tuple[list[str], list[str]]] = {
    "iommu_fault": (
        [
            "tegra-mc 2c00000.memory-controller: cpu: write @0x0000000000000000: EMEM address "
            "decode error (EMEM decode error)",
            "tegra-mc 70019000.mc: gpusrd: read @0x00000000f6c0a000: EMEM address decode "
            "error (EMEM decode error)",
            "tegra-mc 2c00000.memory-controller: nvdisplayr: secure read @0x00000000ffffff00: "
            "Page fault (SMMU translation error [R-S])",
            "tegra-mc 7000f000.memory-controller: vic03r: read @0x00000000fe000000: VPR "
            "violation (Carveout violation)",
        ],
        ["tegra-mc 2c00000.memory-controller: Tegra194 memory controller"],
    ),
    "edac": (
        ["RAS: Soft-offlining pfn: 0x10cb39"],
        ["RAS: Correctable Errors collector initialized."],
    ),
}


@pytest.mark.parametrize("tag", sorted(SWEEP_PLATFORM_EXAMPLES))
def test_the_source_wording_matches_and_the_lines_beside_it_do_not(tag: str) -> None:
    check_wording(SWEEP_PLATFORM_EXAMPLES, tag, tags_of)


@pytest.mark.parametrize("tag", sorted(SWEEP_PLATFORM_WORDING))
def test_the_wording_added_to_other_tags_matches(tag: str) -> None:
    check_wording(SWEEP_PLATFORM_WORDING, tag, tags_of)


def test_a_fatal_aer_error_leads_the_failed_recovery_after_it() -> None:
    text = "\n".join(
        [
            "[ 10.000000] pcieport 0000:00:01.4: AER: Uncorrected (Fatal) error received: "
            "0000:00:01.4",
            "[ 10.000100] pcieport 0000:00:01.4: PCIe Bus Error: severity=Uncorrected (Fatal), "
            "type=Transaction Layer, (Receiver ID)",
            "[ 11.000000] pcieport 0000:00:01.4: DPC: Data Link Layer Link Active not set in "
            "1000 msec",
            "[ 11.000100] pcieport 0000:00:01.4: AER: subordinate device reset failed",
            "[ 11.000200] pcieport 0000:00:01.4: AER: device recovery failed",
        ]
    )
    assert paste_primary(text) == "aer_fatal"


def test_a_failed_recovery_alone_is_the_culprit() -> None:
    text = "\n".join(
        [
            "[ 11.000100] pcieport 0000:00:01.4: AER: device recovery failed",
            "[ 12.000000] nvme nvme2: controller is down; will reset: CSTS=0xffffffff, "
            "PCI_STATUS=0xffff",
        ]
    )
    assert paste_primary(text) == "aer_recovery_failure"


def test_a_recovered_aer_error_has_no_recovery_failure() -> None:
    text = "\n".join(
        [
            "[ 10.000000] pcieport 0000:00:01.4: AER: Multiple Uncorrected (Non-Fatal) error "
            "received: 0000:01:00.0",
            "[ 10.100000] pcieport 0000:00:01.4: AER: device recovery successful",
        ]
    )
    assert paste_primary(text) == "aer_nonfatal"


def test_a_hot_plugged_slot_whose_link_does_not_train_is_the_culprit() -> None:
    text = "\n".join(
        [
            "[ 3.545654] pcieport 0000:02:00.0: pciehp: Slot(1): Card present",
            "[ 3.545700] pcieport 0000:02:00.0: pciehp: link training error: status 0x2000",
            "[ 3.547143] pcieport 0000:02:00.0: pciehp: Failed to check link status",
        ]
    )
    assert paste_primary(text) == "pcie_link_training_failure"


def test_an_efi_page_fault_leads_the_warning_it_prints() -> None:
    text = "\n".join(
        [
            "[ 0.371791] ------------[ cut here ]------------",
            "[ 0.371822] [Firmware Bug]: Page fault caused by firmware at PA: 0xffffb6ee80068000",
            "[ 0.371872] WARNING: CPU: 0 PID: 75 at arch/x86/platform/efi/quirks.c:734 "
            "efi_crash_gracefully_on_page_fault+0x49/0xc0",
            "[ 0.371963] CPU: 0 PID: 75 Comm: kworker/u24:4 Not tainted 5.14.17+ #9",
            "[ 0.372100] ---[ end trace 1234567890abcdef ]---",
            "[ 0.372200] efi: Froze efi_rts_wq and disabled EFI Runtime Services",
        ]
    )
    assert paste_primary(text) == "efi_runtime_fault"


def test_a_remoteproc_crash_that_recovers_is_still_named() -> None:
    text = "\n".join(
        [
            "[ 50.000000] qcom-q6v5-mss 4080000.remoteproc: fatal error received: "
            "mcfg_nv.c:123:Assertion failed",
            "[ 50.000100] remoteproc remoteproc0: crash detected in 4080000.remoteproc: type "
            "fatal error",
            "[ 50.000200] remoteproc remoteproc0: handling crash #1 in 4080000.remoteproc",
            "[ 50.000300] remoteproc remoteproc0: recovering 4080000.remoteproc",
            "[ 52.000000] remoteproc remoteproc0: remote processor 4080000.remoteproc is now up",
        ]
    )
    assert paste_primary(text) == "remoteproc_crash"


def test_usb_enumeration_retries_do_not_lead_a_host_controller_that_died() -> None:
    text = "\n".join(
        [
            "[ 100.000000] xhci_hcd 0000:00:14.0: xHCI host controller not responding, assume dead",
            "[ 100.000100] xhci_hcd 0000:00:14.0: HC died; cleaning up",
            "[ 101.000000] usb 1-1: device descriptor read/64, error -71",
            "[ 101.500000] usb usb1-port1: unable to enumerate USB device",
        ]
    )
    assert paste_primary(text) == "xhci_host_dead"


def test_a_cpu_that_does_not_come_back_from_resume_leads_the_hang_after_it() -> None:
    text = "\n".join(
        [
            "[ 500.000000] Enabling non-boot CPUs ...",
            "[ 510.000000] CPU1 failed to report alive state",
            "[ 510.000100] Error taking CPU1 up: -5",
            "[ 742.000000] INFO: task kworker/u64:2:1234 blocked for more than 122 seconds.",
        ]
    )
    assert paste_primary(text) == "cpu_bringup_failure"


def test_a_cpu_that_comes_back_from_resume_is_no_evidence() -> None:
    text = "\n".join(
        [
            "[ 500.000000] Enabling non-boot CPUs ...",
            "[ 500.100000] CPU1 is up",
            "[ 500.200000] CPU2 is up",
        ]
    )
    assert paste_primary(text) is None
