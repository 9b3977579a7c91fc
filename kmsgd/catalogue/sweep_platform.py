"""The platform and bus source sweep: PCIe error recovery and link training, the SoC's
remote processors and system-control firmware, EFI runtime services, the RAS corrected-error
collector, and USB enumeration (sweep_platform2.py: CPUs that do not come up, the Tegra memory
controller).

- PCIe error recovery (drivers/pci/pcie/err.c, aer/aerdrv_core.c before 4.19): after an AER
  or DPC error the kernel resets the link and asks each driver to recover; "device recovery
  failed" means a driver refused or the link did not come back: the devices below the port
  are left disconnected (their driver sees all-ones, a GPU "fell off the bus", an NVMe disk
  disappears). "device recovery successful" is the routine end of the same report.
- PCIe link training (pciehp_hpc.c pciehp_check_link_status, pci.c/quirks.c's waits for a
  link after a reset or resume): a link that does not train leaves the slot's device absent.
- Remote processors (drivers/remoteproc): a DSP, modem or sensor core that crashed; the
  framework restarts it ("recovering %s") when recovery is enabled.
- ARM SCMI (drivers/firmware/arm_scmi): the system-control processor that sets CPU clocks,
  power domains and sensors did not answer a request: cpufreq, suspend and resume stall.
- EFI runtime services (arch/x86/platform/efi/quirks.c, arch/arm64/kernel/efi.c): a
  firmware call that faulted; the kernel disables runtime services for the rest of the boot
  (no EFI variables, no capsule updates, reboot through the BIOS path).

Read and left untagged: watchdog_dev.c's "watchdog did not stop!" (systemd arms the hardware
watchdog for every shutdown, so it is printed on clean reboots), pci.c's "Refused to change
power state, currently in D3" (4.4-5.9: printed on resume for devices that come back a moment
later, and after a device already lost, which it would then lead), pciehp's "Timeout on
hotplug command" (buggy slot controllers print it on every boot), the link-bandwidth notice
"%u.%03u Gb/s available PCIe bandwidth, limited by" (routine), TPM and ACPI AE_ errors.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig, wording
from kmsgd.catalogue.hardware import HARDWARE_SIGNATURES

_PCI = DeviceKind.PCI
_PORT = "pcieport 0000:00:01.0: "
_HP = "pcieport 0000:00:1c.0: pciehp: "
_EDAC = next(s for s in HARDWARE_SIGNATURES if s.tag == "edac")
SWEEP_PLATFORM_SIGNATURES: tuple[Signature, ...] = (
    # drivers/pci/pcie/aer/aerdrv_core.c do_recovery (4.4-4.18) dev_info "AER: Device recovery
    # failed"; drivers/pci/pcie/err.c pcie_do_recovery pci_info "AER: Device recovery failed"
    # (4.19-5.6), with dev_fmt "AER: " and "device recovery failed" (5.7-6.18); its
    # aer_root_reset (6.x) pci_err "subordinate device reset failed" when the port's reset
    # itself fails. The success line ("device recovery successful") is routine.
    sig(
        "aer_recovery_failure",
        r"\bAER: (?:[Dd]evice recovery failed|subordinate device reset failed)\b",
        ("recovery", "subordinate"),
        Severity.CRITICAL,
        "pcie",
        "The kernel could not recover the PCIe devices below a port after an AER/DPC error: "
        "their drivers refused or the link did not come back, so the devices are left "
        "disconnected (a GPU off the bus, an NVMe disk gone) until a reset or reboot.",
        "Read the AER/DPC error before it for the device and error type; reseat or replace "
        "the card, riser or cable behind that port, update its firmware, and check the slot "
        "(lspci -vvv, the BMC's event log); the box needs a reboot to get the device back.",
        21,
        device_kind=_PCI,
        formats=(
            Format(
                "AER: Device recovery failed",
                "drivers/pci/pcie/aer/aerdrv_core.c",
                "4.4-4.18",
                _PORT,
            ),
            Format("AER: Device recovery failed", "drivers/pci/pcie/err.c", "4.19-5.6", _PORT),
            Format("device recovery failed", "drivers/pci/pcie/err.c", "5.7-6.18", _PORT + "AER: "),
            Format(
                "subordinate device reset failed",
                "drivers/pci/pcie/aer.c",
                "5.12-6.18",
                _PORT + "AER: ",
            ),
        ),
    ),
    # A PCIe link that does not train: drivers/pci/hotplug/pciehp_hpc.c
    # pciehp_check_link_status ctrl_err "link training error: status %#06x" (4.10-6.18; "Link
    # Training Error occurs" 4.4-4.9), then pciehp_ctrl.c board_added ctrl_err "Failed to
    # check link status" (4.4-6.18); drivers/pci/pci.c pci_bridge_wait_for_secondary_bus and
    # dpc.c dpc_reset_link pci_info "Data Link Layer Link Active not set in 1000 msec" (4.19-
    # 6.5; "%d msec" with the delay 6.6-6.18), after a reset, a resume or a DPC event;
    # drivers/pci/quirks.c pcie_failed_link_retrain pci_info "retraining failed" (6.5-6.18, on
    # the bridge: pcieport, or pci before its driver binds).
    # pciehp's ctrl_err is dev_err on the port service ("pciehp 0000:80:10.0:pcie004: ") before
    # 4.19, pci_err with "pciehp: " from it. Its "Timeout waiting for Presence Detect" and
    # "Link Up" are not events.
    sig(
        "pcie_link_training_failure",
        r"(?:\bpciehp: |:pcie0\d\d: )(?:link training error: status 0x[0-9a-f]+"
        r"|Link Training Error occurs|Failed to check link status)"
        r"|\bData Link Layer Link Active not set in \d+ msec"
        r"|^(?:pcieport|pci) [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]: retraining failed$",
        ("training", "Training", "check", "Layer", "retraining"),
        Severity.ERROR,
        "pcie",
        "A PCIe link did not come up (train) after a hot-plug, a reset, a resume or a "
        "containment event: the device behind that port is absent or unusable.",
        "Reseat the card, riser or cable behind the port; check the slot's power and the "
        "device's firmware; a link that trains only at a lower speed points at signal "
        "integrity (a riser or retimer); the device needs a power cycle to come back.",
        21,
        device_kind=_PCI,
        formats=(
            Format(
                "link training error: status %#06x",
                "drivers/pci/hotplug/pciehp_hpc.c",
                "4.10-6.18",
                _HP,
                args=(0x1001,),
            ),
            Format(
                "Link Training Error occurs",
                "drivers/pci/hotplug/pciehp_hpc.c",
                "4.4-4.9",
                "pciehp 0000:80:10.0:pcie004: ",
            ),
            Format(
                "Failed to check link status", "drivers/pci/hotplug/pciehp_ctrl.c", "4.4-6.18", _HP
            ),
            Format(
                "Data Link Layer Link Active not set in 1000 msec",
                "drivers/pci/pci.c",
                "4.19-6.5",
                _PORT,
            ),
            Format(
                "Data Link Layer Link Active not set in %d msec",
                "drivers/pci/pci.c",
                "6.6-6.18",
                _PORT,
                args=(1000,),
            ),
            Format("retraining failed", "drivers/pci/quirks.c", "6.5-6.18", _PORT),
        ),
    ),
    # drivers/remoteproc/remoteproc_core.c rproc_report_crash dev_err "crash detected in %s:
    # type %s" (4.4-6.18; "mmufault", "watchdog", "fatal error"); the Qualcomm drivers'
    # reasons before it, qcom_q6v5.c (4.19-6.18; qcom_q6v5_pil.c before) and qcom_wcnss.c:
    # dev_err "fatal error received: %s" (the crash reason from SMEM), "watchdog received:
    # %s". The restart after it ("recovering %s", "remote processor %s is now up") is routine.
    sig(
        "remoteproc_crash",
        r"\bcrash detected in \S+: type (?:mmufault|watchdog|fatal error|exception)"
        r"|^\S+ \S+\.remoteproc\S*: (?:fatal error|watchdog) received: ",
        ("crash", "received"),
        Severity.ERROR,
        "soc",
        "A remote processor of the SoC (a modem, audio or compute DSP, a Wi-Fi or sensor "
        "core) crashed; whatever ran on it (the modem, audio, Wi-Fi) stops until the kernel "
        "restarts it.",
        "Read the crash reason the line gives (the firmware's file and line); update the "
        "remote processor's firmware (linux-firmware, the vendor's image) to match the "
        "kernel; enable recovery (/sys/class/remoteproc/*/recovery) if it stays down.",
        47,
        formats=(
            Format(
                "crash detected in %s: type %s",
                "drivers/remoteproc/remoteproc_core.c",
                "4.4-6.18",
                "remoteproc remoteproc0: ",
                args=("4080000.remoteproc", "fatal error"),
            ),
            Format(
                "fatal error received: %s",
                "drivers/remoteproc/qcom_q6v5.c",
                "4.19-6.18",
                "qcom-q6v5-mss 4080000.remoteproc: ",
                args=("err_qdi.c:456:EF:wlan_process:1:cmnos_thread.c:3900:Assert",),
            ),
            Format(
                "watchdog received: %s",
                "drivers/remoteproc/qcom_q6v5.c",
                "4.19-6.18",
                "qcom_q6v5_pas 3000000.remoteproc: ",
                args=("wdog bite",),
            ),
        ),
    ),
    # drivers/firmware/arm_scmi/driver.c scmi_do_xfer dev_err "mbox timed out in resp(caller:
    # %pS)" (4.17-5.0), "timed out in resp(caller: %pS)" (5.1-6.18, do_xfer and
    # scmi_wait_for_reply from 5.17, with " - polling" for a polled transfer): the system
    # control processor did not answer
    sig(
        "scmi_timeout",
        r"\btimed out in resp\(caller: \S+\)",
        ("resp",),
        Severity.ERROR,
        "firmware",
        "The system control processor's firmware (ARM SCMI) did not answer a request: the CPU "
        "frequency, power-domain, clock or sensor change it was asked for did not happen, "
        "and cpufreq, suspend/resume or a device's probe stall on it.",
        "Update the platform firmware (SCP/TF-A, the BMC's); check the SCMI transport "
        "(mailbox, shared memory) in the firmware tables; if it follows a resume, report it "
        "with the kernel version to the platform vendor.",
        25,
        formats=(
            Format(
                "timed out in resp(caller: %pS)",
                "drivers/firmware/arm_scmi/driver.c",
                "5.1-6.18",
                "arm-scmi firmware:scmi: ",
                args=("do_xfer+0x164/0x568",),
            ),
            Format(
                "timed out in resp(caller: %pS) - polling",
                "drivers/firmware/arm_scmi/driver.c",
                "5.17-6.18",
                "arm-scmi arm-scmi.0.auto: ",
                args=("do_xfer+0x164/0x8b0",),
            ),
            Format(
                "mbox timed out in resp(caller: %pS)",
                "drivers/firmware/arm_scmi/driver.c",
                "4.17-5.0",
                "arm-scmi firmware:scmi: ",
                args=("scmi_perf_level_set+0x2c/0x80",),
            ),
        ),
    ),
    # A firmware call that faulted. arch/x86/platform/efi/quirks.c
    # efi_crash_gracefully_on_page_fault (5.0-6.18): WARN(1, FW_BUG "Page fault caused by
    # firmware at PA: 0x%lx") (its WARNING splat follows), then pr_info "Froze efi_rts_wq and
    # disabled EFI Runtime Services"; arch/arm64/kernel/efi.c efi_runtime_fixup_exception
    # (6.1-6.18) pr_err FW_BUG "Unable to handle %s in EFI runtime service". Ranked before the
    # kernel warning its WARN prints: the warning is its report
    sig(
        "efi_runtime_fault",
        r"\[Firmware Bug\]: (?:Page fault caused by firmware at PA: 0x"
        r"|Unable to handle .{1,60} in EFI runtime service)"
        r"|\bFroze efi_rts_wq and disabled EFI Runtime Services",
        ("caused", "runtime", "efi_rts_wq"),
        Severity.ERROR,
        "firmware",
        "A UEFI runtime service (a firmware call: EFI variables, time, reset, capsules) "
        "faulted; the kernel stopped it and disabled EFI runtime services for the rest of "
        "the boot (no EFI variables, no firmware updates, reboot through the BIOS).",
        "Update the system firmware (BIOS/UEFI); until then boot with efi=noruntime or the "
        "vendor's quirk if the call is at boot; the stack trace names the service.",
        60,
        formats=(
            Format(
                "[Firmware Bug]: Page fault caused by firmware at PA: 0x%lx",
                "arch/x86/platform/efi/quirks.c",
                "5.0-6.18",
                args=(0xFFFFA30640054000,),
            ),
            Format(
                "Froze efi_rts_wq and disabled EFI Runtime Services",
                "arch/x86/platform/efi/quirks.c",
                "5.0-6.18",
                "efi: ",
            ),
            Format(
                "[Firmware Bug]: Unable to handle %s in EFI runtime service",
                "arch/arm64/kernel/efi.c",
                "6.1-6.18",
                "efi: ",
                args=("paging request",),
            ),
        ),
    ),
    # drivers/ras/cec.c cec_add_elem (4.13-6.18, pr_fmt "RAS: "): pr_err "Soft-offlining pfn:
    # 0x%llx" when a page's corrected errors reach action_threshold: the collector takes the
    # page out of use. It is the ECC report of a DIMM whose errors recur
    wording(
        _EDAC,
        r"^(?:RAS: )?Soft-offlining pfn: 0x[0-9a-f]+",
        ("offlining",),
        formats=(Format("Soft-offlining pfn: 0x%llx", "drivers/ras/cec.c", "4.13-6.18", "RAS: "),),
    ),
    # drivers/usb/core/hub.c hub_port_init: dev_err "device descriptor read/%s, error %d"
    # ("64", "8", "all"), "device not accepting address %d, error %d" (2.6-6.18); hub_port_
    # connect: dev_err "unable to enumerate USB device" (4.4-6.18, on the port device) and
    # "Cannot enable. Maybe the USB cable is bad?" (4.4-6.18 on the port device; 3.x on the
    # hub, "Cannot enable port %i.  Maybe the USB cable is bad?"). A
    # device that does not enumerate is gone (a failing cable, a hub or a device that lost
    # power); the retries are printed on boxes whose BMC's virtual USB hub probes slowly
    # too, so it is a warning.
    sig(
        "usb_enumeration_failure",
        r"\bdevice descriptor read/(?:64|8|all), error -?\d+"
        r"|\bdevice not accepting address \d+, error -?\d+"
        r"|\bunable to enumerate USB device\b"
        r"|\bCannot enable(?: port \d+)?\.  ?Maybe the USB cable is bad\?",
        ("descriptor", "accepting", "enumerate", "cable"),
        Severity.WARNING,
        "usb",
        "A USB device did not answer while being enumerated (its descriptor read or address "
        "was refused): the kernel gave the device up, so it is missing (a disk, a NIC, the "
        "BMC's virtual media or keyboard).",
        "Try another port or cable, a powered hub, or reseat the device; a storm on every "
        "port points at the hub or the host controller (see any xHCI error before it).",
        48,
        routine=True,
        formats=(
            Format(
                "device descriptor read/%s, error %d",
                "drivers/usb/core/hub.c",
                "4.4-6.18",
                "usb 1-1: ",
                args=("64", -71),
            ),
            Format(
                "device not accepting address %d, error %d",
                "drivers/usb/core/hub.c",
                "4.4-6.18",
                "usb 1-1: ",
                args=(5, -71),
            ),
            Format(
                "unable to enumerate USB device",
                "drivers/usb/core/hub.c",
                "4.4-6.18",
                "usb usb1-port3: ",
            ),
            Format(
                "Cannot enable. Maybe the USB cable is bad?",
                "drivers/usb/core/hub.c",
                "4.4-6.18",
                "usb usb1-port3: ",
            ),
        ),
    ),
)
