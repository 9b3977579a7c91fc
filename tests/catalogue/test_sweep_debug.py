"""Wordings from the source sweep of the kernel's debugging and corruption detectors, the
arch die() headers and kernel-core leftovers (kmsgd/catalogue/sweep_debug.py): each as its
format prints it behind its printing macro's prefix, read through kmsgd's reader, and the
routine lines beside it that must not be read as it."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording, paste_primary, tags_of

# tag → (lines that carry it, lines with the same words that must not)
SWEEP_DEBUG_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "kernel_bug": (
        [
            "list_add double add: new=ffff888102a4c0c8, prev=ffff888102a4c0c8, "
            "next=ffff888102a4d0c8.",
            "slab error in verify_redzone_free(): cache `kmalloc-128': double free detected",
            "slab error in cache_free_debugcheck(): cache `dentry': double free, or memory "
            "outside object was overwritten",
            "slab: Internal list corruption detected in cache 'kmalloc-64'(32), slabp "
            "ffff888012345000(12). Tainted(G    B)",
            "usercopy: Kernel memory exposure attempt detected from SLUB object 'kmalloc-64' "
            "(offset 0, size 128)!",
            "usercopy: Kernel memory overwrite attempt detected to SLUB object 'task_struct' "
            "(offset 1024, size 4096)!",
            "usercopy: kernel memory overwrite attempt detected to ffff880012345678 (kmalloc-64) "
            "(128 bytes)",
            "Insufficient stack space to handle exception!",
            "Kernel bug detected[#1]:",
            "Oops - BUG[#1]:",
            "Write of size 8 at addr ffff888101234560 by task kworker/0:1/123",
            "Read of size 4 at addr ffffffc114f5bf18 by task kworker/u17:14/705",
            "Out-of-bounds read at 0xffff8c3f2e291fcc (4B left of kfence-#72):",
            "Use-after-free write at 0xffff8c3f2e291fcc (in kfence-#72):",
            "Kernel stack overflow.",
            "BUG: KMSAN: uninit-value in __skb_flow_dissect+0x1a2/0x2d40",
            "BUG: KMSAN: kernel-infoleak in instrument_copy_to_user+0x3c/0x70",
            "traps: Missing ENDBR: _nv011159rm+0x0/0x40 [nvidia]",
            "Missing ENDBR: __pfx_foo+0x0/0x10 [foo]",
            "Internal error: UBSAN: array index out of bounds: 00000000f2005512 [#1] PREEMPT SMP",
            "UBSAN: integer addition overflow at foo_ioctl+0x3c/0x120 [foo]",
        ],
        [
            # a slab's own routine lines, kmemleak's, lockdep switching itself off
            "SLUB: HWalign=64, Order=0-3, MinObjects=0, CPUs=64, Nodes=2",
            "kmem_cache_destroy kmalloc-test: Slab cache still has objects",
            "BUG: MAX_LOCKDEP_KEYS too low!",
            "BUG: MAX_STACK_TRACE_ENTRIES too low!",
            "Task stack:     [0xffff800012a18000..0xffff800012a1c000]",
            "Bluetooth: hci0: unexpected event 0x0e length: 5 > 4 (double)",
            # the panic after s390's stack overflow is the panic's; CET's boot line
            "Kernel panic - not syncing: Corrupt kernel stack, can't continue.",
            "x86/cpu: User Mode Instruction Prevention (UMIP) activated",
            "CET detected: Indirect Branch Tracking enabled",
            "kmsan: KernelMemorySanitizer initialized",
            "kfence: initialized - using 2097152 bytes for 255 objects at 0x(____ptrval____)",
            "Read of size 4096 done",
        ],
    ),
    "oops": (
        [
            "illegal operation: 0001 ilc:1 [#1] PREEMPT SMP",
            "specification exception: 0006 ilc:3 [#1] SMP DEBUG_PAGEALLOC",
            "Unable to handle kernel pointer dereference in virtual kernel address space",
            "Oops[#1]:",
            "Reserved instruction in kernel code[#1]:",
            "Trap instruction in kernel code[#1]:",
            "Unhandled kernel unaligned access[#2]:",
            "Bad mode in Synchronous Abort handler detected on CPU1, code 0x86000005 -- IABT "
            "(current EL)",
            "Bad mode in prefetch abort handler detected",
            "kernel tried to execute NX-protected page - exploit attempt? (uid: 0)",
            "unable to execute userspace code (SMEP?) (uid: 1000)",
            "Thread overran stack, or stack corrupted",
            "kernel tried to execute exec-protected page (c000000000abc000) - exploit attempt? "
            "(uid: 0)",
            "Kernel attempted to write user page (7fff8000) - exploit attempt? (uid: 0)",
        ],
        [
            # a user process's trap is a signal, not a kernel fault
            "traps: python3[1234] general protection fault ip:7f12345678 sp:7ffc12345678 "
            "error:0 in libc.so.6[7f1234500000+195000]",
            "traps: python3[1234] trap invalid opcode ip:7f12345678 sp:7ffc12345678 error:0 in "
            "libc.so.6[7f1234500000+195000]",
            "python3[1234]: segfault at 0 ip 00007f12345678 sp 00007ffc12345678 error 4 in "
            "libc.so.6[7f1234500000+195000]",
            "NX (Execute Disable) protection: active",
            "x86/cpu: SMEP enabled",
            "Oops[#1]",
        ],
    ),
    "general_protection_fault": (
        [
            "KASAN: null-ptr-deref in range [0x0000000000000000-0x0000000000000007]",
            "KASAN: maybe wild-memory-access in range [0xdead000000000100-0xdead000000000107]",
            "KASAN: probably user-memory-access in range [0x0000000000001000-0x0000000000001007]",
        ],
        [
            "kasan: KernelAddressSanitizer initialized",
            "KASAN: vmalloc enabled",
        ],
    ),
    "kernel_warning": (
        [
            "refcount_t: increment on 0; use-after-free.",
            "refcount_t overflow at nf_conntrack_in+0x41/0x4b0 in python3[4123], uid/euid: 0/0",
            "corrupted preempt_count: kworker/3:1/123/0x2",
            "softirq: huh, entered softirq 3 NET_RX ffffffff81a2b3c0 with preempt_count "
            "00000100, exited with 00000101?",
        ],
        [
            # an oops's task exits in atomic context: the oops is the event
            "note: python3[4123] exited with preempt_count 1",
            "refcount_t: dismissed",
        ],
    ),
    "lockdep_warning": (
        [
            "DEBUG_LOCKS_WARN_ON(lock->magic != lock)",
            "DEBUG_LOCKS_WARN_ON(__owner_task(owner) != get_current())",
            "DEBUG_RWSEMS_WARN_ON(sem->magic != sem): count = 0x0, magic = 0x0, owner = 0x1, "
            "curr 0xffff888012345678, list empty",
            "[ BUG: Invalid wait context ]",
            "WARNING: Nested lock was not taken",
        ],
        [
            "INFO: lockdep is turned off.",
            "BUG: MAX_LOCK_DEPTH too low!",
            "ACPI: Invalid wait context in _PS0",
        ],
    ),
    "clocksource_unstable": (
        [
            "clocksource: timekeeping watchdog on CPU3: wd-tsc-wd excessive read-back delay of "
            "153762ns vs. limit of 125000ns, wd-wd read-back delay only 3452ns, attempt 3, "
            "marking tsc unstable",
            "clocksource: timekeeping watchdog on CPU3: hpet read-back delay of 153762ns, "
            "attempt 3, marking unstable",
        ],
        [
            "clocksource: timekeeping watchdog on CPU3: hpet retried 2 times before success",
            "clocksource: Long readout interval, skipping watchdog check: cs_nsec: 1234 "
            "wd_nsec: 1234",
            "clocksource: Switched to clocksource hpet",
        ],
    ),
    "csd_lock_timeout": (
        [
            "csd: Detected non-responsive CSD lock (#1) on CPU#3, waiting 5000000042 ns for "
            "CPU#55 flush_tlb_func+0x0/0xb0(0xffff8e0b3e2afbe8).",
            "smp: csd: Detected non-responsive CSD lock (#1) on CPU#0, waiting 5001000000 ns "
            "for CPU#01 do_nothing+0x0/0x10(0x0).",
            "csd: Continued non-responsive CSD lock (#1) on CPU#3, waiting 10000000084 ns for "
            "CPU#55 flush_tlb_func+0x0/0xb0(0xffff8e0b3e2afbe8).",
        ],
        [
            # its recovery and the report's detail lines
            "csd: CSD lock (#1) got unstuck on CPU#03, CPU#55 released the lock.",
            " csd: CSD lock (#1) unresponsive.",
            " csd: cnt(0000000): 0000->0000 queue",
        ],
    ),
    "bad_page_state": (
        ["BUG: Bad page cache in process qemu-system-x86  pfn:37aa00"],
        ["page dumped because: still mapped when deleted"],
    ),
    "page_allocation_failure": (
        ["vmap allocation for size 4198400 failed: use vmalloc=<size> to increase size"],
        ["vmalloc: 512 MiB reserved for the kernel's vmap area"],
    ),
    "rt_throttling": (
        ["sched: RT throttling activated"],
        ["sched: RT throttling deactivated", "NET: throttling activated on eth0"],
    ),
    "kmemleak_leak": (
        ["kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"],
        [
            "kmemleak: Kernel memory leak detector initialized (mem pool available: 36041)",
            "kmemleak: Automatic memory scanning thread started",
            "kmemleak: Kernel memory leak detector disabled",
        ],
    ),
    "hrtimer_interrupt_slow": (
        ["hrtimer: interrupt took 11082175 ns"],
        ["hrtimer: interrupt handler registered"],
    ),
    "printk_messages_dropped": (
        ["** 127 printk messages dropped **", "** 17 printk messages dropped ** "],
        ["eth0: 12 packets dropped", "printk: systemd: 2 output lines suppressed"],
    ),
}


@pytest.mark.parametrize("tag", sorted(SWEEP_DEBUG_EXAMPLES))
def test_the_source_wording_matches_and_the_lines_beside_it_do_not(tag: str) -> None:
    check_wording(SWEEP_DEBUG_EXAMPLES, tag, tags_of)


def test_a_kasan_report_is_one_event_and_its_access_line_shows_it_when_cut() -> None:
    header = "BUG: KASAN: slab-use-after-free in amdgpu_vm_bo_update+0x4f/0x980 [amdgpu]"
    access = "Read of size 8 at addr ffff888101234560 by task kworker/0:1/123"
    assert paste_primary(_log(header, access)) == "kernel_bug"
    assert paste_primary(_log(access)) == "kernel_bug"


def test_the_stack_protector_panic_stays_the_panic_s() -> None:
    line = "Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: f+0x1/0x2"
    assert tags_of(line) == {"kernel_panic"}


def _log(*lines: str) -> str:
    return "".join(f"[{100 + n}.000000] {line}\n" for n, line in enumerate(lines))


@pytest.mark.parametrize(
    "line",
    [
        "sched: RT throttling activated",
        "hrtimer: interrupt took 11082175 ns",
        "** 127 printk messages dropped **",
        "kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
    ],
)
def test_a_routine_notice_never_leads_a_failure_after_it(line: str) -> None:
    text = _log(line, "watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [kworker/1:2:77]")
    assert paste_primary(text) == "soft_lockup"


@pytest.mark.parametrize(
    "line",
    [
        "sched: RT throttling activated",
        "hrtimer: interrupt took 11082175 ns",
        "** 127 printk messages dropped **",
    ],
)
def test_an_information_line_alone_is_no_culprit(line: str) -> None:
    assert paste_primary(_log(line)) is None
