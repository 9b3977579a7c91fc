"""A D-state pile-up an incident watched before the box died weighs in the verdict."""

from __future__ import annotations

from pathlib import Path

from scenario import Machine

from kmsgd.commands import lastboot
from kmsgd.report.model import Report
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind

TASK = {"pid": 4321, "tid": 4321, "comm": "llama-server", "in": "amdgpu_fence_wait_timeout"}


def _judge(m: Machine) -> Report:
    with RingReader(str(m.ring)) as r:
        opts = lastboot.Options(current_boot_id=m.boots[-1].boot_id)
        return lastboot.report(r, None, opts)


def _silent_death(tmp_path: Path, *, incident: bool) -> Report:
    m = Machine(tmp_path)
    b = m.boot()
    b.run(30)
    if incident:
        b.emit(Kind.INCIDENT, {"incident": 1, "record": "start", "trigger": "hung_task"}, True)
        for _ in range(3):
            b.emit(Kind.INCIDENT, {"incident": 1, "record": "procs", "blocked": [TASK]}, True)
            b.run(30)
    else:
        b.run(90)
    b.die()
    m.boot(after_s=900).run(2)
    return _judge(m)


def test_tasks_stuck_in_one_call_make_a_stayed_down_freeze_more_certain(tmp_path: Path) -> None:
    plain = _silent_death(tmp_path / "plain", incident=False)
    stuck = _silent_death(tmp_path / "stuck", incident=True)
    assert plain.outcome == stuck.outcome == "hard_freeze"
    assert (plain.confidence, stuck.confidence) == ("low", "medium")
    assert any(
        "incident: llama-server (4321) blocked in amdgpu_fence_wait_timeout" in e.why
        for e in stuck.evidence
    )
