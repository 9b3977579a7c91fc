"""Kernel-core and hardware wordings from the source sweep of kernel/, mm/, arch/ and power/:
memory the hardware poisoned (mm/memory-failure.c and the x86 machine-check handler's
user-access path), arm64's SError, a hibernation image that could not be resumed, swap I/O
that failed, the hardware-protection shutdown (kernel/reboot.c), a SysRq reset or power-off
(their wording for tags of other modules is in core_wording.py).

Routine neighbours stay untagged: a page that memory_failure recovered is a warning (the
machine check before it is the event), "PM: Image not found" is a boot without an image.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

S = Severity
_MF = "mm/memory-failure.c"
_MCE_FILE = "arch/x86/kernel/cpu/mce/core.c"

CORE_SWEEP_SIGNATURES: tuple[Signature, ...] = (
    # mm/memory-failure.c: action_result pr_err "%#lx: recovery action for %s: %s" (the
    # "Memory failure: " prefix written in the string 4.7-5.x, pr_fmt since; "MCE %#lx: "
    # before 4.7), action_name "Ignored", "Failed", "Delayed", "Recovered"; kill_proc's
    # "%#lx: Killing %s:%d due to hardware memory corruption" (4.7-5.x), "%#lx: Sending
    # SIGBUS to %s:%d due to hardware memory corruption" (later); the fault path's "MCE:
    # Killing %s:%d due to hardware memory corruption fault at %lx" (arch/x86/mm/fault.c
    # do_sigbus, arch/arm64/mm/fault.c); arch/x86/kernel/cpu/mce/core.c kill_me_maybe:
    # "Uncorrected hardware memory error in user-access at %llx", "Memory error not
    # recovered" (pr_fmt "mce: ")
    sig(
        "memory_failure",
        r"^(?:Memory failure:|MCE) 0x[0-9a-f]+: (?:recovery action for [\w ,-]+: "
        r"(?:Ignored|Failed|Delayed)$|(?:Killing|Sending SIGBUS to) \S+:\d+ due to hardware "
        r"memory corruption)"
        r"|^MCE: Killing \S+:\d+ due to hardware memory corruption fault at [0-9a-f]+"
        r"|^(?:mce: )?(?:Uncorrected hardware memory error in user-access at [0-9a-f]+"
        r"|Memory error not recovered)",
        ("recovery", "corruption", "Uncorrected", "recovered"),
        S.ERROR,
        "memory",
        "The hardware reported an uncorrectable memory error on a page in use: the kernel "
        "took the page away and killed (SIGBUS) the processes that used it, or could not "
        "recover it.",
        "A failing DIMM: find its slot (rasdaemon/mcelog, EDAC, the BMC's SEL) and replace it; "
        "restart the killed jobs.",
        15,
        formats=(
            Format(
                "%#lx: recovery action for %s: %s",
                _MF,
                "5.10-6.18",
                "Memory failure: ",
                args=(0x8A398A, "reserved kernel page", "Failed"),
            ),
            Format(
                "Memory failure: %#lx: recovery action for %s: %s",
                _MF,
                "4.7-5.4",
                args=(0x12345, "dirty LRU page", "Ignored"),
            ),
            Format(
                "MCE %#lx: recovery action for %s: %s",
                _MF,
                "4.4",
                args=(0x12345, "huge page", "Delayed"),
            ),
            Format(
                "%#lx: Sending SIGBUS to %s:%d due to hardware memory corruption",
                _MF,
                "5.15-6.18",
                "Memory failure: ",
                args=(0x8A398A, "python3", 4123),
            ),
            Format(
                "Memory failure: %#lx: Killing %s:%d due to hardware memory corruption",
                _MF,
                "4.7-5.10",
                args=(0x8A398A, "python3", 4123),
            ),
            Format(
                "MCE: Killing %s:%d due to hardware memory corruption fault at %lx",
                "arch/x86/mm/fault.c",
                "4.4-6.18",
                args=("python3", 4123, 0x7F12345000),
            ),
            Format(
                "Uncorrected hardware memory error in user-access at %llx",
                _MCE_FILE,
                "5.4-6.18",
                "mce: ",
                args=(0x8A398A400,),
            ),
            Format("Memory error not recovered", _MCE_FILE, "5.4-6.18", "mce: "),
        ),
    ),
    # the same action_result line when the page was recovered: the poisoned page was
    # isolated (a clean page dropped, a dirty one's users killed); the machine check or
    # GHES record before it is the event, this its handling
    sig(
        "memory_failure",
        r"^(?:Memory failure:|MCE) 0x[0-9a-f]+: recovery action for [\w ,-]+: Recovered$",
        ("Recovered",),
        S.WARNING,
        "memory",
        "The hardware reported an uncorrectable memory error on a page, and the kernel took "
        "the page out of use (its processes may have been killed).",
        "Check the memory's error counts (rasdaemon, EDAC, the BMC's SEL); replace a DIMM "
        "that keeps reporting.",
        15,
        routine=True,
        formats=(
            Format(
                "%#lx: recovery action for %s: %s",
                _MF,
                "5.10-6.18",
                "Memory failure: ",
                args=(0x8A398A, "dirty LRU page", "Recovered"),
            ),
        ),
    ),
    # arch/arm64/kernel/traps.c arm64_serror_panic: pr_crit "SError Interrupt on CPU%d,
    # code 0x%08x -- %s" (4.14-5.18), "code 0x%016lx" (5.19-6.18), then nmi_panic
    # "Asynchronous SError Interrupt"; before 4.14 bad_mode's "Bad mode in %s handler
    # detected on CPU%d, code 0x%08x -- %s" with "Error" (the SError vector)
    sig(
        "arm64_serror",
        r"^SError Interrupt on CPU\d+, code 0x[0-9a-f]+ -- "
        r"|^Bad mode in Error handler detected on CPU\d+, code 0x[0-9a-f]+ -- "
        r"|Kernel panic - not syncing: Asynchronous SError Interrupt",
        ("SError",),
        S.CRITICAL,
        "hardware",
        "An arm64 CPU took an asynchronous SError (an external abort: a bus, memory or device "
        "error reported by the hardware, or an access to a device that was powered off) and "
        "the kernel panicked.",
        "Read the ESR code and the firmware's RAS/GHES records; check the memory and the device "
        "the kernel was touching (a powered-off or faulty PCIe/SoC block).",
        12,
        device_kind=DeviceKind.CPU,
        formats=(
            Format(
                "SError Interrupt on CPU%d, code 0x%016lx -- %s",
                "arch/arm64/kernel/traps.c",
                "5.19-6.18",
                args=(3, 0xBE000011, "SError"),
            ),
            Format(
                "SError Interrupt on CPU%d, code 0x%08x -- %s",
                "arch/arm64/kernel/traps.c",
                "4.14-5.18",
                args=(3, 0xBF000002, "SError"),
            ),
            Format(
                "Bad mode in %s handler detected on CPU%d, code 0x%08x -- %s",
                "arch/arm64/kernel/traps.c",
                "4.4-4.13",
                args=("Error", 1, 0xBF000002, "SError"),
            ),
            Format(
                "Asynchronous SError Interrupt",
                "arch/arm64/kernel/traps.c",
                "4.14-6.18",
                "Kernel panic - not syncing: ",
            ),
        ),
    ),
    # kernel/power/hibernate.c load_image_and_restore (software_resume before 4.19): pr_err
    # "PM: Failed to load hibernation image, recovering." (4.4-5.6), with pr_fmt "PM:
    # hibernation: " and "Failed to load image, recovering." since; software_resume's "PM:
    # hibernation: resume failed (%d)" (6.x), "PM: resume from hibernation failed (%d)"
    sig(
        "hibernate_resume_failure",
        r"^PM: (?:hibernation: )?Failed to load (?:hibernation )?image, recovering\."
        r"|^PM: (?:hibernation: resume|resume from hibernation) failed \(-?\d+\)",
        ("recovering", "hibernation"),
        S.ERROR,
        "power",
        "Resuming from hibernation failed: the saved image could not be loaded or restored, "
        "so the box booted afresh and what was running before hibernation was lost.",
        "Check the resume= device and offset, that the image's kernel matches, and the "
        "drivers that refused to freeze (the lines before it name them).",
        60,
        formats=(
            Format(
                "PM: Failed to load hibernation image, recovering.",
                "kernel/power/hibernate.c",
                "4.4-5.6",
            ),
            Format(
                "Failed to load image, recovering.",
                "kernel/power/hibernate.c",
                "5.7-6.18",
                "PM: hibernation: ",
            ),
            Format(
                "resume failed (%d)", "kernel/power/hibernate.c", "6.1-6.18", "PM: hibernation: "
            ),
        ),
    ),
    # mm/page_io.c end_swap_bio_write / __end_swap_bio_write: pr_alert_ratelimited
    # "Write-error on swap-device (%u:%u:%llu)"; end_swap_bio_read / __end_swap_bio_read:
    # "Read-error on swap-device (%u:%u:%llu)" (4.4-6.18); the swap file's direct I/O
    # (sio_write_complete, 6.1+): "Write error %ld on dio swapfile (%llu)"
    sig(
        "swap_io_error",
        r"^(?:Write|Read)-error on swap-device \(\d+:\d+:\d+\)"
        r"|^Write error -?\d+ on dio swapfile \(\d+\)",
        ("swap", "swapfile"),
        S.ERROR,
        "memory",
        "Swap I/O failed: pages written out to swap are lost (the processes that own them "
        "are killed when they touch them) or could not be read back.",
        "Check the swap device (its disk errors, a zram or loop device that filled up); "
        "swapoff and replace it.",
        56,
        formats=(
            Format(
                "Write-error on swap-device (%u:%u:%llu)",
                "mm/page_io.c",
                "4.4-6.18",
                args=(254, 1, 39256632),
            ),
            Format(
                "Read-error on swap-device (%u:%u:%llu)",
                "mm/page_io.c",
                "4.4-6.18",
                args=(8, 2, 123456),
            ),
            Format(
                "Write error %ld on dio swapfile (%llu)", "mm/page_io.c", "6.1-6.18", args=(-5,)
            ),
        ),
    ),
    # kernel/reboot.c __hw_protection_shutdown (5.13-6.14), __hw_protection_trigger
    # (6.15+): pr_emerg "HARDWARE PROTECTION shutdown (%s)", "HARDWARE PROTECTION %s (%s)"
    # ("shutdown", "reboot"), pr_fmt "reboot: "; the reason a thermal zone past its critical
    # trip, a critical regulator's failure, a battery at critical capacity. Its delayed
    # fallback hw_failure_emergency_poweroff_func: "Hardware protection timed-out. Trying
    # forced poweroff", "Hardware protection shutdown failed. Trying emergency restart";
    # __orderly_poweroff's "Failed to start orderly shutdown: forcing the issue"
    sig(
        "hw_protection_shutdown",
        r"^(?:reboot: )?HARDWARE PROTECTION (?:shutdown|reboot|poweroff) \("
        r"|^(?:reboot: )?Hardware protection (?:timed-out\. Trying forced poweroff|shutdown "
        r"failed\. Trying emergency restart)"
        r"|^(?:reboot: )?Failed to start orderly (?:shutdown|reboot): forcing the issue",
        ("PROTECTION", "protection", "orderly"),
        S.CRITICAL,
        "hardware",
        "The kernel shut the box down to protect the hardware (a temperature past its "
        "critical trip, a failing power regulator or battery): the reason is in brackets.",
        "Fix the cause it names: cooling (fans, heatsinks, airflow) for a temperature, the "
        "power supply or regulator for a power fault.",
        14,
        formats=(
            Format(
                "HARDWARE PROTECTION shutdown (%s)",
                "kernel/reboot.c",
                "5.13-6.14",
                "reboot: ",
                args=("Temperature too high",),
            ),
            Format(
                "HARDWARE PROTECTION %s (%s)",
                "kernel/reboot.c",
                "6.15-6.18",
                "reboot: ",
                args=("shutdown", "Temperature too high"),
            ),
            Format(
                "Hardware protection timed-out. Trying forced poweroff",
                "kernel/reboot.c",
                "5.13-6.18",
                "reboot: ",
            ),
            Format(
                "Failed to start orderly shutdown: forcing the issue",
                "kernel/reboot.c",
                "4.4-6.18",
                "reboot: ",
            ),
        ),
    ),
    # drivers/tty/sysrq.c __handle_sysrq prints the key's action_msg: sysrq_handle_reboot's
    # "Resetting" (emergency_restart: no sync, no unmount), sysrq_handle_poweroff's "Power
    # Off" (kernel_power_off without userspace); "sysrq: SysRq : %s" 4.4-5.8, "sysrq: %s"
    # 5.9+. The box went down at once: who pressed the key (an operator, a watchdog
    # script writing /proc/sysrq-trigger) decided how the boot ended
    sig(
        "sysrq_reset",
        r"^(?:sysrq|SysRq)\s*: (?:SysRq : )?(?:Resetting|Power Off)$",
        ("sysrq", "SysRq"),
        S.CRITICAL,
        "kernel",
        "Someone reset or powered off the box at once through SysRq (SysRq-b/-o or "
        "/proc/sysrq-trigger): no clean shutdown, nothing synced.",
        "Deliberate: find who sent it (an operator at a stuck box, a watchdog or fencing "
        "script); what failed before it is what they reacted to.",
        96,
        formats=(
            Format("SysRq : %s", "drivers/tty/sysrq.c", "4.4-5.8", "sysrq: ", args=("Resetting",)),
            Format("%s", "drivers/tty/sysrq.c", "5.9-6.18", "sysrq: ", args=("Resetting",)),
            Format("%s", "drivers/tty/sysrq.c", "5.9-6.18", "sysrq: ", args=("Power Off",)),
        ),
    ),
)
