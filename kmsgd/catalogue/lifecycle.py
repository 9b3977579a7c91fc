"""Lifecycle signatures: how a boot ended (shutdown sequence) or, seen early in the next
boot, how the previous one did (reset reason, unclean journal, filesystem recovery).
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig
from kmsgd.catalogue.tags import Tag

S = Severity
_CPU, _PCI, _DISK, _FS = DeviceKind.CPU, DeviceKind.PCI, DeviceKind.DISK, DeviceKind.FS
# systemd's formats are from its current source (the search index's copies); the release
# ranges are not checked here
_SD = "systemd (current source)"
_SHUTDOWN = "systemd:src/shutdown/shutdown.c"


LIFECYCLE_SIGNATURES: tuple[Signature, ...] = (
    # kernel/reboot.c (pr_fmt "reboot: "): "Restarting system" (and "… with command '%s'"),
    # "Power down", "System halted", and "Power off not available: System halted instead"
    sig(
        "clean_shutdown_marker",
        r"^reboot: (?:Restarting system|Power down|System halted|Power off not available: "
        r"System halted instead)",
        ("reboot",),
        S.INFO,
        "lifecycle",
        "The kernel began an orderly reboot or power-off.",
        "None: the boot ended on purpose.",
        100,
        formats=(
            Format("Restarting system", "kernel/reboot.c", "4.4-6.18", "reboot: "),
            Format(
                "Restarting system with command '%s'",
                "kernel/reboot.c",
                "4.4-6.18",
                "reboot: ",
                args=("bootloader",),
            ),
            Format("Power down", "kernel/reboot.c", "4.4-6.18", "reboot: "),
            Format("System halted", "kernel/reboot.c", "4.4-6.18", "reboot: "),
            Format(
                "Power off not available: System halted instead",
                "kernel/reboot.c",
                "6.8-6.18",
                "reboot: ",
            ),
        ),
    ),
    sig(
        "clean_shutdown_marker",
        # anchored: systemd also logs command lines that merely mention these words. PID 1's
        # "Shutting down." (src/core/main.c, on the reboot, poweroff, halt and kexec
        # objectives only, just before it executes systemd-shutdown) and the job that starts
        # the final service ("Starting Reboot...", 250+ "Starting systemd-reboot.service -
        # System Reboot...", src/core/job.c with the unit's Description=) are the sequence's
        # own lines; with StatusUnitFormat=name (systemd-system.conf(5)) a target is named by
        # its unit alone ("Reached target reboot.target."); "Stopped target …" is not taken:
        # a unit stops on isolate and on `systemctl stop` too, so it is not yet a shutdown
        r"^(?:Reached target (?:\S+\.target - )?(?:System )?(?:Power-?Off|Power Off|Poweroff|"
        r"Reboot|Halt|Shutdown|Final Step|Kexec|Late Shutdown Services)|"
        r"Reached target (?:reboot|poweroff|halt|kexec|shutdown|final)\.target\.$|Journal stopped$|"
        r"Syncing filesystems and block devices|Sending SIGTERM to remaining processes|"
        r"All filesystems unmounted|(?:Powering off|Rebooting|Halting|Halting system)\.$|"
        r"System is (?:rebooting|powering down|halting)|Shutting down\.$|"
        r"Starting (?:systemd-(?:reboot|poweroff|halt|kexec)\.service - )?(?:System )?"
        r"(?:Reboot(?: via kexec)?|Power-Off|Power Off|Halt|Kexec)\.\.\.$)",
        (
            "Shutting",
            "Reboot",
            "Power",
            "Halt",
            "Kexec",
            "Reached",
            "stopped",
            "Syncing",
            "SIGTERM",
            "unmounted",
            "Powering",
            "Rebooting",
            "Halting",
            "rebooting",
            "powering",
            "halting",
        ),
        S.INFO,
        "lifecycle",
        "systemd ran the shutdown sequence.",
        "None: the boot ended on purpose.",
        100,
        idents=("systemd", "systemd-shutdown", "systemd-journald", "systemd-logind"),
        formats=(
            # a target's status message (src/core/target.c); newer releases print the unit
            # name and its description: "Reached target poweroff.target - System Power Off."
            Format(
                "Reached target %s.",
                "systemd:src/core/target.c",
                _SD,
                program="systemd",
                args=("Power-Off",),
            ),
            Format(
                "Reached target %s.",
                "systemd:src/core/target.c",
                _SD,
                program="systemd",
                args=("poweroff.target - System Power Off",),
            ),
            Format(
                "Syncing filesystems and block devices.", _SHUTDOWN, _SD, program="systemd-shutdown"
            ),
            Format("Powering off.", _SHUTDOWN, _SD, program="systemd-shutdown"),
            Format("Shutting down.", "systemd:src/core/main.c", _SD, program="systemd"),
            Format(
                "Reached target %s.",
                "systemd:src/core/target.c",
                _SD,
                program="systemd",
                args=("reboot.target",),
            ),
            Format(
                "Starting %s...", "systemd:src/core/job.c", _SD, program="systemd", args=("Reboot",)
            ),
            Format(
                "Starting %s...",
                "systemd:src/core/job.c",
                _SD,
                program="systemd",
                args=("systemd-poweroff.service - System Power Off",),
            ),
            Format("Rebooting.", _SHUTDOWN, _SD, program="systemd-shutdown"),
            Format("Halting system.", _SHUTDOWN, _SD, program="systemd-shutdown"),
        ),
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
        formats=(
            Format(
                "Using hardware watchdog '%s', version %x, device %s",
                "systemd:src/shared/watchdog.c",
                _SD,
                program="systemd-shutdown",
                args=("iTCO_wdt", 0, "/dev/watchdog0"),
            ),
        ),
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
        formats=(
            Format(
                "x86/amd: Previous system reset reason [0x%08x]: %s",
                "arch/x86/kernel/cpu/amd.c",
                "6.18",
                args=(0x08000800, "an uncorrected error caused a data fabric sync flood event"),
            ),
        ),
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
        formats=(
            Format(
                "File %s corrupted or uncleanly shut down, renaming and replacing.",
                "systemd:src/journal/journald-file.c",
                _SD,
                program="systemd-journald",
                args=("/var/log/journal/0123456789abcdef0123456789abcdef/system.journal",),
            ),
        ),
    ),
    # fs/ext4/super.c "recovery complete", "INFO: recovery required on readonly filesystem",
    # orphan cleanup; fs/xfs/xfs_log_recover.c "Starting recovery (logdev: %s)", "Ending
    # recovery"; e2fsck "recovering journal"; btrfs "start tree-log replay"; fs/jbd2/
    # recovery.c replaying a journal that fails a checksum ("JBD2: Invalid checksum recovering
    # …", fs_error too); xfs_log_recover.c xlog_recover "recovery required on read-only
    # device." (a log that needs replay on a read-only mount, 4.4-6.18); bcachefs
    # recovery.c (6.7+) "recovering from unclean shutdown", "journal read done, replaying
    # entries %llu-%llu"
    sig(
        "fs_recovery",
        r"EXT4-fs \(\S+\): (?:recovery complete|orphan cleanup|INFO: recovery "
        r"required)|XFS \(\S+\): (?:Starting|Ending) recovery|recovering journal"
        r"|XFS \(\S+\): recovery required on read-only device"
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
        formats=(
            # ext4_msg prints "EXT4-fs (%s): %pV"
            Format("recovery complete", "fs/ext4/super.c", "4.4-6.18", "EXT4-fs (nvme0n1p2): "),
            Format(
                "orphan cleanup on readonly fs",
                "fs/ext4/orphan.c",
                "4.4-6.18 (super.c to 5.4)",
                "EXT4-fs (nvme0n1p2): ",
            ),
            Format(
                "Starting recovery (logdev: %s)",
                "fs/xfs/xfs_log_recover.c",
                "4.4-6.18",
                "XFS (sda1): ",
                args=("internal",),
            ),
            Format(
                "Ending recovery (logdev: %s)",
                "fs/xfs/xfs_log.c",
                "4.4-6.18 (xfs_log_recover.c to 5.4)",
                "XFS (sda1): ",
                args=("internal",),
            ),
            Format(
                "recovery required on read-only device.",
                "fs/xfs/xfs_log_recover.c",
                "4.4-6.18",
                "XFS (dm-6): ",
            ),
            Format(
                "start tree-log replay",
                "fs/btrfs/disk-io.c",
                "5.4-6.18",
                "BTRFS info (device nvme0n1p3): ",
            ),
            # fsck's own output, which systemd-fsck logs as its own
            Format(
                "%s: recovering journal",
                "e2fsprogs:e2fsck/journal.c",
                "e2fsprogs (current source)",
                program="systemd-fsck",
                args=("/dev/nvme0n1p2",),
            ),
        ),
    ),
    # fs/ext4/super.c print_daily_error_info, run 5 minutes after a mount and then daily
    # while the superblock holds errors that no fsck has cleared: ext4_msg "error count
    # since last fsck: %u", printk "EXT4-fs (%s): initial error at time %u: %.*s:%d" and
    # "… last error at time …" (4.4-6.18; the stamp %llu from 4.19). The errors it counts
    # happened before, at the stamps it names (often in an earlier boot): it is the file
    # system's history, reported as a routine fs_error, so it leads only a log that shows
    # nothing else and never stands for a failure of this boot (the file system's own error
    # lines, when they come, are hardware.py's fs_error)
    sig(
        "fs_error",
        r"EXT[234]-fs \(\S+\): (?:error count since last fsck: \d+|(?:initial|last) error at "
        r"time \d+)",
        ("error",),
        S.WARNING,
        "fs",
        "A filesystem found corruption or an I/O failure.",
        "Run fsck/scrub from a rescue system; check the disk below it.",
        56,
        device_kind=_FS,
        routine=True,
        formats=(
            Format(
                "error count since last fsck: %u",
                "fs/ext4/super.c",
                "4.4-6.18",
                "EXT4-fs (dm-3): ",
                args=(10,),
            ),
            Format(
                "EXT4-fs (%s): initial error at time %llu: %.*s:%d",
                "fs/ext4/super.c",
                "4.19-6.18",
                args=("dm-3", 1718869019, 32, "ext4_orphan_get", 1420),
            ),
            Format(
                "EXT4-fs (%s): last error at time %llu: %.*s:%d",
                "fs/ext4/super.c",
                "4.19-6.18",
                args=("vdb", 1529054176, 32, "ext4_find_entry", 1312),
            ),
        ),
    ),
    # Shutdown without systemd, as a console or syslog shows it. sysvinit's shutdown(8)
    # (src/shutdown.c warn/issue_warn) walls "The system is going down %s NOW!" with "for
    # reboot" / "for system halt" (not "to maintenance mode": that is runlevel 1, no
    # shutdown), its init (src/init.c, initlog with "INIT: " on the console, syslog ident
    # "init") "Switching to runlevel: %c" with 0 (halt) or 6 (reboot); BusyBox init
    # (init/init.c run_shutdown_and_kill_processes, halt_reboot_pwoff) "The system is going
    # down NOW!", "Sent SIG%s to all processes" ("Sending …" in 1.1x), "Requesting system %s".
    # Userspace lines, so they count read as a console's (no ident) or as init's and
    # shutdown's in a syslog; a lockup or stall after them is a freeze during shutdown
    # (judge/rules.py rule_shutdown_hang), as after systemd's.
    sig(
        "clean_shutdown_marker",
        r"^\s*(?:The system is going down (?:for [\w -]{1,24} )?NOW!|(?:INIT: )?Switching to "
        r"runlevel: [06]\b|(?:Sent|Sending) SIG(?:TERM|KILL) to all processes$|Requesting "
        r"system (?:reboot|halt|poweroff)$)",
        ("going", "runlevel", "SIGTERM", "SIGKILL", "Requesting"),
        S.INFO,
        "lifecycle",
        "init ran the shutdown sequence (sysvinit or BusyBox).",
        "None: the boot ended on purpose.",
        100,
        idents=("kernel", "init", "shutdown"),
        formats=(
            Format(
                "The system is going down %s NOW!",
                "sysvinit:src/shutdown.c",
                "sysvinit 2.88-3.x (current source)",
                program="shutdown",
                args=("for reboot",),
            ),
            Format(
                "Switching to runlevel: %c",
                "sysvinit:src/init.c",
                "sysvinit 2.88-3.x (current source)",
                program="init",
                args=("6",),
            ),
            Format(
                "The system is going down NOW!",
                "busybox:init/init.c",
                "busybox 1.x (current source)",
                program="init",
            ),
            Format(
                "Sent SIG%s to all processes",
                "busybox:init/init.c",
                "busybox 1.x (current source)",
                program="init",
                args=("TERM",),
            ),
            Format(
                "Requesting system %s",
                "busybox:init/init.c",
                "busybox 1.x (current source)",
                program="init",
                args=("reboot",),
            ),
        ),
    ),
    # BSD-style shutdown(8) logs the operator's request before it signals init: FreeBSD's
    # sbin/shutdown/shutdown.c die_you_gravy_sucking_pig_dog syslog(LOG_NOTICE, "%s by %s:
    # %s") with "reboot", "halt" or "power-down" and the user (the message may be empty,
    # leaving "by root: "; "shutdown by" is the drop to single-user, not an end of the boot),
    # and the Linux shutdown of the same lineage "rebooted"/"halted". A userspace line, taken
    # only as shutdown's (ident "shutdown") in a syslog.
    sig(
        "clean_shutdown_marker",
        r"^(?:reboot(?:ed)?|halt(?:ed)?|power-down) by \S+:",
        ("reboot", "rebooted", "halt", "halted", "power"),
        S.INFO,
        "lifecycle",
        "shutdown(8) began the reboot or halt an operator asked for.",
        "None: the boot ended on purpose.",
        100,
        idents=("shutdown",),
        formats=(
            Format(
                "%s by %s: %s",
                "freebsd:sbin/shutdown/shutdown.c",
                "FreeBSD (the stored copy read)",
                program="shutdown",
                args=("reboot", "root", ""),
            ),
            Format(
                "%s by %s: %s",
                "freebsd:sbin/shutdown/shutdown.c",
                "FreeBSD (the stored copy read)",
                program="shutdown",
                args=("halt", "root", "maintenance"),
            ),
        ),
    ),
    # The orderly end of 2.6.32-3.x kernels, before kernel/reboot.c and its "reboot: "
    # pr_fmt: kernel/sys.c kernel_restart "Restarting system." (" with command '%s'." when
    # given one), kernel_halt "System halted.", kernel_power_off "Power down."; and kexec
    # into the next kernel, kernel_kexec's "Starting new kernel" (kernel/kexec.c 2.6.32-4.2,
    # kernel/kexec_core.c with pr_fmt "kexec_core: " 4.3+): a reboot that skips firmware.
    # A crash kexec (kdump) prints none of these
    sig(
        Tag.CLEAN_SHUTDOWN_MARKER,
        r"^(?:Restarting system(?: with command '[^']*')?\.|System halted\.|Power down\.)$"
        r"|^(?:kexec_core: )?Starting new kernel$",
        ("Restarting", "halted", "Power", "kernel"),
        S.INFO,
        "lifecycle",
        "The kernel began an orderly reboot, power-off or kexec into a new kernel.",
        "None: the boot ended on purpose.",
        100,
        formats=(
            Format("Restarting system.", "kernel/sys.c", "2.6.32-3.10"),
            Format("System halted.", "kernel/sys.c", "2.6.32-3.10"),
            Format("Power down.", "kernel/sys.c", "2.6.32-3.10"),
            Format("Starting new kernel", "kernel/kexec.c", "2.6.32-4.2"),
            Format("Starting new kernel", "kernel/kexec_core.c", "4.4-6.18", "kexec_core: "),
        ),
    ),
    # A suspend or hibernation the kernel could not complete (kernel/power, drivers/base/
    # power/main.c). The freezer: try_to_freeze_tasks "Freezing of tasks failed after
    # %d.%03d seconds (%d tasks refusing to freeze, wq_busy=%d):" (3.x-6.0; 2.6.32 "Freezing
    # of %s timed out after %d seconds (%d tasks refusing to freeze):" with "user space " or
    # "tasks "; 6.1+ "Freezing %s %s after …" with "user space processes" or "remaining
    # freezable tasks"), a task stuck in D state (a dead NFS server, FUSE, a driver) that the
    # dump after it names; "aborted" is a wakeup event, no failure. A driver's suspend
    # callback failing: dpm's "PM: Device %s failed to %s%s: error %d" (2.6.32-5.x; 5.10+
    # dev_err "PM: failed to %s%s: error %d" after the device), then suspend.c's "PM: Some
    # devices failed to suspend, or early wake event detected" and hibernate.c's "PM: Some
    # devices failed to power down, aborting hibernation" (their summaries, context). The box
    # stays up (the suspend is undone) or hangs there: what failed first leads, a GPU's own
    # suspend error before the PM core's line (rank after the drivers)
    sig(
        Tag.SUSPEND_FAILURE,
        r"^(?:PM: )?Freezing (?:of (?:tasks|user space )|user space processes|remaining "
        r"freezable tasks)\s*(?:failed|timed out) after\b"
        r"|\bPM: (?:Device \S+ )?failed to (?:suspend|freeze|poweroff|quiesce)"
        r"(?: async| late| noirq| early)*: error -?\d+",
        ("failed", "after", "PM"),
        S.ERROR,
        "power",
        "A suspend or hibernation failed: a task would not freeze or a driver refused to suspend.",
        "Read the task dump after 'refusing to freeze' (a task in D state names what it "
        "waits on) or the device that failed; update or unload that driver, or mount the "
        "stuck network file system differently.",
        84,
        formats=(
            Format(
                "Freezing of tasks failed after %d.%03d seconds (%d tasks refusing to freeze, "
                "wq_busy=%d):",
                "kernel/power/process.c",
                "3.10-6.0",
                args=(20, 5, 3, 0),
            ),
            Format(
                "Freezing of %s timed out after %d seconds (%d tasks refusing to freeze):",
                "kernel/power/process.c",
                "2.6.32",
                args=("tasks ", 20, 1),
            ),
            Format(
                "Freezing %s %s after %d.%03d seconds (%d tasks refusing to freeze, wq_busy=%d):",
                "kernel/power/process.c",
                "6.1-6.18",
                args=("user space processes", "failed", 20, 3, 1, 0),
            ),
            Format(
                "PM: Device %s failed to %s%s: error %d",
                "drivers/base/power/main.c",
                "2.6.32-5.4",
                args=("0000:00:14.0", "suspend", " async", -16),
            ),
            Format(
                "PM: failed to %s%s: error %d",
                "drivers/base/power/main.c",
                "5.10-6.18",
                "xhci_hcd 0000:00:14.0: ",
                args=("suspend", " async", -16),
            ),
        ),
    ),
    sig(
        Tag.SUSPEND_FAILURE,
        r"^(?:PM: )?Some devices failed to (?:suspend, or early wake event detected|power "
        r"down, aborting hibernation)",
        ("Some",),
        S.ERROR,
        "power",
        "A suspend or hibernation failed: a driver refused to suspend (or a wake event "
        "came first).",
        "Find the device named just before this line (a 'failed to suspend' line) and update "
        "or unload its driver.",
        84,
        context=True,
        formats=(
            Format(
                "Some devices failed to suspend, or early wake event detected",
                "kernel/power/suspend.c",
                "4.4-6.18",
                "PM: ",
            ),
            Format(
                "Some devices failed to power down, aborting hibernation",
                "kernel/power/hibernate.c",
                "4.4-6.18",
                "PM: ",
            ),
        ),
    ),
    # A boot that never reached its root file system. init/do_mounts.c mount_block_root:
    # "VFS: Cannot open root device \"%s\" or %s: error %d" (2.6.32-6.18), then the panic
    # "VFS: Unable to mount root fs on %s" (kernel_panic, which leads: the panic names the
    # reason). Without a panic, an initramfs gives up and drops to its emergency shell:
    # dracut's "Warning: Could not boot." and "Warning: %s does not exist" (its warn(), under
    # the initqueue's ident), systemd's status line for the failed root mount ("Failed to
    # mount /sysroot.", 250+ "Failed to mount sysroot.mount - /sysroot.", src/core/mount.c
    # with the unit's description). Ranked after the kernel's own reports
    sig(
        Tag.BOOT_FAILURE,
        r"^VFS: Cannot open root device\b",
        ("Cannot",),
        S.ERROR,
        "lifecycle",
        "The boot could not open its root device: the box never finished booting.",
        "Check root= on the kernel command line, that the initramfs holds the storage "
        "driver (NVMe, RAID, virtio) and that the disk or its UUID is there.",
        96,
        formats=(
            Format(
                'VFS: Cannot open root device "%s" or %s: error %d',
                "init/do_mounts.c",
                "2.6.32-6.18",
                args=("sda1", "unknown-block(0,0)", -6),
            ),
        ),
    ),
    sig(
        Tag.BOOT_FAILURE,
        r"^Warning: (?:Could not boot\.|\"?/dev/\S+ does not exist)"
        r"|^Failed to mount (?:sysroot\.mount - )?/sysroot\.$",
        ("Could", "exist", "sysroot"),
        S.ERROR,
        "lifecycle",
        "The initramfs could not mount the root file system and dropped to its emergency "
        "shell: the box never finished booting.",
        "Read /run/initramfs/rdsosreport.txt; check root= and rd.lvm/rd.luks options, that "
        "the initramfs holds the storage driver and that the root device exists.",
        96,
        idents=("dracut", "dracut-initqueue", "dracut-pre-mount", "systemd"),
        formats=(
            Format(
                "Warning: Could not boot.",
                "dracut:modules.d/98dracut-systemd/dracut-initqueue.sh",
                "dracut (current source)",
                program="dracut-initqueue",
            ),
            Format(
                "Warning: %s does not exist",
                "dracut:modules.d/99base/dracut-lib.sh",
                "dracut (current source)",
                program="dracut-initqueue",
                args=("/dev/mapper/rhel-root",),
            ),
            Format(
                "Failed to mount %s.",
                "systemd:src/core/mount.c",
                _SD,
                program="systemd",
                args=("sysroot.mount - /sysroot",),
            ),
        ),
    ),
)
