"""The noise baseline (kmsgd/judge/history.py) counts a signature's events as the timeline
does: the other lines of a report (Signature.context: the OOM report's header and summary)
show the event and never count it again, so a healthy boot's rate compares with the judged
boot's."""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario import Machine

from kmsgd.judge.history import healthy_baseline
from kmsgd.ring.reader import RingReader

HEADER = (
    "python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
    "oom_score_adj=0"
)


def test_a_healthy_boots_oom_rate_counts_each_kill_once(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    b = m.boot()
    for n in range(4):  # four OOM kills in two hours, each with its whole report
        pid = 4242 + n
        b.log(HEADER, 4)
        b.log(
            "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,"
            f"global_oom,task_memcg=/user.slice,task=python3,pid={pid},uid=1000",
            6,
        )
        b.log(f"Out of memory: Killed process {pid} (python3) total-vm:1kB, anon-rss:1kB", 3)
        b.run(1800, every=600)
    b.shutdown()
    m.boot(after_s=60)
    with RingReader(str(m.ring)) as r:
        base = healthy_baseline(r, [m.boots[0].boot_id])
    assert base["oom_kill"] == pytest.approx(4 / 2, rel=0.05)  # kills per hour, not lines
