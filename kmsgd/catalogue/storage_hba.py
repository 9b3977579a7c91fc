"""Storage controllers: SAS/SATA host adapters, RAID controllers and libata's error handler.

A controller whose firmware faults (drivers/scsi/megaraid, drivers/scsi/mpt3sas) stops
completing the commands of every disk behind it; the SCSI error handler (drivers/scsi/
scsi_error.c) then aborts the timed-out commands and escalates to device, target and host
resets through the driver, and a device it cannot recover is taken offline. So the
firmware's fault comes before the resets that find it, and the resets before the I/O errors,
read-only file systems and hung tasks after them (kmsgd/judge/chains.py). The wording of a
failing SATA link (drivers/ata/libata-eh.c) is the disk's own failure (disk_io_error), as the
failed command it reports with.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

STORAGE = "storage"
_MEGARAID = "megaraid_sas 0000:18:00.0: "  # dev_printk of the controller's PCI device
_MEGARAID_FUSION = "drivers/scsi/megaraid/megaraid_sas_fusion.c"
_MEGARAID_BASE = "drivers/scsi/megaraid/megaraid_sas_base.c"
_MPT3SAS = "mpt3sas_cm0: "  # MPT3SAS_FMT "%s: " (4.x), ioc_info/ioc_err (5.x+): ioc->name
_SCMD = "sd 2:2:0:0: [sda] "  # scmd_printk: sdev_printk and the disk's name
_SDEV = "sd 2:2:0:0: "  # sdev_printk: dev_printk of the SCSI device
_ATA_DEV = "ata1.00: "  # ata_dev_printk: "ata%u.%02u: "
_HPSA = "hpsa 0000:05:00.0: "  # dev_printk of the controller's PCI device

STORAGE_HBA_SIGNATURES: tuple[Signature, ...] = (
    # megaraid_sas_fusion.c megasas_wait_for_outstanding_fusion and megasas_trigger_snap_dump:
    # dev_printk(KERN_ERR, "FW in FAULT state Fault code:0x%x subcode:0x%x func:%s")
    # (5.4-6.18; megaraid_sas_base.c "FW in FAULT state, Fault code:…" 5.4+); 4.4-4.19
    # dev_warn("Found FW in FAULT state, will reset adapter scsi%d."); megasas_reset_fusion:
    # dev_warn("resetting fusion adapter scsi%d."), "Reset failed, killing adapter scsi%d.",
    # "Reset not supported, killing adapter scsi%d." (4.4-6.18); megaraid_sas_base.c
    # megasas_transition_to_ready at probe: printk(KERN_DEBUG "megasas: FW in FAULT state!!")
    # (2.6.x-3.x; dev_printk "FW in FAULT state!!" 4.4-4.19), the firmware found faulted before
    # the controller came up, so no disk behind it is detected
    sig(
        "megaraid_fw_fault",
        r"FW in FAULT state,? Fault code:0x[0-9a-fA-F]+|Found FW in FAULT state, will reset"
        r"|(?:megasas: |megaraid_sas \S+: )FW in FAULT state!!"
        r"|resetting fusion adapter scsi\d+|Reset (?:failed|not supported), killing adapter",
        ("FAULT", "resetting", "killing"),
        Severity.ERROR,
        STORAGE,
        "A MegaRAID controller's firmware faulted: the driver resets the adapter (or kills it "
        "when the reset fails), and the disks behind it stop answering meanwhile.",
        "Note the fault code; update the controller firmware and the megaraid_sas driver, and "
        "stop management tools that poll it (megacli, storcli) if the fault follows them; a "
        "killed adapter takes its disks away until the next boot.",
        49,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "FW in FAULT state Fault code:0x%x subcode:0x%x func:%s",
                _MEGARAID_FUSION,
                "5.4-6.18",
                _MEGARAID,
                args=(0x10000, 0, "megasas_wait_for_outstanding_fusion"),
            ),
            Format(
                "Found FW in FAULT state, will reset adapter scsi%d.",
                _MEGARAID_FUSION,
                "4.4-4.19",
                _MEGARAID,
                args=(0,),
            ),
            Format("resetting fusion adapter scsi%d.", _MEGARAID_FUSION, "4.4-6.18", _MEGARAID),
            Format("megasas: FW in FAULT state!!", _MEGARAID_BASE, "2.6.x-3.x"),
            Format("FW in FAULT state!!", _MEGARAID_BASE, "4.4-4.19", _MEGARAID),
            Format(
                "Reset failed, killing adapter scsi%d.", _MEGARAID_FUSION, "4.4-6.18", _MEGARAID
            ),
        ),
    ),
    # drivers/scsi/mpt3sas/mpt3sas_base.c mpt3sas_base_fault_info / _base_fault_reset_work:
    # "fault_state(0x%04x)!" (pr_err(MPT3SAS_FMT …) 4.4-4.19, ioc_err 5.4+), the IOC's fault
    # code; its reset: "sending diag reset !!", then "diag reset: SUCCESS" or "diag reset:
    # FAILED" (4.4-6.18); _base_fault_reset_work, when the doorbell's state bits read all
    # ones (the controller gone from the bus): "SAS host is non-operational !!!!", then the
    # dead-IOC thread removes it (4.4-6.18). mpt2sas is the same driver since 4.4
    # ("mpt2sas_cm0: "); before 4.4 drivers/scsi/mpt2sas (mpt2sas_base.c, the same words)
    # named the IOC "mpt2sas%d" (MPT2SAS_FMT "%s: ": "mpt2sas0: ")
    sig(
        "mpt3sas_ioc_fault",
        r"\bmpt[23]sas(?:_cm)?\d+: (?:fault_state\(0x[0-9a-fA-F]+\)!|sending diag reset !!"
        r"|diag reset: FAILED|SAS host is non-operational !!!!)",
        ("fault_state", "diag", "operational"),
        Severity.ERROR,
        STORAGE,
        "A Broadcom/LSI SAS controller (mpt3sas/mpt2sas) faulted: the driver resets it (diag "
        "reset), and the disks behind it stop answering meanwhile.",
        "Note the fault code; update the HBA firmware and the mpt3sas driver, check the "
        "controller's cooling and cabling; a failed diag reset takes its disks away.",
        49,
        formats=(
            Format(
                "fault_state(0x%04x)!",
                "drivers/scsi/mpt3sas/mpt3sas_base.c",
                "4.4-6.18",
                _MPT3SAS,
                args=(0x2651,),
            ),
            Format(
                "sending diag reset !!", "drivers/scsi/mpt3sas/mpt3sas_base.c", "4.4-6.18", _MPT3SAS
            ),
            Format(
                "diag reset: FAILED", "drivers/scsi/mpt3sas/mpt3sas_base.c", "4.4-6.18", _MPT3SAS
            ),
            Format(
                "SAS host is non-operational !!!!",
                "drivers/scsi/mpt3sas/mpt3sas_base.c",
                "4.4-6.18",
                _MPT3SAS,
            ),
            Format(
                "fault_state(0x%04x)!",
                "drivers/scsi/mpt2sas/mpt2sas_base.c",
                "2.6.x-4.3",
                "mpt2sas0: ",
                args=(0x5841,),
            ),
        ),
    ),
    # The SCSI error handler's escalation after command timeouts (scsi_error.c scsi_eh_ready_
    # devs → the host template's eh_*_handler), as the drivers print it: megaraid_sas_base.c
    # megasas_generic_reset: scmd_printk(KERN_NOTICE, "megasas: RESET cmd=%x retries=%x"), then
    # dev_notice("reset successful") or dev_err("failed to do reset"); megasas_wait_for_
    # outstanding: "[%2d]waiting for %d commands to complete", the fusion host reset's "[%2d]
    # waiting for %d commands to complete for scsi%d" (4.4-6.18; 2.6-3.x printk "megasas: …");
    # mpt3sas_scsih.c scsih_abort/scsih_dev_reset/scsih_target_reset/scsih_host_reset:
    # "attempting task abort! scmd(%p)" (6.x adds ", outstanding for %u ms & timeout %u
    # ms"), "attempting device reset! scmd(%p)", "attempting target reset! scmd(%p)",
    # "attempting host reset! scmd(%p)" (4.4-6.18)
    sig(
        "scsi_host_reset",
        r"megasas: RESET cmd=[0-9a-fA-F]+ retries=|(?:megasas: |megaraid_sas \S+: )"
        r"(?:reset successful|failed to do reset)|\]waiting for \d+ commands to complete"
        r"|attempting (?:task abort|device reset|target reset|host reset)! ?scmd\(",
        ("RESET", "megasas", "megaraid_sas", "attempting"),
        Severity.ERROR,
        STORAGE,
        "The SCSI error handler aborted or reset commands that timed out on a storage "
        "controller (task abort, device, target or host reset): the disks behind it stalled.",
        "Check the controller and the disks behind it (the RAID tool's event log, SMART, "
        "cables, backplane); resets that repeat mean a disk or the controller is failing.",
        53,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "megasas: RESET cmd=%x retries=%x",
                _MEGARAID_BASE,
                "4.4-6.18",
                _SCMD,
                args=(0x28, 0),
            ),
            Format("reset successful", _MEGARAID_BASE, "4.4-6.18", _MEGARAID),
            Format(
                "[%2d]waiting for %d commands to complete",
                _MEGARAID_BASE,
                "4.4-6.18",
                _MEGARAID,
                args=(0, 2),
            ),
            Format(
                "[%2d]waiting for %d commands to complete for scsi%d",
                _MEGARAID_FUSION,
                "4.4-6.18",
                _MEGARAID,
                args=(30, 65, 0),
            ),
            Format(
                "attempting task abort!scmd(0x%p), outstanding for %u ms & timeout %u ms",
                "drivers/scsi/mpt3sas/mpt3sas_scsih.c",
                "6.1-6.18",
                _SDEV,
                args=("ffff8881c2a4e948", 30012, 30000),
            ),
            Format(
                "attempting host reset! scmd(%p)",
                "drivers/scsi/mpt3sas/mpt3sas_scsih.c",
                "4.4-6.18",
                _MPT3SAS,
                args=("ffff8881c2a4e948",),
            ),
        ),
    ),
    # Wording of a failed disk beside blk-core's "I/O error" (hardware.py): libata-eh.c
    # ata_eh_link_report: ata_dev_err "exception Emask 0x%x SAct 0x%x SErr 0x%x action
    # 0x%x%s%s" (a device's failed command; the link's own "ata1: exception …" of a PHY event
    # is left out: hot plug and resume print it), ata_eh_recover "reset failed, giving up"
    # (ata_dev_disable's "disabled" / "disable device" after it is left to that line: its
    # words are too common to key on); scsi_error.c
    # scsi_eh_offline_sdevs "Device offlined - not ready after error recovery" and scsi_lib.c
    # "rejecting I/O to offline device" (4.4-6.18): the error handler gave the disk up;
    # scsi_lib.c "timing out command, waited %lus" (scmd_printk, 4.4-6.18): a command past
    # its retries' total time; block/blk-core.c's other errors of a request (blk_errors,
    # 4.19-6.18; blk_update_request's error_type 4.4): "%s error, dev %s, sector %llu" with
    # "critical medium", "critical target", "timeout", "recoverable transport", …;
    # libata-sff.c ata_sff_prereset (libata-core.c ata_std_prereset before 2.6.28):
    # ata_link_warn "device not ready (errno=%d), forcing hardreset" (2.6.x-6.18), a device
    # that stayed busy through the error handler's wait and is reset by force
    sig(
        "disk_io_error",
        r"\bata\d+\.\d+: exception Emask 0x[0-9a-f]+ "
        r"|\bata\d+(?:\.\d+)?: device not ready \(errno=-?\d+\), forcing hardreset"
        r"|\bata\d+: reset failed, giving up|Device offlined - not ready after error recovery"
        r"|rejecting I/O to offline device|\] (?:tag#\d+ )?timing out command, waited \d+s"
        r"|(?:timeout|critical (?:space allocation|target|nexus|medium)|recoverable transport"
        r"|protection|device offline) error, dev \S+, sector \d+",
        ("exception", "giving", "offlined", "rejecting", "timing", "error", "hardreset"),
        Severity.ERROR,
        STORAGE,
        "A block device failed a read or write.",
        "Check SMART, cables and the filesystem on that device.",
        54,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "exception Emask 0x%x SAct 0x%x SErr 0x%x action 0x%x%s%s",
                "drivers/ata/libata-eh.c",
                "4.4-6.18",
                _ATA_DEV,
                args=(0, 0x80, 0, 6, " frozen", ""),
            ),
            Format("reset failed, giving up", "drivers/ata/libata-eh.c", "4.4-6.18", "ata1: "),
            Format(
                "device not ready (errno=%d), forcing hardreset",
                "drivers/ata/libata-sff.c",
                "2.6.28-6.18",
                "ata1: ",
                args=(-16,),
            ),
            Format(
                "Device offlined - not ready after error recovery",
                "drivers/scsi/scsi_error.c",
                "4.4-6.18",
                _SDEV,
            ),
            Format("rejecting I/O to offline device", "drivers/scsi/scsi_lib.c", "4.4-6.18", _SDEV),
            Format(
                "timing out command, waited %lus",
                "drivers/scsi/scsi_lib.c",
                "4.4-6.18",
                "sd 2:0:0:0: [sdb] tag#17 ",
                args=(180,),
            ),
            Format(
                "%s error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u prio class %u",
                "block/blk-mq.c",
                "6.1-6.18",
                args=("critical medium", "sdb", 123456, 0, "READ"),
            ),
        ),
    ),
    # mpt3sas_scsih.c _scsih_probe's error exit: pr_err(MPT3SAS_FMT "failure at
    # %s:%d/%s()!") (4.4-4.19; ioc_err from 5.0, the same text), __FILE__, __LINE__ and
    # __func__ naming the probe itself after mpt3sas_base_attach (its DMA pools, the IOC's
    # firmware handshake) failed: the HBA never attaches and its disks do not appear. The
    # same "failure at" of other functions (_scsih_add_device …) is a disk's, not the probe's
    sig(
        "mpt3sas_probe_failure",
        r"\bmpt[23]sas_cm\d+: failure at \S+:\d+/_?scsih_probe\(\)!",
        ("failure",),
        Severity.ERROR,
        STORAGE,
        "A Broadcom/LSI SAS controller (mpt3sas/mpt2sas) failed to attach: the driver gave up "
        "probing it, so the disks behind it are not there.",
        "The line before names the step that failed (a DMA pool allocation, the firmware "
        "handshake); check memory pressure, the HBA firmware and the driver version.",
        50,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "failure at %s:%d/%s()!",
                "drivers/scsi/mpt3sas/mpt3sas_scsih.c",
                "4.4-6.18",
                _MPT3SAS,
                args=("drivers/scsi/mpt3sas/mpt3sas_scsih.c", 8651, "_scsih_probe"),
            ),
        ),
    ),
    # hpsa.c hpsa_eh_device_reset_handler (the SCSI error handler's device reset on an HP/HPE
    # Smart Array): hpsa_show_dev_msg(KERN_WARNING) prints dev_printk "scsi %d:%d:%d:%d: %s %s
    # %.8s %.16s %s SSDSmartPathCap%c En%c Exp=%d" with the description sprintf'd as
    # "resetting %s" and "reset %s %s" ("logical " or "physical ", then "completed
    # successfully" or "failed": hence the two spaces), or "cmd %d RESET FAILED, lockup
    # detected" / "…, new lockup detected" (4.19-6.18; the diff context of 5.x shows the same)
    sig(
        "scsi_host_reset",
        r"scsi \d+:\d+:\d+:\d+: (?:resetting (?:logical|physical) |reset (?:logical|physical) +"
        r"(?:completed successfully|failed)|cmd \d+ RESET FAILED, (?:new )?lockup detected)",
        ("resetting", "reset", "RESET"),
        Severity.ERROR,
        STORAGE,
        "The SCSI error handler reset a logical volume or disk behind a Smart Array (hpsa) "
        "controller that stopped answering.",
        "Check the controller's event log (ssacli, the iLO IML), its firmware, cache battery "
        "and the disks behind it; resets that repeat mean a disk or the controller is failing.",
        53,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "scsi %d:%d:%d:%d: %s %s %.8s %.16s %s SSDSmartPathCap%c En%c Exp=%d",
                "drivers/scsi/hpsa.c",
                "4.19-6.18",
                _HPSA,
                args=(
                    0,
                    1,
                    0,
                    0,
                    "reset logical  completed successfully",
                    "Direct-Access",
                    "HP",
                    "LOGICAL VOLUME",
                    "RAID-1(+0)",
                    "+",
                    "+",
                    1,
                ),
            ),
            Format(
                "scsi %d:%d:%d:%d: %s %s %.8s %.16s %s SSDSmartPathCap%c En%c Exp=%d",
                "drivers/scsi/hpsa.c",
                "4.19-6.18",
                _HPSA,
                args=(
                    0,
                    1,
                    0,
                    0,
                    "resetting logical ",
                    "Direct-Access",
                    "HP",
                    "LOGICAL VOLUME",
                    "RAID-5",
                    "-",
                    "-",
                    1,
                ),
            ),
            Format(
                "scsi %d:%d:%d:%d: %s %s %.8s %.16s %s SSDSmartPathCap%c En%c Exp=%d",
                "drivers/scsi/hpsa.c",
                "4.19-6.18",
                _HPSA,
                args=(
                    0,
                    0,
                    3,
                    0,
                    "cmd 17 RESET FAILED, lockup detected",
                    "Direct-Access",
                    "ATA",
                    "MB2000GCWDA",
                    "physical",
                    "-",
                    "-",
                    1,
                ),
            ),
        ),
    ),
)
