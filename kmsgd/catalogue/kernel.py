"""CPU, kernel and memory signatures: lockups, stalls, oopses, panics, OOM kills.

Each regex quotes the kernel's own format string (file named in the comment) so the entry
documents the evidence it keys on.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Severity, Signature, Trigger, sig

S = Severity
_CPU, _PCI, _DISK, _FS = DeviceKind.CPU, DeviceKind.PCI, DeviceKind.DISK, DeviceKind.FS


CPU_SIGNATURES: tuple[Signature, ...] = (
    # drivers/tty/sysrq.c sysrq_handle_crash → panic("sysrq triggered crash")
    sig(
        "sysrq_crash",
        r"sysrq: Trigger a crash|sysrq triggered crash",
        ("sysrq",),
        S.CRITICAL,
        "kernel",
        "Someone asked the kernel to crash (SysRq-c or /proc/sysrq-trigger).",
        "Deliberate: find who triggered it (a test, a watchdog script, an operator).",
        8,
    ),
    # kernel/watchdog_perf.c / watchdog_buddy.c: "Watchdog detected hard LOCKUP on cpu %d"
    sig(
        "hard_lockup",
        r"Watchdog detected hard LOCKUP on cpu (?P<cpu>\d+)|Hard LOCKUP",
        ("LOCKUP",),
        S.CRITICAL,
        "cpu",
        "A CPU stopped taking interrupts for ~10 s (hard lockup).",
        "Look at the backtrace that follows (driver in the top frames); firmware/BIOS and "
        "hardware are suspects when no driver shows.",
        70,
        device_kind=_CPU,
        trigger=Trigger("cpu_lockup"),
    ),
    # kernel/watchdog.c: "BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]"
    sig(
        "soft_lockup",
        r"BUG: soft lockup - CPU#(?P<cpu>\d+) stuck for",
        ("lockup",),
        S.CRITICAL,
        "cpu",
        "A CPU ran kernel code without scheduling for > 20 s (soft lockup).",
        "The task and backtrace that follow name the code that spun; usually a driver bug.",
        72,
        device_kind=_CPU,
        trigger=Trigger("cpu_lockup"),
    ),
    # kernel/rcu/tree_stall.h: "INFO: %s detected stalls on CPUs/tasks:", "self-detected stall"
    sig(
        "rcu_stall",
        r"rcu: INFO: \S+ (?:detected stalls? on CPUs|self-detected stall on CPU)"
        r"|rcu_\w+ detected stalls on CPUs",
        ("stall", "stalls"),
        S.ERROR,
        "cpu",
        "RCU grace periods stopped advancing: some CPU or task is stuck in the kernel.",
        "Read the stack dumps that follow; a stall next to GPU or storage errors is their effect.",
        74,
        device_kind=_CPU,
        trigger=Trigger("cpu_lockup"),
    ),
    # kernel/hung_task.c: "INFO: task %s:%d blocked for more than %ld seconds."
    sig(
        "hung_task",
        r"INFO: task \S+ blocked for more than \d+ seconds",
        ("blocked",),
        S.ERROR,
        "kernel",
        "A task waited > 120 s in uninterruptible sleep (D state), usually on I/O or a lock.",
        "The blocked task's stack names the wait: storage, NFS, a GPU ioctl; fix that.",
        76,
        trigger=Trigger("hung_task"),
    ),
    sig(
        "general_protection_fault",
        r"^general protection fault|\bgeneral protection fault, (?:probably for|maybe for)"
        r"|^Oops: general protection fault",
        ("protection",),
        S.CRITICAL,
        "kernel",
        "The kernel used an invalid address (general protection fault).",
        "A kernel/driver bug or bad memory: read the RIP/module in the lines that follow; "
        "run memtest if it moves around.",
        78,
        check=lambda m, i: not i.text.startswith("traps:"),
    ),
    # lib/bug.c "kernel BUG at %s:%u!"; mm/, kernel/sched "BUG: scheduling while atomic"...
    sig(
        "kernel_bug",
        r"kernel BUG at \S+|BUG: (?!soft lockup|kernel NULL pointer)"
        r"(?:unable to handle|scheduling while atomic|Bad page|KASAN|sleeping function|"
        r"Bad rss|workqueue lockup|using smp_processor_id|spinlock|\w+ leak)",
        ("BUG",),
        S.CRITICAL,
        "kernel",
        "The kernel hit an internal consistency check (BUG).",
        "A kernel or driver bug: report with the backtrace; check for a newer kernel.",
        79,
    ),
    # arch/x86/kernel/dumpstack.c __die_header: "Oops: %04lx [#%d]..."; mm/fault: NULL deref
    sig(
        "oops",
        r"^Oops: (?:[0-9a-f]{4} )?\[#\d+\]|^Oops: |BUG: kernel NULL pointer dereference",
        ("Oops", "NULL"),
        S.CRITICAL,
        "kernel",
        "The kernel faulted (Oops); the task was killed and the kernel may be unstable.",
        "Report the Oops with its 'Modules linked in' and RIP lines; with panic_on_oops it "
        "also explains the panic.",
        80,
    ),
    # kernel/panic.c __warn: "WARNING: CPU: %d PID: %d at %pS"
    sig(
        "kernel_warning",
        r"^WARNING: CPU: (?P<cpu>\d+) PID: \d+ at (?P<where>\S+)",
        ("WARNING",),
        S.WARNING,
        "kernel",
        "A kernel WARN_ON fired: unexpected state, execution continued.",
        "Often harmless once; repeated warnings from one driver before a failure matter.",
        82,
        device_kind=_CPU,
    ),
    sig(
        "kernel_panic",
        r"Kernel panic - not syncing",
        ("panic",),
        S.CRITICAL,
        "kernel",
        "The kernel panicked: it stopped and the machine hung or rebooted.",
        "The panic reason and the lines before it name the cause; keep the pstore/kdump.",
        95,
    ),
    # kernel/workqueue.c: any other work item that hogs a CPU
    sig(
        "workqueue_hog",
        r"workqueue: \S+(?! \[amdgpu\]) hogged CPU for",
        ("hogged",),
        S.WARNING,
        "kernel",
        "A work item ran long on a CPU (a performance hint).",
        "Usually noise; compare with healthy boots.",
        86,
        routine=True,
        check=lambda m, i: "[amdgpu]" not in i.text,
    ),
)

MEMORY_SIGNATURES: tuple[Signature, ...] = (
    # mm/page_alloc.c warn_alloc: "%s: page allocation failure: order:%u, mode:%#x(%pGg)"
    sig(
        "page_allocation_failure",
        r"page allocation failure: order:\d+",
        ("allocation",),
        S.WARNING,
        "memory",
        "A kernel memory allocation failed (fragmented or exhausted memory).",
        "High orders under load are often harmless; many of them before a hang mean memory "
        "exhaustion.",
        61,
        routine=True,
    ),
    # mm/oom_kill.c: "Out of memory: Killed process %d (%s)", memcg: "Memory cgroup out of memory"
    sig(
        "oom_kill",
        r"(?:Memory cgroup )?[Oo]ut of memory: Killed process \d+ \((?P<comm>[^)]*)\)",
        ("Killed",),
        S.ERROR,
        "memory",
        "The kernel OOM killer killed a process to free memory.",
        "Find who held memory (GPU-pinned memory is invisible in RSS on unified-memory "
        "machines); limit services (MemoryMax=) or model sizes.",
        60,
        trigger=Trigger("oom"),
    ),
    sig(
        "oomd_kill",
        r"Killed (?P<cg>\S+) due to memory (?:pressure|used)",
        ("Killed",),
        S.ERROR,
        "memory",
        "systemd-oomd killed a cgroup under memory pressure.",
        "The named unit used too much memory for too long; limit it or raise the oomd thresholds.",
        64,
        idents=("systemd-oomd",),
    ),
)
