"""Storage, USB and PCI wordings from the source sweep of the I/O drivers: a device that
never answers again after a reset, data that failed its dm-integrity checksum, a tri-mode
storage controller's firmware fault, and wording added to the tags of other modules'
families (a multipath LUN that lost its last path, an md array that cannot start, a SATA
disk libata gave up on, a USB host controller halted by a host system error, the NVMe
fabrics' command timeouts). The IOMMU's are in iommu_sweep.py, the network's in
net_sweep.py.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

STORAGE = "storage"

IO_SWEEP_SIGNATURES: tuple[Signature, ...] = (
    # drivers/md/dm-mpath.c queue_if_no_path_timeout_work: DMWARN "queue_if_no_path timeout
    # on %s, failing queued IO" (5.9-6.18): every path of the LUN stayed failed past
    # queue_if_no_path_timeout_secs, and the I/O queued for it is failed
    sig(
        "multipath_path_failure",
        r"device-mapper: multipath: queue_if_no_path timeout on \S+",
        ("queue_if_no_path",),
        Severity.ERROR,
        STORAGE,
        "Device-mapper multipath had no path left to a LUN past its queue_if_no_path "
        "timeout: the I/O queued for it fails.",
        "Check every path's transport (HBA links, iSCSI sessions, the array) and multipath "
        "-ll; the file systems on the LUN saw their writes fail.",
        55,
        formats=(
            Format(
                "queue_if_no_path timeout on %s, failing queued IO",
                "drivers/md/dm-mpath.c",
                "5.9-6.18",
                "device-mapper: multipath: ",
                args=("253:3",),
            ),
        ),
    ),
    # drivers/md/raid5.c raid5_run: "md/raid:%s: cannot start dirty degraded array." (printk
    # KERN_ERR 4.4-4.9, pr_crit 4.10-6.18): an array that was not shut down cleanly and lost
    # a member does not start (the box's root or data never mounts); drivers/md/md.c
    # analyze_sbs: pr_warn "md: kicking non-fresh %s from array!" (%s 4.4-5.19, %pg 6.0-6.18):
    # a member whose superblock is older than the others' is dropped at assembly, the array
    # runs degraded; raid5_run's pr_warn "md/raid:%s: failed to run raid set." and md_run's
    # pr_warn "md: pers->run() failed ..." (4.10-6.18; printk before): the array did not start
    sig(
        "md_disk_failure",
        r"md/raid\d*:\S+: (?:cannot start dirty degraded array\b|failed to run raid set\.)"
        r"|^md: (?:kicking non-fresh \S+ from array!|pers->run\(\) failed \.\.\.)",
        ("dirty", "fresh", "raid", "pers"),
        Severity.ERROR,
        STORAGE,
        "A software RAID (md) array would not start (it was not stopped cleanly and lost a "
        "member), or started without a member whose data was stale: it is down, or degraded.",
        "Check the missing or stale member (SMART, cables, the I/O errors before); start the "
        "array with mdadm --assemble --force / --run only after checking, then re-add the "
        "member.",
        55,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "md/raid:%s: cannot start dirty degraded array.",
                "drivers/md/raid5.c",
                "4.4-6.18",
                args=("md1",),
            ),
            Format(
                "md: kicking non-fresh %s from array!",
                "drivers/md/md.c",
                "4.4-5.19",
                args=("sdb1",),
            ),
            Format(
                "md/raid:%s: failed to run raid set.",
                "drivers/md/raid5.c",
                "4.10-6.18",
                args=("md1",),
            ),
            Format("md: pers->run() failed ...", "drivers/md/md.c", "4.10-6.18"),
        ),
    ),
    # drivers/ata/libata-eh.c ata_dev_disable: ata_dev_warn "disable device" (5.19-6.18;
    # "disabled" before, behind ata_msg_drv): libata gave up on a device after its errors
    # (failed revalidation, a reset that found nothing): the disk is gone until a rescan
    sig(
        "disk_io_error",
        r"^ata\d+\.\d+: disable device$",
        ("disable",),
        Severity.ERROR,
        STORAGE,
        "libata gave up on a SATA/PATA disk after its errors and disabled it: the disk is "
        "gone and its I/O fails.",
        "Check the disk (SMART), its cable and port; the errors before this line say why.",
        54,
        device_kind=DeviceKind.DISK,
        formats=(Format("disable device", "drivers/ata/libata-eh.c", "5.19-6.18", "ata3.00: "),),
    ),
    # drivers/usb/host/xhci-ring.c xhci_irq: xhci_warn "WARNING: Host System Error" (4.4-6.18,
    # then xhci_halt: the controller stops), xhci_abort_cmd_ring: xhci_err "Abort failed to
    # stop command ring: %d" (4.10-6.18, then xhci_halt and xhci_hc_died)
    sig(
        "xhci_host_dead",
        r"\bxhci[-_]hcd \S+: (?:WARNING: Host System Error$|Abort failed to stop command ring:)",
        ("Host", "Abort"),
        Severity.ERROR,
        "usb",
        "The USB host controller (xHCI) reported a host system error or stopped answering its "
        "command ring and was halted: every USB device behind it is gone.",
        "Check the controller (firmware, IOMMU faults, PCIe errors near this line); rebind or "
        "reboot to recover it, and look for a BIOS/kernel update.",
        46,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "WARNING: Host System Error",
                "drivers/usb/host/xhci-ring.c",
                "4.4-6.18",
                "xhci_hcd 0000:00:14.0: ",
            ),
            Format(
                "Abort failed to stop command ring: %d",
                "drivers/usb/host/xhci-ring.c",
                "4.10-6.18",
                "xhci_hcd 0000:00:14.0: ",
                args=(-110,),
            ),
        ),
    ),
    # drivers/nvme/host/tcp.c nvme_tcp_timeout: dev_warn "I/O tag %d (%04x) type %d opcode %#x
    # (%s) QID %d timeout" (6.5-6.18; "queue %d: timeout request %#x type %d" before, which
    # hardware.py's entry reads);
    # drivers/nvme/host/fc.c nvme_fc_timeout: dev_info "NVME-FC{%d.%d}: io timeout: opcode %d
    # fctype %d (%s) w10/11: x%08x/x%08x" (5.13-6.18); 4.4's pci.c nvme_timeout: dev_warn
    # "Timeout I/O %d QID %d" (the PCI device's prefix), before it aborts the command
    sig(
        "nvme_timeout",
        r"\bnvme\d+: I/O tag \d+ \([0-9a-f]+\) type \d+ opcode 0x[0-9a-f]+ \([^)]*\) QID \d+ "
        r"timeout\b"
        r"|\bNVME-FC\{\d+\.\d+\}: io timeout: opcode \d+"
        r"|^nvme [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: Timeout I/O \d+ QID \d+$",
        ("timeout", "Timeout"),
        Severity.ERROR,
        STORAGE,
        "An NVMe over Fabrics (TCP, FC) command timed out: the controller is reset or "
        "reconnected, and the I/O waits.",
        "Check the fabric (network, FC link) and the target; the reconnect lines after this "
        "say whether the controller came back.",
        50,
        formats=(
            Format(
                "I/O tag %d (%04x) type %d opcode %#x (%s) QID %d timeout",
                "drivers/nvme/host/tcp.c",
                "6.5-6.18",
                "nvme nvme0: ",
                args=(12, 0x100C, 4, 2, "Read", 3),
            ),
            Format(
                "Timeout I/O %d QID %d",
                "drivers/nvme/host/pci.c",
                "4.4",
                "nvme 0000:01:00.0: ",
                args=(123, 1),
            ),
            Format(
                "NVME-FC{%d.%d}: io timeout: opcode %d fctype %d (%s) w10/11: x%08x/x%08x",
                "drivers/nvme/host/fc.c",
                "5.13-6.18",
                "nvme nvme1: ",
                args=(0, 3, 2, 0, "Read", 0, 0),
            ),
        ),
    ),
    # drivers/pci/pci.c pci_dev_wait: pci_warn "not ready %dms after %s; giving up" (4.17-6.18,
    # dev_warn before) for a reset's wait: "FLR" (pcie_flr, vfio-pci's reset of a device
    # handed to a VM), "AF_FLR", "PM D3hot->D0", "bus reset" (the secondary bus reset of
    # pci_bridge_wait_for_secondary_bus), "DPC"; "resume" is pci_d3cold_resume_failure's.
    # The device's config space never answered again: it is lost until a power cycle
    sig(
        "pci_reset_timeout",
        r"\bnot ready \d+ms after (?!resume;)[\w >-]+; giving up",
        ("giving",),
        Severity.CRITICAL,
        "pcie",
        "A PCI device did not come back after a reset (function level reset, bus reset, or "
        "power-state change): its config space never answered again, so the device is gone "
        "until the box is power-cycled.",
        "Power-cycle the box (a warm reboot may not bring it back); for a device passed "
        "through to a VM, try another reset method (reset_method in sysfs) or the vendor's "
        "reset quirk; check the device's power and seating, and update its firmware.",
        20,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "not ready %dms after %s; giving up",
                "drivers/pci/pci.c",
                "4.17-6.18",
                "vfio-pci 0000:41:00.0: ",
                args=(65535, "FLR"),
            ),
            Format(
                "not ready %dms after %s; giving up",
                "drivers/pci/pci.c",
                "4.17-6.18",
                "pcieport 0000:00:01.1: ",
                args=(60000, "bus reset"),
            ),
        ),
    ),
    # drivers/md/dm-integrity.c integrity_metadata (and the inline recheck, 6.11-6.18):
    # DMERR_LIMIT "%pg: Checksum failed at sector 0x%llx" (5.18-6.18; "%s: " 4.19-5.17, bare
    # 4.12-4.18); drivers/md/dm-crypt.c crypt_convert_block_aead: DMERR_LIMIT "%pg: INTEGRITY
    # AEAD ERROR, sector %llu" (5.18-6.18; "%s: " 4.19-5.17, bare 4.12-4.18): data read back
    # does not match its checksum or authentication tag, and the read fails (EILSEQ)
    sig(
        "dm_integrity_error",
        r"device-mapper: integrity: (?:\S+: )?Checksum failed at sector 0x[0-9a-f]+"
        r"|device-mapper: crypt: (?:\S+: )?INTEGRITY AEAD ERROR, sector \d+",
        ("Checksum", "AEAD"),
        Severity.ERROR,
        STORAGE,
        "Data read from a dm-integrity (or authenticated dm-crypt) device failed its checksum: "
        "the disk returned corrupted data, and the read failed.",
        "Check the disk under it (SMART, cables, memory errors: bad RAM corrupts the data "
        "before it is written); restore the damaged files, or let the RAID above repair them.",
        54,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "%s: Checksum failed at sector 0x%llx",
                "drivers/md/dm-integrity.c",
                "4.19-6.18",
                "device-mapper: integrity: ",
                args=("dm-1", 0x1F4),
            ),
            Format(
                "%s: INTEGRITY AEAD ERROR, sector %llu",
                "drivers/md/dm-crypt.c",
                "4.19-6.18",
                "device-mapper: crypt: ",
                args=("dm-0", 1234),
            ),
        ),
    ),
    # drivers/scsi/mpi3mr/mpi3mr_fw.c mpi3mr_print_fault_info: ioc_info "fault code(0x%08X):
    # Additional code: (0x%08X:0x%08X:0x%08X)" (5.15-6.18, "<name>: " from ioc_info), printed
    # only while the controller's IOC status has its fault bit set
    sig(
        "mpi3mr_ioc_fault",
        r"^mpi3mr\d+: fault code\(0x[0-9A-Fa-f]+\): Additional code: \(",
        ("Additional",),
        Severity.ERROR,
        STORAGE,
        "A Broadcom tri-mode (mpi3mr, 9600-series) storage controller's firmware faulted: "
        "the driver resets it, and its disks' I/O stalls or fails meanwhile.",
        "Note the fault code for Broadcom support; update the controller firmware and the "
        "driver; check its cooling and PCIe slot. Repeated faults mean a failing controller.",
        49,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "fault code(0x%08X): Additional code: (0x%08X:0x%08X:0x%08X)",
                "drivers/scsi/mpi3mr/mpi3mr_fw.c",
                "5.15-6.18",
                "mpi3mr0: ",
                args=(0x5000, 0, 0, 0),
            ),
        ),
    ),
    # fs/f2fs/super.c f2fs_handle_critical_error: f2fs_warn "Stopped filesystem due to
    # reason: %d" (6.9-6.18, "F2FS-fs (<dev>): "): f2fs stopped its checkpoints after an
    # inconsistency, a failed write or a shutdown with errors=continue or on a read-only
    # mount (its other path remounts read-only, fs_error's "Remounting filesystem read-only")
    sig(
        "fs_error",
        r"^F2FS-fs \(\S+\): Stopped filesystem due to reason: \d+",
        ("reason",),
        Severity.ERROR,
        "fs",
        "f2fs stopped the file system after a critical error (an inconsistency found, a "
        "metadata write that failed): no more writes reach the disk.",
        "Unmount it and run fsck.f2fs; check the disk under it for I/O errors.",
        56,
        device_kind=DeviceKind.FS,
        formats=(
            Format(
                "Stopped filesystem due to reason: %d",
                "fs/f2fs/super.c",
                "6.9-6.18",
                "F2FS-fs (dm-64): ",
                args=(4,),
            ),
        ),
    ),
    # drivers/scsi/lpfc/lpfc_hbadisc.c lpfc_dev_loss_tmo_handler: lpfc_printf_vlog KERN_ERR
    # "0203 Devloss timeout on WWPN %8phC NPort x%06x Data: x%x x%x x%x" (4.4-6.18, behind
    # lpfc_printf_vlog's "<board>:(<vport>):"): a remote FC port stayed away past
    # dev_loss_tmo, its SCSI targets are removed and their I/O fails
    sig(
        "fc_link_down",
        r"\blpfc \S+: (?:\d+:)*(?:\(\d+\):)?0203 Devloss timeout on WWPN \S+ NPort x",
        ("Devloss",),
        Severity.ERROR,
        "storage.net",
        "A Fibre Channel remote port (a storage array's port) stayed unreachable past its "
        "dev_loss_tmo: the HBA removed its LUNs, and their I/O fails.",
        "Check the fabric (switch zoning, the array's port, cables, SFPs) and the HBA's link "
        "events before this line; multipath should have moved the I/O to another path.",
        46,
        formats=(
            Format(
                "0203 Devloss timeout on WWPN %8phC NPort x%06x Data: x%x x%x x%x",
                "drivers/scsi/lpfc/lpfc_hbadisc.c",
                "4.4-6.18",
                "lpfc 0000:82:00.0: 2:(0):",
                args=("50:01:43:80:12:8e:40:20", 0x05DF00, 0x82000000, 8, 0xA),
            ),
        ),
    ),
    # fs/nfs/nfs4state.c: nfs4_reclaim_open_state's "NFS: %s: Lock reclaim failed!"
    # (pr_warn_ratelimited 4.4-6.12, bare printk "%s: ..." before), nfs4_handle_reclaim_lease_
    # error's pr_err "NFS: Server %s reports our clientid is in use" (4.4-6.18: another client
    # holds this one's NFSv4 identity, its state is refused, EPERM), nfs4_state_manager's
    # pr_warn_ratelimited "NFS: state manager%s%s failed on NFSv4 server %s with error %d"
    # (4.4-6.18, the failed step after ": "): the client could not re-establish its open
    # files and locks with the server
    sig(
        "nfs_state_recovery_failure",
        r"^NFS: (?:\w+: Lock reclaim failed!|Server \S+ reports our clientid is in use"
        r"|state manager(?:: [\w ]+)? failed on NFSv4 server \S+ with error -?\d+)",
        ("reclaim", "clientid", "manager"),
        Severity.ERROR,
        "storage.net",
        "The NFSv4 client could not recover its state (open files, locks, its lease) with the "
        "server: locks held by programs are lost, or the mount's I/O fails.",
        "Check the server (a restart, a failover, its grace period); give every client a "
        "unique identity (nfs4_unique_id, or a unique hostname); restart what held locks.",
        46,
        formats=(
            Format(
                "NFS: %s: Lock reclaim failed!",
                "fs/nfs/nfs4state.c",
                "4.4-6.12",
                args=("__nfs4_reclaim_open_state",),
            ),
            Format(
                "NFS: Server %s reports our clientid is in use",
                "fs/nfs/nfs4state.c",
                "4.4-6.18",
                args=("fileserver",),
            ),
            Format(
                "NFS: state manager%s%s failed on NFSv4 server %s with error %d",
                "fs/nfs/nfs4state.c",
                "4.4-6.18",
                args=(": ", "lease expired", "fileserver", 1),
            ),
        ),
    ),
)
