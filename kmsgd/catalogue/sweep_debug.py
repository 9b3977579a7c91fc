"""Kernel debugging and corruption detectors, arch die() headers and kernel-core leftovers,
from the source sweep of lib/, mm/, kernel/locking, kernel/sched, kernel/time, kernel/smp.c,
kernel/printk and arch/{x86,arm,arm64,riscv,s390,mips,loongarch}: more wording for
kernel.py's tags (kernel_bug, oops, kernel_warning, lockdep_warning, general_protection_fault);
sweep_debug2.py has the rest (clocksource_unstable, bad_page_state, page_allocation_failure)
and the sweep's new tags.

Routine neighbours stay untagged: a user process's trap ("traps: %s[%d] general protection
fault ip:… in …"), lockdep switching itself off ("BUG: MAX_LOCKDEP_KEYS too low!"). The
stack-protector panic ("Kernel panic - not syncing: stack-protector: Kernel stack is corrupted
in: %pB") stays kernel_panic's alone.
"""

from __future__ import annotations

from kmsgd.catalogue.base import Format, Signature, wording
from kmsgd.catalogue.kernel import CPU_SIGNATURES, MEMORY_SIGNATURES


def kernel_entry(tag: str) -> Signature:
    """kernel.py's main entry of a tag (its first), whose meaning and rank the wording shares."""
    return next(s for s in CPU_SIGNATURES + MEMORY_SIGNATURES if s.tag == tag)


_BUG = kernel_entry("kernel_bug")
_OOPS = kernel_entry("oops")
_WARN = kernel_entry("kernel_warning")
_LOCKDEP = kernel_entry("lockdep_warning")
_GPF = kernel_entry("general_protection_fault")
_LIST = "lib/list_debug.c"
_SLAB = "mm/slab.c"
_MIPS = "arch/mips/kernel/traps.c"
_LOCKDEP_C = "kernel/locking/lockdep.c"

