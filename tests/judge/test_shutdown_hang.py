"""A lockup, RCU stall or hung task after the shutdown began: the shutdown never finished,
so the boot ended in a freeze during shutdown, that lockup the culprit, not a clean end."""

from __future__ import annotations

import pytest

from kmsgd.judge.classify import classify
from kmsgd.judge.liveness import Liveness
from kmsgd.judge.ring_rules import MemoryFacts, RingFacts, decide
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord
from kmsgd.types import Outcome

SOFT = "watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [kworker/3:1:123]"
RCU = "rcu: INFO: rcu_sched self-detected stall on CPU"
HUNG = "INFO: task systemd-shutdow:1 blocked for more than 122 seconds."
SHUTDOWN = [
    "systemd-shutdown[1]: Syncing filesystems and block devices.",
    "systemd-shutdown[1]: Sending SIGTERM to remaining processes...",
]


def _timeline(*messages: str) -> Timeline:
    # systemd-shutdown writes to /dev/kmsg as a daemon (facility 3, src/basic/log.c)
    recs = [
        KernelRecord(m, 4, 3 if m.startswith("systemd-") else 0, n, (100 + n) * 10**6, "-")
        for n, m in enumerate(messages)
    ]
    return Timeline.from_records(recs)


@pytest.mark.parametrize(
    ("marker", "lockup", "tag"),
    [
        ("reboot: Restarting system", SOFT, "soft_lockup"),
        ("reboot: Power down", RCU, "rcu_stall"),
        (SHUTDOWN[-1], HUNG, "hung_task"),
    ],
)
def test_a_lockup_after_the_shutdown_began_is_a_freeze_during_shutdown(
    marker: str, lockup: str, tag: str
) -> None:
    v = classify(_timeline(*SHUTDOWN, marker, lockup, "Modules linked in: amdgpu"))
    assert (v.outcome, v.reason) == (Outcome.HARD_FREEZE, "during_shutdown")
    assert v.primary is not None and v.primary.tag == tag


def test_that_lockup_is_the_culprit_over_an_earlier_failure() -> None:
    gpu = "amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3"
    v = classify(_timeline(gpu, *SHUTDOWN, "reboot: Restarting system", SOFT))
    assert v.primary is not None and v.primary.tag == "soft_lockup"


def test_a_lockup_before_a_finished_shutdown_leaves_it_clean() -> None:
    v = classify(_timeline(SOFT, *SHUTDOWN, "reboot: Restarting system"))
    assert v.outcome is Outcome.CLEAN_REBOOT and v.primary is None


def test_the_ring_keeps_a_freeze_during_shutdown() -> None:
    """last-boot: heartbeats alone would say the box came back at once; the kernel's
    lockup after the shutdown began says how the boot ended."""
    v = classify(_timeline(*SHUTDOWN, "reboot: Restarting system", SOFT), ended=True)
    live = Liveness(None, 0, 10**9, None, None, None, None, 0, None, (), 0, None, 0, 0)
    facts = RingFacts(live, False, 10**9 + 30 * 10**6, MemoryFacts(None, None, 0))
    d, errors = decide(v, facts)
    assert (d.outcome, d.reason, errors) == (Outcome.HARD_FREEZE, "during_shutdown", [])
