"""Hardware, bus and storage signatures: MCE, EDAC, PCIe AER, IOMMU, thermal, NVMe, disks,
filesystems. Each regex quotes the kernel's own format string (file named in the comment).
"""

from __future__ import annotations

import re

from kmsgd.catalogue.base import DeviceKind, Format, MatchInput, Severity, Signature, Trigger, sig

S = Severity
_CPU, _PCI, _DISK, _FS = DeviceKind.CPU, DeviceKind.PCI, DeviceKind.DISK, DeviceKind.FS
EARLY_US = 300_000_000  # "at boot": within the first five minutes of printk time
_MCE = "mce: [Hardware Error]: "  # mce/core.c pr_fmt "mce: " and HW_ERR (4.x+)
_AER = "pcieport 0000:00:01.1: AER: "  # aer.c dev_fmt/pr_fmt "AER: " (4.19+), the root port
_NVME = "nvme nvme0: "  # dev_warn(ctrl->device) of the controller
_MCE_FILE = "arch/x86/kernel/cpu/mce/core.c"


# mce_notify_irq (arch/x86/kernel/cpu/mce/core.c): "Machine check events logged" says only
# that records wait for mcelog/rasdaemon. What they are is often in the log beside it: the
# EDAC driver's decode of a corrected memory error, or (kernels before 4.x, whose thermal
# interrupt logged through the MCE log) a CPU throttling notice. Then those lead
# (kmsgd/judge/chains.py MAY_CAUSE).
MCE_NOTICE = "Machine check events logged"
MCELOG_HEADER = "Hardware event. This is not a software error."  # mcelog.c disclaimer()
# MCi_STATUS bits VAL (63), UC (61) and PCC (57): a valid uncorrected error that corrupted
# the processor context
_VAL_UC_PCC = (1 << 63) | (1 << 61) | (1 << 57)


def _early(m: re.Match[str], i: MatchInput) -> bool:
    # without a printk stamp (journal short) "at boot" cannot be told: count it as runtime
    return i.ts_usec is not None and i.ts_usec < EARLY_US


