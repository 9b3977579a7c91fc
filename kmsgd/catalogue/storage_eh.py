"""The SCSI error handler's calls into a driver, in the wordings storage_hba.py does not read.

scsi_error.c escalates a command that timed out: abort it (eh_abort_handler), reset its
device, its target, its bus, its host. storage_hba.py's scsi_host_reset reads each step as
today's drivers print it; here are the same steps of older driver generations, the same tag.
FreeBSD's CAM layer is the same handler on another kernel: cam_periph_error retries a failed
command and reports the give-up.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig, wording
from kmsgd.catalogue.storage_hba import STORAGE_HBA_SIGNATURES

# scsi_host_reset's own entry (storage_hba.py): the wordings below are more of its event
_SCSI_HOST_RESET = next(s for s in STORAGE_HBA_SIGNATURES if s.tag == "scsi_host_reset")

STORAGE = "storage"

STORAGE_EH_SIGNATURES: tuple[Signature, ...] = (
    # drivers/scsi/qla2xxx/qla_os.c before ql_log (2.6.x-3.x, RHEL 5 and 6's 8.0x drivers):
    # qla_printk(KERN_INFO, ha, …) prints "qla2xxx <pci>: " and qla2xxx_eh_abort's
    # "scsi(%ld:%d:%d): Abort command issued -- %d %lx %x." (host, id, lun; wait, serial,
    # ret; "-- %lx %x." before 2.6.2x), qla2xxx_eh_device_reset's "scsi(%ld:%d:%d): DEVICE
    # RESET ISSUED.", qla2xxx_eh_bus_reset's "… LOOP RESET ISSUED." and
    # qla2xxx_eh_host_reset's "… ADAPTER RESET ISSUED."; "Abort handler timed out -- %lx %x."
    # when the aborted command never came back
    wording(
        _SCSI_HOST_RESET,
        r"^qla2xxx \S+: scsi\(\d+:\d+:\d+\): (?:Abort command issued --|Abort handler timed "
        r"out --|(?:DEVICE|LOOP|ADAPTER) RESET ISSUED\.)",
        ("Abort", "ISSUED"),
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "scsi(%ld:%d:%d): Abort command issued -- %d %lx %x.",
                "drivers/scsi/qla2xxx/qla_os.c",
                "2.6.18-2.6.32",
                "qla2xxx 0000:06:00.0: ",
                args=(0, 10, 0, 1, 0x10FB, 0x2002),
            ),
            Format(
                "scsi(%ld:%d:%d): Abort command issued -- %lx %x.",
                "drivers/scsi/qla2xxx/qla_os.c",
                "2.6.12-2.6.17",
                "qla2xxx 0000:06:00.0: ",
                args=(0, 10, 0, 0x10FB, 0x2002),
            ),
            Format(
                "scsi(%ld:%d:%d): Abort handler timed out -- %lx %x.",
                "drivers/scsi/qla2xxx/qla_os.c",
                "2.6.12-2.6.32",
                "qla2xxx 0000:06:00.0: ",
                args=(0, 10, 0, 0x10FB, 0x2003),
            ),
            Format(
                "scsi(%ld:%d:%d): DEVICE RESET ISSUED.",
                "drivers/scsi/qla2xxx/qla_os.c",
                "2.6.12-2.6.32",
                "qla2xxx 0000:06:00.0: ",
                args=(0, 10, 0),
            ),
            Format(
                "scsi(%ld:%d:%d): LOOP RESET ISSUED.",
                "drivers/scsi/qla2xxx/qla_os.c",
                "2.6.12-2.6.32",
                "qla2xxx 0000:06:00.0: ",
                args=(0, 10, 0),
            ),
            Format(
                "scsi(%ld:%d:%d): ADAPTER RESET ISSUED.",
                "drivers/scsi/qla2xxx/qla_os.c",
                "2.6.12-2.6.32",
                "qla2xxx 0000:06:00.0: ",
                args=(0, 10, 0),
            ),
        ),
    ),
    # FreeBSD (FreeNAS/TrueNAS CORE, pfSense): sys/cam/cam_periph.c cam_periph_error, after
    # cam_error_print's dump of the failed command, xpt_print(path, "Error %d, %s") with the
    # give-up ("Retries exhausted", "Unretryable error"); xpt_print opens with the path
    # "(%s%d:%s%d:%d:%d:%jx): " (peripheral and unit, SIM and unit, bus, target, lun). The
    # "Retrying command" lines before it are the attempts, not the failure
    sig(
        "disk_io_error",
        r"^\((?P<disk>[a-z]+\d+):[a-z_]+\d+:\d+:\d+:[0-9a-f]+\): Error \d+, "
        r"(?:Retries exhausted|Unretryable error)",
        ("Retries", "Unretryable"),
        Severity.ERROR,
        STORAGE,
        "A disk's command failed for good (FreeBSD CAM gave up on it): a read or write "
        "error reached the file system.",
        "Check the disk (smartctl -a, the ATA/SCSI error before this line: UNC is an "
        "unreadable sector), its cable and port; replace a disk whose errors repeat.",
        54,
        device_kind=DeviceKind.DISK,
        formats=(
            Format(
                "Error %d, %s",
                "freebsd:sys/cam/cam_periph.c",
                "FreeBSD 14 (checked)",
                "(ada1:ahcich1:0:0:0): ",
                args=(5, "Retries exhausted"),
            ),
            Format(
                "Error %d, %s",
                "freebsd:sys/cam/cam_periph.c",
                "FreeBSD 14 (checked)",
                "(da0:mps0:0:3:0): ",
                args=(5, "Unretryable error"),
            ),
        ),
    ),
)
