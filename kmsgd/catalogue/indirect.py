"""Evidence of known tags that their own entries do not read: the other lines of a report
whose event line a cut may have lost, and another writer's line about the same event.

Each entry here carries the tag of an entry elsewhere (kernel.py, gpu.py, hardware.py) and
the same rank, so the judge sees one event whichever line showed it. Lines of a report that
another line counts are `context` (base.py): they name the event where the cut kept only
them, and the timeline counts the event once. None of them starts an incident in the
recorder (no `trigger`): each comes with a line that already did, or is printed by the
incident's own captures.
"""

from __future__ import annotations

import re

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

# a stack frame as dump_stack prints it (arch/x86/kernel/dumpstack.c printk_stack_address:
# " %s%pBb" with "? " for a frame the unwinder only guessed; 4.x and older put the address
# first, " [<%px>] %s%pB"): only frames it did not guess count
_FRAME = r"^\s*(?:\[<[0-9a-f]+>\]\s*)?"

_OOM_MEANING = "The kernel OOM killer killed a process to free memory."
_OOM_NEXT = (
    "Find who held memory (GPU-pinned memory is invisible in RSS on unified-memory "
    "machines); limit services (MemoryMax=) or model sizes."
)

# kernel/sched/core.c sched_show_task: "task:%-15.15s state:%c stack:%-5lu pid:%-5d ppid:%-6d
# flags:0x%08lx" (5.14+; "stack:%5lu pid:%5d ppid:%6d" 5.10-5.13, "tgid:%-5d" added in 6.x), the
# line that opens each task of the hung-task report (kernel/hung_task.c check_hung_task, after
# its "INFO: task %s:%d blocked for more than %ld seconds." header). Only state D (waiting
# uninterruptibly) is a hung task's. SysRq w (drivers/tty/sysrq.c "Show Blocked State", which
# the recorder itself sends during an incident) prints the same line for every D task at that
# moment, blocked for a second or for hours, and SysRq t ("Show State") for every task: the
# timeline drops this entry's hits once a boot has shown such a dump (kmsgd/judge/timeline.py),
# so it counts only in a cut of the detector's report that lost the header. The older
# "%-15.15s %c" form (before 5.10) is too plain to read.
HUNG_TASK_BODY = sig(
    "hung_task",
    r"^\s*task:.{1,15}? +state:D +stack: *\d+ +pid: *\d+",
    ("task",),
    Severity.ERROR,
    "kernel",
    "A task waited > 120 s in uninterruptible sleep (D state), usually on I/O or a lock.",
    "The blocked task's stack names the wait: storage, NFS, a GPU ioctl; fix that.",
    76,
    context=True,
    formats=(
        # sched_show_task: pr_info("task:%-15.15s state:%c") and the pr_cont that completes it
        Format(
            "task:%-15.15s state:%c stack:%-5lu pid:%-5d tgid:%-5d ppid:%-6d flags:0x%08lx",
            "kernel/sched/core.c",
            "6.8-6.18",
            args=("kworker/u64:3", "D", 0, 4242, 4242, 2, 0x00004000),
        ),
        Format(
            "task:%-15.15s state:%c stack:%5lu pid:%5d ppid:%6d flags:0x%08lx",
            "kernel/sched/core.c",
            "5.15",
            args=("python3", "D", 0, 4242, 1, 0x00000000),
        ),
    ),
)

_OOPS_MEANING = "The kernel faulted (Oops); the task was killed and the kernel may be unstable."
_OOPS_NEXT = (
    "Report the Oops with its 'Modules linked in' and RIP lines; with panic_on_oops it also "
    "explains the panic."
)

