"""Lifecycle signatures: how a boot ended (shutdown sequence) or, seen early in the next
boot, how the previous one did (reset reason, unclean journal, filesystem recovery).
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Severity, Signature, sig

S = Severity
_CPU, _PCI, _DISK, _FS = DeviceKind.CPU, DeviceKind.PCI, DeviceKind.DISK, DeviceKind.FS


LIFECYCLE_SIGNATURES: tuple[Signature, ...] = (
    # kernel/reboot.c: "reboot: Restarting system", "reboot: Power down", "reboot: System halted"
    sig(
        "clean_shutdown_marker",
        r"^reboot: (?:Restarting system|Power down|System halted)",
        ("reboot",),
        S.INFO,
        "lifecycle",
        "The kernel began an orderly reboot or power-off.",
        "None: the boot ended on purpose.",
        100,
    ),
    sig(
        "clean_shutdown_marker",
        # anchored: systemd also logs command lines that merely mention these words
        r"^(?:Reached target (?:\S+\.target - )?(?:System )?(?:Power-?Off|Power Off|Poweroff|"
        r"Reboot|Halt|Shutdown|Final Step|Kexec|Late Shutdown Services)|Journal stopped$|"
        r"Syncing filesystems and block devices|Sending SIGTERM to remaining processes|"
        r"All filesystems unmounted|(?:Powering off|Rebooting|Halting)\.$|"
        r"System is (?:rebooting|powering down|halting))",
        (
            "Reached",
            "stopped",
            "Syncing",
            "SIGTERM",
            "unmounted",
            "Powering",
            "Rebooting",
            "Halting",
            "System",
        ),
        S.INFO,
        "lifecycle",
        "systemd ran the shutdown sequence.",
        "None: the boot ended on purpose.",
        100,
        idents=("systemd", "systemd-shutdown", "systemd-journald", "systemd-logind"),
    ),
    # systemd-shutdown opens the hardware watchdog only when PID 1 handed it a timeout, and
    # PID 1 does that for reboot and kexec alone (src/core/main.c: RebootWatchdogSec=,
    # KExecWatchdogSec=; systemd-system.conf(5)); src/shared/watchdog.c then logs "Using
    # hardware watchdog '%s', version %x, device %s". PID 1's own line at boot
    # (RuntimeWatchdogSec=) has the identifier systemd and is not this.
    sig(
        "clean_shutdown_marker",
        r"^Using hardware watchdog ",
        ("hardware",),
        S.INFO,
        "lifecycle",
        "systemd ran the shutdown sequence.",
        "None: the boot ended on purpose.",
        100,
        idents=("systemd-shutdown",),
    ),
    # arch/x86/kernel/cpu/amd.c (6.16+): "x86/amd: Previous system reset reason [0x%08x]: %s"
    sig(
        "reset_reason",
        r"Previous system reset reason \[0x(?P<bits>[0-9a-fA-F]{8})\]",
        ("reason",),
        S.INFO,
        "lifecycle",
        "The CPU's reset status register says how the previous boot ended.",
        "Read the decoded reason in the verdict.",
        100,
    ),
    # systemd journal-file.c: "File %s corrupted or uncleanly shut down, renaming and replacing."
    sig(
        "journal_unclean",
        r"corrupted or uncleanly shut down|uncleanly shut down, renaming",
        ("uncleanly",),
        S.INFO,
        "lifecycle",
        "journald found a journal file left open: the previous boot did not shut down cleanly.",
        "Look at the previous boot's last lines for the cause.",
        100,
        idents=("systemd-journald",),
    ),
    # fs/ext4/super.c "recovery complete", "INFO: recovery required on readonly filesystem",
    # orphan cleanup; fs/xfs/xfs_log_recover.c "Starting recovery (logdev: %s)", "Ending
    # recovery"; e2fsck "recovering journal"; btrfs "start tree-log replay"; fs/jbd2/
    # recovery.c replaying a journal that fails a checksum ("JBD2: Invalid checksum recovering
    # …", fs_error too); bcachefs recovery.c (6.7+) "recovering from unclean shutdown",
    # "journal read done, replaying entries %llu-%llu"
    sig(
        "fs_recovery",
        r"EXT4-fs \(\S+\): (?:recovery complete|orphan cleanup|INFO: recovery "
        r"required)|XFS \(\S+\): (?:Starting|Ending) recovery|recovering journal"
        r"|BTRFS info \(device \S+\): .*log replay|clean-up .*orphan"
        r"|JBD2: Invalid checksum recovering|bcachefs \(\S+\): (?:recovering from unclean "
        r"shutdown|journal read done, replaying entries)",
        ("recovery", "orphan", "recovering", "replay", "replaying"),
        S.INFO,
        "lifecycle",
        "A filesystem replayed its journal at mount: the previous boot ended without unmounting.",
        "None by itself; the previous boot ended abruptly.",
        100,
        device_kind=_FS,
        idents=("kernel", "systemd-fsck"),
    ),
)
