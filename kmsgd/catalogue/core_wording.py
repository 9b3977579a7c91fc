"""Wording the catalogue missed for tags of other modules, from the source sweep of kernel/,
mm/, arch/, lib/ and drivers/watchdog: the machine-check panics (arch/x86/kernel/cpu/mce/
core.c), AMD's deferred error, powerpc's unrecovered machine check, therm_throt.c's 5.5+
throttling notice, the lock, per-CPU and slab debugging BUGs, the watchdog pretimeout, x86's
double fault, 4.9-4.14's allocation stalls and debugobjects' warning. Registered after the
modules whose tags these are, so that each tag's first entry stays its own.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

S = Severity
_MCE_FILE = "arch/x86/kernel/cpu/mce/core.c"

CORE_WORDING_SIGNATURES: tuple[Signature, ...] = (
    # arch/x86/kernel/cpu/mce/core.c: mce_timed_out's panics when the CPUs do not meet in
    # the machine-check handler ("Timeout: Not all CPUs entered broadcast exception
    # handler", "Timeout: Monarch CPU unable to finish machine check processing", "Timeout:
    # Subject CPUs unable to finish machine check processing"), mce_reign's "Machine check
    # from unknown source", do_machine_check's "Fatal local machine check" and "Failed
    # kernel mode recovery": the panic of a machine check whose record a cut may have lost
    sig(
        "mce",
        r"Kernel panic - not syncing: (?:Timeout: (?:Not all CPUs entered broadcast exception "
        r"handler|(?:Monarch|Subject) CPUs? unable to finish machine check processing)"
        r"|Machine check from unknown source|Fatal local machine check"
        r"|Failed kernel mode recovery)",
        ("broadcast", "Machine", "machine", "recovery"),
        S.CRITICAL,
        "hardware",
        "The CPU reported a fatal machine-check (hardware) error and the kernel panicked.",
        "Decode with rasdaemon/mcelog or the BMC's SEL: bank and address name the CPU, cache "
        "or DIMM.",
        10,
        formats=(
            Format(
                "Timeout: Not all CPUs entered broadcast exception handler",
                _MCE_FILE,
                "4.4-6.18",
                "Kernel panic - not syncing: ",
            ),
            Format(
                "Timeout: Monarch CPU unable to finish machine check processing",
                _MCE_FILE,
                "4.4-6.18",
                "Kernel panic - not syncing: ",
            ),
            Format(
                "Machine check from unknown source",
                _MCE_FILE,
                "4.4-6.18",
                "Kernel panic - not syncing: ",
            ),
            Format(
                "Fatal local machine check", _MCE_FILE, "4.4-6.18", "Kernel panic - not syncing: "
            ),
        ),
    ),
    # drivers/edac/mce_amd.c decode_error_status (4.16+): pr_emerg(HW_ERR "%s") with
    # "Deferred error, no action required." (an uncorrected error not yet consumed: the
    # data is poisoned where it lies); arch/powerpc/kernel/mce.c
    # machine_check_print_event_info: "%s%s Machine check interrupt [%s]" (4.4-5.3),
    # "%sMCE: CPU%d: machine check (%s) %s %s %s %s[%s]" (5.4+), severity "Severe" or
    # "Fatal" and disposition "Not recovered" for the errors that stop the machine
    sig(
        "mce",
        r"\[Hardware Error\]: Deferred error, "
        r"|^(?:Severe|Fatal) Machine check interrupt \[Not recovered\]"
        r"|^MCE: CPU\d+: machine check \((?:Severe|Fatal)\) .*\[Not recovered\]$",
        ("Deferred", "Machine", "machine"),
        S.CRITICAL,
        "hardware",
        "The CPU reported an uncorrected machine-check (hardware) error.",
        "Decode with rasdaemon/mcelog or the firmware's log: bank and address name the CPU, "
        "cache or DIMM.",
        10,
        formats=(
            Format(
                "%s",
                "drivers/edac/mce_amd.c",
                "4.16-6.18",
                "[Hardware Error]: ",
                args=("Deferred error, no action required.",),
            ),
            Format(
                "%s%s Machine check interrupt [%s]",
                "arch/powerpc/kernel/mce.c",
                "4.4-5.3",
                args=("", "Severe", "Not recovered"),
            ),
            Format(
                "%sMCE: CPU%d: machine check (%s) %s %s %s %s[%s]",
                "arch/powerpc/kernel/mce.c",
                "5.4-6.18",
                args=(
                    "",
                    5,
                    "Severe",
                    "Host",
                    "UE",
                    "Load/Store",
                    "DAR: 0000000012345678 ",
                    "Not recovered",
                ),
            ),
        ),
    ),
    # arch/x86/kernel/cpu/mce/therm_throt.c throttle_active_work (5.5+): pr_warn "CPU%d:
    # %s temperature is above threshold, cpu clock is throttled (total events = %lu)" when
    # the temperature keeps rising while throttled; "%s temperature/speed normal" after
    sig(
        "thermal_throttle",
        r"\bCPU\d+: (?:Core|Package) temperature is above threshold, cpu clock is throttled\b",
        ("throttled",),
        S.WARNING,
        "thermal",
        "A CPU got hot enough to be slowed down.",
        "Routine under load in warm rooms; check fans and airflow if frequent.",
        13,
        device_kind=DeviceKind.CPU,
        routine=True,
        formats=(
            Format(
                "CPU%d: %s temperature is above threshold, cpu clock is throttled (total "
                "events = %lu)",
                "arch/x86/kernel/cpu/mce/therm_throt.c",
                "5.5-6.18",
                "mce: ",
                args=(3, "Package", 12),
            ),
        ),
    ),
    # kernel/locking/spinlock_debug.c rwlock_bug: "BUG: rwlock %s on CPU#%d, %s/%d, %p"
    # ("bad magic", "recursion", "wrong owner", "wrong CPU"); lib/smp_processor_id.c
    # check_preemption_disabled: "BUG: using %s%s() in preemptible [%08x] code: %s/%d" for
    # the __this_cpu_ accessors; kernel/fork.c check_mm: "BUG: non-zero pgtables_bytes on
    # freeing mm: %ld" (4.19+, "nr_ptes"/"nr_pmds" before); mm/slab.c check_poison_obj:
    # "Slab corruption (%s): %s start=%px, len=%d" (4.4-6.7, SLAB's poison check)
    sig(
        "kernel_bug",
        r"^BUG: (?:rwlock (?:bad magic|recursion|wrong owner|wrong CPU) on CPU#\d+"
        r"|using __this_cpu_\w+\(\) in preemptible \[|non-zero (?:pgtables_bytes|nr_ptes"
        r"|nr_pmds) on freeing mm: -?\d+)"
        r"|^Slab corruption \((?:Not tainted|Tainted: [^)]*)\): \S+ start=",
        ("BUG", "corruption"),
        S.CRITICAL,
        "kernel",
        "The kernel hit an internal consistency check (BUG).",
        "A kernel or driver bug: report with the backtrace; check for a newer kernel.",
        79,
        formats=(
            Format(
                "BUG: rwlock %s on CPU#%d, %s/%d, %p",
                "kernel/locking/spinlock_debug.c",
                "4.4-6.18",
                args=("wrong owner", 1, "bash", 100),
            ),
            Format(
                "BUG: using %s%s() in preemptible [%08x] code: %s/%d",
                "lib/smp_processor_id.c",
                "4.4-6.18",
                args=("__this_cpu_", "read"),
            ),
            Format(
                "BUG: non-zero pgtables_bytes on freeing mm: %ld",
                "kernel/fork.c",
                "4.19-6.18",
                args=(-4096,),
            ),
            Format(
                "Slab corruption (%s): %s start=%px, len=%d",
                "mm/slab.c",
                "4.15-6.7",
                args=("Not tainted", "kmalloc-64"),
            ),
        ),
    ),
    # drivers/watchdog/pretimeout_noop.c, pretimeout_dump.c (and watchdog.h's inline without
    # a governor): pr_alert "watchdog%d: pretimeout event" (4.12-6.18), pretimeout_panic.c:
    # panic("watchdog pretimeout event"): the hardware watchdog is about to reset the box
    # (nothing pinged it), its pretimeout the last word before the reset
    sig(
        "watchdog_expired",
        r"^(?:watchdog: )?watchdog\d+: pretimeout event$"
        r"|Kernel panic - not syncing: watchdog pretimeout event",
        ("pretimeout",),
        S.CRITICAL,
        "watchdog",
        "A hardware watchdog reached its pretimeout: nothing pinged /dev/watchdog in time, "
        "and the watchdog resets the machine (or the kernel panics) right after.",
        "Find why the pinger (systemd, a watchdog daemon) stopped: the lockups, hung tasks or "
        "OOM kills before this line.",
        90,
        formats=(
            Format(
                "watchdog%d: pretimeout event",
                "drivers/watchdog/pretimeout_noop.c",
                "4.12-6.18",
                args=(0,),
            ),
            Format(
                "watchdog pretimeout event",
                "drivers/watchdog/pretimeout_panic.c",
                "4.12-6.18",
                "Kernel panic - not syncing: ",
            ),
        ),
    ),
    # arch/x86/kernel/traps.c do_double_fault / exc_double_fault: pr_emerg "PANIC: double
    # fault, error_code: 0x%lx" (pr_fmt "traps: "), before die("double fault")'s oops and
    # panic("Machine halted."): the handler never returns (it runs on the #DF IST stack in
    # NMI context, ist_enter / irqentry_nmi_enter, so die()'s oops_end panics "Fatal
    # exception in interrupt"). The line is the panic's first word, not an oops a box
    # survives: kernel_panic
    sig(
        "kernel_panic",
        r"^(?:traps: )?PANIC: double fault, error_code: 0x[0-9a-f]+",
        ("PANIC",),
        S.CRITICAL,
        "kernel",
        "The kernel took a double fault (a fault while handling a fault, often a kernel "
        "stack overflow) and panicked: x86 never returns from one.",
        "A kernel or driver bug: report with the backtrace; check for a newer kernel.",
        80,
        formats=(
            Format(
                "PANIC: double fault, error_code: 0x%lx",
                "arch/x86/kernel/traps.c",
                "4.4-6.18",
                "traps: ",
                args=(0,),
            ),
        ),
    ),
    # mm/page_alloc.c __alloc_pages_slowpath (4.9-4.14): warn_alloc(gfp, nodemask, "page
    # allocation stalls for %ums, order:%u"), printed every 10 s while an allocation keeps
    # reclaiming: memory so short that tasks wait on it (dropped in 4.15)
    sig(
        "page_allocation_failure",
        r"\bpage allocation stalls for \d+ms, order:\d+",
        ("stalls",),
        S.WARNING,
        "memory",
        "A kernel memory allocation has been waiting for reclaim for seconds (memory "
        "exhausted or thrashing).",
        "Many of them before a hang mean memory exhaustion: find what filled the memory.",
        61,
        routine=True,
        formats=(
            Format(
                "%s: %pV, mode:%#x(%pGg), nodemask=%*pbl",
                "mm/page_alloc.c",
                "4.9-4.14",
                args=(
                    "python3",
                    ("page allocation stalls for %ums, order:%u", (10020, 0)),
                    0x14200CA,
                    "GFP_HIGHUSER_MOVABLE",
                ),
            ),
        ),
    ),
    # lib/debugobjects.c debug_print_object: WARN(1, "ODEBUG: %s %s (active state %u) object
    # type: %s hint: %pS") (4.4-6.18; "object: %p object type" from 6.2): the warning's own
    # message, before its "WARNING: CPU:" line: an object freed or reinitialised while
    # active (a timer, a work item)
    sig(
        "kernel_warning",
        r"^ODEBUG: (?:init|activate|destroy|free|deactivate|assert_init|fixup) \w+ \(active "
        r"state \d+\) ",
        ("ODEBUG",),
        S.WARNING,
        "kernel",
        "The kernel warned that an object (a timer, a work item) was freed or reused while "
        "still active.",
        "A kernel or driver bug: report with the backtrace; check for a newer kernel.",
        82,
        formats=(
            Format(
                "ODEBUG: %s %s (active state %u) object type: %s hint: %pS",
                "lib/debugobjects.c",
                "4.4-6.1",
                args=("free", "active", 0, "timer_list"),
            ),
            Format(
                "ODEBUG: %s %s (active state %u) object: %p object type: %s hint: %pS",
                "lib/debugobjects.c",
                "6.2-6.18",
                args=("free", "active", 0),
            ),
        ),
    ),
)