# A register dump as show_regs prints it on arm64 (arch/arm64/kernel/process.c __show_regs:
# "pc : %pS", 4.16+), on arm, and arm64 before 4.16 (arch/arm*/kernel/process.c "PC is at
# %pS"), riscv (arch/riscv/kernel/process.c "epc : %pS", 5.10+) and powerpc
# (arch/powerpc/kernel/process.c show_regs "NIP [%016lx] %pS"). x86's "RIP: 0010:%pS" is not
# one of them: its unwinder prints the registers of every interrupt frame inside any stack
# trace. Every report that stops a CPU prints one: die() (an oops or BUG()), __warn (a
# WARN), the soft- and hard-lockup detectors, the NMI backtrace of an RCU stall, SysRq p. The
# timeline keeps this entry's hit only where none of those reports' headers (REGS_HEADERS,
# or a line of REGS_HEADER_TEXT) came in the lines before it (kmsgd/judge/timeline.py): a dump
# whose header was cut away, and a dump with no header is most often an oops's, whose header
# a paste cuts when it starts at the register lines.
REGS_BODY = sig(
    "oops",
    r"^(?:pc : |PC is at |epc : |NIP \[[0-9a-f]+\] )[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+",
    ("pc", "PC", "epc", "NIP"),
    Severity.CRITICAL,
    "kernel",
    _OOPS_MEANING,
    _OOPS_NEXT,
    80,
    context=True,
    formats=(
        Format(
            "pc : %pS",
            "arch/arm64/kernel/process.c",
            "4.19-6.18",
            args=("tegra_xudc_unpowergate+0x148/0x760",),
        ),
        Format(
            "PC is at %pS",
            "arch/arm/kernel/process.c",
            "4.4-6.18",
            args=("mwl_fwcmd_exec_cmd+0x64/0x1d4 [mwlwifi]",),
        ),
        Format(
            "epc : %pS",
            "arch/riscv/kernel/process.c",
            "5.10-6.18",
            args=("kmem_cache_alloc+0x246/0x570",),
        ),
        Format(
            "NIP [%016lx] %pS",
            "arch/powerpc/kernel/process.c",
            "4.4-6.18",
            args=(0xC0000000001A2B3C, "xive_irq_eoi+0x2c/0x90"),
        ),
    ),
)
# the tags of the reports whose header comes before a register dump, and the headers of the
# ones that have no tag (nmi_cpu_backtrace in lib/nmi_backtrace.c, SysRq p's "Show Regs",
# arm64's SError panic, the "cut here" line __warn and BUG() print first)
REGS_HEADERS = frozenset(
    {
        "oops",
        "kernel_bug",
        "general_protection_fault",
        "kernel_warning",
        "soft_lockup",
        "hard_lockup",
        "rcu_stall",
        "hung_task",
        "unknown_nmi",
        "kernel_panic",
    }
)
REGS_HEADER_TEXT = re.compile(
    r"NMI backtrace for cpu \d+|(?:sysrq|SysRq) ?: Show Regs|SError Interrupt on CPU\d+"
    r"|-+\[ cut here \]-+"
)
REGS_LOOKBACK = 100  # lines: a header, "Modules linked in", the CPU and hardware lines, and
# other CPUs' or drivers' lines printed in between

# kernel/hung_task.c check_hung_task prints, after its "INFO: task %s:%d blocked for more
# than %ld seconds." header and the "Tainted"/"Not tainted" line, pr_err("\"echo 0 >
# /proc/sys/kernel/hung_task_timeout_secs\" disables this message.") (2.6.3x-6.18), once
# per blocked task. Nothing else prints it. It shows the hung task where a paste opens
# mid-report; the timeline drops its hit where the header came just before it
# (kmsgd/judge/timeline.py, HUNG_ECHO_LOOKBACK), so a whole report is counted and placed by
# its header alone, and a report cut above this line counts once, by it.
HUNG_TASK_ECHO = sig(
    "hung_task",
    r'^"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message',
    ("hung_task_timeout_secs",),
    Severity.ERROR,
    "kernel",
    "A task waited > 120 s in uninterruptible sleep (D state), usually on I/O or a lock.",
    "The blocked task's stack names the wait: storage, NFS, a GPU ioctl; fix that.",
    76,
    formats=(
        Format(
            '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.',
            "kernel/hung_task.c",
            "4.4-6.18",
        ),
    ),
)
HUNG_ECHO_LOOKBACK = 8  # lines: the header, its "Tainted" line, other CPUs' lines between

