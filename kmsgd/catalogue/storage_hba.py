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
        r"|attempting (?:task abort|device reset|target reset|host reset)! ?(?:scmd\(|\(sc=)",
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
    # The SCSI midlayer's and libata's words for a disk that failed, as 2.6.32-6.x print them
    # beside the block layer's "I/O error" (hardware.py). scsi_lib.c scsi_io_completion
    # (2.6.x-3.x): scmd_printk(KERN_INFO, "%s\n", description) with "Unhandled sense code"
    # or "Unhandled error code" when a command fails for good (ACTION_FAIL); the sense data
    # the disk returned, constants.c/scsi_logging.c scsi_show_sense_hdr "Sense Key : %s
    # [%s]%s" (2.6-6.18, "[sdX] " then "tag#%d " from 4.x) with "Medium Error" or "Hardware
    # Error", and scsi_show_extd_sense "Add. Sense: %s" with "Unrecovered read error"
    # (other sense keys, a Unit Attention or Not Ready of an empty drive, are routine); sd.c
    # sd_eh_action "Medium access timeout failure. Offlining disk!" (3.x-6.18); scsi_lib.c's
    # "timing out command, waited %lus" of 2.6.32, sdev_printk without the disk's name;
    # libata-core.c sata_link_hardreset "COMRESET failed (errno=%d)" (2.6.2x-6.18, the link
    # did not come back from a hard reset), libata-sff.c "SRST failed (errno=%d)", libata-eh.c
    # ata_eh_reset "reset failed (errno=%d), retrying in %u secs", libata-core.c
    # ata_exec_internal_sg "qc timeout (cmd 0x%x)" (to 6.1; "qc timeout after %u msecs (cmd
    # 0x%x)" 6.2+: an internal command, IDENTIFY or SET FEATURES, after a reset got no
    # answer), ata_dev_read_id "failed to IDENTIFY (%s, err_mask=0x%x)", ata_dev_revalidate
    # "revalidation failed (errno=%d)" (2.6-6.18: the disk did not come back as itself after
    # the reset), ata_eh_link_report's decoded error register "error: { UNC }" / "{ IDNF }"
    # (an uncorrectable sector, a sector not found) and the failed command "failed command:
    # FLUSH CACHE EXT" (the write cache could not be written); drivers/mmc/core/block.c
    # mmc_blk_err_check "%s: error %d transferring data, sector %u, nr %u, cmd response %#x,
    # card status %#x" (3.x-6.18, an SD card or eMMC failing a read or write) and sdhci.c
    # sdhci_timeout_timer "%s: Timeout waiting for hardware interrupt." (2.6-6.18; "… hardware
    # cmd interrupt." 5.x+), the card's request that never completed. A reset's own notices
    # ("hard resetting link", "link is slow to respond", "EH complete") are not failures
    sig(
        "disk_io_error",
        r"\] +(?:tag#\d+ )?(?:Sense Key : (?:Medium|Hardware) Error|Add\. Sense: Unrecovered "
        r"read error|Unhandled (?:sense|error) code$)|Medium access timeout failure\. Offlining"
        r"|^(?:sd|scsi) \d+:\d+:\d+:\d+: timing out command, waited \d+s"
        r"|\bata\d+(?:\.\d+)?: (?:COMRESET|SRST) failed \(errno=-?\d+\)"
        r"|\bata\d+: reset failed \(errno=-?\d+\), retrying in \d+ secs"
        r"|\bata\d+\.\d+: (?:qc timeout (?:after \d+ msecs )?\(cmd 0x[0-9a-f]+\)"
        r"|failed to IDENTIFY \(|revalidation failed \(errno=-?\d+\)"
        r"|error: \{ (?:[A-Z]+ )*(?:UNC|IDNF)\b|failed command: FLUSH CACHE)"
        r"|^mmcblk\d+: error -?\d+ transferring data, sector \d+"
        r"|^mmc\d+: Timeout waiting for hardware (?:cmd )?interrupt",
        (
            "Sense",
            "Unhandled",
            "Medium",
            "COMRESET",
            "SRST",
            "retrying",
            "qc",
            "IDENTIFY",
            "revalidation",
            "timing",
            "UNC",
            "IDNF",
            "FLUSH",
            "transferring",
            "Timeout",
        ),
        Severity.ERROR,
        STORAGE,
        "A block device failed a read or write.",
        "Check SMART, cables and the filesystem on that device.",
        54,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "%s", "drivers/scsi/scsi_lib.c", "2.6.32-3.x", _SCMD, args=("Unhandled sense code",)
            ),
            Format(
                "Sense Key : %s [%s]%s",
                "drivers/scsi/scsi_logging.c",
                "4.4-6.18 (constants.c before 3.19)",
                "sd 2:0:0:0: [sdb] tag#3 ",
                args=("Medium Error", "current", " [descriptor]"),
            ),
            Format(
                "Sense Key : %s [%s]%s",
                "drivers/scsi/constants.c",
                "2.6.32-3.18",
                "sd 2:0:0:0: [sdb]  ",
                args=("Hardware Error", "current", ""),
            ),
            Format(
                "Add. Sense: %s",
                "drivers/scsi/scsi_logging.c",
                "4.4-6.18 (constants.c before 3.19)",
                "sd 2:0:0:0: [sdb] tag#3 ",
                args=("Unrecovered read error - auto reallocate failed",),
            ),
            Format(
                "Medium access timeout failure. Offlining disk!",
                "drivers/scsi/sd.c",
                "4.4-6.18",
                "sd 3:0:0:0: [sdc] tag#79 ",
            ),
            Format(
                "timing out command, waited %lus",
                "drivers/scsi/scsi_lib.c",
                "2.6.32",
                "sd 2:0:0:0: ",
                args=(360,),
            ),
            Format(
                "COMRESET failed (errno=%d)",
                "drivers/ata/libata-core.c",
                "4.4-6.18 (libata-sata.c from 5.10)",
                "ata3: ",
                args=(-16,),
            ),
            Format(
                "SRST failed (errno=%d)",
                "drivers/ata/libata-sff.c",
                "4.4-6.18",
                "ata3: ",
                args=(-16,),
            ),
            Format(
                "reset failed (errno=%d), retrying in %u secs",
                "drivers/ata/libata-eh.c",
                "4.4-6.18",
                "ata3: ",
                args=(-5, 8),
            ),
            Format(
                "qc timeout (cmd 0x%x)",
                "drivers/ata/libata-core.c",
                "4.4-6.1",
                _ATA_DEV,
                args=(0xEC,),
            ),
            Format(
                "qc timeout after %u msecs (cmd 0x%x)",
                "drivers/ata/libata-core.c",
                "6.2-6.18",
                _ATA_DEV,
                args=(5000, 0xEF),
            ),
            Format(
                "failed to IDENTIFY (%s, err_mask=0x%x)",
                "drivers/ata/libata-core.c",
                "4.4-6.18",
                _ATA_DEV,
                args=("I/O error", 0x4),
            ),
            Format(
                "revalidation failed (errno=%d)",
                "drivers/ata/libata-core.c",
                "4.4-6.18",
                _ATA_DEV,
                args=(-5,),
            ),
            Format("error: { %s}", "drivers/ata/libata-eh.c", "4.4-6.18", _ATA_DEV, args=("UNC ",)),
            Format(
                "failed command: %s",
                "drivers/ata/libata-eh.c",
                "4.4-6.18",
                _ATA_DEV,
                args=("FLUSH CACHE EXT",),
            ),
            Format(
                "%s: error %d transferring data, sector %u, nr %u, cmd response %#x, "
                "card status %#x",
                "drivers/mmc/core/block.c",
                "4.4-6.18 (drivers/mmc/card/block.c before 4.10)",
                args=("mmcblk0", -110, 3817472, 8, 0x900, 0xB00),
            ),
            Format(
                "%s: Timeout waiting for hardware interrupt.",
                "drivers/mmc/host/sdhci.c",
                "4.4-6.18",
                args=("mmc0",),
            ),
        ),
    ),
    # drivers/scsi/hpsa.c controller_lockup_detected: dev_warn("Controller lockup detected:
    # 0x%08x after %d") (4.x-6.18; "…: 0x%08x" alone in 3.x), the Smart Array's firmware
    # stopped its heartbeat: the driver disables the PCI device and fails every command
    # outstanding, so each logical volume behind it is gone
    sig(
        "hpsa_controller_lockup",
        r"\bhpsa \S+: [Cc]ontroller lockup detected: 0x[0-9a-fA-F]+",
        ("lockup",),
        Severity.CRITICAL,
        STORAGE,
        "An HP/HPE Smart Array controller (hpsa) locked up: its firmware stopped, the driver "
        "took it offline and every volume behind it failed.",
        "Read the controller's lockup code in the IML (iLO) or ssacli; update the controller "
        "firmware and check its cache module and battery; a cold boot brings it back.",
        49,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Controller lockup detected: 0x%08x after %d",
                "drivers/scsi/hpsa.c",
                "4.4-6.18",
                _HPSA,
                args=(0x00130000, 30),
            ),
        ),
    ),
    # drivers/scsi/smartpqi/smartpqi_sis.c sis_is_firmware_running and
    # sis_wait_for_ctrl_ready_with_timeout: dev_err("controller is offline: status code
    # 0x%x") (4.9-6.18) when the firmware reports a kernel panic (SIS_CTRL_KERNEL_PANIC);
    # smartpqi_init.c pqi_take_ctrl_offline then fails every outstanding request
    sig(
        "smartpqi_controller_offline",
        r"\bsmartpqi \S+: controller is offline: status code 0x[0-9a-fA-F]+",
        ("offline",),
        Severity.CRITICAL,
        STORAGE,
        "A Microchip/Adaptec SmartPQI controller (smartpqi: SmartRAID, HBA 1100, HPE Gen10 "
        "Smart Array) went offline: its firmware panicked and every disk behind it failed.",
        "Record the status code, collect the controller's logs (arcconf/ssacli), update its "
        "firmware and driver; a cold boot brings it back.",
        49,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "controller is offline: status code 0x%x",
                "drivers/scsi/smartpqi/smartpqi_sis.c",
                "4.19-6.18",
                "smartpqi 0000:5e:00.0: ",
                args=(0x6100C,),
            ),
        ),
    ),
    # drivers/scsi/aacraid/rx.c aac_rx_restart_adapter and src.c aac_src_restart_adapter:
    # printk(KERN_ERR "%s%d: adapter kernel panic'd %x.") with the driver's name and the
    # adapter's number ("aacraid0: "; dev_err "aacraid 0000:…: " in src.c from 4.x), the
    # Adaptec RAID firmware's BlinkLED code: the adapter stopped and is being reset
    sig(
        "aacraid_adapter_panic",
        r"\baacraid(?:\d+: | \S+: )adapter kernel panic'd [0-9a-fA-F]+\.",
        ("panic",),
        Severity.CRITICAL,
        STORAGE,
        "An Adaptec RAID controller's firmware (aacraid) panicked: the driver resets the "
        "adapter and the commands outstanding on it fail.",
        "Record the BlinkLED code, collect the controller's log (arcconf savesupportarchive), "
        "update its firmware; repeated panics mean the controller or a disk behind it is "
        "failing.",
        49,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "%s%d: adapter kernel panic'd %x.",
                "drivers/scsi/aacraid/rx.c",
                "4.4-6.18",
                args=("aacraid", 0, 0x6),
            ),
            Format(
                "adapter kernel panic'd %x.",
                "drivers/scsi/aacraid/src.c",
                "4.4-6.18",
                "aacraid 0000:04:00.0: ",
                args=(0xEF,),
            ),
        ),
    ),
    # drivers/scsi/qla2xxx/qla_os.c, the SCSI error handler's calls into a QLogic FC HBA:
    # qla2xxx_eh_abort ql_log "Abort command issued nexus=%ld:%d:%llu --  %d %x." (4.4;
    # "… -- %x." 5.x-6.18), __qla2xxx_eh_generic_reset "%s RESET ISSUED nexus=%ld:%d:%llu
    # cmd=%p." ("DEVICE", "TARGET") and qla2xxx_eh_bus_reset/host_reset "BUS RESET ISSUED
    # nexus=%ld:%d:%llu.", "ADAPTER RESET ISSUED nexus=%ld:%d:%llu." (4.4-6.18); uas.c
    # uas_eh_abort_handler, the USB-attached SCSI disk's command abort (uas_log_cmd_state
    # "%s %d uas-tag %d inflight:" with the handler's name, 4.4-6.18); aacraid linit.c
    # aac_eh_abort printk(KERN_ERR "%s: Host adapter abort request.") (" (%d,%d,%d,%d)" in
    # 2.6.x) and aac_eh_reset "%s: Host adapter reset request. SCSI hang ?" (2.6.x-6.18; 4.14+
    # aac_eh_dev_reset "… Host device reset request. SCSI hang ?"), AAC_DRIVERNAME "aacraid"
    sig(
        "scsi_host_reset",
        r"\bqla2xxx \[[0-9a-f:.]+\]-[0-9a-f]+:\d+: (?:Abort command issued|(?:DEVICE|TARGET|BUS"
        r"|ADAPTER) RESET ISSUED) nexus=|\] (?:tag#\d+ )?uas_eh_abort_handler -?\d+ uas-tag \d+"
        r"|^aacraid: Host (?:adapter abort request|(?:adapter|device) reset request\. SCSI hang)",
        ("Abort", "ISSUED", "uas_eh_abort_handler", "aacraid"),
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
                "Abort command issued nexus=%ld:%d:%llu -- %x.",
                "drivers/scsi/qla2xxx/qla_os.c",
                "5.4-6.18",
                "qla2xxx [0000:05:00.0]-801c:1: ",
                args=(1, 0, 3, 0x2002),
            ),
            Format(
                "%s RESET ISSUED nexus=%ld:%d:%llu cmd=%p.",
                "drivers/scsi/qla2xxx/qla_os.c",
                "4.4-6.18",
                "qla2xxx [0000:05:00.0]-8009:1: ",
                args=("DEVICE", 1, 0, 3, "ffff9a2b4c6d8e00"),
            ),
            Format(
                "ADAPTER RESET ISSUED nexus=%ld:%d:%llu.",
                "drivers/scsi/qla2xxx/qla_os.c",
                "4.4-6.18",
                "qla2xxx [0000:05:00.0]-8018:1: ",
                args=(1, 0, 3),
            ),
            Format(
                "%s: Host adapter reset request. SCSI hang ?",
                "drivers/scsi/aacraid/linit.c",
                "4.4-6.18",
                args=("aacraid",),
            ),
            Format(
                "%s: Host adapter abort request.",
                "drivers/scsi/aacraid/linit.c",
                "4.4-6.18",
                args=("aacraid",),
            ),
            Format(
                "%s %d uas-tag %d inflight:",
                "drivers/usb/storage/uas.c",
                "4.4-6.18",
                "sd 6:0:0:0: [sdb] tag#0 ",
                args=("uas_eh_abort_handler", 0, 1),
            ),
        ),
    ),
    # drivers/message/fusion/mptbase.c mpt_fault_reset_work and mpt_do_ioc_recovery: printk
    # (MYIOC_s_WARN_FMT "IOC is in FAULT state (%04xh)!!!") then "Issuing HardReset from
    # %s!!" (2.6.x-6.18; "mptbase: ioc0: " before it): the older LSI Fusion-MPT SAS/SCSI
    # controllers' (SAS1068, 53C1030; mptsas/mptspi, VMware's emulated LSI Logic) firmware
    # faulted, as mpt2sas/mpt3sas's fault_state
    sig(
        "mpt3sas_ioc_fault",
        r"\bioc\d+: IOC is in FAULT state \([0-9a-fA-F]+h\)!!!",
        ("FAULT",),
        Severity.ERROR,
        STORAGE,
        "An LSI/Broadcom SAS controller's firmware (its IOC) faulted: the driver resets it, "
        "and the commands in flight on every disk behind it fail or are retried.",
        "Note the fault code, check the HBA's firmware and temperature and the disks behind "
        "it; a fault that repeats means the HBA (or its firmware) is failing.",
        49,
        formats=(
            Format(
                "IOC is in FAULT state (%04xh)!!!",
                "drivers/message/fusion/mptbase.c",
                "4.4-6.18",
                "mptbase: ioc0: ",
                args=(0x2651,),
            ),
        ),
    ),
    # megaraid_sas_base.c process_fw_state_change_wq (the non-fusion MegaRAID's online
    # controller reset): printk("megaraid_sas: FW detected to be in fault state, restarting
    # it...") (2.6.3x-3.x; dev_notice "FW detected to be in fault state, restarting it..."
    # 4.x-6.18): the firmware faulted and the driver restarts it
    sig(
        "megaraid_fw_fault",
        r"\b(?:megaraid_sas|megasas)(?: \S+)?: FW detected to be in fault ?state, restarting it",
        ("restarting",),
        Severity.ERROR,
        STORAGE,
        "A MegaRAID controller's firmware faulted: the driver resets the adapter, and the "
        "volumes behind it stop answering meanwhile.",
        "Read the controller's event log (storcli /c0 show events, MegaCli -AdpEventLog), "
        "update its firmware and check its cache battery and temperature.",
        49,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "FW detected to be in fault state, restarting it...",
                _MEGARAID_BASE,
                "4.4-6.18",
                _MEGARAID,
            ),
            Format(
                "megaraid_sas: FW detected to be in fault state, restarting it...",
                _MEGARAID_BASE,
                "2.6.3x-3.x",
            ),
        ),
    ),
)
