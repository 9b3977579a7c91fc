"""The kernel's self-checks corpus batch 23 (docs/accuracy.md) showed named only as a BUG or
a WARNING: the page allocator's bad page, scheduling and sleeping in atomic context, and
lockdep's reports (2.6's "[ INFO: … ]" banners and 4.x+'s "WARNING: …"), each as its source's
format string prints it (file named in the catalogue entry), the lines beside them that must
not match, and what the judge makes of them."""

from __future__ import annotations

import io

import pytest

from kmsgd.commands.analyze import analyze_report
from tests.catalogue.lines import check_wording, primary_of, tags_of

# tag → (positives, negatives)
FIX23A_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "bad_page_state": (
        [
            "BUG: Bad page state in process zabbix_agentd  pfn:46c479",
            "BUG: Bad page state in process swapper/6  pfn:145c6b",
            "Bad page state in process 'kded'",
            "BUG: Bad page map in process java  pte:800000036bd4c067 pmd:2e5e9d067",
            "BUG: Bad page map: 3 messages suppressed",
            "BUG: Bad page state: 12 messages suppressed",
        ],
        [
            # dump_page's lines, which VM_BUG_ON_PAGE prints too; the rss counter check
            "page dumped because: nonzero _count",
            "page:ffffea000f7afa78 count:-2 mapcount:0 mapping:          (null) index:0x0",
            "BUG: Bad rss-counter state mm:00000000b583043a type:MM_ANONPAGES val:-1",
            "Bad pagetable: 000d [#1] SMP PTI",
        ],
    ),
    "scheduling_while_atomic": (
        [
            "BUG: scheduling while atomic: kworker/0:2/20275/0x00000002",
            "BUG: scheduling while atomic: swapper/0/0/0x10000100",
            "BUG: scheduling while atomic: events/0/0x00000001/9",  # 2.6.18's order
        ],
        ["note: insmod[4242] exited with preempt_count 1"],
    ),
    "sleep_in_atomic": (
        [
            "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:586",
            "BUG: sleeping function called from invalid context at "
            "/opt/repos/linux-5.4.78/kernel/locking/mutex.c:281",
            "Debug: sleeping function called from invalid context at mm/slab.c:2472",
        ],
        ["in_atomic(): 1, irqs_disabled(): 1, non_block: 0, pid: 1193, name: insmod"],
    ),
    "lockdep_warning": (
        [
            "WARNING: possible circular locking dependency detected",
            "[ INFO: possible circular locking dependency detected ]",
            "[ INFO: possible circular locking dependency detected",  # a wrapped banner
            "WARNING: possible recursive locking detected",
            "[ INFO: inconsistent lock state ]",
            "WARNING: inconsistent lock state",
            "WARNING: possible irq lock inversion dependency detected",
            "WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected",
            "[ INFO: suspicious RCU usage. ]",
            "WARNING: suspicious RCU usage",
            "[ BUG: bad unlock balance detected! ]",
            "WARNING: held lock freed!",
            "WARNING: bad contention detected!",
            "WARNING: lock held when returning to user space!",
            "[ BUG: lock held when returning to user space! ]",
            "WARNING: kfdtest/2930 still has locks held!",
            "WARNING: kunit_try_catch/1770 still has locks held!",
        ],
        [
            "which lock already depends on the new lock.",
            "the existing dependency chain (in reverse order) is:",
            "1 lock held by kfdtest/2930:",
            "tee/2267 is leaving the kernel with locks still held!",
            "WARNING: CPU: 3 PID: 4242 at kernel/locking/lockdep.c:4170 lock_release+0x1/0x2",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX23A_EXAMPLES))
def test_fix23a_wording(tag: str) -> None:
    check_wording(FIX23A_EXAMPLES, tag)


def test_the_self_checks_are_no_longer_kernel_bug_or_warning() -> None:
    # the specific tag replaces the generic one: the line is not counted twice
    for line in (
        "BUG: Bad page state in process python3  pfn:12345",
        "BUG: scheduling while atomic: swapper/0/0/0x00010000",
        "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:283",
    ):
        assert "kernel_bug" not in tags_of(line), line
    assert "kernel_warning" not in tags_of("WARNING: possible circular locking dependency detected")
    # the other BUG: self-checks stay kernel_bug
    assert "kernel_bug" in tags_of("BUG: KASAN: slab-use-after-free in f+0x1/0x2")


def test_an_oops_in_atomic_context_leads_its_exit_s_reports() -> None:
    assert (
        primary_of(
            "BUG: kernel NULL pointer dereference, address: 0000000000000008",
            "note: insmod[4242] exited with preempt_count 1",
            "BUG: scheduling while atomic: insmod/4242/0x00000002",
        )
        == "oops"
    )


def test_a_bad_page_leads_the_oops_of_its_user() -> None:
    bad = "BUG: Bad page state in process python3  pfn:12345"
    oops = "BUG: unable to handle page fault for address: ffffeb04c0000008"
    assert primary_of(bad, oops) == "bad_page_state"
    assert primary_of(oops, bad) == "oops"


def test_a_warned_sleep_leads_the_schedule_it_made() -> None:
    sia = "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:283"
    swa = "BUG: scheduling while atomic: kworker/0:2/20275/0x00000002"
    assert primary_of(sia, swa) == "sleep_in_atomic"


def test_a_lockdep_report_in_an_rsyslog_paste_is_the_culprit() -> None:
    # 4.x's "[ INFO: … ]" banner, the report's later lines carrying rsyslog's '#012'
    text = "\n".join(
        f"2016-03-26T20:52:22.5264{n:02d}+00:00 mira108 kernel: {m}"
        for n, m in enumerate(
            [
                "======================================================",
                "[ INFO: possible circular locking dependency detected ]",
                "4.5.0-ceph #1 Not tainted",
                "tp_fstore_op/28134 is trying to acquire lock:",
                "#012but task is already holding lock:",
                "#012which lock already depends on the new lock.",
            ]
        )
    )
    report, _ = analyze_report(io.BytesIO((text + "\n").encode()), name="paste")
    assert report.primary is not None and report.primary.tag == "lockdep_warning"
