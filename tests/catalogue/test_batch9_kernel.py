"""Kernel-core wording corpus batch 9 (docs/accuracy.md) showed missing, and the sweep of
die()/oops/BUG/WARN/lockup/RCU wordings across architectures and versions that followed it:
each line as the source's format string prints it (file named in the catalogue entry), the
lines with the same words that must not match, and the culprit order of an oops whose header
a paste cut away (kmsgd/catalogue/indirect.py, kmsgd/judge/timeline.py)."""

from __future__ import annotations

import io

import pytest

from kmsgd.commands.analyze import analyze_report
from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.logparse.formats import parse_dmesg
from kmsgd.report.model import Report
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording, tags_of

# tag → (positives, negatives)
EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "oops": (
        [
            # die()'s panic: an oops came first (x86 oops_end, arm64 die())
            "Kernel panic - not syncing: Fatal exception",
            "Kernel panic - not syncing: Fatal exception in interrupt",
            "Kernel panic - not syncing: Oops: Fatal exception",
            "---[ end Kernel panic - not syncing: Fatal exception in interrupt ]---",
            # ARM32 data abort: die("") (arch/arm/mm/fault.c)
            "Internal error: : 81b [#1] SMP ARM",
            "Internal error: Oops - undefined instruction: 0 [#1] PREEMPT SMP ARM",
            "Internal error: synchronous external abort: 0000000096000210 [#1] PREEMPT SMP",
            # arm64, powerpc, riscv page faults
            "Unable to handle kernel read from unreadable memory at virtual address "
            "ffff800011deb000",
            "Unable to handle kernel access to user memory outside uaccess routines at virtual "
            "address 0000aaaae7c2a1b0",
            "BUG: Kernel NULL pointer dereference on read at 0x00000000",
            "BUG: Unable to handle kernel data access on write at 0xc00000000dead000",
            "BUG: Unable to handle kernel instruction fetch (NULL pointer?)",
            "Oops [#1]",
            "Oops - load access fault [#1]",
            # x86 traps other than the page fault
            "divide error: 0000 [#1] PREEMPT SMP NOPTI",
            "Oops: stack segment: 0000 [#1] PREEMPT SMP NOPTI",
            "double fault: 0000 [#1] SMP PTI",
            # lines only the die path prints
            "RIP  [<ffffffff8106cf9b>] kthread_data+0xb/0x20",
            "EIP: [<c10a2b3c>] kmem_cache_alloc+0x4c/0x120 SS:ESP 0068:f5c9de84",
            "#PF: supervisor read access in kernel mode",
            "#PF: error_code(0x0000) - not-present page",
            "Mem abort info:",
            "Fixing recursive fault but reboot is needed!",
            "Kernel panic - not syncing: Oopsed too often (kernel.oops_limit is 10000)",
            "Process kworker/0:2 (pid: 4242, stack limit = 0xc1a2b3c4)",
            "LE PAGE_SIZE=64K MMU=Radix SMP NR_CPUS=2048 NUMA PowerNV",
        ],
        [
            "Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
            "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000009",
            "Kernel panic - not syncing: Oops - BUG: Fatal exception",  # BUG(): kernel_bug
            # a user-mode fault (arm64 show_unhandled_signals) is a program's crash
            "python3[4242]: unhandled level 3 translation fault (11) at 0x00000008, esr "
            "0x92000007, in libc.so.6[ffff9a1c0000+180000]",
            "Unhandled fault: page domain fault (0x81b) at 0x00060004",  # printed for users too
            # show_regs, printed for WARNs and lockups as well: the IRQ-frame and user RIPs
            "RIP: 0010:native_safe_halt+0xe/0x10",
            "RIP: 0033:0x7f3c1a2b3c4d",
            "Internal error: invalid entry",
            "overflow: queue full",
            "Process accounting resumed",
            "PAGE_SIZE=4K",
        ],
    ),
    "kernel_bug": (
        [
            "Internal error: Oops - BUG: 0 [#1] PREEMPT SMP ARM",
            "Internal error: Oops - BUG: 00000000f2000800 [#1] SMP",
            "Kernel panic - not syncing: Oops - BUG: Fatal exception",
            "Kernel BUG [#1]",
            "BUG: KFENCE: use-after-free read in nvme_complete_rq+0x2c/0x110",
            "BUG: KASAN: slab-use-after-free in amdgpu_vm_bo_update+0x4f/0x980 [amdgpu]",
            "BUG: TASK stack guard page was hit at 00000000a1b2c3d4 (stack is "
            "00000000a1b2c3d4..00000000a1b2c3d4)",
            "list_del corruption, ffff8881003c4000->next is LIST_POISON1 (dead000000000100)",
            "list_add corruption. next->prev should be prev (ffff8881003c4000), but was "
            "0000000000000000. (next=ffff8881003c4008).",
        ],
        [
            # the kernel's self-checks with their own tags (sleep_in_atomic, …)
            "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:283",
            "BUG: soft lockup - CPU#3 stuck for 22s! [python3:1234]",
            "Kernel BUG at the gate",  # prose, no die counter
            "EXT4-fs error (device sda1): list corruption detected by fsck",
        ],
    ),
    "kernel_warning": (
        [
            # FreeBSD's linuxkpi and drm2 print a Linux WARN_ON as its condition
            "WARN_ON(domain->wake_count == 0)",
            "WARN_ON(!list_empty(&dev_priv->mm.active_list))",
            "WARNING domain->wake_count == 0 failed at /usr/src/sys/dev/drm/intel_uncore.c:412",
            "error: [drm:pid1234:intel_uncore_forcewake_reset] *ERROR* WARN ON: "
            "dev_priv->uncore.forcewake_count",
            # refcount_t and UBSAN report headers
            "refcount_t: underflow; use-after-free.",
            "UBSAN: array-index-out-of-bounds in drivers/gpu/drm/amd/pm/amdgpu_pm.c:1234:9",
            "UBSAN: Undefined behaviour in net/ipv4/tcp_input.c:3264:25",
        ],
        [
            "WARN_ON(1) hit in (foo) and then (bar)",  # prose about it, not the condition alone
            "WARNING: the NVIDIA driver is tainting the kernel",
            "refcount_t: a type for reference counts",
            # lockdep's reports are lockdep_warning's
            "WARNING: possible circular locking dependency detected",
            "WARNING: suspicious RCU usage",
        ],
    ),
    "rcu_stall": (
        [
            "tasks_rcu_exit_srcu_stall: rcu_tasks grace period number 37 (since boot) gp_state: "
            "RTGS_POST_SCAN_TASKLIST is 11222989 jiffies old.",
            "rcu: INFO: rcu_tasks_trace detected stalls on tasks:",
            "rcu: INFO: rcu_tasks_rude detected stalls on tasks:",
            "rcu: rcu_preempt kthread timer wakeup didn't happen for 2502 jiffies! g16813 f0x0 "
            "RCU_GP_WAIT_FQS(5) ->state=0x402",
        ],
        [
            "Please check any exiting tasks stuck between calls to exit_tasks_rcu_start() and "
            "exit_tasks_rcu_finish()",
            "rcu: Hierarchical RCU implementation.",
            "rcu: 	RCU restricting CPUs from NR_CPUS=8192 to nr_cpu_ids=16.",
        ],
    ),
    "hard_lockup": (
        [
            "watchdog: CPU 5 self-detected hard LOCKUP @ snooze_loop+0x9c/0x1d0",
            "watchdog: CPU 0 detected hard LOCKUP on other CPUs 5",
        ],
        ["watchdog: CPU 5 became unstuck after 12.3s"],
    ),
}