SWEEP_DEBUG_SIGNATURES: tuple[Signature, ...] = (
    # lib/list_debug.c __list_add_valid: "list_add double add: new=%p, prev=%p, next=%p."
    # (WARN 4.4-4.9, CHECK_DATA_CORRUPTION 4.10-6.18, %px from 4.15): an entry added to a
    # list it is already on, the list corrupted as its list_add/list_del corruption siblings
    # (kernel.py); mm/slab.c (SLAB, to 6.4) __slab_error "slab error in %s(): cache `%s': %s"
    # ("double free detected", "double free, or memory outside object was overwritten") and
    # its free-list check's "slab: Internal list corruption detected in cache '%s'(%d),
    # slabp %p(%d). Tainted(%s)" then BUG(): the slab allocator's own checks,
    # SLUB's "BUG %s (%s): …" siblings; mm/usercopy.c usercopy_abort pr_emerg "Kernel memory
    # %s attempt detected %s %s%s%s%s (offset %lu, size %lu)!" (pr_fmt "usercopy: ",
    # 4.16-6.18; "kernel memory %s attempt detected %s %p (%s) (%lu bytes)" 4.8-4.15) then
    # BUG(): a copy to or from user space across a slab object's end; the overflow-stack
    # handlers of arm64 (arch/arm64/kernel/traps.c handle_bad_stack, 4.14-6.18), riscv
    # (arch/riscv/kernel/traps.c, 5.16-6.18) and arm (arch/arm/kernel/traps.c, 6.2-6.18)
    # pr_emerg "Insufficient stack space to handle exception!" before panic("kernel stack
    # overflow"): x86's "BUG: stack guard page was hit" on those, s390's kernel_stack_overflow
    # "Kernel stack overflow." (before panic("Corrupt kernel stack, can't continue.")); MIPS
    # and LoongArch's BUG() (do_bp BRK_BUG: die_if_kernel("Kernel bug detected"), LoongArch's
    # bug_handler "Oops - BUG" from 6.1, printed as die()'s "%s[#%d]:"); KMSAN's report
    # "BUG: KMSAN: %s in %pS" (mm/kmsan/report.c, 6.1+: uninitialised memory used); x86's
    # IBT check "Missing ENDBR: %pS" (traps.c 5.18-6.5 with "traps: ", cet.c 6.6+), then
    # BUG(): an indirect call to a function built without an ENDBR landing pad (out-of-tree
    # modules such as NVIDIA's on Tiger Lake and later CPUs); the UBSAN trap's die
    # (CONFIG_UBSAN_TRAP, lib/ubsan.c report_ubsan_failure's "UBSAN: <check>" names):
    # arm64's die() "Internal error: UBSAN: %s: %016lx [#%d]" (ubsan_handler) and x86's
    # pr_crit "%s at %pS" (handle_bug, 6.12+) before its die
    wording(
        _BUG,
        r"^list_add double add: new=[0-9a-f]+, prev=[0-9a-f]+, next="
        r"|^slab error in \w+\(\): cache `[^']+': |^slab: Internal list corruption detected"
        r"|^usercopy: [Kk]ernel memory (?:exposure|overwrite) attempt detected (?:from|to) "
        r"|^Insufficient stack space to handle exception!"
        r"|^(?:Kernel bug detected|Oops - BUG)\[#\d+\]:"
        r"|^Kernel stack overflow\.$|^BUG: KMSAN: [\w-]+ in "
        r"|^(?:traps: )?Missing ENDBR: \S+"
        r"|^Internal error: UBSAN: [\w ]+: [0-9a-f]+ \[#\d+\]|^UBSAN: [\w ]+ at \S+\+0x",
        (
            *("double", "slab", "usercopy", "Insufficient", "bug", "BUG", "overflow"),
            *("KMSAN", "ENDBR", "UBSAN"),
        ),
        formats=(
            Format(
                "list_add double add: new=%px, prev=%px, next=%px.",
                _LIST,
                "4.15-6.18",
                args=("ffff888102a4c0c8", "ffff888102a4c0c8", "ffff888102a4d0c8"),
            ),
            Format(
                "list_add double add: new=%p, prev=%p, next=%p.",
                _LIST,
                "4.4-4.14",
                args=("ffff880102a4c0c8", "ffff880102a4c0c8", "ffff880102a4d0c8"),
            ),
            Format(
                "slab error in %s(): cache `%s': %s",
                _SLAB,
                "4.4-6.4",
                args=("verify_redzone_free", "kmalloc-128", "double free detected"),
            ),
            Format(
                "slab: Internal list corruption detected in cache '%s'(%d), slabp %px(%d). "
                "Tainted(%s)",
                _SLAB,
                "4.15-6.4",
                args=("kmalloc-64", 32, "ffff888012345000", 12, "G    B"),
            ),
            Format(
                "Kernel memory %s attempt detected %s %s%s%s%s (offset %lu, size %lu)!",
                "mm/usercopy.c",
                "4.16-6.18",
                "usercopy: ",
                args=("exposure", "from", "SLUB object", " '", "kmalloc-64", "'", 0, 128),
            ),
            Format(
                "kernel memory %s attempt detected %s %p (%s) (%lu bytes)",
                "mm/usercopy.c",
                "4.8-4.15",
                "usercopy: ",
                args=("overwrite", "to", "ffff880012345678", "kmalloc-64", 128),
            ),
            Format(
                "Insufficient stack space to handle exception!",
                "arch/arm64/kernel/traps.c",
                "4.14-6.18",
            ),
            Format(
                "Insufficient stack space to handle exception!",
                "arch/riscv/kernel/traps.c",
                "5.16-6.18",
            ),
            Format("%s[#%d]:", _MIPS, "4.4-6.18", args=("Kernel bug detected", 1)),
            Format(
                "%s[#%d]:",
                "arch/loongarch/kernel/traps.c",
                "5.19-6.0",
                args=("Kernel bug detected", 1),
            ),
            Format("%s[#%d]:", "arch/loongarch/kernel/traps.c", "6.1-6.18", args=("Oops - BUG", 1)),
            Format("Kernel stack overflow.", "arch/s390/kernel/traps.c", "4.4-5.x"),
            Format(
                "BUG: KMSAN: %s in %pS",
                "mm/kmsan/report.c",
                "6.1-6.18",
                args=("uninit-value", "__skb_flow_dissect+0x1a2/0x2d40"),
            ),
            Format(
                "Missing ENDBR: %pS",
                "arch/x86/kernel/traps.c",
                "5.18-6.5",
                "traps: ",
                args=("_nv011159rm+0x0/0x40 [nvidia]",),
            ),
            Format(
                "Missing ENDBR: %pS",
                "arch/x86/kernel/cet.c",
                "6.6-6.18",
                args=("_nv011159rm+0x0/0x40 [nvidia]",),
            ),
            Format(
                "Internal error: %s: %016lx [#%d] PREEMPT SMP",
                "arch/arm64/kernel/traps.c",
                "6.6-6.18",
                args=("UBSAN: array index out of bounds", 0xF2005512, 1),
            ),
            Format(
                "%s at %pS",
                "arch/x86/kernel/traps.c",
                "6.12-6.18",
                args=("UBSAN: integer addition overflow", "foo_ioctl+0x3c/0x120"),
            ),
        ),
    ),
    # the lines under a KASAN or KFENCE header, where a cut lost it: mm/kasan/report.c
    # print_error_description's "%s of size %zu at addr %px by task %s/%d" (Read, Write;
    # 4.4-6.18, %p before 4.15) and mm/kfence/report.c's "Out-of-bounds %s at 0x%p (%luB %s
    # of kfence-#%td):" and "Use-after-free %s at 0x%p (in kfence-#%td):" (5.12-6.18): the
    # report's own lines, counted with its header (context)
    wording(
        _BUG,
        r"^(?:Read|Write) of size \d+ at addr [0-9a-f]+ by task \S"
        r"|^(?:Out-of-bounds|Use-after-free) (?:read|write) at 0x[0-9a-f]+ "
        r"\((?:\d+B (?:left|right) of|in) kfence-#\d+\):",
        ("Read", "Write", "kfence"),
        context=True,
        formats=(
            Format(
                "%s of size %zu at addr %px by task %s/%d",
                "mm/kasan/report.c",
                "4.15-6.18",
                args=("Write", 8, "ffff888101234560", "kworker/0:1", 123),
            ),
            Format(
                "Out-of-bounds %s at 0x%p (%luB %s of kfence-#%td):",
                "mm/kfence/report.c",
                "5.12-6.18",
                args=("read", "ffff8c3f2e291fcc", 4, "left", 72),
            ),
            Format(
                "Use-after-free %s at 0x%p (in kfence-#%td):",
                "mm/kfence/report.c",
                "5.12-6.18",
                args=("write", "ffff8c3f2e291fcc", 72),
            ),
        ),
    ),
    # die() headers and fault reports kernel.py's oops does not read: s390's die()
    # (arch/s390/kernel/dumpstack.c, arch/s390/kernel/traps.c 4.4) "%s: %04x ilc:%d [#%d] "
    # with the trap's name ("illegal operation", "specification exception", "addressing
    # exception", "Translation exception", … from do_report_trap; "Oops" from the fault
    # path, which kernel.py reads already) and its fault path's "Unable to handle kernel
    # pointer dereference in virtual %s address space" (arch/s390/mm/fault.c); MIPS and
    # LoongArch die() "%s[#%d]:" with no space ("Oops", "Reserved instruction in kernel code",
    # "Break instruction in kernel code", "Unhandled kernel unaligned access", "Integer
    # overflow"); the bad_mode handlers of arm ("Bad mode in %s handler detected", then
    # die("Oops - bad mode")) and arm64 ("Bad mode in %s handler detected on CPU%d, code
    # 0x%08x -- %s", 4.10-5.10, then panic("bad mode")); x86's show_fault_oops pr_crit
    # "kernel tried to execute NX-protected page - exploit attempt? (uid: %d)" and "unable
    # to execute userspace code (SMEP?) (uid: %d)" (arch/x86/mm/fault.c, 4.4-6.18), before
    # its "BUG: unable to handle page fault", and powerpc's bad_kernel_fault (arch/powerpc/mm/
    # fault.c) "kernel tried to execute %s page (%lx) - exploit attempt? (uid: %d)" and its
    # KUAP check's "Kernel attempted to %s user page (%lx) - exploit attempt? (uid: %d)"
    # (5.8+: access, read, write), before its "BUG: Unable to handle kernel data access";
    # the dump's "Thread overran stack, or stack
    # corrupted" (x86 fault.c 4.4-5.x, arch/x86/kernel/dumpstack.c), its task's stack end
    # overwritten
    wording(
        _OOPS,
        r"^(?!Oops: )[A-Za-z][\w ()-]{0,60}: [0-9a-f]{4} ilc:\d \[#\d+\]"
        r"|^Unable to handle kernel pointer dereference in virtual \w+ address space"
        r"|^(?:Oops|(?:Reserved|Break|Trap) instruction in kernel code"
        r"|Unhandled kernel unaligned access|Integer overflow)\[#\d+\]:"
        r"|^Bad mode in [\w ]+ handler detected"
        r"|^kernel tried to execute (?:NX-protected|exec-protected|user) page (?:\([0-9a-f]+\) )?"
        r"- exploit attempt\?|^Kernel attempted to (?:access|read|write) user page \([0-9a-f]+\) "
        r"- exploit attempt\?"
        r"|^unable to execute userspace code \(SMEP\?\)|^Thread overran stack, or stack corrupted",
        (
            *("ilc", "Unable", "Oops", "Reserved", "Break", "Trap", "unaligned", "overflow"),
            *("handler", "exploit", "SMEP", "overran"),
        ),
        formats=(
            Format(
                "%s: %04x ilc:%d [#%d] ",
                "arch/s390/kernel/dumpstack.c",
                "4.19-6.18",
                args=("illegal operation", 0x0001, 1, 1),
            ),
            Format(
                "%s: %04x ilc:%d [#%d] ",
                "arch/s390/kernel/dumpstack.c",
                "4.19-6.18",
                args=("specification exception", 0x0006, 3, 1),
            ),
            Format(
                "Unable to handle kernel pointer dereference in virtual %s address space",
                "arch/s390/mm/fault.c",
                "4.4-6.18",
                args=("kernel",),
            ),
            Format("%s[#%d]:", _MIPS, "4.4-6.18", args=("Oops", 1)),
            Format("%s[#%d]:", _MIPS, "4.4-6.18", args=("Reserved instruction in kernel code", 1)),
            Format("%s[#%d]:", _MIPS, "4.4-6.18", args=("Unhandled kernel unaligned access", 2)),
            Format("%s[#%d]:", "arch/loongarch/kernel/traps.c", "5.19-6.18", args=("Oops", 1)),
            Format(
                "Bad mode in %s handler detected",
                "arch/arm/kernel/traps.c",
                "4.4-6.18",
                args=("prefetch abort",),
            ),
            Format(
                "Bad mode in %s handler detected on CPU%d, code 0x%08x -- %s",
                "arch/arm64/kernel/traps.c",
                "4.10-5.10",
                args=("Synchronous Abort", 1, 0x86000005, "IABT (current EL)"),
            ),
            Format(
                "kernel tried to execute NX-protected page - exploit attempt? (uid: %d)",
                "arch/x86/mm/fault.c",
                "4.4-6.18",
                args=(0,),
            ),
            Format(
                "unable to execute userspace code (SMEP?) (uid: %d)",
                "arch/x86/mm/fault.c",
                "4.4-6.18",
                args=(1000,),
            ),
            Format("Thread overran stack, or stack corrupted", "arch/x86/mm/fault.c", "4.4-5.4"),
            Format(
                "kernel tried to execute %s page (%lx) - exploit attempt? (uid: %d)",
                "arch/powerpc/mm/fault.c",
                "4.19-6.18",
                args=("exec-protected", 0xC000000000ABC000, 0),
            ),
            Format(
                "Kernel attempted to %s user page (%lx) - exploit attempt? (uid: %d)",
                "arch/powerpc/mm/fault.c",
                "5.8-6.18",
                args=("write", 0x7FFF8000, 0),
            ),
        ),
    ),
    # CONFIG_KASAN on x86: kasan_non_canonical_hook (mm/kasan/report.c, 5.5-6.18), called by
    # die_addr after the "general protection fault, probably for non-canonical address"
    # header, pr_alert "KASAN: %s in range [0x%016lx-0x%016lx]" ("null-ptr-deref",
    # "probably user-memory-access", "maybe wild-memory-access", "probably
    # wild-memory-access" 6.8+): the fault's address decoded, the same report
    wording(
        _GPF,
        r"^KASAN: (?:null-ptr-deref|(?:probably|maybe) [\w-]+-memory-access) in range "
        r"\[0x[0-9a-f]+-0x[0-9a-f]+\]",
        ("KASAN",),
        formats=(
            Format(
                "KASAN: %s in range [0x%016lx-0x%016lx]",
                "mm/kasan/report.c",
                "5.5-6.18",
                args=("null-ptr-deref", 0, 7),
            ),
            Format(
                "KASAN: %s in range [0x%016lx-0x%016lx]",
                "mm/kasan/report.c",
                "5.5-6.18",
                args=("maybe wild-memory-access", 0xDEAD000000000100, 0xDEAD000000000107),
            ),
        ),
    ),
    # WARN messages of the kernel's self-checks that print before (4.x: after) the WARNING
    # header: lib/refcount.c "refcount_t: increment on 0; use-after-free." (WARN_ONCE
    # 4.11-5.4, refcount_inc; kernel.py reads the later wording), x86's fast refcount
    # (CONFIG_ARCH_HAS_REFCOUNT, kernel/panic.c refcount_error_report 4.13-5.4)
    # WARN_RATELIMIT "refcount_t %s at %pB in %s[%d], uid/euid: %u/%u"; kernel/sched/core.c
    # finish_task_switch WARN_ONCE "corrupted preempt_count: %s/%d/0x%x" (4.4-6.18: a task
    # left preemption disabled); kernel/softirq.c __do_softirq pr_err "huh, entered softirq
    # %u %s %p with preempt_count %08x, exited with %08x?" (pr_fmt "softirq: " 4.4-6.18): a
    # softirq handler that leaked a lock or preempt count
    wording(
        _WARN,
        r"^refcount_t: increment on 0; use-after-free"
        r"|^refcount_t [\w ]{3,20} at \S+ in .{1,40}\[\d+\], uid/euid: "
        r"|^corrupted preempt_count: .{1,40}/\d+/0x[0-9a-f]+"
        r"|^(?:softirq: )?huh, entered softirq \d+ \w+ ",
        ("refcount_t", "preempt_count", "huh"),
        formats=(
            Format("refcount_t: increment on 0; use-after-free.", "lib/refcount.c", "4.11-5.4"),
            Format(
                "refcount_t %s at %pB in %s[%d], uid/euid: %u/%u",
                "kernel/panic.c",
                "4.13-5.4",
                args=("overflow", "nf_conntrack_in+0x41/0x4b0", "python3", 4123, 0, 0),
            ),
            Format(
                "corrupted preempt_count: %s/%d/0x%x",
                "kernel/sched/core.c",
                "4.4-6.18",
                args=("kworker/3:1", 123, 2),
            ),
            Format(
                "huh, entered softirq %u %s %p with preempt_count %08x, exited with %08x?",
                "kernel/softirq.c",
                "4.4-6.18",
                "softirq: ",
                args=(3, "NET_RX", "ffffffff81a2b3c0", 0x100, 0x101),
            ),
        ),
    ),
    # kernel/locking: include/linux/debug_locks.h DEBUG_LOCKS_WARN_ON(c) WARN(1,
    # "DEBUG_LOCKS_WARN_ON(%s)", #c) (mutex, rwsem, rtmutex and lockdep's own checks: an
    # unlock of a lock not held, a lock's magic overwritten), kernel/locking/rwsem.c's
    # DEBUG_RWSEMS_WARN_ON(c, sem) "DEBUG_RWSEMS_WARN_ON(%s): count = 0x%lx, magic = 0x%lx,
    # owner = 0x%lx, curr 0x%lx, list %sempty" (5.3+, a rw_semaphore released by a task
    # that does not hold it); lockdep.c
    # print_lock_invalid_wait_context "[ BUG: Invalid wait context ]" (5.7-6.18: a sleeping
    # lock taken under a spinning one) and print_lock_nested_lock_not_held "WARNING: Nested
    # lock was not taken" (4.14-6.18; "[ BUG: Nested lock was not taken ]" before)
    wording(
        _LOCKDEP,
        r"^DEBUG_(?:LOCKS|RWSEMS)_WARN_ON\(|^\[ BUG: Invalid wait context \]"
        r"|^(?:WARNING: |\[ BUG: )Nested lock was not taken",
        ("DEBUG_LOCKS_WARN_ON", "DEBUG_RWSEMS_WARN_ON", "Invalid", "Nested"),
        formats=(
            Format(
                "DEBUG_LOCKS_WARN_ON(%s)",
                "include/linux/debug_locks.h",
                "4.4-6.18",
                args=("lock->magic != lock",),
            ),
            Format(
                "DEBUG_RWSEMS_WARN_ON(%s): count = 0x%lx, magic = 0x%lx, owner = 0x%lx, curr "
                "0x%lx, list %sempty",
                "kernel/locking/rwsem.c",
                "5.3-6.18",
                args=("sem->magic != sem", 0, 0, 1, 0xFFFF888012345678, "not "),
            ),
            Format("[ BUG: Invalid wait context ]", _LOCKDEP_C, "5.7-6.18"),
            Format("WARNING: Nested lock was not taken", _LOCKDEP_C, "4.14-6.18"),
        ),
    ),
)
