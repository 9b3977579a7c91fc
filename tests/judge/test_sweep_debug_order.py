"""The culprit order of the debug sweep's families (kmsgd/judge/chains.py): a cross-CPU call
that its target CPU never answered (kernel/smp.c csd_lock_wait_toolong) leads the waiting
CPU's soft lockup and the RCU stall behind it; a CPU stuck with interrupts off (the NMI
watchdog's hard lockup) leads the CSD report of the IPIs it never answered."""

from __future__ import annotations

from tests.catalogue.lines import paste_primary

CSD = (
    "csd: Detected non-responsive CSD lock (#1) on CPU#3, waiting 5000000042 ns for CPU#55 "
    "flush_tlb_func+0x0/0xb0(0xffff8e0b3e2afbe8)."
)


def _log(*lines: str) -> str:
    return "".join(f"[{100 + n}.000000] {line}\n" for n, line in enumerate(lines))


def test_an_unanswered_ipi_leads_the_waiter_s_soft_lockup_and_rcu_stall() -> None:
    text = _log(
        CSD,
        " csd: CSD lock (#1) unresponsive.",
        "Sending NMI from CPU 3 to CPUs 55:",
        "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:",
        "watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [python3:4123]",
    )
    assert paste_primary(text) == "csd_lock_timeout"


def test_a_hard_lockup_leads_the_csd_report_of_the_ipis_it_never_answered() -> None:
    text = _log(
        "NMI watchdog: Watchdog detected hard LOCKUP on cpu 55",
        CSD,
        "watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [python3:4123]",
    )
    assert paste_primary(text) == "hard_lockup"


def test_a_csd_lock_that_came_unstuck_is_still_the_event() -> None:
    text = _log(CSD, "csd: CSD lock (#1) got unstuck on CPU#03, CPU#55 released the lock.")
    assert paste_primary(text) == "csd_lock_timeout"


def test_an_overflowed_kernel_stack_leads_the_panic_it_ends_in() -> None:
    # arch/arm64/kernel/traps.c handle_bad_stack: pr_emerg, then panic("kernel stack overflow")
    text = _log(
        "Insufficient stack space to handle exception!",
        "Task stack:     [0xffff800012a18000..0xffff800012a1c000]",
        "Kernel panic - not syncing: kernel stack overflow",
    )
    assert paste_primary(text) == "kernel_bug"


def test_a_kasan_report_leads_the_oops_and_panic_after_it() -> None:
    text = _log(
        "BUG: KASAN: slab-use-after-free in nvme_complete_rq+0x2c/0x110",
        "Read of size 8 at addr ffff888101234560 by task kworker/0:1/123",
        "general protection fault, probably for non-canonical address 0xdffffc0000000001: "
        "0000 [#1] PREEMPT SMP KASAN NOPTI",
        "KASAN: null-ptr-deref in range [0x0000000000000008-0x000000000000000f]",
        "Kernel panic - not syncing: Fatal exception",
    )
    assert paste_primary(text) == "kernel_bug"