HARDWARE_SIGNATURES: tuple[Signature, ...] = (
    # arch/x86/kernel/cpu/mce/core.c print_mce: "[Hardware Error]: CPU %d: Machine Check%s:
    # %Lx Bank %d: %016Lx" (2.6.3x–today; "mce: " pr_fmt since 4.x; "Machine Check
    # Exception" in 3.x–5.x), mce_panic "Machine check: %s", the mcelog notice "Machine
    # check events logged" (2.6.3x–today); 2.6.2x: "CPU %d: Machine Check Exception: %16Lx
    # Bank %d" and "HARDWARE ERROR"; AMD's decoder (drivers/edac/mce_amd.c): "[Hardware
    # Error]: Corrected error, no action required." / "Uncorrected, software restartable
    # error."; powerpc's die() of an unrecovered machine check (arch/powerpc/kernel/traps.c
    # machine_check_exception → die("Machine check", regs, SIGBUS)): "Oops: Machine check,
    # sig: 7 [#1]". The AMD decoder's bank lines (drivers/edac/mce_amd.c amd_decode_mce):
    # "MC%d_STATUS[%s|%s|%s|%s|%s" (2.6.3x-3.2), "CPU:%d\tMC%d_STATUS[…" (3.3-3.9), "CPU:%d
    # (%x:%x:%x) MC%d_STATUS[…" (3.10+), printed for corrected and uncorrected errors alike
    # before any other decoder line; older kernels print no "Corrected error" line, and their
    # northbridge decoder says "Northbridge Error (node %d): " (≤3.7; "MC4 Error (node %d): "
    # 3.8+)
    sig(
        "mce",
        r"\[Hardware Error\]: (?:CPU \d+: Machine Check|Machine check: |PROCESSOR|"
        r"RIP|TSC|Run the above|(?:Un)?[Cc]orrected(?: error|, ))|Machine check events logged"
        r"|Fatal [Mm]achine check|^CPU \d+: Machine Check Exception:|^HARDWARE ERROR$"
        r"|^Oops: Machine check, sig: \d+"
        r"|\[Hardware Error\]: (?:CPU:\d+\s(?:\([0-9a-f:]+\) )?)?MC\d+_STATUS\["
        r"|\[Hardware Error\]: (?:Northbridge|MC4) Error \(node \d+\): ",
        ("Hardware", "Machine", "machine"),
        S.CRITICAL,
        "hardware",
        "The CPU reported a machine-check (hardware) error.",
        "Decode with rasdaemon/mcelog: bank and address name the CPU, cache or DIMM.",
        10,
        check=lambda m, i: not ("events logged" in i.text and _early(m, i)),
        timed=True,
        formats=(
            Format(
                "CPU %d: Machine Check%s: %Lx Bank %d: %016Lx",
                _MCE_FILE,
                "5.4-6.18",
                _MCE,
                args=(3, " Exception", 5, 4, 0xB200000000070F0F),
            ),
            Format(
                "Machine check: %s",
                _MCE_FILE,
                "5.4-6.18",
                _MCE,
                args=("Processor context corrupt",),
            ),
            Format("Machine check events logged", _MCE_FILE, "5.4-6.18", _MCE),
            Format(
                "Machine check events logged", "arch/x86/kernel/cpu/mcheck/mce.c", "4.4-4.19", _MCE
            ),
            Format(
                "CPU:%d (%x:%x:%x) MC%d_STATUS[%s|%s|%s|%s|%s",
                "drivers/edac/mce_amd.c",
                "3.10-6.18",
                "[Hardware Error]: ",
                args=(12, 0x17, 0x31, 0, 27, "-", "CE", "MiscV", "-", "AddrV"),
            ),
            Format(
                "MC%d_STATUS[%s|%s|%s|%s|%s",
                "drivers/edac/mce_amd.c",
                "2.6.32-3.2",
                "[Hardware Error]: ",
                args=(4, "Over", "CE", "MiscV", "-", "AddrV"),
            ),
            Format(
                "Northbridge Error (node %d): ",
                "drivers/edac/mce_amd.c",
                "2.6.32-3.7",
                "[Hardware Error]: ",
                args=(4,),
            ),
            Format(
                "MC4 Error (node %d): ",
                "drivers/edac/mce_amd.c",
                "3.8-6.18",
                "[Hardware Error]: ",
                args=(0,),
            ),
        ),
        trigger=Trigger(
            "mce", narrow=r"Machine Check Exception|Fatal [Mm]achine check|[Uu]ncorrected"
        ),
    ),
    sig(
        "mce_logged_at_boot",
        r"Machine check events logged",
        ("Machine",),
        S.INFO,
        "hardware",
        "At boot the CPU reported machine-check errors, usually from the previous boot's end.",
        "Decode with rasdaemon/mcelog (ras-mc-ctl --errors).",
        100,
        check=_early,
        timed=True,
        formats=(Format("Machine check events logged", _MCE_FILE, "5.4-6.18", _MCE),),
    ),
    # drivers/edac/edac_mc.c edac_mc_handle_error: "EDAC MC%d: %d %s error%s ..." as
    # "EDAC MC0: 1 CE memory read error on …" (3.5+); 2.6–3.4: "EDAC MC%d: CE page 0x%lx,
    # offset 0x%lx, grain %d, syndrome 0x%lx, row %d, channel %d, label \"%s\": %s" and "EDAC
    # MC%d: UE page …"; drivers' own "EDAC sbridge MC0: HANDLING MCE MEMORY ERROR",
    # "EDAC amd64: … ECC error", ghes_edac "{1}[Hardware Error]: … corrected error";
    # drivers/edac/igen6_edac.c ecclog_work_cb's "HANDLING IBECC MEMORY ERROR" (in-band ECC
    # of Elkhart/Alder Lake-N/Raptor Lake client SoCs, igen6_mc_printk's "EDAC igen6 MC%d: ",
    # 5.11+), printed before it decodes the error (some 6.13 boots print it for an
    # all-ones address every second: a driver regression, but it is still the report)
    sig(
        "edac",
        r"EDAC (?:MC\d+|\w+ MC\d+): \d+ (?:CE|UE)\b|EDAC .*(?:Uncorrected|Corrected) "
        r"error|EDAC (?:\w+ )?MC\d+: (?:CE|UE) (?:page|row|err|no information)"
        r"|EDAC \w+ MC\d+: HANDLING (?:MCE|IBECC) MEMORY ERROR|EDAC \w+: .*\bECC error",
        ("CE", "UE", "Corrected", "Uncorrected", "HANDLING", "error", "errors"),
        S.ERROR,
        "hardware",
        "The memory controller reported ECC errors.",
        "Find the DIMM in the message (or ras-mc-ctl --errors); replace it if errors are "
        "uncorrected or growing.",
        12,
        formats=(
            Format(
                "HANDLING IBECC MEMORY ERROR",
                "drivers/edac/igen6_edac.c",
                "5.15-6.18",
                "EDAC igen6 MC0: ",
            ),
            # edac_mc_printk adds "EDAC MC%d: "; the label and location fill the middle
            Format(
                "%d CE %s%son %s (%s page:0x%lx offset:0x%lx grain:%ld syndrome:0x%lx%s%s)",
                "drivers/edac/edac_mc.c",
                "5.15-6.18",
                "EDAC MC0: ",
                args=(
                    1,
                    "memory read error",
                    " ",
                    "DIMM_A1",
                    "channel:0 slot:0",
                    0x12345,
                    0x40,
                    8,
                    0,
                ),
            ),
            Format(
                "%d UE %s%son %s (%s page:0x%lx offset:0x%lx grain:%ld%s%s)",
                "drivers/edac/edac_mc.c",
                "5.15-6.18",
                "EDAC MC0: ",
                args=(1, "memory read error", " ", "DIMM_A1", "channel:0 slot:0", 0x12345, 0x40, 8),
            ),
            Format(
                "%d CE %s%son %s (%s %s - %s)",
                "drivers/edac/edac_mc.c",
                "4.4-5.4",
                "EDAC MC0: ",
                args=(1, "", "", "DIMM_A1", "channel:0 slot:0", "page:0x1", ""),
            ),
        ),
    ),
    # drivers/pci/pcie/aer.c: "AER: %s error message received from %s" and
    # "PCIe Bus Error: severity=%s, type=%s, (%s)"
    sig(
        "aer_fatal",
        r"(?:PCIe Bus Error: severity=)?Uncorrect(?:ed|able) \(Fatal\)",
        ("Fatal",),
        S.CRITICAL,
        "pcie",
        "A PCIe device or link reported an uncorrectable fatal error.",
        "Check the slot, riser, cabling and power of the device named; disable ASPM "
        "(pcie_aspm=off) if it coincides with link power changes.",
        16,
        device_kind=_PCI,
        trigger=Trigger("pcie"),
        formats=(
            Format(
                "PCIe Bus Error: severity=%s, type=%s, (%s)",
                "drivers/pci/pcie/aer.c",
                "4.19-6.18",
                _AER,
                args=("Uncorrected (Fatal)", "Transaction Layer", "Receiver ID"),
            ),
            Format(
                "%s%s error message received from %04x:%02x:%02x.%d%s",
                "drivers/pci/pcie/aer.c",
                "6.8-6.18",
                _AER,
                args=("", "Uncorrected (Fatal)", 0, 1, 0, 0, ""),
            ),
            Format(
                "PCIe Bus Error: severity=%s, type=%s, id=%04x(%s)",
                "drivers/pci/pcie/aer/aerdrv_errprint.c",
                "4.4",
                "pcieport 0000:00:01.1: ",
                args=("Uncorrected (Fatal)", "Transaction Layer", 0x100, "Receiver ID"),
            ),
        ),
    ),
    sig(
        "aer_nonfatal",
        r"Uncorrect(?:ed|able) \(Non-Fatal\)",
        ("Fatal",),
        S.ERROR,
        "pcie",
        "A PCIe transaction failed (uncorrectable, non-fatal).",
        "Check the device and slot; repeated errors precede link failures.",
        18,
        device_kind=_PCI,
        formats=(
            Format(
                "PCIe Bus Error: severity=%s, type=%s, (%s)",
                "drivers/pci/pcie/aer.c",
                "4.19-6.18",
                _AER,
                args=("Uncorrected (Non-Fatal)", "Transaction Layer", "Requester ID"),
            ),
        ),
    ),
    # drivers/pci/pcie/aer.c: 3.x–4.x "PCIe Bus Error: severity=Corrected, type=%s,
    # id=%04x(%s)" and "AER: Corrected error received: id=%04x"; 4.x+ "AER: Corrected error
    # received: 0000:00:1c.5"; 5.x+ "AER: Multiple Corrected error message received from";
    # 7.0 "Correctable" spelling
    sig(
        "aer_corrected",
        r"PCIe Bus Error: severity=Correct(?:ed|able)|AER: (?:Multiple )?"
        r"Correct(?:ed|able) error (?:message )?received",
        ("Corrected", "Correctable"),
        S.WARNING,
        "pcie",
        "PCIe link errors were corrected by retransmission.",
        "Noise at low rates; a burst means a marginal link (riser, slot, signal): reseat or "
        "lower the link speed.",
        17,
        device_kind=_PCI,
        routine=True,
        formats=(
            Format(
                "PCIe Bus Error: severity=%s, type=%s, (%s)",
                "drivers/pci/pcie/aer.c",
                "4.19-6.18",
                _AER,
                args=("Corrected", "Physical Layer", "Receiver ID"),
            ),
            Format(
                "%s%s error message received from %04x:%02x:%02x.%d%s",
                "drivers/pci/pcie/aer.c",
                "6.8-6.18",
                _AER,
                args=("Multiple ", "Corrected", 0, 1, 0, 0, ""),
            ),
            Format(
                "AER: %s%s error received: id=%04x",
                "drivers/pci/pcie/aer/aerdrv_errprint.c",
                "4.4",
                "pcieport 0000:00:01.1: ",
                args=("", "Corrected", 0x100),
            ),
        ),
    ),
    # drivers/pci/hotplug/pciehp_ctrl.c "Slot(%s): Link Down"; pcie/dpc.c "DPC: containment event"
    sig(
        "pcie_link_down",
        r"Slot\([^)]*\): Link Down|pciehp.*Link Down|DPC: containment event"
        r"|(?<!\d\d\d\d )Link Down\b|link down\b.*(?:pcie|PCIe)",
        ("Down", "down", "DPC"),
        S.CRITICAL,
        "pcie",
        "A PCIe link went down: the device behind it is gone.",
        "Check power, riser and seating of the device behind that port.",
        20,
        device_kind=_PCI,
        # pciehp_hpc.c "Slot(%s): Link Down/Up ignored" is the DPC recovery passing by
        check=lambda m, i: (
            not re.search(r"\beth\d|\ben\w+: |\bwl", i.text)
            and "Link Down/Up ignored" not in i.text
        ),
        trigger=Trigger("pcie"),
        formats=(
            Format(
                "Slot(%s): Link Down",
                "drivers/pci/hotplug/pciehp_ctrl.c",
                "4.19-6.18",
                "pcieport 0000:00:1c.0: pciehp: ",
                args=("1",),
            ),
            Format(
                "containment event, status:%#06x, %s received from %04x:%02x:%02x.%d",
                "drivers/pci/pcie/dpc.c",
                "6.18",
                "pcieport 0000:00:1c.0: DPC: ",
                args=(0x1F01, "ERR_FATAL", 0, 1, 0, 0),
            ),
        ),
    ),
    sig(
        "iommu_fault",
        r"IO_PAGE_FAULT|DMAR: ?\[DMA (?:Read|Write)|DMAR: DRHD: handling fault"
        r"|DMAR: \[INTR-REMAP\] Request device"
        r"|arm-smmu\S* \S+: (?:event 0x|Unhandled context fault)|iommu fault",
        ("IO_PAGE_FAULT", "DMAR", "smmu", "fault", "REMAP"),
        S.ERROR,
        "iommu",
        "A device did DMA to an address the IOMMU did not map.",
        "Driver/firmware bug or IOMMU mode trouble; try iommu=pt to confirm, update firmware.",
        22,
        device_kind=_PCI,
        formats=(
            Format(
                "Event logged [IO_PAGE_FAULT domain=0x%04x address=0x%llx flags=0x%04x]",
                "drivers/iommu/amd/iommu.c",
                "4.19-6.18",
                "amdgpu 0000:03:00.0: AMD-Vi: ",
                args=(0x000C, 0xFFFFC000, 0x0020),
            ),
            Format(
                "[%s NO_PASID] Request device [%02x:%02x.%d] fault addr 0x%llx [fault reason "
                "0x%02x] %s",
                "drivers/iommu/intel/dmar.c",
                "5.15-6.18",
                "DMAR: ",
                args=("DMA Read", 0x41, 0, 0, 0xFFFFF000, 6, "PTE Read access is not set"),
            ),
            Format(
                "DRHD: handling fault status reg %x",
                "drivers/iommu/intel/dmar.c",
                "4.4-6.18",
                "DMAR: ",
                args=(3,),
            ),
            Format(
                "Unhandled context fault: fsr=0x%x, iova=0x%08lx, fsynr=0x%x, cbfrsynra=0x%x, "
                "cb=%d",
                "drivers/iommu/arm/arm-smmu/arm-smmu.c",
                "5.4-6.18",
                "arm-smmu 15000000.iommu: ",
            ),
        ),
    ),
    # arch/x86/kernel/cpu/mce/therm_throt.c:
    # "CPU%d: %s temperature above threshold, cpu clock throttled"
    sig(
        "thermal_throttle",
        r"temperature above threshold, cpu clock throttled"
        r"|clock throttled|[Tt]hermal throttl",
        ("throttled", "throttling", "throttle"),
        S.WARNING,
        "thermal",
        "A CPU got hot enough to be slowed down.",
        "Routine under load in warm rooms; check fans and airflow if frequent.",
        13,
        device_kind=_CPU,
        routine=True,
        formats=(
            # from 5.5 therm_throt.c counts throttling in sysfs and logs nothing
            Format(
                "CPU%d: %s temperature above threshold, cpu clock throttled (total events = %lu)",
                "arch/x86/kernel/cpu/mce/therm_throt.c",
                "4.4-5.4",
                args=(3, "Core", 17),
            ),
        ),
    ),
    # Raspberry Pi supply voltage below the firmware's threshold (4.63 V): the VC4 firmware's
    # get_throttled bit 0, polled by the kernel. Downstream kernels 4.14-5.x
    # (drivers/firmware/raspberrypi.c, "firmware/raspberrypi: Add a get_throttled sysfs
    # file", 2018): "Under-voltage detected! (0x%08x)"; mainline 4.19+
    # (drivers/hwmon/raspberrypi-hwmon.c rpi_firmware_get_throttled): "Undervoltage
    # detected!". The all-clear, "Voltage normalised", is not a signature.
    sig(
        "under_voltage",
        r"Under-?voltage detected!",
        ("voltage", "Undervoltage"),
        S.ERROR,
        "power",
        "The power supply sagged below what the board needs (brown-out).",
        "Use the board's rated power supply and a short, thick cable; resets and "
        "storage corruption follow brown-outs.",
        8,
        formats=(
            Format(
                "Undervoltage detected!",
                "drivers/hwmon/raspberrypi-hwmon.c",
                "4.19-6.18",
                "raspberrypi-hwmon raspberrypi-hwmon: ",
            ),
        ),
    ),
    sig(
        "thermal_critical",
        r"critical temperature reached|[Cc]ritical temperature"
        r"|over temperature range\((?:SW|HW) CTF\)|THERMTRIP|thermal shutdown",
        ("critical", "Critical", "CTF", "THERMTRIP", "thermal"),
        S.CRITICAL,
        "thermal",
        "A device reached its critical temperature: the system shuts down to protect it.",
        "Check fans, heatsinks, airflow and room temperature before powering on again.",
        14,
        device_kind=_PCI,
        trigger=Trigger("thermal"),
        formats=(
            Format(
                "%s: critical temperature reached",
                "drivers/thermal/thermal_core.c",
                "5.15-6.18",
                "thermal thermal_zone0: ",
                args=("acpitz",),
            ),
            Format(
                "critical temperature reached(%d C),shutting down",
                "drivers/thermal/thermal_core.c",
                "4.4",
                "thermal thermal_zone0: ",
                args=(105,),
            ),
        ),
    ),
    # The USB host controller stopped answering. drivers/usb/host/xhci-ring.c: a command
    # (Stop Endpoint, Address Device) not completed in 5 s: "xHCI host not responding to stop
    # endpoint command." (4.4-6.1 xhci_stop_endpoint_command_watchdog; 6.x without the
    # period), then xhci_halt's "Host halt failed, %d" (xhci.c) and xhci_hc_died's "xHCI host
    # controller not responding, assume dead" (4.19-6.18; xhci_irq and xhci_resume reach it
    # when the registers read all-ones); drivers/usb/core/hcd.c usb_hc_died "HC died;
    # cleaning up" for any host controller (xHCI, EHCI, OHCI; 2.6-6.18). Every device behind
    # it is disconnected: USB disks and their file systems or ZFS pools fail next.
    sig(
        "xhci_host_dead",
        r"xHCI host (?:controller not responding, assume dead|not responding to stop endpoint)"
        r"|\bHC died; cleaning up|\bHost halt failed, -?\d+",
        ("xHCI", "died", "halt"),
        S.ERROR,
        "usb",
        "A USB host controller stopped responding and the kernel gave it up: every USB "
        "device behind it (disks, NICs, keyboards, BMC virtual media) was disconnected.",
        "Note the controller's PCI address; unbind/rebind xhci_hcd or reboot to recover; "
        "firmware/BIOS updates, disabling USB autosuspend or LPM for the failing device, or a "
        "powered hub help; a USB disk behind it explains the storage errors that follow.",
        46,
        device_kind=_PCI,
        formats=(
            Format(
                "xHCI host controller not responding, assume dead",
                "drivers/usb/host/xhci-ring.c",
                "4.19-6.18",
                "xhci_hcd 0000:00:14.0: ",
            ),
            Format(
                "xHCI host not responding to stop endpoint command.",
                "drivers/usb/host/xhci-ring.c",
                "4.4-6.1",
                "xhci_hcd 0000:06:00.3: ",
            ),
            Format(
                "xHCI host not responding to stop endpoint command",
                "drivers/usb/host/xhci-ring.c",
                "6.6-6.18",
                "xhci-hcd xhci-hcd.0.auto: ",
            ),
            Format(
                "Host halt failed, %d",
                "drivers/usb/host/xhci.c",
                "4.4-6.18",
                "xhci_hcd 0000:00:14.0: ",
                args=(-110,),
            ),
            Format(
                "HC died; cleaning up",
                "drivers/usb/core/hcd.c",
                "4.4-6.18",
                "xhci_hcd 0000:00:14.0: ",
            ),
        ),
    ),
    # mcelog's decode of the thermal record: kernels before 5.5 (therm_throt.c) log each
    # thermal interrupt as a machine-check record in the pseudo bank MCE_THERMAL_BANK, and
    # mcelog (github.com/andikleen/mcelog) prints it as "CPU %d THERMAL EVENT" (mcelog.c
    # bankname(), after "CPU %d ") with intel.c decode_thermal's "Processor %d heated above
    # trip temperature. Throttling enabled." / "Processor %d below trip temperature.
    # Throttling disabled". The record is the throttling it reports, not a hardware error:
    # thermal_throttle, which leads the "Machine check events logged" notice and mcelog's
    # record header of the same record (judge/chains.py mce_notice)
    sig(
        "thermal_throttle",
        r"^Processor \d+ heated above trip temperature\. Throttling enabled\.|"
        r"^CPU \d+ THERMAL EVENT\b",
        ("heated", "THERMAL"),
        S.WARNING,
        "thermal",
        "A CPU got hot enough to be slowed down (mcelog's decode of the thermal record).",
        "Routine under load in warm rooms; check fans and airflow if frequent.",
        13,
        routine=True,
        idents=("kernel", "mcelog"),
        formats=(
            Format(
                "Processor %d heated above trip temperature. Throttling enabled.",
                "mcelog:intel.c",
                "mcelog master (the tree read)",
                program="mcelog",
                args=(1,),
            ),
            Format(
                "CPU %d %s TSC %llx",
                "mcelog:mcelog.c",
                "mcelog master (the tree read)",
                program="mcelog",
                args=(1, "THERMAL EVENT", 0x5AAFDF91021),
            ),
        ),
    ),
    # mcelog.c dump_mce: a real record's bank line "CPU %d BANK %d" (bankname() of a bank
    # below the pseudo banks), after the "Hardware event" header: the record's content,
    # which tells it from the thermal record above
    sig(
        "mce",
        r"^CPU \d+ BANK \d+\b",
        ("BANK",),
        S.ERROR,
        "hardware",
        "mcelog decoded a machine-check (hardware) error the CPU reported.",
        "Read the record's status lines (corrected or uncorrected, the bank and address name "
        "the CPU, cache or DIMM); 'mcelog --client' lists the errors it counted.",
        10,
        idents=("kernel", "mcelog"),
        formats=(
            Format(
                "CPU %d %s TSC %llx",
                "mcelog:mcelog.c",
                "mcelog master (the tree read)",
                program="mcelog",
                args=(3, "BANK 5", 0x5AAFDF91021),
            ),
        ),
    ),
    # A record the boot-time poll found (machine_check_poll, arch/x86/kernel/cpu/mce/core.c):
    # print_mce's "CPU %d: Machine Check%s: %Lx Bank %d: %016Lx" with the MCG status first,
    # " Exception" only when MCG_STATUS_MCIP says an #MC is in progress (5.4+; 3.x-4.x print
    # "Exception" always, the MCG status still tells). An uncorrected error that corrupted
    # the processor context (MCi_STATUS VAL bit 63, UC bit 61, PCC bit 57) raises an #MC and
    # panics when it happens live (mce_panic, with MCIP set); found by a poll (no MCIP) it is
    # a record the banks kept across a reset, the error that ended the boot before. Read
    # this way without a printk stamp too (a journal's short format has none)
    sig(
        "mce_logged_at_boot",
        r"\bCPU \d+: Machine Check(?: Exception)?: (?P<mcg>[0-9a-fA-F]+) Bank \d+: "
        r"(?P<status>[0-9a-fA-F]{16})\b",
        ("Machine",),
        S.INFO,
        "hardware",
        "At boot the CPU reported machine-check errors, usually from the previous boot's end.",
        "Decode with rasdaemon/mcelog (ras-mc-ctl --errors).",
        100,
        check=lambda m, i: (
            not int(m.group("mcg"), 16) & 0x4
            and int(m.group("status"), 16) & _VAL_UC_PCC == _VAL_UC_PCC
        ),
        formats=(
            Format(
                "CPU %d: Machine Check%s: %Lx Bank %d: %016Lx",
                _MCE_FILE,
                "5.4-6.18",
                _MCE,
                args=(10, "", 0, 5, 0xBEA0000000000108),
            ),
            Format(
                "CPU %d: Machine Check Exception: %Lx Bank %d: %016Lx",
                "arch/x86/kernel/cpu/mcheck/mce.c",
                "3.10-4.19",
                "[Hardware Error]: ",
                args=(2, 0, 4, 0xB200000000070F0F),
            ),
        ),
    ),
)

