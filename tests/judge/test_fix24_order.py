"""Culprit order added for batch 24: a report of code in atomic context (scheduling while
atomic, sleeping in invalid context) before the BUG_ON(in_interrupt()) of a call that code
may not make there (mm/vmalloc.c vunmap under iounmap) leads; the BUG follows from it, and
its arm64 die() ("Internal error: Oops - BUG") from the BUG."""

from __future__ import annotations

import pytest

from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord

BUG = "kernel BUG at mm/vmalloc.c:2355!"
DIE = "Internal error: Oops - BUG: 0 [#1] SMP"


def _primary(*messages: str) -> str | None:
    recs = [KernelRecord(m, 3, 0, n, (100 + 7 * n) * 10**6, "-") for n, m in enumerate(messages)]
    p = classify(Timeline.from_records(recs)).primary
    return None if p is None else p.tag


@pytest.mark.parametrize(
    ("atomic", "tag"),
    [
        ("BUG: scheduling while atomic: kworker/0:4/531/0x00000200", "scheduling_while_atomic"),
        (
            "BUG: sleeping function called from invalid context at mm/vmalloc.c:2200",
            "sleep_in_atomic",
        ),
    ],
)
def test_the_atomic_report_before_the_bug_leads(atomic: str, tag: str) -> None:
    assert _primary(atomic, "[qed_probe:488()]hw prepare failed", BUG, DIE) == tag


def test_a_bug_before_the_atomic_report_still_leads() -> None:
    # an oops's task exits in atomic context (kernel/exit.c): the earlier of the two leads
    swa = "BUG: scheduling while atomic: kworker/0:4/531/0x00000200"
    assert _primary(BUG, DIE, swa) == "kernel_bug"
