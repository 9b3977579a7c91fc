"""CPU, kernel and memory signatures: lockups, stalls, oopses, panics, OOM kills.

Each regex quotes the kernel's own format string (file named in the comment) so the entry
documents the evidence it keys on.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, Trigger, sig

S = Severity
_CPU, _PCI, _DISK, _FS = DeviceKind.CPU, DeviceKind.PCI, DeviceKind.DISK, DeviceKind.FS
_WD = "watchdog: "  # kernel/watchdog.c pr_fmt (4.13+; "NMI watchdog: " before)
_RCU = "rcu: "  # kernel/rcu/tree.c pr_fmt (4.19+)
# arch/x86/kernel/dumpstack.c __die_header: "<what>: <error code> [#<count>]" and the build
# (" PREEMPT", " SMP", " KASAN", " PTI"/" NOPTI")


def _die(what: str, code: int = 0) -> tuple[object, ...]:
    return (what, code, 1, " PREEMPT", " SMP", " NOPTI", "", "")


CPU_SIGNATURES: tuple[Signature, ...] = (
    # drivers/tty/sysrq.c __handle_sysrq prints the key's action: "SysRq : Trigger a crash"
    # (2.6–3.x, no prefix), "sysrq: SysRq : Trigger a crash" (4.x–5.8, pr_fmt "sysrq: "),
    # "sysrq: Trigger a crash" (5.9+); sysrq_handle_crash then panics with "sysrq triggered
    # crash" (4.x+; 2.6–3.x oopsed on a NULL write instead)
    sig(
        "sysrq_crash",
        r"(?:sysrq|SysRq)\s*: (?:SysRq : )?Trigger a crash|sysrq triggered crash",
        ("sysrq", "SysRq"),
        S.CRITICAL,
        "kernel",
        "Someone asked the kernel to crash (SysRq-c or /proc/sysrq-trigger).",
        "Deliberate: find who triggered it (a test, a watchdog script, an operator).",
        8,
        formats=(
            # __handle_sysrq: "SysRq : " then pr_cont of the key's action_msg (4.x), one
            # pr_info("%s\n", action_msg) since; sysrq.c's pr_fmt is "sysrq: "
            Format(
                "SysRq : %s",
                "drivers/tty/sysrq.c",
                "4.4-4.19",
                "sysrq: ",
                args=("Trigger a crash",),
            ),
            Format("%s", "drivers/tty/sysrq.c", "5.4-6.18", "sysrq: ", args=("Trigger a crash",)),
            Format(
                "sysrq triggered crash",
                "drivers/tty/sysrq.c",
                "5.4-6.18",
                "Kernel panic - not syncing: ",
            ),
        ),
    ),
    # kernel/watchdog_perf.c / watchdog_buddy.c (6.x), kernel/watchdog_hld.c (4.13–6.6),
    # kernel/watchdog.c (3.x–4.12): "Watchdog detected hard LOCKUP on cpu %d", with the
    # pr_fmt "NMI watchdog: " (4.x) or "watchdog: " (5.x+) before it; 2.6's
    # arch/x86/kernel/apic/nmi.c: "NMI Watchdog detected LOCKUP on CPU %d"; powerpc's own
    # watchdog (arch/powerpc/kernel/watchdog.c, 4.13+): "CPU %d self-detected hard LOCKUP @
    # %pS", "CPU %d detected hard LOCKUP on other CPUs %*pbl"; the panic: "Kernel panic - not
    # syncing: Hard LOCKUP" (hardlockup_panic=1); 2.6.32's die_nmi (arch/x86/kernel/dumpstack.c)
    # prints its message, then " on CPU%d, ip %08lx, registers:": "BUG: NMI Watchdog
    # detected LOCKUP on CPU3, ip …"
    sig(
        "hard_lockup",
        r"Watchdog detected hard LOCKUP on cpu (?P<cpu>\d+)|Hard LOCKUP"
        r"|NMI Watchdog detected LOCKUP on CPU ?(?P<cpu2>\d+)"
        r"|CPU (?P<cpu3>\d+) (?:self-detected hard LOCKUP|detected hard LOCKUP on other CPUs)",
        ("LOCKUP",),
        S.CRITICAL,
        "cpu",
        "A CPU stopped taking interrupts for ~10 s (hard lockup).",
        "Look at the backtrace that follows (driver in the top frames); firmware/BIOS and "
        "hardware are suspects when no driver shows.",
        70,
        device_kind=_CPU,
        trigger=Trigger("cpu_lockup"),
        formats=(
            Format(
                "%s on CPU%d, ip %08lx, registers:",
                "arch/x86/kernel/dumpstack.c",
                "2.6.32",
                args=("BUG: NMI Watchdog detected LOCKUP", 3, 0xFFFFFFFF8100B2A4),
            ),
            Format(
                "Watchdog detected hard LOCKUP on cpu %d", "kernel/watchdog_hld.c", "4.19-6.1", _WD
            ),
            Format(
                "Watchdog detected hard LOCKUP on cpu %d", "kernel/watchdog.c", "4.4, 6.8-6.12", _WD
            ),
            Format(
                "CPU%u: Watchdog detected hard LOCKUP on cpu %u", "kernel/watchdog.c", "6.18", _WD
            ),
            Format(
                "Hard LOCKUP", "kernel/watchdog.c", "4.4, 6.8-6.18", "Kernel panic - not syncing: "
            ),
            Format(
                "CPU %d self-detected hard LOCKUP @ %pS",
                "arch/powerpc/kernel/watchdog.c",
                "4.19-6.18",
                "watchdog: ",
                args=(5, "snooze_loop+0x9c/0x1d0"),
            ),
            Format(
                "CPU %d detected hard LOCKUP on other CPUs %*pbl",
                "arch/powerpc/kernel/watchdog.c",
                "4.19-6.18",
                "watchdog: ",
                args=(0, 8, "5"),
            ),
        ),
    ),
    # kernel/watchdog.c watchdog_timer_fn: "BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]"
    # (2.6.3x–today; "watchdog: " pr_fmt before it since 4.13, "NMI watchdog: " 4.x); the
    # panic "Kernel panic - not syncing: softlockup: hung tasks" (softlockup_panic=1);
    # 2.6.18-2.6.2x kernel/softlockup.c (RHEL 5): "BUG: soft lockup detected on CPU#%d!"
    sig(
        "soft_lockup",
        r"BUG: soft lockup - CPU#?\s?(?P<cpu>\d+) stuck for|softlockup: hung tasks"
        r"|BUG: soft lockup detected on CPU#(?P<cpu2>\d+)!",
        ("lockup", "softlockup"),
        S.CRITICAL,
        "cpu",
        "A CPU ran kernel code without scheduling for > 20 s (soft lockup).",
        "The task and backtrace that follow name the code that spun; usually a driver bug.",
        72,
        device_kind=_CPU,
        trigger=Trigger("cpu_lockup"),
        formats=(
            Format(
                "BUG: soft lockup detected on CPU#%d!",
                "kernel/softlockup.c",
                "2.6.18 (RHEL 5; not checked tree by tree)",
                args=(3,),
            ),
            Format(
                "BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]",
                "kernel/watchdog.c",
                "4.4-6.18",
                _WD,
                args=(7, 26, "python3", 4242),
            ),
            Format(
                "softlockup: hung tasks",
                "kernel/watchdog.c",
                "4.4-6.18",
                "Kernel panic - not syncing: ",
            ),
        ),
    ),
    # RCU stall warnings by era: kernel/rcutree.c (2.6.3x–3.x) "INFO: rcu_sched_state
    # detected stall on CPU %d (t=%lu jiffies)" and "INFO: %s detected stalls on CPUs/tasks:";
    # kernel/rcu/tree_plugin.h (3.x–4.x) "INFO: %s self-detected stall on CPU"; kernel/rcu/
    # tree_stall.h (5.x+) the same with pr_fmt "rcu: " ("rcu: INFO: rcu_preempt detected
    # stalls on CPUs/tasks:"); tree_exp.h: "INFO: %s detected expedited stalls on CPUs/tasks"
    # (6.9+ also "…, but suppressed full report due to a stuck CSD-lock."); tasks.h (5.8+):
    # "INFO: rcu_tasks detected stalls on tasks:", the same for rcu_tasks_trace;
    # "rcu_sched kthread starved for %ld jiffies" (4.x+); tasks.h's
    # exit check (6.4+, backported to 6.1): "tasks_rcu_exit_srcu_stall: rcu_tasks grace period
    # number %lu (since boot) gp_state: %s is %lu jiffies old." for a task stuck between
    # exit_tasks_rcu_start() and _finish(); 2.6 rcutree's "RCU detected CPU %d stall" (and, seen
    # from another CPU, "INFO: RCU detected CPU stalls:" with the CPUs after it); Tiny
    # RCU's "rcu_sched detected stall"
    sig(
        "rcu_stall",
        r"INFO: \S+ (?:detected (?:expedited )?stalls? on CPU|self-detected stall on CPU"
        r"|detected stalls on tasks|detected expedited stalls, but)"
        r"|rcu_\w+ (?:detected (?:expedited )?stalls? on CPU|self-detected stall)"
        r"|\brcu_\w+ kthread starved for \d+ jiffies|RCU detected CPU \d+ stall"
        r"|INFO: RCU detected CPU stalls:"
        r"|\brcu_tasks\w* grace period number \d+ \(since boot\) gp_state: \S+ is \d+ jiffies",
        ("stall", "stalls", "starved", "gp_state"),
        S.ERROR,
        "cpu",
        "RCU grace periods stopped advancing: some CPU or task is stuck in the kernel.",
        "Read the stack dumps that follow; a stall next to GPU or storage errors is their effect.",
        74,
        device_kind=_CPU,
        trigger=Trigger("cpu_lockup"),
        formats=(
            Format(
                "INFO: RCU detected CPU stalls:",
                "kernel/rcutree.c",
                "2.6.32",
            ),
            Format(
                "INFO: %s detected stalls on CPUs/tasks:",
                "kernel/rcu/tree_stall.h",
                "5.4-6.18",
                _RCU,
                args=("rcu_preempt",),
            ),
            Format(
                "INFO: %s self-detected stall on CPU",
                "kernel/rcu/tree_stall.h",
                "5.4-6.18",
                _RCU,
                args=("rcu_sched",),
            ),
            Format(
                "INFO: %s detected stalls on CPUs/tasks:",
                "kernel/rcu/tree.c",
                "4.4-4.19",
                "",
                args=("rcu_sched",),
            ),
            Format(
                "INFO: %s detected expedited stalls on CPUs/tasks: {",
                "kernel/rcu/tree_exp.h",
                "4.19-6.18",
                _RCU,
                args=("rcu_preempt",),
            ),
            Format(
                "INFO: %s detected expedited stalls, but suppressed full report due to a stuck "
                "CSD-lock.",
                "kernel/rcu/tree_exp.h",
                "6.12-6.18",
                _RCU,
                args=("rcu_preempt",),
            ),
            Format(
                "INFO: rcu_tasks detected stalls on tasks:", "kernel/rcu/tasks.h", "5.15-6.18", _RCU
            ),
            # tasks.h rcu_tasks_wait_gp: "INFO: %s detected stalls on tasks:" with the flavour's
            # name (rcu_tasks, rcu_tasks_rude, rcu_tasks_trace)
            Format(
                "INFO: %s detected stalls on tasks:",
                "kernel/rcu/tasks.h",
                "5.15-6.18",
                _RCU,
                args=("rcu_tasks_trace",),
            ),
            Format(
                "%s: %s grace period number %lu (since boot) gp_state: %s is %lu jiffies old.",
                "kernel/rcu/tasks.h",
                "6.4-6.12 (its 2023 patch; the 6.1 stable backport prints the same)",
                "",
                args=("tasks_rcu_exit_srcu_stall", "rcu_tasks", 37, "RTGS_POST_SCAN_TASKLIST"),
            ),
            Format(
                "%s kthread starved for %ld jiffies! g%ld f%#x %s(%d) ->state=%#x ->cpu=%d",
                "kernel/rcu/tree_stall.h",
                "5.4-6.18",
                _RCU,
                args=("rcu_sched", 10502, 8861, 0, "RCU_GP_WAIT_FQS", 5, 0x402, 3),
            ),
        ),
    ),
    # kernel/hung_task.c check_hung_task: "INFO: task %s:%d blocked for more than %ld
    # seconds." (2.6.3x–today; the comm may hold spaces, "task CPU 7/KVM:123"); the panic
    # "Kernel panic - not syncing: hung_task: blocked tasks" (hung_task_panic=1)
    sig(
        "hung_task",
        r"INFO: task .{1,40}?:\d+ blocked for more than \d+ seconds|hung_task: blocked tasks",
        ("blocked", "hung_task"),
        S.ERROR,
        "kernel",
        "A task waited > 120 s in uninterruptible sleep (D state), usually on I/O or a lock.",
        "The blocked task's stack names the wait: storage, NFS, a GPU ioctl; fix that.",
        76,
        trigger=Trigger("hung_task"),
        formats=(
            Format(
                "INFO: task %s:%d blocked for more than %ld seconds.",
                "kernel/hung_task.c",
                "4.4-6.18",
                args=("jbd2/sda1-8", 245, 122),
            ),
            Format(
                "hung_task: blocked tasks",
                "kernel/hung_task.c",
                "4.4-6.18",
                "Kernel panic - not syncing: ",
            ),
        ),
    ),
    # arch/x86/kernel/traps.c do_general_protection → die("general protection fault"):
    # "general protection fault: 0000 [#1] SMP" (2.6–5.4), "general protection fault,
    # probably for non-canonical address 0x…: 0000 [#1]" (5.5+), "Oops: general protection
    # fault, …" (6.10+, die header). A userspace GPF ("traps: %s[%d] general protection
    # fault ip:…") kills a process, not the kernel.
    sig(
        "general_protection_fault",
        r"^general protection fault|\bgeneral protection fault(?:, (?:probably for|maybe for)"
        r"|: [0-9a-f]{4} \[#\d+\])|^Oops: general protection fault",
        ("protection",),
        S.CRITICAL,
        "kernel",
        "The kernel used an invalid address (general protection fault).",
        "A kernel/driver bug or bad memory: read the RIP/module in the lines that follow; "
        "run memtest if it moves around.",
        78,
        check=lambda m, i: not i.text.startswith("traps:"),
        formats=(
            # die(desc) prints the header "<desc>: <code> [#n]"; desc is GPFSTR
            # ("general protection fault"), from 5.5 with ", %s 0x%lx" (the address hint)
            Format(
                "%s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "4.19-6.8",
                args=_die("general protection fault"),
            ),
            Format(
                "%s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "4.19-6.8",
                args=_die(
                    "general protection fault, probably for non-canonical address "
                    "0xdead000000000100"
                ),
            ),
            Format(
                "Oops: %s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "6.12-6.18",
                args=_die(
                    "general protection fault, probably for non-canonical address "
                    "0xdead000000000100"
                ),
            ),
        ),
    ),
    # lib/bug.c report_bug: "kernel BUG at %s:%u!" (2.6–today; arm/arm64/ppc the same
    # via BUG()); KASAN's "BUG: KASAN: …" (the other self-checks, "BUG: scheduling while
    # atomic", "BUG: sleeping function called…", "BUG: Bad page state", have their own
    # tags, at the end of this module). A page fault in the kernel ("BUG: unable to handle kernel
    # paging request", "BUG: unable to handle page fault", "BUG: kernel NULL pointer
    # dereference") is an oops, below, not a BUG() assertion. x86's die header of a BUG()
    # ("invalid opcode: 0000 [#1]") is in indirect.py. arm and arm64 die() for BUG():
    # "Internal error: Oops - BUG: %x [#%d]" (arch/arm*/kernel/traps.c), riscv's "Kernel BUG
    # [#%d]" (arch/riscv/kernel/traps.c die(regs, "Kernel BUG")); KFENCE's "BUG: KFENCE: %s"
    # (mm/kfence/report.c, 5.12+); x86's "BUG: %s stack guard page was hit at %p" (a kernel
    # stack overflow, arch/x86/kernel/traps.c, 5.x+); lib/list_debug.c's list_add/list_del
    # checks ("list_del corruption, %px->next is LIST_POISON1 (%px)", "list_add corruption.
    # next->prev should be prev …"), CHECK_DATA_CORRUPTION: a kernel list already corrupted;
    # SLUB's debug checks (mm/slub.c slab_bug: "BUG %s (%s): %pV", the cache and the taint,
    # "Poison overwritten", "Redzone overwritten", "Freepointer corrupt", 4.4-6.18): a slab
    # object written after free or past its end; mm/swapfile.c's "%s: Bad swap file entry
    # %08lx" / "Bad swap offset entry" (the function's name first: swap_info_get 4.4,
    # _swap_info_get, get_swap_device 5.x-6.18): a swap PTE pointing nowhere, a corrupted
    # page table.
    sig(
        "kernel_bug",
        r"kernel BUG at \S+|BUG: (?!soft lockup|kernel NULL pointer|unable to handle)"
        r"(?:KASAN|KFENCE|"
        r"Bad rss|workqueue lockup|using smp_processor_id|spinlock(?! lockup)|\w+ leak|"
        r"(?:[\w#]+ )?stack guard page was hit|Dentry \S+\s+still in use|KCSAN: )"
        r"|^Internal error: Oops - BUG: [0-9a-f]+ \[#\d+\]|^Kernel BUG \[#\d+\]"
        r"|\blist_(?:add|del) corruption[.,]"
        r"|^BUG [\w.:-]+ \((?:Not tainted|Tainted: [^)]*)\): "
        r"|^\w+: Bad swap (?:file|offset) entry [0-9a-f]+",
        ("BUG", "corruption", "swap"),
        S.CRITICAL,
        "kernel",
        "The kernel hit an internal consistency check (BUG).",
        "A kernel or driver bug: report with the backtrace; check for a newer kernel.",
        79,
        formats=(
            Format("kernel BUG at %s:%u!", "lib/bug.c", "4.4-6.18", args=("fs/ext4/inode.c", 2718)),
            # handle_stack_overflow: no stack name before 6.2 ("BUG: stack guard page …",
            # 4.9+), then "TASK", "IRQ", "#DF", "NMI" … (cea_exception_stacks names)
            Format(
                "BUG: stack guard page was hit at %p (stack is %p..%p)",
                "arch/x86/kernel/traps.c",
                "4.19-6.1",
            ),
            Format(
                "BUG: %s stack guard page was hit at %p (stack is %p..%p)",
                "arch/x86/kernel/traps.c",
                "6.2-6.18",
                args=("#DF",),
            ),
            # fs/dcache.c umount_check, then BUG(): a dentry still referenced at unmount
            Format(
                "BUG: Dentry %p{i=%lx,n=%pd} still in use (%d) [unmount of %s %s]",
                "fs/dcache.c",
                "4.4-6.18",
                args=(..., 0x12, "foo", 1, "ext4", "sda1"),
            ),
            Format(
                "BUG: KCSAN: %s in %pS / %pS",
                "kernel/kcsan/report.c",
                "5.8-6.18",
                args=("data-race",),
            ),
            Format(
                "BUG: KASAN: %s in %pS",
                "mm/kasan/report.c",
                "4.19-6.18",
                "",
                args=("slab-use-after-free", "amdgpu_vm_bo_update+0x4f/0x980 [amdgpu]"),
            ),
            Format(
                "BUG: KFENCE: %s in %pS",
                "mm/kfence/report.c",
                "5.15-6.18",
                args=("use-after-free read", "nvme_complete_rq+0x2c/0x110"),
            ),
            Format(
                "BUG: %s stack guard page was hit at %p (stack is %p..%p)",
                "arch/x86/kernel/traps.c",
                "5.15-6.18",
                args=("TASK",),
            ),
            Format(
                "%s: %s: %x [#%d] PREEMPT SMP ARM",
                "arch/arm/kernel/traps.c",
                "4.4-6.18",
                args=("Internal error", "Oops - BUG", 0, 1),
            ),
            Format(
                "Internal error: %s: %016lx [#%d] SMP",
                "arch/arm64/kernel/traps.c",
                "6.18",
                args=("Oops - BUG", 0xF2000800, 1),
            ),
            Format("%s [#%d]", "arch/riscv/kernel/traps.c", "5.4-6.18", args=("Kernel BUG", 1)),
            Format(
                "list_del corruption, %px->next is LIST_POISON1 (%px)",
                "lib/list_debug.c",
                "4.19-6.18",
                args=("ffff8881003c4000", "dead000000000100"),
            ),
            Format(
                "list_add corruption. next->prev should be prev (%px), but was %px. (next=%px).",
                "lib/list_debug.c",
                "4.19-6.18",
            ),
            Format(
                "BUG %s (%s): %pV",
                "mm/slub.c",
                "4.4-6.18",
                args=("kmalloc-128", "Tainted: G    B      ", ("Poison overwritten", ())),
            ),
            Format(
                "BUG %s (%s): %pV",
                "mm/slub.c",
                "4.4-6.18",
                args=("dentry", "Not tainted", ("Redzone overwritten", ())),
            ),
            Format(
                "%s: %s%08lx",
                "mm/swapfile.c",
                "5.4-6.18",
                args=("get_swap_device", "Bad swap file entry ", 0x3FFFFFFFFFFFF),
            ),
        ),
    ),
    # A page fault in kernel mode, as each era and architecture words it:
    # arch/x86/mm/fault.c: "BUG: unable to handle kernel NULL pointer dereference at %p" and
    # "BUG: unable to handle kernel paging request at %p" (2.6–4.x), "BUG: kernel NULL
    # pointer dereference, address: %px" and "BUG: unable to handle page fault for address:"
    # (4.20+); arch/x86/kernel/dumpstack.c __die_header "Oops: %04lx [#%d]"; arm/arm64
    # mm/fault.c "Unable to handle kernel NULL pointer dereference at virtual address" /
    # "… paging request at virtual address" and traps.c "Internal error: Oops: %x [#%d]";
    # powerpc "Unable to handle kernel paging request for data at address" (to 5.x), "BUG:
    # Kernel NULL pointer dereference on %s at 0x%08lx", "BUG: Unable to handle kernel data
    # access on %s at 0x%08lx", "BUG: Unable to handle kernel instruction fetch", "BUG: Unable
    # to handle unknown paging fault at" (5.x+, arch/powerpc/mm/fault.c) and "Oops: Kernel
    # access of bad area, sig: 11 [#1]"; arm64's die_kernel_fault "Unable to handle kernel %s
    # at virtual address %016lx" with the other faults' words ("read from unreadable memory",
    # "write to read-only memory", "execute from non-executable memory", "access to user
    # memory outside uaccess routines"); ARM32's data abort calls die("") (arch/arm/mm/fault.c
    # do_DataAbort → arm_notify_die), "Internal error: : 81b [#1] SMP ARM", and arm64's other
    # die() callers name their trap ("Internal error: Oops - Undefined instruction: …",
    # "synchronous external abort: …"); riscv's die() prints "%s [#%d]" ("Oops [#1]", "Oops -
    # illegal instruction [#1]"); x86's other kernel traps die with their name
    # (arch/x86/kernel/traps.c DO_ERROR: "divide error", "stack segment", "double fault", …),
    # as "%s: %04lx [#%d]" and from 6.10 after "Oops: "
    sig(
        "oops",
        r"^Oops: (?:[0-9a-f]{4,8} )?\[#\d+\]|^Oops: |BUG: [Kk]ernel NULL pointer dereference"
        r"|BUG: [Uu]nable to handle (?:kernel |page fault|unknown paging fault)"
        r"|^Internal error: (?!Oops - BUG:)[^:]*: [0-9a-f]+ \[#\d+\]|Internal error: Oops\b"
        r"|Unable to handle kernel (?:NULL pointer dereference|paging request"
        r"|[a-z]+ (?:from|to|of))"
        r"|^Oops(?: - [\w ()/-]+)? \[#\d+\]"
        r"|^(?:Oops: )?(?:divide error|overflow|bounds|coprocessor segment overrun|invalid TSS"
        r"|segment not present|stack segment|alignment check|double fault|int3"
        r"|kernel stack overflow \([\w -]+\)|Bad pagetable|stack guard page): [0-9a-f]{4} "
        r"\[#\d+\]",
        (
            *("Oops", "NULL", "unable", "Unable", "Internal", "divide", "overflow", "bounds"),
            *("TSS", "coprocessor", "segment", "alignment", "double", "int3", "pagetable"),
            "guard",
        ),
        S.CRITICAL,
        "kernel",
        "The kernel faulted (Oops); the task was killed and the kernel may be unstable.",
        "Report the Oops with its 'Modules linked in' and RIP lines; with panic_on_oops it "
        "also explains the panic.",
        80,
        formats=(
            Format(
                "BUG: kernel NULL pointer dereference, address: %px",
                "arch/x86/mm/fault.c",
                "5.4-6.18",
                args=("0000000000000008",),
            ),
            # x86 __die's header "%s: %04lx [#%d]%s%s%s%s%s" of pgtable_bad's die("Bad
            # pagetable") (arch/x86/mm/fault.c) and handle_stack_overflow's die("stack guard
            # page") (arch/x86/kernel/traps.c, 5.x-6.1; "Oops: " before it from 6.10)
            Format(
                "%s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "4.4-6.9",
                args=("Bad pagetable", 0x000D, 1, "", " SMP", " PTI", "", ""),
            ),
            Format(
                "%s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "5.4-6.9",
                args=("stack guard page", 0, 1, " PREEMPT", " SMP", " NOPTI", "", ""),
            ),
            Format(
                "BUG: unable to handle page fault for address: %px",
                "arch/x86/mm/fault.c",
                "5.4-6.18",
            ),
            Format(
                "BUG: unable to handle kernel %s at %px",
                "arch/x86/mm/fault.c",
                "4.19",
                args=("NULL pointer dereference", "0000000000000008"),
            ),
            # 4.4 builds the line from pieces: "BUG: unable to handle kernel " + pr_cont
            Format(
                "BUG: unable to handle kernel NULL pointer dereference",
                "arch/x86/mm/fault.c",
                "4.4",
            ),
            Format(
                "%s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "4.19-6.8",
                args=_die("Oops", 2),
            ),
            Format(
                "Oops: %s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "6.12-6.18",
                args=_die("Oops", 2),
            ),
            Format(
                "Internal error: %s: %016lx [#%d] SMP",
                "arch/arm64/kernel/traps.c",
                "6.18",
                args=("Oops", 0x96000005, 1),
            ),
            Format(
                "Internal error: %s: %x [#%d] PREEMPT SMP",
                "arch/arm64/kernel/traps.c",
                "4.4-5.15",
                args=("Oops", 0x96000005, 1),
            ),
            Format(
                "Internal error: %s: %x [#%d] SMP ARM",
                "arch/arm/kernel/traps.c",
                "4.4-6.18",
                args=("", 0x81B, 1),
            ),
            Format(
                "Internal error: %s: %x [#%d] PREEMPT SMP ARM",
                "arch/arm/kernel/traps.c",
                "4.4-6.18",
                args=("Oops", 0x17, 1),
            ),
            Format(
                "Unable to handle kernel %s at virtual address %016lx",
                "arch/arm64/mm/fault.c",
                "5.4-6.18",
                args=("read from unreadable memory", 0xFFFF800011DEB000),
            ),
            Format(
                "Unable to handle kernel %s at virtual address %016lx",
                "arch/arm64/mm/fault.c",
                "5.4-6.18",
                args=("execute from non-executable memory", 0xFFFF800011DEB000),
            ),
            Format(
                "BUG: %s on %s at 0x%08lx",
                "arch/powerpc/mm/fault.c",
                "5.4-6.18",
                args=("Kernel NULL pointer dereference", "read", 0),
            ),
            Format(
                "BUG: %s on %s at 0x%08lx",
                "arch/powerpc/mm/fault.c",
                "5.4-6.18",
                args=("Unable to handle kernel data access", "write", 0xC0000000DEAD0000),
            ),
            Format(
                "Oops: %s, sig: %ld [#%d]",
                "arch/powerpc/kernel/traps.c",
                "4.4-6.18",
                args=("Kernel access of bad area", 11, 1),
            ),
            Format("%s [#%d]", "arch/riscv/kernel/traps.c", "5.4-6.18", args=("Oops", 1)),
            Format(
                "%s [#%d]",
                "arch/riscv/kernel/traps.c",
                "5.4-6.18",
                args=("Oops - illegal instruction", 1),
            ),
            Format(
                "Unable to handle kernel %s at virtual address %016lx",
                "arch/riscv/mm/fault.c",
                "5.15-6.18",
                args=("paging request", 0x10),
            ),
            Format(
                "%s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "4.19-6.8",
                args=_die("divide error"),
            ),
            Format(
                "Oops: %s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "6.12-6.18",
                args=_die("stack segment"),
            ),
        ),
    ),
    # kernel/panic.c __warn: "WARNING: CPU: %d PID: %d at %pS" (4.x–today; 6.x puts the
    # caller first: "WARNING: drivers/…:123 at func+0x…, CPU#3: comm/123"), "WARNING: at
    # %s:%d %pS()" (2.6–3.x, no CPU); lockdep's "WARNING: possible circular locking …"
    # headers are lockdep_warning's (end of this module); lib/refcount.c
    # refcount_warn_saturate's WARN_ONCE message ("refcount_t: underflow; use-after-free.",
    # printed before the WARN's own header); UBSAN's
    # report header (lib/ubsan.c: "UBSAN: Undefined behaviour in %s:%d:%d" to 5.x, "UBSAN: %s in
    # %s:%d:%d" 5.11+), which panics only with panic_on_warn
    sig(
        "kernel_warning",
        r"^WARNING: CPU: (?P<cpu>\d+) PID: \d+ at (?P<where>\S+)"
        r"|^WARNING: (?:at )?(?P<where2>[\w./-]+:\d+)"
        r"|^refcount_t: (?:saturated|addition on 0|underflow|decrement hit 0)"
        r"|^UBSAN: [\w -]+ in \S+:\d+",
        ("WARNING", "refcount_t", "UBSAN"),
        S.WARNING,
        "kernel",
        "A kernel WARN_ON fired: unexpected state, execution continued.",
        "Often harmless once; repeated warnings from one driver before a failure matter.",
        82,
        device_kind=_CPU,
        formats=(
            Format(
                "WARNING: CPU: %d PID: %d at %s:%d %pS",
                "kernel/panic.c",
                "4.4-6.18",
                args=(
                    3,
                    4242,
                    "drivers/gpu/drm/drm_atomic.c",
                    1234,
                    "drm_atomic_check_only+0x1c/0x80 [drm]",
                ),
            ),
            Format(
                "WARNING: CPU: %d PID: %d at %pS",
                "kernel/panic.c",
                "4.4-6.18",
                args=(3, 4242, "dev_watchdog+0x21f/0x230"),
            ),
            Format(
                "refcount_t: underflow; use-after-free.",
                "lib/refcount.c",
                "5.4-6.18",
            ),
            Format("refcount_t: saturated; leaking memory.", "lib/refcount.c", "5.4-6.18"),
            Format(
                "UBSAN: %s in %s:%d:%d",
                "lib/ubsan.c",
                "5.15-6.18",
                args=("array-index-out-of-bounds", "drivers/gpu/drm/amd/pm/amdgpu_pm.c", 1234, 9),
            ),
            Format(
                "UBSAN: Undefined behaviour in %s:%d:%d",
                "lib/ubsan.c",
                "4.19-5.4",
                args=("net/ipv4/tcp_input.c", 3264, 25),
            ),
        ),
    ),
    # kernel/panic.c panic(): "Kernel panic - not syncing: %s" (2.6.1x-today); the closing
    # "---[ end Kernel panic - not syncing: %s ]---" (4.x+) alone also shows it; 2.4 and the
    # first 2.6 releases printed "Kernel panic: %s", then "In interrupt handler - not syncing".
    # FreeBSD (the kernel under drm-kmod's Linux GPU drivers): sys/amd64/amd64/trap.c and
    # sys/i386/i386/trap.c trap_fatal print "Fatal trap %d: %s while in %s mode" for a trap
    # the kernel cannot take, then enter ddb ("Stopped at") or panic(): the machine stops
    # either way (FreeBSD 10-15); "user mode" traps become signals and are not matched
    sig(
        "kernel_panic",
        r"Kernel panic - not syncing|^Kernel panic: \S|^Fatal trap \d+: .+ while in kernel mode",
        ("panic", "trap"),
        S.CRITICAL,
        "kernel",
        "The kernel panicked: it stopped and the machine hung or rebooted.",
        "The panic reason and the lines before it name the cause; keep the pstore/kdump.",
        95,
        formats=(
            Format(
                "Kernel panic - not syncing: %s",
                "kernel/panic.c",
                "4.4-6.18",
                args=("Fatal exception",),
            ),
            Format(
                "---[ end Kernel panic - not syncing: %s ]---",
                "kernel/panic.c",
                "4.4-6.18",
                args=("Fatal exception",),
            ),
            Format(
                "Kernel panic: %s", "kernel/panic.c", "2.4-early 2.6", args=("CPU context corrupt",)
            ),
            Format(
                "Fatal trap %d: %s while in %s mode",
                "freebsd:sys/amd64/amd64/trap.c",
                "FreeBSD 10-15",
                args=(12, "page fault", "kernel"),
            ),
        ),
    ),
    # kernel/workqueue.c wq_cpu_intensive_report (6.5+): any other work item that hogs a
    # CPU. `%ps` of a module's function carries the module ("ib_cache_event_task [ib_core]").
    # A performance hint (the work item would do better on an unbound queue), never a
    # failure: information (rank 100, as the lifecycle lines), listed but never blamed, so
    # a log that holds nothing else has no culprit
    sig(
        "workqueue_hog",
        r"workqueue: \S+(?: \[(?!amdgpu\])[\w-]+\])? hogged CPU for",
        ("hogged",),
        S.INFO,
        "kernel",
        "A work item ran long on a CPU (a performance hint).",
        "Usually noise; compare with healthy boots.",
        100,
        routine=True,
        check=lambda m, i: "[amdgpu]" not in i.text,
        formats=(
            Format(
                "workqueue: %ps hogged CPU for >%luus %llu times, consider switching to WQ_UNBOUND",
                "kernel/workqueue.c",
                "6.8-6.18",
                args=("drm_fb_helper_damage_work", 10000, 4),
            ),
            Format(
                "workqueue: %ps hogged CPU for >%luus %u times, consider switching to WQ_UNBOUND",
                "kernel/workqueue.c",
                "6.5-6.7",
                args=("ib_cache_event_task [ib_core]", 10000, 4),
            ),
        ),
    ),
)

MEMORY_SIGNATURES: tuple[Signature, ...] = (
    # mm/page_alloc.c warn_alloc: "%s: page allocation failure: order:%u, mode:%#x(%pGg)";
    # the other allocators' failures, one meaning: mm/slub.c slab_out_of_memory "SLUB: Unable
    # to allocate memory on node %d, gfp=%#x(%pGg)" (4.19-6.18; "(gfp=0x%x)" in 4.4), and
    # mm/vmalloc.c's warn_alloc messages "vmalloc error: size %lu, vm_struct allocation
    # failed%s" / "…, failed to allocate pages" / "…, failed to map pages" (5.15-6.18),
    # "vmalloc: allocation failure: %lu bytes" (4.4-5.10)
    sig(
        "page_allocation_failure",
        r"page allocation failure: order:\d+|^__alloc_pages: \d+-order allocation failed"
        r"|^SLUB: Unable to allocate memory (?:for CPU \d+ )?on node -?\d+"
        r"|\bvmalloc(?: error: size \d+,| size \d+ allocation failure:|: allocation failure[:,])",
        ("allocation", "__alloc_pages", "SLUB", "vmalloc"),
        S.WARNING,
        "memory",
        "A kernel memory allocation failed (fragmented or exhausted memory).",
        "High orders under load are often harmless; many of them before a hang mean memory "
        "exhaustion.",
        61,
        routine=True,
        formats=(
            # warn_alloc(gfp, nodemask, "page allocation failure: order:%u", order)
            Format(
                "%s: %pV, mode:%#x(%pGg), nodemask=%*pbl",
                "mm/page_alloc.c",
                "4.19-6.18",
                args=(
                    "kworker/u64:2",
                    ("page allocation failure: order:%u", (4,)),
                    0x40CC0,
                    "GFP_KERNEL|__GFP_COMP",
                ),
            ),
            Format(
                "%s: page allocation failure: order:%u, mode:0x%x",
                "mm/page_alloc.c",
                "4.4",
                args=("python3", 4),
            ),
            Format(
                "SLUB: Unable to allocate memory on node %d, gfp=%#x(%pGg)",
                "mm/slub.c",
                "4.19-6.18",
                args=(-1, 0x8020, "GFP_ATOMIC|__GFP_ZERO"),
            ),
            Format(
                "SLUB: Unable to allocate memory on node %d (gfp=0x%x)",
                "mm/slub.c",
                "4.4",
                args=(-1, 0x8020),
            ),
            Format(
                "%s: %pV, mode:%#x(%pGg), nodemask=%*pbl",
                "mm/vmalloc.c",
                "5.15-6.18",
                args=(
                    "python3",
                    ("vmalloc error: size %lu, vm_struct allocation failed%s", (4096, "")),
                    0xCC0,
                    "GFP_KERNEL",
                ),
            ),
            Format(
                "%s: %pV, mode:%#x(%pGg), nodemask=%*pbl",
                "mm/vmalloc.c",
                "4.19-5.10",
                args=(
                    "insmod",
                    ("vmalloc: allocation failure: %lu bytes", (1073741824,)),
                    0x14000C0,
                    "GFP_KERNEL",
                ),
            ),
            # 2.4's __alloc_pages: "__alloc_pages: %u-order allocation failed (gfp=0x%x/%i)"
            Format(
                "__alloc_pages: %u-order allocation failed (gfp=0x%x/%i)",
                "mm/page_alloc.c",
                "2.4 (the wording of a 2.4 router's log; not checked tree by tree)",
                args=(0, 0x1D2, 0),
            ),
        ),
    ),
    # mm/oom_kill.c by era: "Out of memory: Kill process %d (%s) score %u or sacrifice
    # child" then "Killed process %d (%s) total-vm:…" (2.6.3x–4.x), "Memory cgroup out of
    # memory: Kill process …" (3.x–4.18), "Out of memory: Killed process %d (%s)" and
    # "Memory cgroup out of memory: Killed process" (4.19+); 2.6's "Out of memory: kill
    # process %d (%s)"; 2.4's "Out of Memory: Killed process %d (%s)." and "VM: killing
    # process %s"; "oom_reaper: reaped process" follows a kill (4.6+) and is not one.
    # RHEL 6's 2.6.32 oom_kill_task puts the UID before the comm: "Killed process %d, UID
    # %d, (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB", with no "Out of memory:".
    # With nothing left to kill, out_of_memory panics "Out of memory and no killable
    # processes..." and check_panic_on_oom "Out of memory: %s panic_on_oom is enabled": the
    # memory ran out, the panic is its end. The report's other lines (its header, the
    # memory cgroup's, the stack) are in indirect.py.
    sig(
        "oom_kill",
        r"(?:Memory cgroup )?[Oo]ut of memory(?: \(oom_kill_allocating_task\))?: "
        r"(?:Kill(?:ed)? process|kill process) \d+ \((?P<comm>[^)]*)\)"
        r"|^Killed process \d+ \((?P<comm2>[^)]*)\),? (?:UID \d+, )?total-vm:"
        r"|^Killed process \d+, UID \d+, \((?P<comm4>[^)]*)\) total-vm:"
        r"|Out of memory and no killable processes|Out of memory: \S+ panic_on_oom is enabled"
        r"|^Out of Memory: Killed process \d+ \((?P<comm3>[^)]*)\)|^VM: killing process \S",
        ("Killed", "Kill", "kill", "killable", "panic_on_oom", "killing"),
        S.ERROR,
        "memory",
        "The kernel OOM killer killed a process to free memory.",
        "Find who held memory (GPU-pinned memory is invisible in RSS on unified-memory "
        "machines); limit services (MemoryMax=) or model sizes.",
        60,
        trigger=Trigger("oom"),
        formats=(
            Format(
                "%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, "
                "shmem-rss:%lukB, UID:%u pgtables:%lukB oom_score_adj:%hd",
                "mm/oom_kill.c",
                "5.4-6.18",
                args=("Out of memory", 4242, "python3"),
            ),
            Format(
                "%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, "
                "shmem-rss:%lukB, UID:%u pgtables:%lukB oom_score_adj:%hd",
                "mm/oom_kill.c",
                "5.4-6.18",
                args=("Memory cgroup out of memory", 4242, "python3"),
            ),
            Format(
                "Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, "
                "shmem-rss:%lukB",
                "mm/oom_kill.c",
                "4.19",
                args=(4242, "python3"),
            ),
            Format(
                "%s: Kill process %d (%s) score %u or sacrifice child",
                "mm/oom_kill.c",
                "4.4-4.19",
                args=("Out of memory", 4242, "python3", 912),
            ),
            Format(
                "Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB",
                "mm/oom_kill.c",
                "4.4",
                args=(4242, "python3"),
            ),
            Format(
                "Killed process %d, UID %d, (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB",
                "mm/oom_kill.c",
                "RHEL 6 2.6.32 (the wording of RHEL 6 logs; not checked tree by tree)",
                args=(11726, 498, "mysqld"),
            ),
            # 2.4's OOM killer: "Out of Memory: Killed process %d (%s)." and, in the earlier
            # 2.4 releases, "VM: killing process %s"
            Format(
                "Out of Memory: Killed process %d (%s).",
                "mm/oom_kill.c",
                "2.4 (the wording of 2.4 logs; not checked tree by tree)",
                args=(4242, "gammu-smsd"),
            ),
            Format(
                "VM: killing process %s",
                "mm/oom_kill.c",
                "2.4 (the wording of a 2.4 router's log; not checked tree by tree)",
                args=("gammu-smsd",),
            ),
        ),
    ),
    # The OOM report's first line, printed by dump_header before the victim is chosen
    # (mm/oom_kill.c): "%s invoked oom-killer: gfp_mask=%#x(%pGg), order=%d,
    # oom_score_adj=%hd", the allocating task first. The same tag as the kill, not one of
    # its own: the header and the "Killed process" line are one event (the OOM killer
    # ran because memory ran out), the action is the same (find who held the memory), and
    # a paste cut before or after either line must name the same culprit; the comm it
    # names is the allocator, not the victim, so it carries no comm group. No trigger: the
    # recorder starts its oom incident on the kill line (kmsgd/record/triggers.py). A line
    # of the kill's report (`context`): the kill line counts the event, this one does not.
    sig(
        "oom_kill",
        r"\binvoked oom-killer: gfp_mask=0x[0-9a-fA-F]+",
        ("killer",),
        S.ERROR,
        "memory",
        "Memory ran out and the kernel's OOM killer started (a process is killed next).",
        "Find who held memory (GPU-pinned memory is invisible in RSS on unified-memory "
        "machines); limit services (MemoryMax=) or model sizes.",
        60,
        context=True,
        formats=(
            Format(
                "%s invoked oom-killer: gfp_mask=%#x(%pGg), order=%d, oom_score_adj=%hd",
                "mm/oom_kill.c",
                "5.4-6.18",
                args=("python3", 0x140CCA, "GFP_HIGHUSER_MOVABLE|__GFP_COMP", 0, 0),
            ),
            Format(
                "%s invoked oom-killer: gfp_mask=%#x(%pGg), nodemask=%*pbl, order=%d, "
                "oom_score_adj=%hd",
                "mm/oom_kill.c",
                "4.19",
                args=("python3", 0x6280CA, "GFP_HIGHUSER_MOVABLE|__GFP_ZERO", 8, "(null)", 0, 0),
            ),
            Format(
                "%s invoked oom-killer: gfp_mask=0x%x, order=%d, oom_score_adj=%hd",
                "mm/oom_kill.c",
                "4.4",
                args=("Web Content", 0x24201CA, 0, 0),
            ),
        ),
    ),
    # systemd src/oom/oomd-util.c: "Killed %s due to memory pressure for %s being %lu.%02lu%%
    # > %lu.%02lu%% for > %s with reclaim activity" (247+), "… due to memory used (%s) / total
    # (%s) and swap used (%s) / total (%s) being more than %lu.%02lu%%" (swap kills)
    # (the reason may be cut off by a pager or an elision: "Killed /…/app.scope" alone is
    # still the kill, as systemd-oomd logs "Killed" for nothing else); src/oom/oomd-manager.c
    # (252+) marks the cgroup first and kills it after: "Marked %s for killing due to memory
    # pressure for %s being %lu.%02lu%% > %lu.%02lu%% for > %s with reclaim activity", "Marked
    # %s for killing due to memory used (%s) / total (%s) and swap used (%s) / total (%s) …"
    sig(
        "oomd_kill",
        r"Killed (?P<cg>/\S*)(?: due to memory (?:pressure|used))?"
        r"|Killed (?P<cg2>\S+) due to memory|^Marked \S+ for killing due to memory",
        ("Killed", "Marked"),
        S.ERROR,
        "memory",
        "systemd-oomd killed a cgroup under memory pressure.",
        "The named unit used too much memory for too long; limit it or raise the oomd thresholds.",
        64,
        idents=("systemd-oomd",),
        formats=(
            Format(
                "Killed %s due to memory pressure for %s being %lu.%02lu%% > %lu.%02lu%% for > %s "
                "with reclaim activity",
                "systemd:src/oom/oomd-manager.c",
                "systemd 247+",
                program="systemd-oomd",
                args=(
                    "/user.slice/user-1000.slice/user@1000.service/app.slice/app.scope",
                    "/user.slice",
                    71,
                    5,
                    50,
                    0,
                    "20s",
                ),
            ),
            Format(
                "Marked %s for killing due to memory pressure for %s being %lu.%02lu%% > "
                "%lu.%02lu%% for > %s with reclaim activity",
                "systemd:src/oom/oomd-manager.c",
                "systemd with sd-varlink (257+)",
                program="systemd-oomd",
                args=(
                    "/user.slice/user-1000.slice/user@1000.service/app.slice/app.scope",
                    "/user.slice",
                    71,
                    5,
                    50,
                    0,
                    "20s",
                ),
            ),
        ),
    ),
    # the Xen hypervisor's own console ("(XEN) " lines): xen/common/domain.c domain_crash()
    # "domain_crash called from %s:%d" (file:line, 4.x; a "%pS" caller from 4.12) and
    # __domain_crash's "Domain %d (vcpu#%d) crashed on cpu#%d:" before the guest's
    # registers: Xen killed a guest (a PoD or paging failure, a VMX/SVM fault)
    sig(
        "xen_domain_crash",
        r"domain_crash called from \S|Domain \d+ \(vcpu#\d+\) crashed on cpu#\d+",
        ("domain_crash", "vcpu"),
        S.CRITICAL,
        "kernel",
        "The Xen hypervisor crashed a guest domain: the guest stopped at once, with no "
        "shutdown of its own.",
        "Read the line before the crash (out of PoD memory, a VMX/SVM fault, nested "
        "virtualisation); raise the domain's memory to its maximum or update Xen.",
        88,
        formats=(
            Format(
                "domain_crash called from %s:%d",
                "xen/common/domain.c",
                "4.4-4.11",
                "(XEN) ",
                args=("p2m-pod.c", 1218),
            ),
            Format(
                "Domain %d (vcpu#%d) crashed on cpu#%d:",
                "xen/common/domain.c",
                "4.4-4.17",
                "(XEN) ",
                args=(29, 1, 4),
            ),
        ),
    ),
    # kernel/time/clocksource.c clocksource_watchdog: the watchdog clocksource (HPET, ACPI PM
    # timer) and the current one (TSC) disagree by more than the margin: "timekeeping
    # watchdog on CPU%d: Marking clocksource '%s' as unstable because the skew is too
    # large:" (pr_fmt "clocksource: ", 4.19-6.18; 4.4 without "on CPU%d"), then
    # arch/x86/kernel/tsc.c "Marking TSC unstable due to clocksource watchdog" ("tsc: ",
    # 4.4-6.18) and a switch to the slower clock; 2.6.28-3.x printed clocksource_unstable's
    # "Clocksource %s unstable (delta = %Ld ns)" with no pr_fmt. Most often the consequence
    # of a CPU or vCPU that did not run (an SMI, a stall, a hypervisor's steal), rarely a
    # clock fault: routine, never a culprit over the stall it follows. mark_tsc_unstable's
    # other callers give a property of the platform found at boot, not an event: the TSC
    # stops in deep C-states (drivers/idle/intel_idle.c "TSC halts in idle states deeper
    # than C2", drivers/acpi/processor_idle.c "TSC halts in idle"), its rate follows cpufreq
    # (tsc.c time_cpufreq_notifier "cpufreq changes"), unsynchronized_tsc() ("TSCs
    # unsynchronized"), a Hyper-V guest without an invariant TSC (arch/x86/kernel/cpu/
    # mshyperv.c "running on Hyper-V"), a Cyrix 5510/5520: those lines tag nothing
    sig(
        "clocksource_unstable",
        r"Marking clocksource '[^']+' as unstable because|^(?:tsc: )?Marking TSC unstable due to"
        r" (?!TSC halts in idle|cpufreq changes|TSCs unsynchronized|running on Hyper-V"
        r"|cyrix 5510/5520)|^Clocksource \S+ unstable \(delta = ",
        ("unstable",),
        S.WARNING,
        "cpu",
        "The kernel found its clock (usually the TSC) skewed against the watchdog clock and "
        "switched to a slower one: usually a CPU or vCPU held off by an SMI, a stall or a "
        "hypervisor.",
        "Usually harmless by itself; with lockups or stalls around it, they are the cause. "
        "Repeated on bare metal: check the BIOS (C-states, SMIs) or boot with tsc=reliable "
        "only if the TSC is known good.",
        71,
        routine=True,
        formats=(
            Format(
                "timekeeping watchdog on CPU%d: Marking clocksource '%s' as unstable because "
                "the skew is too large:",
                "kernel/time/clocksource.c",
                "4.19-6.18",
                "clocksource: ",
                args=(3, "tsc"),
            ),
            Format(
                "Marking TSC unstable due to %s",
                "arch/x86/kernel/tsc.c",
                "4.4-6.18",
                "tsc: ",
                args=("clocksource watchdog",),
            ),
            Format(
                "Clocksource %s unstable (delta = %Ld ns)",
                "kernel/time/clocksource.c",
                '2.6.28-3.x (RHEL 6 adds "  Enable clocksource failover by adding …")',
                args=("tsc", -95170507948),
            ),
        ),
    ),
    # earlyoom (github.com/rfjakob/earlyoom, kill.c kill_process), the other userspace OOM
    # killer of GPU workstations and servers: warn("sending %s to process %d uid %d \"%s\":
    # badness %d, VmRSS %lld MiB") with SIGTERM or SIGKILL when available memory and swap
    # fall below its limits (1.3-1.8; 1.0-1.2 without "uid %d"). One meaning with
    # systemd-oomd's kill: a userspace daemon killed a process before the kernel had to.
    sig(
        "oomd_kill",
        r"^sending SIG(?:TERM|KILL) to process \d+ (?:uid \d+ )?\"",
        ("SIGTERM", "SIGKILL"),
        S.ERROR,
        "memory",
        "earlyoom killed a process: available memory and swap fell below its limits.",
        "The named process used too much memory; limit it (MemoryMax=, smaller models or "
        "batches) or tune earlyoom's -m/-s limits.",
        64,
        idents=("earlyoom",),
        formats=(
            Format(
                'sending %s to process %d uid %d "%s": badness %d, VmRSS %lld MiB',
                "earlyoom:kill.c",
                "earlyoom 1.3-1.8",
                program="earlyoom",
                args=("SIGTERM", 4242, 1000, "python3", 733, 61234),
            ),
        ),
    ),
    # kernel/locking/spinlock_debug.c spin_dump via __spin_lock_debug (CONFIG_DEBUG_SPINLOCK,
    # 2.6.x-4.12): "BUG: spinlock lockup suspected on CPU#%d, %s/%d" when a CPU spun about
    # a second on one lock, then " lock: %pS, .magic: %08x, .owner: %s/%d, .owner_cpu: %d";
    # 4.13 removed the detector (a stuck lock now shows as a soft or hard lockup); 2.6.x-3.x
    # printed "BUG: spinlock lockup on CPU#%d, %s/%d, %p" (lib/spinlock_debug.c). A lock
    # whose owner is the spinning task itself is a deadlock (often die()'s lock taken again)
    sig(
        "spinlock_lockup",
        r"BUG: spinlock lockup (?:suspected )?on CPU#\d+",
        ("BUG",),
        S.CRITICAL,
        "cpu",
        "A CPU spun on a spinlock that was never released (lockup suspected by the lock "
        "debugging code): a deadlock or a lock holder that died or hangs.",
        "The lock's .owner and the backtrace name who holds it and who waits; a kernel or "
        "driver bug: report both with the kernel version.",
        72,
        device_kind=_CPU,
        formats=(
            Format(
                "BUG: spinlock lockup suspected on CPU#%d, %s/%d",
                "kernel/locking/spinlock_debug.c",
                "4.4-4.12",
                args=(0, "scsi_eh_1", 143),
            ),
            Format(
                "BUG: spinlock lockup on CPU#%d, %s/%d, %p",
                "lib/spinlock_debug.c",
                "2.6.18-3.x",
                args=(1, "ld", 9860, "c03f8c00"),
            ),
        ),
    ),
    # arch/powerpc/xmon/xmon.c excprint: with xmon configured, die() enters the debugger,
    # which prints "cpu 0x%x: " (SMP) and "Vector: %lx %s at [%px]" ("[%lx]" before 4.15)
    # with getvecname's name, on the console without a printk stamp. Vectors 300/380 (Data
    # Access, Data SLB Access), 400/480 (Instruction Access, Instruction SLB Access) and 600
    # (Alignment) are the kernel faults an oops reports; 200 (Machine Check), 700 (Program
    # Check: BUG, a breakpoint) and 100 (System Reset: sysrq, NMI) are not read as one
    sig(
        "oops",
        r"^(?:cpu 0x[0-9a-f]+: )?Vector: (?:300|380|400|480|600) \((?:Data|Instruction|"
        r"Alignment)",
        ("Vector",),
        S.CRITICAL,
        "kernel",
        "The kernel faulted on a bad address (powerpc xmon's exception report of an oops).",
        "The pc and lr lines after it (and xmon's 't' backtrace) name the code; a kernel or "
        "driver bug: report it with the kernel version.",
        80,
        formats=(
            Format(
                "Vector: %lx %s at [%px]",
                "arch/powerpc/xmon/xmon.c",
                "4.15-6.18",
                "cpu 0x0: ",
                args=(0x300, "(Data Access)", "c000001fd73436a0"),
            ),
            Format(
                "Vector: %lx %s at [%lx]",
                "arch/powerpc/xmon/xmon.c",
                "4.4-4.14",
                "cpu 0x0: ",
                args=(0x400, "(Instruction Access)", 0xC000001FD73436A0),
            ),
        ),
    ),
    # kernel/irq/spurious.c __report_bad_irq: an interrupt line that fires with no handler
    # claiming it (printk KERN_ERR "irq %d: nobody cared (try booting with the \"irqpoll\"
    # option)", 2.6-today) or a handler's invalid answer ("irq event %d: bogus return value
    # %x"), then note_interrupt's "Disabling IRQ #%d": every device sharing that line (often a
    # GPU's legacy INTx) stops getting interrupts
    sig(
        "irq_nobody_cared",
        r"^irq (?P<irq>\d+): nobody cared\b|^irq event \d+: bogus return value [0-9a-f]+"
        r"|^Disabling IRQ #\d+$",
        ("nobody", "bogus", "Disabling"),
        S.ERROR,
        "kernel",
        "An interrupt line fired with no driver handling it; the kernel disabled that line.",
        "Every device on that IRQ (see /proc/interrupts) loses its interrupts: suspect the GPU "
        "or the other device sharing it; try MSI (nvidia NVreg_EnableMSI=1) or irqpoll.",
        40,
        formats=(
            Format(
                'irq %d: nobody cared (try booting with the "irqpoll" option)',
                "kernel/irq/spurious.c",
                "4.4-6.18",
                args=(16,),
            ),
            Format("irq event %d: bogus return value %x", "kernel/irq/spurious.c", "4.4-6.18"),
            Format("Disabling IRQ #%d", "kernel/irq/spurious.c", "4.4-6.18", args=(16,)),
        ),
    ),
    # the Xen hypervisor's own panic (its console's "(XEN) " lines): xen/drivers/char/
    # console.c panic() prints "Panic on CPU %d:" between two rows of asterisks, then the
    # reason (xen/arch/x86/traps.c: "Xen BUG at %s%s:%d" for a BUG(), "FATAL TRAP: …"), then
    # "Reboot in five seconds..." or "Manual reset required ('noreboot' specified)" (Xen
    # 3.x-4.19; 4.12+ x86 "%s in five seconds..." with "Crash" under the PV shim). Xen itself
    # stopped, with every domain on it, dom0's kernel included.
    sig(
        "xen_hypervisor_panic",
        r"^\(XEN\) (?:\[[^\]]*\] )?(?:Panic on CPU \d+:$|Xen BUG at \S+:\d+)",
        ("Panic", "BUG"),
        S.CRITICAL,
        "kernel",
        "The Xen hypervisor panicked: the whole host stopped, every domain on it with it.",
        "Read the reason under 'Panic on CPU' (a Xen BUG names its source file and line, the "
        "call trace above names the subsystem); update Xen or change the option that leads "
        "there (IOMMU, console, CPU settings).",
        95,
        formats=(
            Format(
                "Panic on CPU %d:",
                "xen:xen/drivers/char/console.c",
                "xen 3.x-4.19",
                "(XEN) ",
                args=(0,),
            ),
            Format(
                "Xen BUG at %s%s:%d",
                "xen:xen/arch/x86/traps.c",
                "xen 4.4-4.19",
                "(XEN) ",
                args=("", "drivers/passthrough/amd/iommu_init.c", 1386),
            ),
        ),
    ),
    # mm/oom_kill.c oom_reap_task (4.6+): the reaper gave up freeing the OOM victim's memory
    # ("oom_reaper: unable to reap pid:%d (%s)", pr_fmt-less with its own "oom_reaper: "),
    # then debug_show_all_locks: the victim holds mmap_lock and memory stays short. A line
    # of the OOM kill's report (context): "reaped process" after a kill is its routine end
    sig(
        "oom_kill",
        r"^oom_reaper: unable to reap pid:\d+",
        ("reap",),
        S.ERROR,
        "memory",
        "The OOM killer's victim could not be reaped: its memory stays held and the box may "
        "stay short of memory.",
        "Find who held memory and what the victim waits on (the lock dump after this line); "
        "limit services (MemoryMax=) or model sizes.",
        60,
        context=True,
        formats=(
            Format(
                "oom_reaper: unable to reap pid:%d (%s)",
                "mm/oom_kill.c",
                "4.6-6.18",
                args=(4242, "python3"),
            ),
        ),
    ),
    # mm/page_alloc.c bad_page: the page allocator found a page in a state no free or
    # allocated page may have (still mapped, a nonzero or negative reference count, flags
    # set): memory corruption or a driver that leaks or double-frees pages ("BUG: Bad page
    # state in process %s  pfn:%05lx" 2.6.28-6.18, "Bad page state in process '%s'" 2.6.x
    # before); mm/memory.c print_bad_pte: a page table entry that points at such a page
    # ("BUG: Bad page map in process %s  pte:%08llx pmd:%08llx" 2.6.28-6.18, the table level
    # named since "%s:%08llx"). Their "page dumped because: %s" line is dump_page's, which
    # VM_BUG_ON_PAGE prints too: not keyed on. The box runs on with the page taken out of use.
    sig(
        "bad_page_state",
        r"^(?:BUG: )?Bad page (?:state in process |map in process |(?:state|map): \d+ messages)",
        ("Bad",),
        S.ERROR,
        "memory",
        "The page allocator found a corrupted page (Bad page state/map): memory corruption "
        "or a driver that leaked or freed a page twice.",
        "Read the 'page dumped because' reason and the backtrace (the driver freeing the "
        "page); run a memory test if no driver is named; update or report the driver.",
        77,
        formats=(
            Format(
                "BUG: Bad page state in process %s  pfn:%05lx",
                "mm/page_alloc.c",
                "4.4-6.18",
                args=("python3", 0x12345),
            ),
            Format(
                "Bad page state in process '%s'", "mm/page_alloc.c", "2.6.x-2.6.27", args=("kded",)
            ),
            Format(
                "BUG: Bad page map in process %s  pte:%08llx pmd:%08llx",
                "mm/memory.c",
                "4.4-6.18",
                args=("python3", 0x8000000123456067, 0x1234067),
            ),
            # bad_page's and print_bad_pte's rate limit: more reports, not printed
            Format(
                "BUG: Bad page state: %lu messages suppressed",
                "mm/page_alloc.c",
                "4.4-6.18",
                args=(12,),
            ),
            Format(
                "BUG: Bad page map: %lu messages suppressed",
                "mm/memory.c",
                "4.4-6.18",
                args=(12,),
            ),
            Format(
                "BUG: Bad page map in process %s  %s:%08llx",
                "mm/memory.c",
                "6.19-",
                args=("python3", "pte", 0x8000000123456067),
            ),
        ),
    ),
    # kernel/sched/core.c __schedule_bug (kernel/sched.c before 3.3): schedule() was entered
    # with a raised preempt count (a spinlock held, in an interrupt): "BUG: scheduling while
    # atomic: %s/%d/0x%08x" (2.6.2x-6.18; "%s/0x%08x/%d" before). The task did sleep, so the
    # lock it held stays held; panic_on_warn panics here. A driver bug.
    sig(
        "scheduling_while_atomic",
        r"^BUG: scheduling while atomic: \S+/(?:\d+/0x[0-9a-f]+|0x[0-9a-f]+/\d+)",
        ("scheduling",),
        S.ERROR,
        "kernel",
        "A task slept in atomic context (scheduling while atomic): a driver or kernel bug "
        "that can deadlock the CPU or the lock it held.",
        "The backtrace names the driver that slept with a lock held or in an interrupt: "
        "update or report it.",
        81,
        formats=(
            Format(
                "BUG: scheduling while atomic: %s/%d/0x%08x",
                "kernel/sched/core.c",
                "4.4-6.18",
                args=("swapper/0", 0, 0x00010000),
            ),
            Format(
                "BUG: scheduling while atomic: %s/0x%08x/%d",
                "kernel/sched.c",
                "2.6.18-2.6.2x",
                args=("kworker/0:1", 0x00000002, 42),
            ),
        ),
    ),
    # kernel/sched/core.c __might_resched (___might_sleep before 5.16, __might_sleep in
    # kernel/sched.c before 3.3): a function that may sleep was called with a spinlock held,
    # interrupts off or in an interrupt: "BUG: sleeping function called from invalid context
    # at %s:%d" (2.6.2x-6.18), "Debug: sleeping function called from invalid context at
    # %s:%d" (2.6.0-2.6.1x). A check, not a sleep: the box runs on; if the task does sleep,
    # scheduling while atomic follows.
    sig(
        "sleep_in_atomic",
        r"^(?:BUG|Debug): sleeping function called from invalid(?: context|$)",
        ("sleeping",),
        S.WARNING,
        "kernel",
        "A function that may sleep was called in atomic context (sleeping function called "
        "from invalid context): a driver or kernel bug.",
        "The backtrace names the caller (a driver taking a mutex under a spinlock or with "
        "interrupts off): update or report it.",
        81,
        formats=(
            Format(
                "BUG: sleeping function called from invalid context at %s:%d",
                "kernel/sched/core.c",
                "4.4-6.18",
                args=("kernel/locking/mutex.c", 283),
            ),
            Format(
                "Debug: sleeping function called from invalid context at %s:%d",
                "kernel/sched.c",
                "2.6.0-2.6.1x",
                args=("mm/slab.c", 2472),
            ),
        ),
    ),
    # kernel/locking/lockdep.c: the lock validator's reports, each the header of a block
    # between "=====" rules; "WARNING: %s" (4.14-6.18, pr_warn) and "[ INFO: %s ]" or
    # "[ BUG: %s ]" (2.6.18-4.13; kernel/lockdep.c before 3.16): possible circular locking
    # dependency, possible recursive locking, inconsistent lock state, possible irq lock
    # inversion dependency, %s-safe -> %s-unsafe lock order, bad unlock balance, held lock
    # freed, bad contention (LOCK_STAT), a lock held when returning to user space, "%s/%d
    # still has locks held!"; lockdep_rcu_suspicious's
    # "suspicious RCU usage" ("suspicious rcu_dereference_check() usage" 2.6.3x). A lock
    # order that can deadlock, seen before it did: the box runs on (lockdep turns itself off
    # after its first report).
    sig(
        "lockdep_warning",
        r"^(?:WARNING: |\[ (?:INFO|BUG): )(?:possible (?:circular locking dependency|"
        r"recursive locking|irq lock inversion dependency) detected|inconsistent lock state|"
        r"suspicious (?:RCU|rcu_dereference_check\(\)) usage|bad unlock balance detected!|"
        r"\w+-safe -> \w+-unsafe lock order detected|held lock freed!|bad contention detected!|"
        r"lock held when returning to user space!|.{1,40}/\d+ still has locks held!)",
        (
            "circular",
            "recursive",
            "inconsistent",
            "inversion",
            "suspicious",
            "unlock",
            "freed",
            "unsafe",
            "contention",
            "returning",
            "held",
        ),
        S.WARNING,
        "kernel",
        "Lockdep found a lock order that can deadlock (or a lock misused): a possible "
        "deadlock, not a hang yet.",
        "Report it with the lock chain to the subsystem named there; it may deadlock under load.",
        83,
        formats=(
            Format(
                "WARNING: possible circular locking dependency detected",
                "kernel/locking/lockdep.c",
                "4.19-6.18",
            ),
            Format(
                "[ INFO: possible circular locking dependency detected ]",
                "kernel/locking/lockdep.c",
                "2.6.18-4.4",
            ),
            Format(
                "WARNING: possible recursive locking detected",
                "kernel/locking/lockdep.c",
                "4.19-6.18",
            ),
            Format(
                "[ INFO: possible recursive locking detected ]", "kernel/lockdep.c", "2.6.18-4.4"
            ),
            Format("WARNING: inconsistent lock state", "kernel/locking/lockdep.c", "4.19-6.18"),
            Format("[ INFO: inconsistent lock state ]", "kernel/locking/lockdep.c", "2.6.18-4.4"),
            Format(
                "WARNING: possible irq lock inversion dependency detected",
                "kernel/locking/lockdep.c",
                "4.19-6.18",
            ),
            Format(
                "WARNING: %s-safe -> %s-unsafe lock order detected",
                "kernel/locking/lockdep.c",
                "4.19-6.18",
                args=("HARDIRQ", "HARDIRQ"),
            ),
            Format("WARNING: suspicious RCU usage", "kernel/locking/lockdep.c", "4.19-6.18"),
            Format("[ INFO: suspicious RCU usage. ]", "kernel/locking/lockdep.c", "3.3-4.4"),
            Format(
                "WARNING: bad unlock balance detected!", "kernel/locking/lockdep.c", "4.19-6.18"
            ),
            Format(
                "[ BUG: bad unlock balance detected! ]", "kernel/locking/lockdep.c", "2.6.18-4.4"
            ),
            Format("WARNING: held lock freed!", "kernel/locking/lockdep.c", "4.19-6.18"),
            # lock_contended with CONFIG_LOCK_STAT; lockdep_sys_exit; print_held_locks_bug
            Format("WARNING: bad contention detected!", "kernel/locking/lockdep.c", "4.19-6.18"),
            Format(
                "WARNING: lock held when returning to user space!",
                "kernel/locking/lockdep.c",
                "4.19-6.18",
            ),
            Format(
                "[ BUG: lock held when returning to user space! ]",
                "kernel/locking/lockdep.c",
                "2.6.18-4.4",
            ),
            Format(
                "WARNING: %s/%d still has locks held!",
                "kernel/locking/lockdep.c",
                "4.19-6.18",
                args=("kfdtest", 2930),
            ),
        ),
    ),
)