STORAGE_SIGNATURES: tuple[Signature, ...] = (
    # drivers/nvme/host/pci.c nvme_timeout: "I/O %d QID %d timeout, aborting" / "…, reset
    # controller" (4.x+), "I/O %d (%s) QID %d timeout, aborting" (6.x, the opcode's name, which
    # may hold spaces: "I/O Cmd", "Write Zeroes"), "I/O tag %d (%04x) opcode %#x (%s) QID %d
    # timeout, aborting" / "…, reset controller" (6.x); fabrics (tcp.c/rdma.c): "queue %d:
    # timeout request %#x type %d" (5.x+) and keep-alive failures "failed
    # nvme_keep_alive_end_io error=%d" (5.x+), "keep-alive failed" (4.19; ": %ld" 6.x)
    sig(
        "nvme_timeout",
        r"nvme\d*: I/O (?:tag )?\d+ \(?\S*\)? ?(?:opcode \S+ \([^)]*\) )?QID \d+ timeout"
        r"|I/O \d+ (?:\([^)]*\) )?QID \d+ timeout|nvme\d+: queue \d+: timeout request"
        r"|failed nvme_keep_alive_end_io|keep alive timeout|Keep Alive Timeout"
        r"|nvme\d+: keep-alive failed|controller is down; will reset",
        ("timeout", "nvme_keep_alive_end_io", "Timeout", "controller", "alive"),
        S.ERROR,
        "storage",
        "An NVMe command timed out.",
        "Check the drive's SMART log (nvme smart-log), firmware and APST "
        "(nvme_core.default_ps_max_latency_us=0).",
        50,
        device_kind=_DISK,
        trigger=Trigger("storage"),
        formats=(
            Format(
                "I/O %d QID %d timeout, aborting",
                "drivers/nvme/host/pci.c",
                "4.19-5.15",
                _NVME,
                args=(417, 7),
            ),
            Format(
                "I/O %d QID %d timeout, reset controller",
                "drivers/nvme/host/pci.c",
                "4.4-6.1",
                _NVME,
                args=(417, 7),
            ),
            Format(
                "I/O tag %d (%04x) opcode %#x (%s) QID %d timeout, aborting req_op:%s(%u) size:%u",
                "drivers/nvme/host/pci.c",
                "6.8-6.18",
                _NVME,
                args=(5, 0x0005, 2, "Read", 3, "READ", 0, 4096),
            ),
            Format(
                "keep-alive failed: %ld", "drivers/nvme/host/core.c", "6.1-6.18", _NVME, args=(-5,)
            ),
            Format(
                "failed nvme_keep_alive_end_io error=%d",
                "drivers/nvme/host/core.c",
                "4.19-6.18",
                _NVME,
                args=(-4,),
            ),
        ),
    ),
    # drivers/nvme/host/pci.c: "controller is down; will reset: CSTS=0x%x, PCI_STATUS=0x%hx"
    # (4.x+), nvme_timeout's "… QID %d timeout, reset controller" (it disables and resets the
    # controller on that line; also rdma.c/tcp.c), 6.x reset work's "Disabling device after
    # reset failure: %d" (the drive is removed), nvme_error_detected's "frozen state error
    # detected, reset controller" and "failure state error detected, request disconnect"
    # (PCIe AER/DPC, 4.19-6.18); core.c nvme_wait_ready "Device not ready; aborting reset"
    # (4.4-6.18; ", CSTS=0x%x" from 5.x; "aborting initialisation" is nvme_probe_failure's),
    # "resetting controller" (also "… due to persistent internal error", 6.x), "Fw activation
    # timeout, reset controller" (4.19-6.18); fabrics "starting error recovery" /
    # "Reconnecting in %d seconds..." (5.x+)
    sig(
        "nvme_reset",
        r"nvme\d*: (?:resetting controller|Device "
        r"not ready; aborting reset|starting error recovery|Reconnecting in "
        r"\d+ seconds|Disabling device after reset failure|(?:frozen|failure) state error "
        r"detected, (?:reset controller|request disconnect)|Fw activation timeout, reset "
        r"controller)|controller is down; will reset|QID \d+ timeout, reset controller",
        (
            "resetting",
            "aborting",
            "recovery",
            "Reconnecting",
            "controller",
            "Disabling",
            "frozen",
            "failure",
        ),
        S.ERROR,
        "storage",
        "An NVMe controller was reset or removed.",
        "As for NVMe timeouts; removal means the drive is gone for this boot.",
        52,
        device_kind=_DISK,
        formats=(
            Format("resetting controller", "drivers/nvme/host/core.c", "4.4-6.18", _NVME),
            Format(
                "controller is down; will reset: CSTS=0x%x, PCI_STATUS=0x%hx",
                "drivers/nvme/host/pci.c",
                "4.19-6.18",
                _NVME,
                args=(0xFFFFFFFF, 0xFFFF),
            ),
            Format("starting error recovery", "drivers/nvme/host/tcp.c", "5.4-6.18", _NVME),
            Format(
                "Disabling device after reset failure: %d",
                "drivers/nvme/host/pci.c",
                "6.18",
                _NVME,
                args=(-19,),
            ),
            Format(
                "frozen state error detected, reset controller",
                "drivers/nvme/host/pci.c",
                "4.19-6.18",
                _NVME,
            ),
            Format(
                "Device not ready; aborting %s, CSTS=0x%x",
                "drivers/nvme/host/core.c",
                "6.1-6.18",
                _NVME,
                args=("reset", 0x1),
            ),
            Format(
                "Fw activation timeout, reset controller",
                "drivers/nvme/host/core.c",
                "4.19-6.18",
                _NVME,
            ),
        ),
    ),
    # block/blk-core.c: "I/O error, dev %s, sector %llu op 0x%x:(%s)" ("end_request: I/O
    # error, dev %s, sector %llu" 2.6.32-3.x); fs/buffer.c "Buffer I/O error on device %s,
    # logical block %Lu" and end_buffer_write_sync's "lost page write due to I/O error on %s"
    # (2.6.32-4.x); scsi_lib.c scsi_print_result "FAILED Result: hostbyte=%s driverbyte=%s"
    # ("[sdX] FAILED Result" before the "tag#%d " of 4.x)
    sig(
        "disk_io_error",
        r"I/O error, dev (?P<disk>\S+?),|Buffer I/O error on dev|"
        r"failed command: (?:READ|WRITE)|\] (?:tag#\d+ )?FAILED Result"
        r"|lost page write due to I/O error on \S",
        ("error", "failed", "FAILED", "lost"),
        S.ERROR,
        "storage",
        "A block device failed a read or write.",
        "Check SMART, cables and the filesystem on that device.",
        54,
        device_kind=_DISK,
        formats=(
            Format(
                "%s error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u prio class %u",
                "block/blk-mq.c",
                "6.1-6.18",
                args=("I/O", "nvme0n1", 123456, 0, "READ"),
            ),
            Format(
                "%s: %s error, dev %s, sector %llu",
                "block/blk-core.c",
                "4.4-5.15",
                args=("blk_update_request", "I/O", "sda", 2048),
            ),
            Format(
                "Buffer I/O error on dev %pg, logical block %llu, lost async page write",
                "fs/buffer.c",
                "4.4-6.18",
                args=("sda1", 0),
            ),
            Format(
                "lost page write due to I/O error on %s",
                "fs/buffer.c",
                "2.6.32-4.4",
                args=("sda1",),
            ),
            Format(
                "FAILED Result: hostbyte=%s driverbyte=%s",
                "drivers/scsi/scsi_logging.c",
                "3.19-4.4",
                "sd 0:0:0:0: [sda] ",
                args=("DID_BAD_TARGET", "DRIVER_OK"),
            ),
        ),
    ),
    # fs/ext4/super.c __ext4_error: "EXT4-fs error (device %s): %s:%d: …" (2.6.2x–today;
    # EXT2-fs/EXT3-fs the same in fs/ext2, fs/ext3 until 4.3), ext4_load_journal "error
    # loading journal", "Remounting filesystem read-only" (print_daily_error_info's summary
    # of errors recorded before is history: lifecycle.py);
    # fs/ext4/namei.c __ext4_read_dirblock's __ext4_warning "error reading directory block
    # (ino %lu, block %lu)" (3.x-4.x), "error %ld reading directory block (ino …)" (4.x-5.x),
    # "inode #%lu: lblock %lu: comm %s: error %ld reading directory block" (5.x+);
    # fs/jbd2/recovery.c do_one_pass: "JBD2: Invalid checksum recovering block %lu in log",
    # "… recovering data block %llu in log" (4.x+; "… in journal block %lu" 6.x), "JBD2: IO
    # error %d recovering block %lu in log", "JBD2: recovery failed";
    # fs/xfs/xfs_message.c & friends:
    # "XFS (%s): Corruption detected", "Metadata corruption detected at", "Metadata CRC
    # error detected at" (3.10+), "log I/O error", "Filesystem has been shut down"
    # (fs/xfs/xfs_fsops.c), "metadata I/O error in"; a mount whose log cannot be read or
    # replayed (fs/xfs/xfs_log.c xfs_log_mount "log mount/recovery failed: error %d", then
    # xfs_mount.c xfs_mountfs "log mount failed", xfs_log.c "log mount finish failed",
    # 2.6.3x-6.18), and the log found corrupt on the way (xfs_log_recover.c "Log
    # inconsistent (didn't find previous header)", "log has mismatched uuid - can't
    # recover", "dirty log entry has mismatched uuid - can't recover", 2.6.3x-6.18); xfs_error.c
    # xfs_error_report: "Internal error %s at line %d of file %s.  Caller %pS" (xfs_alert,
    # "XFS (dev): " or "XFS: " when no mount; 2.6's xfs_cmn_err the same words);
    # xfs_do_force_shutdown: "xfs_do_force_shutdown (0x%x) called from line %d of file %s.
    # Return address = %pS" (2.6-today; flag 0x4 alone is a forced unmount that an
    # administrator asked for, not an error);
    # fs/btrfs "BTRFS error (device %s)", and data checksum failures at warning level
    # (btrfs_print_data_csum_error, btrfs_warn_rl): "csum failed root %llu ino %llu off %llu
    # csum %pU expected csum %pU mirror %d" (4.x+; "csum failed ino %llu off %llu csum %u
    # expected csum %u" 3.x, as "btrfs csum failed …" before 3.14), disk-io.c "checksum
    # verify failed on %llu wanted %x found %x level %d" (4.x+, "on logical %llu mirror %u" 6.x);
    # fs/ext4/page-io.c ext4_end_bio: ext4_warning "I/O error %d writing to inode %lu (offset
    # %llu size %ld starting block %llu)" (4.4-6.18: the errno, a blk_status_t from 4.13), a
    # write-back the disk failed: the data is lost;
    # bcachefs (fs/bcachefs/error.c, super.c, recovery.c; 6.7-6.17 in the kernel): "emergency
    # read only at seq %llu" / "… at journal seq %llu", "error in recovery: %s",
    # "bch2_fs_start(): error starting filesystem %s", the fsck error's tail "error not marked
    # as autofix and not in fsck";
    # fs/ext2/super.c ext2_error: printk(KERN_CRIT "EXT2-fs (%s): error: %s: %pV") (2.6.36-6.18;
    # "EXT2-fs error (device %s): %s: " before), the function's name after "error: "
    # (ext2_msg's mount refusals "error: can't find an ext2 filesystem on dev …", that
    # mount(8) probing another file system's device prints, have none); 2.6-era XFS
    # (fs/xfs/xfs_rw.c, cmn_err without the "XFS (dev): " prefix): xfs_ioerror_alert "I/O
    # error in filesystem (\"%s\") meta-data dev %s block 0x%llx       (\"%s\") error %d buf
    # count %zd" and xfs_do_force_shutdown
    # "xfs_force_shutdown(%s,0x%x) called from line %d of file %s.  Return address = 0x%p"
    # (printed only when the shutdown is not a forced unmount)
    sig(
        "fs_error",
        r"(?:EXT[234]-fs|BTRFS|F2FS-fs) (?:error|critical)|EXT2-fs \(\S+\): error: \w+: "
        r"|I/O error in filesystem \(\"[^\"]*\"\) meta-data dev \S+ block 0x[0-9a-f]+"
        r"|xfs_force_shutdown\([^,\s]+,0x[0-9a-f]+\) called from line \d+"
        r"|XFS \(\S+\): (?:Corruption"
        r"|Metadata (?:corruption|CRC error)|log I/O error|Filesystem has been shut down"
        r"|metadata I/O error)|Remounting filesystem read-only"
        r"|EXT[34]-fs \(\S+\): error loading journal"
        r"|EXT[34]-fs warning \(device \S+\): .*\berror (?:-?\d+ )?reading directory block"
        r"|JBD2: (?:Invalid checksum recovering|IO error -?\d+ recovering|recovery failed)"
        r"|XFS(?: \(\S+\))?: [Ii]nternal error \S+ at line \d+ of file "
        r"|xfs_do_force_shutdown\(0x(?!4\))[0-9a-f]+\) called from line \d+"
        r"|(?:btrfs|BTRFS \w+ \(device \S+\):) csum failed (?:root -?\d+ )?ino \d+ off \d+ csum"
        r"|BTRFS \w+ \(device \S+\): checksum verify failed on "
        r"|emergency read only at (?:journal )?seq \d+|bcachefs \(\S+\): (?:error in recovery"
        r"|bch2_fs_start\(\): error starting filesystem)|error not marked as autofix"
        r"|XFS \(\S+\): .*Shutting down filesystem"
        r"|XFS \(\S+\): log mount(?:/recovery| finish)? failed"
        r"|XFS \(\S+\): (?:Log inconsistent \(|(?:dirty log entry|log) has mismatched uuid - can't "
        r"recover)"
        r"|EXT4-fs warning \(device \S+\): ext4_end_bio:\d+: I/O error -?\d+ writing to inode",
        (
            "error",
            "critical",
            "Corruption",
            "corruption",
            "Remounting",
            "shut",
            "Invalid",
            "failed",
            "xfs_do_force_shutdown",
            "xfs_force_shutdown",
            "emergency",
            "Shutting",
            "inconsistent",
            "mismatched",
        ),
        S.ERROR,
        "fs",
        "A filesystem found corruption or an I/O failure.",
        "Run fsck/scrub from a rescue system; check the disk below it.",
        56,
        device_kind=_FS,
        formats=(
            Format(
                "EXT2-fs (%s): error: %s: %pV",
                "fs/ext2/super.c",
                "4.4-6.18",
                args=("sda1", "ext2_lookup", ("deleted inode referenced: %lu", (32905,))),
            ),
            Format(
                'I/O error in filesystem ("%s") meta-data dev %s block 0x%llx       ("%s") error '
                "%d buf count %zd",
                "fs/xfs/xfs_rw.c",
                "2.6.x (before the XFS (dev) prefix of 2.6.39)",
                args=("sdb1", "sdb1", 0xF054F4, "xlog_iodone", 5, 32768),
            ),
            Format(
                "xfs_force_shutdown(%s,0x%x) called from line %d of file %s.  "
                "Return address = 0x%p",
                "fs/xfs/xfs_fsops.c",
                "2.6.x (before the XFS (dev) prefix of 2.6.39)",
                args=("sdb1", 0x2, 956, "fs/xfs/xfs_log.c"),
            ),
            Format(
                "I/O error %d writing to inode %lu (offset %llu size %ld starting block %llu)",
                "fs/ext4/page-io.c",
                "4.4-6.18",
                "EXT4-fs warning (device dm-8): ext4_end_bio:316: ",
                args=(-5, 24117995, 0, 0, 96511296),
            ),
            Format(
                "EXT4-fs error (device %s): %s:%d: comm %s: %pV",
                "fs/ext4/super.c",
                "4.4-6.18",
                args=(
                    "nvme0n1p2",
                    "ext4_lookup",
                    1855,
                    "python3",
                    ("deleted inode referenced: %u", (1234,)),
                ),
            ),
            Format(
                "Corruption detected. Unmount and run xfs_repair",
                "fs/xfs/xfs_error.c",
                "4.4-6.18",
                "XFS (sda1): ",
            ),
            Format(
                "Metadata %s detected at %pS, %s block 0x%llx %s",
                "fs/xfs/xfs_error.c",
                "4.4-6.18",
                "XFS (sda1): ",
                args=("CRC error", "xfs_agf_read_verify+0x1c/0x80 [xfs]", "xfs_agf", 0x1, ""),
            ),
            Format("log I/O error %d", "fs/xfs/xfs_log.c", "4.4-6.18", "XFS (sda1): ", args=(-5,)),
            Format(
                "log mount/recovery failed: error %d",
                "fs/xfs/xfs_log.c",
                "4.4-6.18",
                "XFS (dm-6): ",
                args=(-30,),
            ),
            Format("log mount failed", "fs/xfs/xfs_mount.c", "4.4-6.18", "XFS (dm-6): "),
            Format("log mount finish failed", "fs/xfs/xfs_log.c", "4.4-6.18", "XFS (dm-6): "),
            Format(
                "Log inconsistent (didn't find previous header)",
                "fs/xfs/xfs_log_recover.c",
                "4.4-6.18",
                "XFS (loop0): ",
            ),
            Format(
                "log has mismatched uuid - can't recover",
                "fs/xfs/xfs_log_recover.c",
                "4.4-6.18",
                "XFS (loop0): ",
            ),
            Format(
                "%s (0x%x) detected at %pS (%s:%d).  Shutting down filesystem.",
                "fs/xfs/xfs_fsops.c",
                "5.15-6.18",
                "XFS (sda1): ",
                args=(
                    "Log I/O Error",
                    2,
                    "xlog_ioend_work+0x5c/0x70 [xfs]",
                    "fs/xfs/xfs_log.c",
                    1259,
                ),
            ),
            Format(
                "BTRFS %s (device %s%s): %pV",
                "fs/btrfs/messages.c",
                "6.8-6.18",
                args=("error", "nvme0n1p3", ""),
            ),
        ),
    ),
    # drivers/pci/pci.c: a device that does not come back from D3cold. pci_dev_wait polls
    # the config space after the power-up ("not ready %dms after %s; waiting", then at the
    # limit pci_warn "not ready %dms after %s; giving up", with "resume" from
    # pci_dev_wait's resume callers), and pci_power_up / pci_set_low_power_state print
    # pci_err "Unable to change power state from %s to %s, device inaccessible" when the
    # device answers all ones (5.8-6.18); every driver open after it fails
    sig(
        "pci_d3cold_resume_failure",
        r"not ready \d+ms after resume; giving up"
        r"|Unable to change power state from D3cold to D0, device inaccessible",
        ("giving", "inaccessible"),
        S.CRITICAL,
        "pcie",
        "A PCI device did not come back from D3cold (powered off) when it was resumed: its "
        "config space never answered, so the device is gone until a reset or power cycle.",
        "Disable runtime D3cold for the device (power/control = on, or the driver's option) "
        "and check the slot's power and the firmware; a passthrough set-up should keep the "
        "GPU out of D3cold while it rebinds.",
        20,
        device_kind=_PCI,
        formats=(
            Format(
                "not ready %dms after %s; giving up",
                "drivers/pci/pci.c",
                "5.8-6.18",
                "nvidia 0000:01:00.0: ",
                args=(65535, "resume"),
            ),
            Format(
                "Unable to change power state from %s to %s, device inaccessible",
                "drivers/pci/pci.c",
                "5.8-6.18",
                "nvidia 0000:01:00.0: ",
                args=("D3cold", "D0"),
            ),
        ),
    ),
    # An NVMe controller that never came up: core.c nvme_wait_ready "Device not ready; aborting
    # %s" with "initialisation" (nvme_enable_ctrl: CC.EN set, CSTS.RDY never came within CAP.TO;
    # 4.4-5.4, ", CSTS=0x%x" added in 5.x), core.c nvme_init_identify "Identify Controller
    # failed (%d)" (pci.c nvme_dev_add in 4.4), and pci.c nvme_reset_work's end "Removing after
    # probe failure status: %d" (4.19-6.1; nvme_remove_dead_ctrl: the drive is gone for this
    # boot). Before 6.2 probe runs as the first reset work, so these lines are also how a reset
    # of a running controller fails: the culprit order (kmsgd/judge/chains.py) makes them the
    # consequence of an nvme_timeout or nvme_reset before them, and a probe failure only alone.
    # From 6.2 nvme_probe sets the controller up itself and a failed reset says "Disabling
    # device after reset failure" (nvme_reset); the wait and Identify lines stay.
    sig(
        "nvme_probe_failure",
        r"nvme\d*: (?:Removing after probe failure status: -?\d+|Device not ready; aborting "
        r"initiali[sz]ation|Identify Controller failed \(-?\d+\))",
        ("Removing", "aborting", "Identify"),
        S.ERROR,
        "storage",
        "An NVMe controller failed to initialise (it never reported ready, or did not answer "
        "Identify) and was removed: the drive is missing for this boot.",
        "Reseat or replace the drive; check the slot's power and PCIe link (lspci -vv), the "
        "board's firmware and any NVMe quirk for the model; a cold boot tells a stuck "
        "controller from a dead one.",
        53,
        device_kind=_DISK,
        formats=(
            Format(
                "Device not ready; aborting %s",
                "drivers/nvme/host/core.c",
                "4.4-5.4",
                _NVME,
                args=("initialisation",),
            ),
            Format(
                "Device not ready; aborting %s, CSTS=0x%x",
                "drivers/nvme/host/core.c",
                "5.15-6.18",
                _NVME,
                args=("initialisation", 0x0),
            ),
            Format(
                "Removing after probe failure status: %d",
                "drivers/nvme/host/pci.c",
                "4.19-6.1",
                _NVME,
                args=(-19,),
            ),
            Format(
                "Identify Controller failed (%d)",
                "drivers/nvme/host/core.c",
                "4.19-6.18",
                _NVME,
                args=(-4,),
            ),
        ),
    ),
    # drivers/nvme/host/core.c nvme_log_error (5.19-6.18, pr_err_ratelimited): a command the
    # drive completed with an error, "%s: %s(0x%x) @ LBA %llu, %u blocks, %s (sct 0x%x / sc
    # 0x%x) %s%s" ("%llu blocks" to 6.0) with the disk, the opcode's name ("I/O Cmd" without
    # CONFIG_NVME_VERBOSE_ERRORS) and the status's ("Unrecovered Read Error", "Write Fault",
    # "I/O Error"). Only reads, writes and flushes: a Write Zeroes or Dataset Management a drive
    # does not support fails on healthy boxes, and the admin form (no LBA) is nvme-cli's probing.
    sig(
        "disk_io_error",
        r"^(?P<disk>nvme\d+(?:c\d+)?n\d+): (?:Read|Write|Flush|I/O Cmd)\(0x[0-9a-f]+\) @ LBA \d+, "
        r"\d+ blocks, ",
        ("LBA",),
        S.ERROR,
        "storage",
        "A block device failed a read or write.",
        "Check SMART, cables and the filesystem on that device.",
        54,
        device_kind=_DISK,
        formats=(
            Format(
                "%s: %s(0x%x) @ LBA %llu, %u blocks, %s (sct 0x%x / sc 0x%x) %s%s",
                "drivers/nvme/host/core.c",
                "6.1-6.18",
                args=(
                    "nvme0n1",
                    "Read",
                    0x2,
                    2048,
                    8,
                    "Unrecovered Read Error",
                    2,
                    0x81,
                    "",
                    "DNR ",
                ),
            ),
            Format(
                "%s: %s(0x%x) @ LBA %llu, %u blocks, %s (sct 0x%x / sc 0x%x) %s%s",
                "drivers/nvme/host/core.c",
                "6.1-6.18",
                args=("nvme0n1", "I/O Cmd", 0x1, 4096, 16, "I/O Error", 2, 0x80, "MORE ", "DNR "),
            ),
        ),
    ),
    # mcelog (github.com/andikleen/mcelog, mcelog.c disclaimer()): the daemon decodes each
    # machine-check record the kernel hands it (/dev/mcelog) and opens every one with
    # Wprintf("Hardware event. This is not a software error."), then "MCE %d", "CPU %d BANK
    # %d" and the decoded status, to syslog as "mcelog: …" in daemon mode. A paste may hold
    # only these lines and not the kernel's "Machine check events logged"
    sig(
        "mce",
        r"^Hardware event\. This is not a software error\.$",
        ("Hardware",),
        S.ERROR,
        "hardware",
        "mcelog decoded a machine-check (hardware) error the CPU reported.",
        "Read the record's status lines (corrected or uncorrected, the bank and address name "
        "the CPU, cache or DIMM); 'mcelog --client' lists the errors it counted.",
        10,
        idents=("mcelog",),
        formats=(
            Format(
                "Hardware event. This is not a software error.",
                "mcelog:mcelog.c",
                "mcelog master (the tree read)",
                program="mcelog",
            ),
        ),
    ),
    # File-system failures in the wordings of the kernels beside the ones fs_error's first
    # entry reads. fs/jbd2/journal.c __jbd2_journal_abort_hard / jbd2_journal_abort: "Aborting
    # journal on device %s." (fs/jbd/journal.c the same, 2.6.x-4.x; jbd2 2.6.x-6.18): the
    # journal stopped on an error and the file system goes read-only; jbd2/commit.c
    # "JBD2: Detected IO errors while flushing file data on %s" (jbd "JBD: …", 2.6.x-4.x; "…
    # errors %d while …" 5.x+), and journal.c jbd2_write_superblock "JBD2: Error %d detected
    # when updating journal superblock for %s." (3.x-5.x) / "JBD2: I/O error when updating
    # journal superblock for %s." (6.x); fs/ext3/super.c ext3_handle_error "error:
    # remounting filesystem read-only" (ext3_msg KERN_CRIT, 2.6.3x-4.2); fs/ext4/super.c
    # ext4_commit_super "previous I/O error to superblock detected" and "I/O error while
    # writing superblock" (3.x-5.x), fs/ext4/inode.c mpage_map_and_submit_extent "Delayed
    # block allocation failed for inode %lu at logical offset %llu with max blocks %u with
    # error %d" ("delayed …" 3.x; KERN_CRIT, the dirty data is lost); 2.6-era XFS's
    # xfs_cmn_err prefix "Filesystem \"%s\": " (fs/xfs/support/debug.c, before the XFS
    # (dev) prefix of 2.6.39): xfs_error_report "XFS internal error %s at line %d of file
    # %s.  Caller 0x%p", xfs_do_force_shutdown "Corruption of in-memory data detected.
    # Shutting down filesystem: %s", "Log I/O Error Detected.  …", "All device paths lost.
    # …", "I/O Error Detected.  Shutting down filesystem: %s"; btrfs before its "BTRFS
    # <level> (device %s): " prefix (3.x-4.x): super.c __btrfs_std_error "BTRFS: error
    # (device %s) in %s:%d: errno=%d %s" ("btrfs: error …" 3.x), disk-io.c "BTRFS: %s
    # checksum verify failed on %llu wanted %X found %X level %d" ("btrfs: …" 3.x),
    # volumes.c btrfs_dev_stat_print_on_error "BTRFS: bdev %s errs: wr %u, rd %u, flush %u,
    # corrupt %u, gen %u" (3.x-4.x; 4.x+ btrfs_err_rl "BTRFS error (device …): bdev …",
    # which fs_error's first entry reads; the "BTRFS info" of the same counters at mount is
    # history), transaction.c __btrfs_abort_transaction's WARN "BTRFS: Transaction aborted
    # (error %d)" (3.x-6.18), and "BTRFS: open_ctree failed" (3.x-4.x, a mount that failed);
    # fs/gfs2/util.c gfs2_withdraw: fs_err "about to withdraw this file system" and
    # "withdrawn" ("GFS2: fsid=%s: " to 5.x, "gfs2: fsid=%s: " after; "File system withdrawn"
    # 5.x+), a cluster file system giving a node's mount up; fs/ocfs2/super.c __ocfs2_error
    # "OCFS2: ERROR (device %s): %s: %pV" (4.4-6.18); fs/squashfs: ERROR() prints "SQUASHFS
    # error: " (squashfs.h, 2.6.29-6.18), a compressed image (a live medium, a snap, an SD
    # card's root) that cannot be read or decompressed; fs/fat/misc.c __fat_fs_error
    # "FAT-fs (%s): error, %pV" then "Filesystem has been set read-only" (2.6.3x-6.18)
    sig(
        "fs_error",
        r"^Aborting journal on device \S+\.|JBD2?: Detected IO errors (?:-?\d+ )?while "
        r"flushing file data on|JBD2: (?:Error -?\d+ detected|I/O error) when updating journal "
        r"superblock for |EXT3-fs \(\S+\): error: remounting filesystem read-only"
        r"|EXT4-fs \(\S+\): (?:previous I/O error to superblock detected|I/O error while "
        r"writing superblock|[Dd]elayed block allocation failed for inode)"
        r"|^Filesystem \"[^\"]+\": (?:XFS internal error \S+ at line \d+|Corruption of in-memory "
        r"data detected\.|Log I/O Error Detected\.|All device paths lost\.|I/O Error Detected\.)"
        r"|(?:BTRFS|btrfs): (?:error \(device \S+\) in \S+:\d+: errno=|\S+ checksum verify failed "
        r"on \d+|bdev \S+ errs: wr \d+|Transaction aborted \(error -?\d+\)|open_ctree failed)"
        r"|\b(?:GFS2|gfs2): fsid=\S+: (?:about to withdraw this file system|withdrawn$|File system "
        r"withdrawn)|\bOCFS2: ERROR \(device \S+\): |^SQUASHFS error: |FAT-fs \(\S+\): error, ",
        (
            "Aborting",
            "flushing",
            "superblock",
            "remounting",
            "XFS",
            "Corruption",
            "Shutting",
            "lost",
            "Delayed",
            "delayed",
            "errno",
            "checksum",
            "errs",
            "Transaction",
            "open_ctree",
            "withdraw",
            "withdrawn",
            "OCFS2",
            "SQUASHFS",
            "FAT",
        ),
        S.ERROR,
        "fs",
        "A filesystem found corruption or an I/O failure.",
        "Run fsck/scrub from a rescue system; check the disk below it.",
        56,
        device_kind=_FS,
        formats=(
            Format(
                "Aborting journal on device %s.", "fs/jbd2/journal.c", "4.4-6.18", args=("sdb1-8",)
            ),
            Format(
                "JBD2: Detected IO errors while flushing file data on %s",
                "fs/jbd2/commit.c",
                "4.4-4.19",
                args=("sdb1-8",),
            ),
            Format(
                "JBD: Detected IO errors while flushing file data on %s",
                "fs/jbd/commit.c",
                "2.6.32-4.2",
                args=("md1",),
            ),
            Format(
                "JBD2: Error %d detected when updating journal superblock for %s.",
                "fs/jbd2/journal.c",
                "4.4-5.15",
                args=(-5, "sdb1-8"),
            ),
            Format(
                "JBD2: I/O error when updating journal superblock for %s.",
                "fs/jbd2/journal.c",
                "6.1-6.18",
                args=("sdb1-8",),
            ),
            Format(
                "error: remounting filesystem read-only",
                "fs/ext3/super.c",
                "2.6.32-4.2",
                "EXT3-fs (sdb1): ",
            ),
            Format(
                "previous I/O error to superblock detected",
                "fs/ext4/super.c",
                "4.4-5.4",
                "EXT4-fs (sdc1): ",
            ),
            Format(
                "Delayed block allocation failed for inode %lu at logical offset %llu with max "
                "blocks %u with error %d",
                "fs/ext4/inode.c",
                "4.4-6.18",
                "EXT4-fs (dm-0): ",
                args=(1835012, 0, 1, 5),
            ),
            Format(
                "XFS internal error %s at line %d of file %s.  Caller 0x%p",
                "fs/xfs/xfs_error.c",
                "2.6.x (before the XFS (dev) prefix of 2.6.39)",
                'Filesystem "sdb1": ',
                args=("xfs_trans_cancel", 1164, "fs/xfs/xfs_trans.c", "ffffffff8823f7c1"),
            ),
            Format(
                "Corruption of in-memory data detected.  Shutting down filesystem: %s",
                "fs/xfs/xfs_fsops.c",
                "2.6.x (before the XFS (dev) prefix of 2.6.39)",
                'Filesystem "sdb1": ',
                args=("sdb1",),
            ),
            Format(
                "I/O Error Detected.  Shutting down filesystem: %s",
                "fs/xfs/xfs_fsops.c",
                "2.6.x (before the XFS (dev) prefix of 2.6.39)",
                'Filesystem "dm-3": ',
                args=("dm-3",),
            ),
            Format(
                "BTRFS: error (device %s) in %s:%d: errno=%d %s",
                "fs/btrfs/super.c",
                "3.14-4.19",
                args=("sda1", "__btrfs_free_extent", 6954, -5, "IO failure"),
            ),
            Format(
                "BTRFS: %s checksum verify failed on %llu wanted %X found %X level %d",
                "fs/btrfs/disk-io.c",
                "3.14-4.4",
                args=("sda1", 2095104, 0x3A2B, 0x1C4D, 0),
            ),
            Format(
                "BTRFS: bdev %s errs: wr %u, rd %u, flush %u, corrupt %u, gen %u",
                "fs/btrfs/volumes.c",
                "3.14-4.4",
                args=("/dev/sdb", 12, 0, 0, 0, 0),
            ),
            Format(
                "BTRFS: Transaction aborted (error %d)",
                "fs/btrfs/transaction.c",
                "4.4-6.18",
                args=(-28,),
            ),
            Format(
                "about to withdraw this file system",
                "fs/gfs2/util.c",
                "4.4-6.18",
                "gfs2: fsid=cluster:gfs0.0: ",
            ),
            Format(
                "OCFS2: ERROR (device %s): %s: %pV",
                "fs/ocfs2/super.c",
                "4.4-6.18",
                args=("sdb1", "ocfs2_validate_inode_block", ("Invalid dinode #%llu", (1234,))),
            ),
            Format(
                "zlib decompression failed, data probably corrupt",
                "fs/squashfs/zlib_wrapper.c",
                "4.4-6.18",
                "SQUASHFS error: ",
            ),
            Format(
                "Unable to read page, block %llx, size %x",
                "fs/squashfs/file.c",
                "4.4-6.1",
                "SQUASHFS error: ",
                args=(0x1A2B3C, 0x1F000),
            ),
            Format(
                "error, %pV",
                "fs/fat/misc.c",
                "4.4-6.18",
                "FAT-fs (sdb1): ",
                args=(("fat_get_cluster: invalid cluster chain (i_pos %lld)", (0,)),),
            ),
        ),
    ),
    # drivers/block/nvme-core.c (3.x) and drivers/nvme/host/pci.c (4.4) nvme_kthread:
    # dev_warn(&pdev->dev, "Failed status: %x, reset controller") when CSTS.CFS was set, and
    # nvme_dev_reset's "Device not ready; aborting reset" on the PCI device ("nvme
    # 0000:01:00.0: "), before the controller's own "nvme nvme0: " of 4.5+
    sig(
        "nvme_reset",
        r"\bnvme [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: (?:Failed status: (?:0x)?[0-9a-f]+, "
        r"reset controller|Device not ready; aborting reset)",
        ("controller", "aborting"),
        S.ERROR,
        "storage",
        "An NVMe controller was reset or removed.",
        "As for NVMe timeouts; removal means the drive is gone for this boot.",
        52,
        device_kind=_DISK,
        formats=(
            Format(
                "Failed status: %x, reset controller",
                "drivers/nvme/host/pci.c",
                "4.4 (drivers/block/nvme-core.c 3.x)",
                "nvme 0000:01:00.0: ",
                args=(0xFFFFFFFF,),
            ),
            Format(
                "Device not ready; aborting reset",
                "drivers/nvme/host/pci.c",
                "4.4",
                "nvme 0000:01:00.0: ",
            ),
        ),
    ),
)