INDIRECT_SIGNATURES: tuple[Signature, ...] = (
    HUNG_TASK_BODY,
    REGS_BODY,
    # die() ran, so an oops (or BUG) came first: oops_end panics "Fatal exception" or "Fatal
    # exception in interrupt" (arch/x86/kernel/dumpstack.c, arch/arm/kernel/traps.c,
    # arch/powerpc/kernel/traps.c, arch/riscv/kernel/traps.c), arm64's die() "%s: Fatal
    # exception[ in interrupt]" with its trap's name (arch/arm64/kernel/traps.c); the panic is
    # the oops's end, the oops the event. BUG()'s own ("Oops - BUG: Fatal exception") is below.
    sig(
        "oops",
        r"Kernel panic - not syncing: (?!Oops - BUG: )(?:[^:]{1,60}: )?Fatal exception\b",
        ("Fatal",),
        Severity.CRITICAL,
        "kernel",
        _OOPS_MEANING,
        _OOPS_NEXT,
        80,
        context=True,
        formats=(
            Format(
                "Fatal exception",
                "arch/x86/kernel/dumpstack.c",
                "4.4-6.18",
                "Kernel panic - not syncing: ",
            ),
            Format(
                "Fatal exception in interrupt",
                "arch/x86/kernel/dumpstack.c",
                "4.4-6.18",
                "Kernel panic - not syncing: ",
            ),
            Format(
                "%s: Fatal exception",
                "arch/arm64/kernel/traps.c",
                "4.4-6.18",
                "Kernel panic - not syncing: ",
                args=("Oops",),
            ),
            Format(
                "%s: Fatal exception in interrupt",
                "arch/arm64/kernel/traps.c",
                "4.4-6.18",
                "Kernel panic - not syncing: ",
                args=("Oops - Undefined instruction",),
            ),
        ),
    ),
    sig(
        "kernel_bug",
        r"Kernel panic - not syncing: Oops - BUG: Fatal exception\b",
        ("Fatal",),
        Severity.CRITICAL,
        "kernel",
        "The kernel hit an internal consistency check (BUG).",
        "A kernel or driver bug: report with the backtrace; check for a newer kernel.",
        79,
        context=True,
        formats=(
            Format(
                "%s: Fatal exception",
                "arch/arm64/kernel/traps.c",
                "4.4-6.18",
                "Kernel panic - not syncing: ",
                args=("Oops - BUG",),
            ),
        ),
    ),
    # A line of the RCU CPU stall report (kernel/rcu/tree_stall.h, 5.10+, from
    # rcu_check_gp_kthread_expired_fqs_timer): "%s kthread timer wakeup didn't happen for %ld
    # jiffies! g%ld f%#x %s(%d) ->state=%#x", the grace-period kthread's timer never fired; the
    # report's header counts the stall, this line shows it where a cut lost the header.
    sig(
        "rcu_stall",
        r"\brcu_\w+ kthread timer wakeup didn't happen for \d+ jiffies",
        ("wakeup",),
        Severity.ERROR,
        "cpu",
        "RCU grace periods stopped advancing: some CPU or task is stuck in the kernel.",
        "Read the stack dumps that follow; a stall next to GPU or storage errors is their effect.",
        74,
        device_kind=DeviceKind.CPU,
        context=True,
        formats=(
            Format(
                "%s kthread timer wakeup didn't happen for %ld jiffies! g%ld f%#x %s(%d) "
                "->state=%#x",
                "kernel/rcu/tree_stall.h",
                "5.15-6.18",
                "rcu: ",
                args=("rcu_preempt", 2502, 16813, 0, "RCU_GP_WAIT_FQS", 5, 0x402),
            ),
        ),
    ),
    # Lines only the die path prints, so a cut below the oops's header still shows it:
    # x86's "executive summary" at the end of __die (arch/x86/kernel/dumpstack.c, to 4.9:
    # "RIP " then printk_address's " [<%p>] %s%pB" and " RSP <%016lx>"; 32-bit "EIP: [<%08lx>]
    # %s SS:ESP %04x:%08lx"), show_fault_oops's "#PF: %s %s in %s mode" and "#PF:
    # error_code(0x%04lx) - %s" (arch/x86/mm/fault.c, 5.4+), arm64's "Mem abort info:"
    # (arch/arm64/mm/fault.c mem_abort_decode, kernel-mode faults only), and what the task's
    # exit says after it (kernel/exit.c do_exit, make_task_dead from 5.17): "Fixing recursive
    # fault but reboot is needed!" (the task oopsed again while exiting from an oops), "Oopsed
    # too often (kernel.oops_limit is %d)" (6.2+, a panic); and the lines of die()'s own
    # header block on arm ("Process %.*s (pid: %d, stack limit = 0x%p)", arch/arm/kernel/traps.c
    # __die) and powerpc ("%s PAGE_SIZE=%luK%s…", the build line, arch/powerpc/kernel/traps.c
    # __die)
    sig(
        "oops",
        r"^RIP \s*\[<[0-9a-f]+>\] (?:\? )?[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+"
        r"|^EIP: \[<[0-9a-f]+>\] \S+ SS:ESP"
        r"|^#PF: (?:supervisor|user) [\w ]+ access in kernel mode|^#PF: error_code\(0x"
        r"|^Mem abort info:|^Fixing recursive fault but reboot is needed!"
        r"|Oopsed too often \(kernel\.oops_limit is \d+\)"
        r"|^Process .{1,16} \(pid: \d+, stack limit = 0x[0-9a-f]+\)|^[LB]E PAGE_SIZE=\d+K\b",
        ("RIP", "EIP", "PF", "Mem", "Fixing", "Oopsed", "limit", "PAGE_SIZE"),
        Severity.CRITICAL,
        "kernel",
        _OOPS_MEANING,
        _OOPS_NEXT,
        80,
        context=True,
        formats=(
            Format(
                "RIP  [<%p>] %s%pB",
                "arch/x86/kernel/dumpstack.c",
                "4.4",
                args=("ffffffff8106cf9b", "", "kthread_data+0xb/0x20"),
            ),
            Format(
                "EIP: [<%08lx>] %s SS:ESP %04x:%08lx",
                "arch/x86/kernel/dumpstack.c",
                "4.4",
                args=(0xC10A2B3C, "kmem_cache_alloc+0x4c/0x120", 0x68, 0xF5C9DE84),
            ),
            Format(
                "#PF: %s %s in %s mode",
                "arch/x86/mm/fault.c",
                "5.4-6.18",
                args=("supervisor", "read access", "kernel"),
            ),
            Format(
                "#PF: error_code(0x%04lx) - %s",
                "arch/x86/mm/fault.c",
                "5.4-6.18",
                args=(0, "not-present page"),
            ),
            Format("Mem abort info:", "arch/arm64/mm/fault.c", "4.19-6.18"),
            Format("Fixing recursive fault but reboot is needed!", "kernel/exit.c", "4.4-6.18"),
            Format(
                "Process %.*s (pid: %d, stack limit = 0x%p)",
                "arch/arm/kernel/traps.c",
                "4.4-6.18",
                args=(16, "kworker/0:2", 4242),
            ),
            Format(
                "%s PAGE_SIZE=%luK%s%s%s%s%s%s %s",
                "arch/powerpc/kernel/traps.c",
                "4.19-6.18",
                args=("LE", 64, " MMU=Radix", "", " SMP", " NR_CPUS=2048", "", " NUMA", "PowerNV"),
            ),
            Format(
                "Oopsed too often (kernel.oops_limit is %d)",
                "kernel/exit.c",
                "6.2-6.18",
                "Kernel panic - not syncing: ",
                args=(10000,),
            ),
        ),
    ),
    # The OOM report before its kill line (mm/oom_kill.c), so a cut above the kill still
    # shows it (its header, "%s invoked oom-killer: gfp_mask=…", is kernel.py's):
    # dump_oom_summary "oom-kill:constraint=%s,nodemask=%*pbl,…" (4.19+); mm/memcontrol.c
    # mem_cgroup_print_oom_info "Task in %s killed as a result of limit of %s" (3.x-4.18); and
    # the report's own stack (dump_header calls dump_stack from oom_kill_process). 32-bit
    # ARM (arch/arm/kernel/traps.c dump_backtrace_entry) names each frame's function before
    # its caller: " %ps from %pS" (5.17+), "[<%08lx>] (%ps) from [<%08lx>] (%pS)" (before,
    # and CONFIG_BACKTRACE_VERBOSE), so oom_kill_process shows without its offset.
    sig(
        "oom_kill",
        r"^oom-kill:constraint=CONSTRAINT_|^Task in \S+ killed as a result of limit of "
        rf"|{_FRAME}oom_kill_process\+0x[0-9a-f]+/0x[0-9a-f]+"
        rf"|{_FRAME}\(?oom_kill_process\)? from ",
        ("kill", "killed", "oom_kill_process"),
        Severity.ERROR,
        "memory",
        _OOM_MEANING,
        _OOM_NEXT,
        60,
        context=True,
        formats=(
            Format(
                "oom-kill:constraint=%s,nodemask=%*pbl",
                "mm/oom_kill.c",
                "4.19-6.18",
                args=("CONSTRAINT_NONE", 8, "(null)"),
            ),
            Format(
                "Task in %s killed as a result of limit of %s",
                "mm/memcontrol.c",
                "4.4-4.19",
                args=("/user.slice/app.scope", "/user.slice"),
            ),
            # the report's stack: dump_stack's frame line (arch/x86/kernel/dumpstack.c)
            Format(
                "%s %s%pBb",
                "arch/x86/kernel/dumpstack.c",
                "5.15-6.18",
                args=("", "", "oom_kill_process+0x116/0x150"),
            ),
            Format(
                "%s %ps from %pS",
                "arch/arm/kernel/traps.c",
                "5.17-6.18",
                args=("", "oom_kill_process", "out_of_memory+0x218/0x34c"),
            ),
        ),
    ),
    # systemd src/core/unit.c unit_check_oomd_kill (248+): PID 1 (or the user's manager)
    # logs "<unit>: systemd-oomd killed %" PRIu64 " process(es) in this unit." when oomd's
    # kill of the unit's cgroup took effect (after oomd's own "Killed"/"Marked" line)
    sig(
        "oomd_kill",
        r"^\S+: systemd-oomd killed (?:\d+|some) process\(es\) in this unit",
        # "systemd-oomd" splits into "systemd" and "oomd": the rare half keeps every other
        # line of PID 1 (in dmesg, "systemd[1]: …" is most of the ring) off this regex
        ("oomd",),
        Severity.ERROR,
        "memory",
        "systemd-oomd killed a cgroup under memory pressure.",
        "The named unit used too much memory for too long; limit it or raise the oomd thresholds.",
        64,
        idents=("systemd",),
        context=True,
        formats=(
            Format(
                "systemd-oomd killed %lu process(es) in this unit.",
                "systemd:src/core/unit.c",
                "systemd 248+ (the wording of the entry's comment; its source not read here)",
                "app-gnome-code.scope: ",
                program="systemd",
                args=(27,),
            ),
        ),
    ),
    # On x86 BUG() is the ud2 instruction (arch/x86/include/asm/bug.h), so the die header
    # after "kernel BUG at" is the invalid-opcode trap's: arch/x86/kernel/traps.c
    # do_error_trap → die("invalid opcode") prints "invalid opcode: 0000 [#%d] SMP PTI"
    # (2.6-6.9), "Oops: invalid opcode: 0000 [#%d]" (6.10+); a cut below "kernel BUG at"
    # still shows it. A userspace one ("traps: %s[%d] trap invalid opcode ip:…") is a
    # program's crash.
    sig(
        "kernel_bug",
        r"^(?:Oops: )?invalid opcode: [0-9a-f]{4} \[#\d+\]",
        ("opcode",),
        Severity.CRITICAL,
        "kernel",
        "The kernel hit an internal consistency check (BUG).",
        "A kernel or driver bug: report with the backtrace; check for a newer kernel.",
        79,
        context=True,
        formats=(
            Format(
                "%s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "4.19-6.8",
                args=("invalid opcode", 0, 1, " PREEMPT", " SMP", " NOPTI", "", ""),
            ),
            Format(
                "Oops: %s: %04lx [#%d]%s%s%s%s%s",
                "arch/x86/kernel/dumpstack.c",
                "6.12-6.18",
                args=("invalid opcode", 0, 1, " PREEMPT", " SMP", " NOPTI", "", ""),
            ),
        ),
    ),
    # The oops report below its header line, as x86 prints it: arch/x86/mm/fault.c
    # show_fault_oops "IP: %pS" ("IP: [<%p>] %pS" before 4.10; the line went in 4.15), and
    # the die path in the oops's own Call Trace, page_fault_oops (arch/x86/mm/fault.c, 5.13+)
    # and __die_body (arch/x86/kernel/dumpstack.c, 5.x+; ".cold" when the compiler split it):
    # those run only while the kernel dies, and the unwinder lists them as guesses ("? ")
    # because they lie below the frame that trapped, so a guessed one counts here.
    sig(
        "oops",
        r"^IP: (?:\[<[0-9a-f]+>\] )?[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+"
        r"|^\s*(?:\? )?(?:page_fault_oops|__die_body)(?:\.\w+)?\+0x[0-9a-f]+/0x[0-9a-f]+",
        ("IP", "page_fault_oops", "__die_body"),
        Severity.CRITICAL,
        "kernel",
        "The kernel faulted (Oops); the task was killed and the kernel may be unstable.",
        "Report the Oops with its 'Modules linked in' and RIP lines; with panic_on_oops it "
        "also explains the panic.",
        80,
        context=True,
        formats=(
            # show_fault_oops: printk(KERN_ALERT "IP:") then printk_address's " [<%p>] %s%pB"
            Format(
                "IP: [<%p>] %s%pB",
                "arch/x86/mm/fault.c",
                "4.4",
                args=("ffffffffa01e76c2", "", "ext4_da_write_begin+0x1c2/0x3a0 [ext4]"),
            ),
            # the die path in the oops's own trace: dump_stack's frame line, a guess ("? ")
            Format(
                "%s %s%pBb",
                "arch/x86/kernel/dumpstack.c",
                "5.15-6.18",
                args=("", "? ", "page_fault_oops+0x132/0x170"),
            ),
            Format(
                "%s %s%pBb",
                "arch/x86/kernel/dumpstack.c",
                "5.15-6.18",
                args=("", "? ", "__die_body.cold+0x8/0xd"),
            ),
        ),
    ),
    # The Linux drivers FreeBSD runs (drm-kmod's i915 and amdgpu, over linuxkpi) print a
    # WARN_ON as its condition, not as Linux's "WARNING: CPU:" header: linuxkpi's
    # "WARNING %s failed at %s:%d" (sys/compat/linuxkpi/common/include/linux/kernel.h), the
    # bare "WARN_ON(%s)" of the 2016 graphics branch (and drm-kmod's of 2017-2018, without a
    # newline, so that a flood runs the conditions together on one record), drm2's
    # DRM_ERROR("WARN ON: %s") (sys/dev/drm2/drm_os_freebsd.h). Linux itself prints none of
    # these: a whole line that is a C condition inside WARN_ON(…), or linuxkpi's sentence
    # ending in a source position.
    sig(
        "kernel_warning",
        # the condition: balanced parentheses, two levels deep ("WARN_ON(!list_empty(&x))")
        r"^WARN_ON(?:_ONCE)?\((?:[^()]|\((?:[^()]|\([^()]*\))*\))+\)$"
        # a flood of the bare macro, which printed no newline: conditions run together on
        # one record, cut anywhere (batch 26)
        r"|^(?:WARN_ON(?:_ONCE)?\((?:[^()]|\((?:[^()]|\([^()]*\))*\))+\)){2}"
        r"|^WARNING \S.* failed at [\w./-]+\.[ch]:\d+$"
        r"|(?:^|\*ERROR\* )WARN ON: \S",
        ("WARN_ON", "WARN_ON_ONCE", "WARNING", "WARN"),
        Severity.WARNING,
        "kernel",
        "A kernel WARN_ON fired: unexpected state, execution continued.",
        "Often harmless once; repeated warnings from one driver before a failure matter.",
        82,
        formats=(
            Format(
                "WARNING %s failed at %s:%d",
                "freebsd:sys/compat/linuxkpi/common/include/linux/kernel.h",
                "FreeBSD 11-14 linuxkpi (the graphics branch's copy read)",
                args=("domain->wake_count == 0", "/usr/src/sys/dev/drm/intel_uncore.c", 412),
            ),
            Format(
                "WARN_ON(%s)",
                "freebsd:drm-kmod i915 (FreeBSDDesktop graphics branch, 2016)",
                "2016 graphics branch (the wording of a log of it; its macro not read here)",
                args=("domain->wake_count == 0",),
            ),
            Format(
                "WARN_ON(%s)WARN_ON(%s)",  # two of its prints, run together without a newline
                "freebsd:drm-kmod (2017-2018)",
                "drm-kmod 2017-2018 (the wording of a log of it)",
                args=("!msg->buffer != !msg->size", "!msg->buffer != !msg->size"),
            ),
            Format(
                "WARN ON: %s",
                "freebsd:sys/dev/drm2/drm_os_freebsd.h",
                "FreeBSD 10-13 drm2",
                "error: [drm:pid1234:intel_uncore_forcewake_reset] *ERROR* ",
                args=("dev_priv->uncore.forcewake_count",),
            ),
        ),
    ),
    # firmware-first PCIe errors: drivers/acpi/apei/ghes.c __ghes_print_estatus prints the
    # event, drivers/firmware/efi/cper.c cper_estatus_print_section each section: "%sError
    # %d, type: %s", then "%ssection_type: PCIe error" (3.x-today) and the port and device
    # lines. The section line does not carry the severity; the event's line before it does,
    # and an uncorrected event ("event severity: recoverable" / "fatal") is
    # ghes_hardware_error (gpu_other.py), critical and ranked before this routine tag, so it
    # leads. What is left alone is the corrected report, the native driver's "PCIe Bus Error:
    # severity=Corrected" by another path.
    sig(
        "aer_corrected",
        r"\[Hardware Error\]:\s+section_type: PCIe error",
        ("section_type",),
        Severity.WARNING,
        "pcie",
        "The platform firmware reported a PCIe error (APEI GHES, firmware-first): corrected "
        "unless the event's severity line says otherwise.",
        "Noise at low rates; a burst means a marginal link (riser, slot, signal): reseat or "
        "lower the link speed. The device_id line after it names the port.",
        17,
        device_kind=DeviceKind.PCI,
        routine=True,
        formats=(
            Format(
                "%ssection_type: PCIe error",
                "drivers/firmware/efi/cper.c",
                "4.4-6.18",
                args=("{1}[Hardware Error]:  ",),
            ),
        ),
    ),
    # NVIDIA open-gpu-kernel-modules kernel_gsp.c: _kgspRpcRecvPoll dumps the stack
    # (os_dump_stack) when an RPC to GSP times out, after its "Timeout waiting for RPC"
    # header and RPC history; a watchdog that catches a CPU spinning in the poll prints
    # the same frame. Either way GSP stopped answering.
    sig(
        "nvidia_gsp_timeout",
        _FRAME + r"_kgspRpcRecvPoll\+0x[0-9a-f]+/0x[0-9a-f]+ \[nvidia\]",
        ("_kgspRpcRecvPoll",),
        Severity.CRITICAL,
        "gpu.nvidia",
        "The GPU's System Processor (GSP firmware) stopped answering the driver (Xid 119/120).",
        "Update the driver; if it repeats, try NVreg_EnableGpuFirmware=0 on affected "
        "releases, then check PCIe and power.",
        30,
        device_kind=DeviceKind.PCI,
        context=True,
        formats=(
            Format(
                "%s %s%pBb",
                "arch/x86/kernel/dumpstack.c",
                "5.15-6.18",
                args=("", "", "_kgspRpcRecvPoll+0x1e3/0x3f0 [nvidia]"),
            ),
        ),
    ),
    HUNG_TASK_ECHO,
    # The frames of a WARN's own trace: kernel/panic.c warn_slowpath_common (to 4.9, called by
    # warn_slowpath_fmt/_null/_fmt_taint) and __warn (4.10+) print the trace through dump_stack,
    # so a trace holding them is a warning's, whose "WARNING: CPU:" header a cut lost. 3.x
    # kernels without frame pointers mark every frame "? ", so warn_slowpath_* counts guessed
    # too (nothing else calls it); __warn only when not guessed, as other reports' traces may
    # hold its stale address.
    sig(
        "kernel_warning",
        _FRAME + r"(?:\? )?warn_slowpath_(?:common|fmt|null|fmt_taint)\+0x[0-9a-f]+/0x[0-9a-f]+"
        r"|" + _FRAME + r"__warn\+0x[0-9a-f]+/0x[0-9a-f]+$",
        ("warn_slowpath_common", "warn_slowpath_fmt", "warn_slowpath_null", "__warn"),
        Severity.WARNING,
        "kernel",
        "A kernel WARN_ON fired: unexpected state, execution continued.",
        "Often harmless once; repeated warnings from one driver before a failure matter.",
        82,
        device_kind=DeviceKind.CPU,
        context=True,
        formats=(
            Format(
                " [<%p>] %s%pB",
                "arch/x86/kernel/dumpstack.c",
                "3.x-4.4",
                args=("ffffffff8106b07a", "? ", "warn_slowpath_fmt+0x4a/0x50"),
            ),
            Format(
                "%s %s%pB",
                "arch/x86/kernel/dumpstack.c",
                "4.19-5.4",
                args=("", "", "__warn+0xcb/0xf0"),
            ),
        ),
    ),
)