@pytest.mark.parametrize("tag", sorted(EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(EXAMPLES, tag)


def _timeline(*messages: str) -> Timeline:
    recs = [KernelRecord(m, 3, 0, n, n * 1_000_000, "-") for n, m in enumerate(messages, 1)]
    return Timeline.from_records(recs)


def _primary(*messages: str) -> str | None:
    verdict = classify(_timeline(*messages))
    return verdict.primary.tag if verdict.primary else None


def test_the_panic_that_ends_an_oops_whose_header_was_cut_is_the_oops() -> None:
    # the tail of an x86 register dump, then oops_end's panic (a trimmed paste)
    tail = (
        "RIP: 0010:amdgpu_ttm_tt_unpopulate+0x77/0xd0 [amdgpu]",
        "CR2: 0000000000000018",
        "RAX: 0000000000000000 RBX: ffff8c72d0b6e180 RCX: 0000000000000000",
    )
    assert _primary(*tail, "Kernel panic - not syncing: Fatal exception") == "oops"
    assert _primary(*tail, "Kernel panic - not syncing: Fatal exception in interrupt") == "oops"
    # a panic of its own says nothing of an oops
    assert _primary(*tail, "Kernel panic - not syncing: VFS: Unable to mount root fs") == (
        "kernel_panic"
    )
    # with the header in view, its own tag leads (the GPF, not a generic oops)
    gpf = "general protection fault, probably for non-canonical address 0xdead000000000100"
    assert _primary(gpf, *tail, "Kernel panic - not syncing: Fatal exception") == (
        "general_protection_fault"
    )


def test_the_oops_is_counted_once_with_its_header_and_its_panic() -> None:
    tl = _timeline(
        "BUG: kernel NULL pointer dereference, address: 0000000000000008",
        "#PF: supervisor read access in kernel mode",
        "Kernel panic - not syncing: Fatal exception",
    )
    assert [t.count for t in tl.stats("oops")] == [1]


ARM64_DUMP = (
    "CPU: 6 PID: 128 Comm: kworker/6:1 Not tainted 5.10.104 #1-NixOS",
    "Hardware name: Unknown NVIDIA Orin NX Developer Kit",
    "tegra194-pcie 140a0000.pcie: Using GICv2m MSI allocator",  # another driver, in between
    "Workqueue: events tegra_xudc_usb_role_sw_work",
    "pstate: 60c00009 (nZCv daif +PAN +UAO -TCO BTYPE=--)",
    "pc : tegra_xudc_unpowergate+0x148/0x760",
    "lr : tegra_xudc_unpowergate+0x120/0x760",
    "sp : ffff800011debba0",
    "x29: ffff800011debba0 x28: 0000000000000000",
)


def test_a_register_dump_whose_header_was_cut_is_an_oops() -> None:
    assert _primary(*ARM64_DUMP) == "oops"
    # arm (and arm64 before 4.16) print "PC is at", riscv "epc :", powerpc "NIP [...]"
    assert _primary("PC is at mwl_fwcmd_exec_cmd+0x64/0x1d4 [mwlwifi]") == "oops"
    assert _primary("epc : kmem_cache_alloc+0x246/0x570") == "oops"
    assert _primary("NIP [c0000000001a2b3c] xive_irq_eoi+0x2c/0x90") == "oops"
    # x86's is not: every interrupt frame of any stack trace prints one
    assert _primary("RIP: 0010:native_safe_halt+0xe/0x10") is None


@pytest.mark.parametrize(
    ("header", "tag"),
    [
        ("WARNING: CPU: 6 PID: 128 at drivers/usb/gadget/udc/tegra-xudc.c:712 f+0x1/0x2", None),
        ("watchdog: BUG: soft lockup - CPU#6 stuck for 23s! [kworker/6:1:128]", "soft_lockup"),
        ("NMI backtrace for cpu 6", None),
        ("sysrq: Show Regs", None),
        ("------------[ cut here ]------------", None),
    ],
)
def test_a_register_dump_below_its_report_header_is_that_report(
    header: str, tag: str | None
) -> None:
    """Every report that stops a CPU prints the same register dump (show_regs): below a WARN,
    a lockup or a backtrace it is part of that report, never an oops."""
    tl = _timeline(header, *ARM64_DUMP)
    assert not tl.stats("oops")
    if tag is not None:
        assert _primary(header, *ARM64_DUMP) == tag


def test_the_tail_of_a_4x_oops_is_an_oops() -> None:
    assert (
        _primary(
            "Code: 03 50 00 49 8b 04 24 48 85 c0 75 e6 e9 07 ff ff ff 0f 1f 44 00 00 66 2e",
            "RIP  [<ffffffff8106cf9b>] kthread_data+0xb/0x20",
            " RSP <ffff880064ecf420>",
            "CR2: ffffffffffffffd8",
            "---[ end trace 07e764b79299f641 ]---",
            "Fixing recursive fault but reboot is needed!",
        )
        == "oops"
    )


def test_an_arm32_data_abort_is_an_oops() -> None:
    assert (
        _primary(
            "Unhandled fault: page domain fault (0x81b) at 0x00060004",
            "pgd = c0004000",
            "[00060004] *pgd=00000000",
            "Internal error: : 81b [#1] SMP ARM",
        )
        == "oops"
    )


def test_a_freebsd_warn_on_is_a_warning_and_never_leads_the_hang() -> None:
    assert (
        _primary(
            "[drm] GPU HANG: ecode 7:0:0x87c3ffff, reason: Ring hung, action: reset",
            "WARN_ON(domain->wake_count == 0)",
            "drm/i915: Resetting chip after gpu hang",
        )
        == "i915_gpu_hang"
    )


# Older kernels' wordings of the same events (kernel/panic.c, mm/page_alloc.c, mm/oom_kill.c
# of 2.4): a log of a router or an appliance that never left 2.4 still names its failure.
OLD_WORDING = [
    ("Kernel panic: CPU context corrupt", "kernel_panic"),
    ("__alloc_pages: 0-order allocation failed (gfp=0x1d2/0)", "page_allocation_failure"),
    ("Out of Memory: Killed process 4242 (gammu-smsd).", "oom_kill"),
    ("VM: killing process gammu-smsd", "oom_kill"),
]


@pytest.mark.parametrize(("line", "tag"), OLD_WORDING)
def test_the_2_4_wordings_of_panic_allocation_failure_and_oom(line: str, tag: str) -> None:
    assert tag in tags_of(line)


def test_allocation_failures_lead_the_oom_kill_they_end_in() -> None:
    assert (
        _primary(
            "__alloc_pages: 0-order allocation failed (gfp=0x1d2/0)",
            "__alloc_pages: 0-order allocation failed (gfp=0x1d2/0)",
            "VM: killing process gammu-smsd",
        )
        == "page_allocation_failure"
    )
    # bare 2.4 lines, no stamp: read as the kernel's by their opening
    report = _analyze("__alloc_pages: 0-order allocation failed (gfp=0xf0/0)   \n\n")
    assert [s.tag for s in report.signatures] == ["page_allocation_failure"]


def _analyze(text: str) -> Report:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return report


def test_a_cpu_number_glued_to_the_stamp_is_not_part_of_the_message() -> None:
    """Lantiq/AVM MIPS kernels print the CPU after the stamp ("[  183.060000][0]WARNING: …");
    printk puts a space after its stamp, so "[N]" glued to it is that field."""
    for prefix in ("", "Feb 25 20:33:54 fritz kern.warn kernel: "):
        report = _analyze(
            f"{prefix}[  183.060000][0]WARNING: at drivers/net/kdsld.c:1915 "
            "kdsld_net_xmit+0x480/0x560 [kdsld]()\n"
        )
        assert [s.tag for s in report.signatures] == ["kernel_warning"], prefix
    # with a space it is the message's own text
    fields = parse_dmesg("[  183.060000] [0] hello")
    assert fields is not None and fields.message == "[0] hello"