# A firmware-first error record (drivers/firmware/efi/cper.c cper_estatus_print_section) prints
# each section's own severity on the line before its type: "%sError %d, type: %s" with
# cper_severity_str's "recoverable", "fatal", "corrected" or "info", then the optional
# "fru_id: %pUl" and "fru_text: %.20s" lines, then "%ssection_type: …" (4.4-6.18). A section
# line read alone says what failed but not how badly; the timeline reads it with that
# severity line (kmsgd/judge/timeline.py, CPER_LOOKBACK lines back) and takes the entry
# CPER_SECTIONS names for the pair: a fatal or recoverable PCIe section is the uncorrected
# AER error the native driver would print (aer_fatal, aer_nonfatal: the same event, routed
# through the firmware), and a corrected memory or processor section is a corrected error
# (routine, like EDAC's corrected counts) rather than the uncorrected one its tag's entry
# describes. These entries are never matched on their own: they are not in the catalogue.
CPER_SEVERITY = re.compile(r"\[Hardware Error\]:\s+Error \d+, type: (\w+)")
CPER_LOOKBACK = 3  # the severity line, fru_id, fru_text
_CPER_PCIE = r"\[Hardware Error\]:\s+section_type: PCIe error"
_CPER_PCIE_FMT = Format(
    "%ssection_type: PCIe error",
    "drivers/firmware/efi/cper.c",
    "4.4-6.18",
    args=("{1}[Hardware Error]:  ",),
)
_CPER_NEXT = (
    "Read the device_id and aer_uncor_status lines after it: check the slot, riser, cabling "
    "and power of the device named, and the BMC's event log for the same moment."
)
CPER_SECTIONS: dict[tuple[str, str], Signature] = {
    ("aer_corrected", "fatal"): sig(
        "aer_fatal",
        _CPER_PCIE,
        ("section_type",),
        Severity.CRITICAL,
        "pcie",
        "The platform firmware reported an uncorrectable fatal PCIe error (APEI GHES, "
        "firmware-first).",
        _CPER_NEXT,
        16,
        device_kind=DeviceKind.PCI,
        formats=(_CPER_PCIE_FMT,),
    ),
    ("aer_corrected", "recoverable"): sig(
        "aer_nonfatal",
        _CPER_PCIE,
        ("section_type",),
        Severity.ERROR,
        "pcie",
        "The platform firmware reported an uncorrectable, non-fatal PCIe error (APEI GHES, "
        "firmware-first).",
        _CPER_NEXT,
        18,
        device_kind=DeviceKind.PCI,
        formats=(_CPER_PCIE_FMT,),
    ),
    ("ghes_hardware_error", "corrected"): sig(
        "ghes_hardware_error",
        r"\[Hardware Error\]:\s+section_type: (?:memory|general processor|ARM processor) error",
        ("section_type",),
        Severity.WARNING,
        "hardware",
        "The platform firmware reported a corrected hardware error (APEI GHES): memory or "
        "CPU, named by the section lines that follow.",
        "Noise at low rates; a rising count on one DIMM or CPU means it is failing: read the "
        "FRU/DIMM lines and plan its replacement.",
        11,
        routine=True,
        formats=(
            Format(
                "%ssection_type: memory error",
                "drivers/firmware/efi/cper.c",
                "4.4-6.18",
                args=("{35}[Hardware Error]:   ",),
            ),
        ),
    ),
}
